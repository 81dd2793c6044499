"""The output guard (section 4) and argument checks (section 9)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from agentpager import Workspace
from agentpager.engine import lazytext
from agentpager.tools.args import Param
from agentpager.tools.errors import ToolError
from agentpager.tools.guard import GuardSettings, guard

TAIL = "\nUse more specific parameters or pagination to get remaining data."


def test_output_at_the_limit_is_unchanged() -> None:
    settings = GuardSettings(max_chars=10)
    assert guard(["0123456789"], "t", settings) == ("0123456789", False)


def test_cut_at_a_late_newline() -> None:
    output = "a" * 85 + "\n" + "b" * 30
    text, truncated = guard([output], "list_files", GuardSettings(max_chars=100))
    assert truncated
    assert text == "a" * 85 + "\n\n[OUTPUT TRUNCATED]\nTool 'list_files' returned ~33 tokens, showing first ~24." + TAIL


def test_an_early_newline_is_ignored() -> None:
    output = "a" * 50 + "\n" + "b" * 100
    text, _ = guard([output], "t", GuardSettings(max_chars=100))
    assert text == output[:100] + "\n\n[OUTPUT TRUNCATED]\nTool 't' returned ~43 tokens, showing first ~28." + TAIL


def test_newline_exactly_at_80_percent_is_not_enough() -> None:
    output = "a" * 80 + "\n" + "b" * 100
    text, _ = guard([output], "t", GuardSettings(max_chars=100))
    assert text.startswith(output[:100] + "\n\n[OUTPUT TRUNCATED]")


def test_parts_are_cut_as_one_text() -> None:
    text, _ = guard(["abc", "\n" * 1, "d" * 200], "t", GuardSettings(max_chars=10, chars_per_token=1))
    assert text.startswith("abc\ndddddd\n\n[OUTPUT TRUNCATED]\nTool 't' returned ~204 tokens, showing first ~10.")


@pytest.mark.parametrize(
    ("max_env", "cpt_env", "expected"),
    [
        ("100", "2", GuardSettings(100, 2.0)),
        ("abc", "x", GuardSettings()),
        ("-5", "0", GuardSettings()),
        ("0", "-1", GuardSettings()),
        ("250.0", "4", GuardSettings(250, 4.0)),
    ],
)
def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch, max_env, cpt_env, expected) -> None:
    monkeypatch.setenv("QQ_MAX_TOOL_OUTPUT", max_env)
    monkeypatch.setenv("QQ_CHARS_PER_TOKEN", cpt_env)
    assert GuardSettings.from_env() == expected


def test_explicit_limit_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QQ_MAX_TOOL_OUTPUT", "100")
    assert GuardSettings.from_env(500).max_chars == 500
    assert GuardSettings.from_env(-1).max_chars == 100


def test_guard_applies_to_every_qq_output(root: Path) -> None:
    for n in range(30):
        (root / f"{'x' * 40}{n:02d}.txt").write_text("")
    result = Workspace(root, max_output_chars=200).call("list_files", {"limit": 100})
    assert result.truncated
    assert "\n\n[OUTPUT TRUNCATED]\nTool 'list_files' returned ~" in result.text


def test_lazy_and_eager_windows_give_the_same_output(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "f.txt").write_bytes(("é" * 30000 + "\r\n").encode() * 3 + b"tail\r")
    workspace = Workspace(root)
    eager = [workspace.call("read_file", {"path": "f.txt", "start_line": n}).text for n in (1, 2, 4)]
    monkeypatch.setattr(lazytext, "EAGER_BYTES", 0)
    lazy = [Workspace(root).call("read_file", {"path": "f.txt", "start_line": n}).text for n in (1, 2, 4)]
    assert lazy == eager
    assert eager[2].split("\n")[3] == "tail\r"


def test_a_huge_single_line_is_answered_in_bounded_memory(root: Path) -> None:
    line_bytes = 48 << 20
    with open(root / "one-line.txt", "wb") as out:
        for _ in range(line_bytes // (1 << 20)):
            out.write(b"0123456789abcdef" * (1 << 16))
    workspace = Workspace(root)
    tracemalloc.start()
    try:
        result = workspace.call("read_file", {"path": "one-line.txt"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    header = "[File: one-line.txt | Lines 1-1 of 1]\n[Note: Output limited to 200 lines max per request.]\n"
    footer = "\n[File read completed. Total lines: 1]"
    total = len(header) + 41 + line_bytes + 41 + len(footer)  # the two rules with their newlines
    assert result.truncated
    assert f"returned ~{int(total / 3.5)} tokens, showing first ~8000." in result.text
    assert peak < 12 << 20, f"peak Python allocation {peak / 2**20:.1f} MiB"


# -- section 9 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"start_line": "2"}, "[File: t.txt | Lines 2-3 of 3]"),
        ({"start_line": "+2"}, "[File: t.txt | Lines 2-3 of 3]"),
        ({"start_line": "002", "num_lines": "1"}, "[File: t.txt | Lines 2-2 of 3]"),
        ({"start_line": "-0"}, "Error: start_line must be >= 1 (got 0)."),
        ({"start_line": " 2"}, "Error: Invalid value for 'start_line': expected integer, got \" 2\"."),
        ({"start_line": "2.0"}, "Error: Invalid value for 'start_line': expected integer, got \"2.0\"."),
        ({"start_line": "٣"}, "Error: Invalid value for 'start_line': expected integer, got \"٣\"."),
        ({"start_line": 2.0}, "Error: Invalid value for 'start_line': expected integer, got 2.0."),
        ({"start_line": True}, "Error: Invalid value for 'start_line': expected integer, got true."),
        ({"start_line": None}, "Error: Invalid value for 'start_line': expected integer, got null."),
        ({"start_line": [1]}, "Error: Invalid value for 'start_line': expected integer, got [1]."),
        ({"path": 5}, "Error: Invalid value for 'path': expected string, got 5."),
        ({"path": None}, "Error: Invalid value for 'path': expected string, got null."),
    ],
)
def test_argument_values(root: Path, call, arguments: dict, expected: str) -> None:
    (root / "t.txt").write_text("1\n2\n3\n")
    result = call("read_file", **({"path": "t.txt"} | arguments))
    assert result.text.split("\n")[0] == expected


def test_booleans_must_be_json_booleans(call) -> None:
    assert call("list_files", recursive="true").text == (
        "Error: Invalid value for 'recursive': expected boolean, got \"true\"."
    )
    assert call("list_files", recursive=1).text == "Error: Invalid value for 'recursive': expected boolean, got 1."


def test_unknown_then_missing_then_values_in_schema_order(call) -> None:
    assert call("read_file", start_line="x", extra=1, more=2).text == (
        "Error: Unknown argument 'extra'. Valid arguments: path, start_line, num_lines."
    )
    assert call("read_file", start_line="x").text == "Error: Missing required argument 'path'."
    assert call("read_file", num_lines="y", start_line="x", path=1).text == (
        "Error: Invalid value for 'path': expected string, got 1."
    )
    assert call("read_file", num_lines="y", start_line="x", path="p").text == (
        "Error: Invalid value for 'start_line': expected integer, got \"x\"."
    )


def test_values_that_json_cannot_write_are_still_answered(call) -> None:
    result = call("read_file", path={1, 2})
    assert result.is_error and result.text.startswith("Error: Invalid value for 'path': expected string, got ")


def test_huge_integers(root: Path, call) -> None:
    (root / "t.txt").write_text("1\n")
    assert call("read_file", path="t.txt", start_line=10**30).text == (
        f"Start line {10**30} is out of bounds. Total lines: 1."
    )
    assert call("read_file", path="t.txt", start_line="9" * 5000).is_error


@pytest.mark.parametrize(
    ("overflow", "severity"),
    [
        (-5, "none"),
        (0, "none"),
        (1, "minor"),
        (999, "minor"),
        (1000, "major"),
        (49999, "major"),
        (50000, "catastrophic"),
    ],
)
def test_overflow_severity(overflow: int, severity: str) -> None:
    from agentpager.tools.guard import overflow_severity

    assert overflow_severity(overflow) == severity


def test_an_unknown_tool_is_answered_in_the_profiles_error_form(root: Path) -> None:
    assert Workspace(root).call("nope").text == "Error: Unknown tool 'nope'. Tools: read_file, list_files, count_files."
    assert Workspace(root, "forge").call("nope").text == '{\n  "error": "Unknown tool \'nope\'. Tools: fs_read."\n}'
    assert Workspace(root).call("nope").is_error


@pytest.mark.parametrize(("arguments", "shown"), [(5, "5"), (True, "true"), ([1], "[1]"), ("path", '"path"')])
def test_arguments_that_are_not_an_object(root: Path, arguments: object, shown: str) -> None:
    result = Workspace(root).call("read_file", arguments)
    assert (result.text, result.is_error) == (f"Error: Arguments must be a JSON object, got {shown}.", True)


@pytest.mark.parametrize(
    ("value", "expected"),
    [([2, -1], [2, -1]), (["3", 4], [3, 4]), ("[1, 20]", [1, 20]), ([], []), ([1, 2, 3], [1, 2, 3])],
)
def test_an_array_of_integers_as_sent_or_as_typed_in_a_form(value: object, expected: list[int]) -> None:
    assert Param("view_range", "integers", "lines", None).coerce(value) == expected


@pytest.mark.parametrize("value", [[1.5, 2], "1, 2", [True, 2], {"a": 1}, 7])
def test_what_is_not_an_array_of_integers(value: object) -> None:
    with pytest.raises(ToolError, match="expected an array of integers"):
        Param("view_range", "integers", "lines", None).coerce(value)
