"""crush file_read: fenced line ranges and symbols on full reads (contract section 7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from samples import write_docx

PY_SOURCE = '''"""Module."""
import os


@decorator
def top(a):
    return a


async def fetch():
    pass


class Shape:
    size = 1

    def area(self):
        def inner():
            pass

    async def load(self):
        pass


    class Nested:
        def hidden(self):
            pass
'''


def file_read(call, **arguments):
    return call("file_read", profile="crush", **arguments)


def test_full_python_read_with_symbols(root: Path, call) -> None:
    (root / "shapes.py").write_text(PY_SOURCE)
    result = file_read(call, filename="shapes.py")
    assert result.text == (
        "# File: shapes.py\n\n```python\n" + PY_SOURCE.rstrip("\n") + "\n```\n\n## Symbols\n"
        "- def top (line 6)\n"
        "- async def fetch (line 10)\n"
        "- class Shape (line 14)\n"
        "  - def area (line 17)\n"
        "  - async def load (line 21)"
    )


def test_partial_read(root: Path, call) -> None:
    (root / "shapes.py").write_text(PY_SOURCE)
    assert file_read(call, filename="shapes.py", start_line=6, end_line=7).text == (
        "# File: shapes.py (Lines 6-7)\n\n```python\ndef top(a):\n    return a\n```\n"
        "*Note: Partial read - analysis skipped.*"
    )


def test_partial_bounds(root: Path, call) -> None:
    (root / "t.txt").write_text("1\n2\n3\n")
    assert file_read(call, filename="t.txt", start_line=2).text.startswith(
        "# File: t.txt (Lines 2-3)\n\n```\n2\n3\n```"
    )
    assert file_read(call, filename="t.txt", end_line=99).text.startswith("# File: t.txt (Lines 1-3)\n")
    assert file_read(call, filename="t.txt", start_line=4).text == (
        "Error: start_line 4 is beyond the end of the file (3 lines)."
    )


def test_syntax_error_gives_no_symbols(root: Path, call) -> None:
    (root / "broken.py").write_text("def ok():\n    pass\ndef broken(:\n")
    assert file_read(call, filename="broken.py").text == (
        "# File: broken.py\n\n```python\ndef ok():\n    pass\ndef broken(:\n```"
    )


def test_go_symbols(root: Path, call) -> None:
    source = (
        "package main\n\ntype Server struct{}\n\nfunc (s *Server) Start() {}\nfunc main() {}\n  func indented() {}\n"
    )
    (root / "main.go").write_text(source)
    assert file_read(call, filename="main.go").text.endswith(
        "```\n\n## Symbols\n- type Server (line 3)\n- func Start (line 5)\n- func main (line 6)"
    )


def test_fence_grows_past_backtick_runs_at_line_starts(root: Path, call) -> None:
    (root / "doc.md").write_text("Intro\n  ````python\ncode\n````\nmid ````` not at start\n")
    assert file_read(call, filename="doc.md").text == (
        "# File: doc.md\n\n`````markdown\nIntro\n  ````python\ncode\n````\nmid ````` not at start\n`````"
    )
    (root / "short.md").write_text("``inline``\n")
    assert file_read(call, filename="short.md").text == "# File: short.md\n\n```markdown\n``inline``\n```"


def test_empty_file(root: Path, call) -> None:
    (root / "empty.py").write_bytes(b"")
    assert file_read(call, filename="empty.py").text == "# File: empty.py\n\n```python\n\n```"
    assert file_read(call, filename="empty.py", start_line=1).text == (
        "Error: start_line 1 is beyond the end of the file (0 lines)."
    )


@pytest.mark.parametrize(
    ("name", "lang"),
    [
        ("a.PY", "python"),
        ("a.tsx", "tsx"),
        ("a.hpp", "cpp"),
        ("a.zsh", "bash"),
        ("a.yml", "yaml"),
        ("Makefile", ""),
        ("a.txt", ""),
        ("a.cjs", "javascript"),
    ],
)
def test_language_by_extension(root: Path, call, name: str, lang: str) -> None:
    (root / name).write_text("x\n")
    assert file_read(call, filename=name, start_line=1).text.startswith(f"# File: {name} (Lines 1-1)\n\n```{lang}\n")


def test_documents_are_markdown(root: Path, call) -> None:
    write_docx(root / "spec.docx", ["def looks():"])
    assert file_read(call, filename="spec.docx").text == ("# File: spec.docx\n\n```markdown\ndef looks():\n```")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"start_line": 0}, "Error: start_line must be >= 1 (got 0)."),
        ({"end_line": 0}, "Error: end_line must be >= 1 (got 0)."),
        ({"start_line": 5, "end_line": 2}, "Error: end_line (2) must be >= start_line (5)."),
        ({"path": "x"}, "Error: Unknown argument 'path'. Valid arguments: filename, start_line, end_line."),
    ],
)
def test_errors(call, arguments: dict, message: str) -> None:
    result = file_read(call, filename="t.txt", **arguments)
    assert (result.text, result.is_error) == (message, True)


def test_missing_filename(call) -> None:
    assert call("file_read", profile="crush").text == "Error: Missing required argument 'filename'."


def test_guard_names_file_read(root: Path, call) -> None:
    (root / "big.txt").write_text("y" * 40000)
    assert "\nTool 'file_read' returned ~" in file_read(call, filename="big.txt").text


def test_the_guard_counts_the_symbols_it_cuts(root: Path) -> None:
    """Section 4 counts the whole output, the symbols section after the cut included."""
    from agentpager import Workspace

    source = "".join(f"def f{n}():\n    pass\n" for n in range(2000))  # 34,780 characters
    (root / "many.py").write_text(source)
    head = "# File: many.py\n\n```python\n"
    section = "\n\n## Symbols\n" + "\n".join(f"- def f{n} (line {2 * n + 1})" for n in range(2000))
    cut = (head + source)[:28000]
    cut = cut[: cut.rfind("\n")]
    expected = (
        f"{cut}\n\n[OUTPUT TRUNCATED]\nTool 'file_read' returned ~{int((len(head) + len(source) + 3 + len(section)) / 3.5)}"
        f" tokens, showing first ~{int(len(cut) / 3.5)}.\nUse more specific parameters or pagination to get remaining data."
    )
    assert Workspace(root, "crush").call("file_read", {"filename": "many.py"}).text == expected
    wide = Workspace(root, "crush", max_output_chars=10**6).call("file_read", {"filename": "many.py"}).text
    assert wide.endswith("\n```" + section)


def test_files_past_the_symbol_limit_are_not_parsed(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentpager import Workspace
    from agentpager.tools import crush

    (root / "big.py").write_text("def f():\n    pass\n" * 100)
    monkeypatch.setattr(crush, "SYMBOL_SOURCE_LIMIT", 1000)
    monkeypatch.setattr(crush, "_python_symbols", lambda source: pytest.fail("parsed"))
    text = Workspace(root, "crush", max_output_chars=10**6).call("file_read", {"filename": "big.py"}).text
    assert text.endswith("    pass\n```")
