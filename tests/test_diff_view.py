"""The coloured difference of a recorded output and its replay."""

from __future__ import annotations

from rich.console import Console

from agentpager.tui.diff_view import NO_NEWLINE, difference, unified


def plain(renderable, width: int = 100) -> str:  # noqa: ANN001
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_a_text_without_a_final_newline_is_not_joined_to_the_next_line() -> None:
    text = unified("a\nb", "a\nb\nc\n")
    assert text.plain == ("--- recorded\n+++ replayed now\n@@ -1,2 +1,3 @@\n a\n-b\n" + NO_NEWLINE + "\n+b\n+c\n")
    styles = {str(span.style) for span in text.spans}
    assert {"red", "green", "cyan", "bold"} <= styles


def test_side_by_side_where_there_is_room() -> None:
    shown = plain(difference("one\ntwo\n", "one\n2\n"), 160)
    assert [line.rstrip() for line in shown.splitlines()] == [
        "line │ recorded" + " " * 66 + "line │ replayed now",
        "   1 │ one" + " " * 71 + "   1 │ one",
        "   2 │ two" + " " * 71 + "   2 │ 2",
    ]
    assert plain(difference("x\n", "x\n"), 160).strip() == "(the same, byte for byte)"


def test_the_numbers_of_the_difference_are_set_apart_from_those_of_the_output() -> None:
    recorded = "".join(f"{n}\tvalue = {n}\n" for n in range(1, 5))
    shown = plain(difference(recorded, recorded.replace("value = 4", "value = 40")), 160).splitlines()
    assert shown[4].rstrip() == "   4 │ 4       value = 4" + " " * 57 + "   4 │ 4       value = 40"


def test_long_lines_wrap_within_their_own_side() -> None:
    recorded = "short\n" + "x" * 100 + "\n"
    shown = plain(difference(recorded, "short\n" + "y" * 100 + "\n"), 160).splitlines()
    assert [line.rstrip() for line in shown[2:]] == [
        "   2 │ " + "x" * 72 + "  " + "   2 │ " + "y" * 72,
        "     │ " + "x" * 28 + " " * 46 + "     │ " + "y" * 28,
    ]


def test_narrow_it_is_unified_and_long_lines_go_on_after_their_marker() -> None:
    shown = plain(difference("a\n" + "x" * 30 + "\n", "a\nb\n"), 20).splitlines()
    assert shown == [
        "--- recorded",
        "+++ replayed now",
        "@@ -1,2 +1,2 @@",
        " a",
        "-" + "x" * 19,
        "↪" + "x" * 11,
        "+b",
    ]
