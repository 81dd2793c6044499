"""Profile ``crush``: line ranges in fenced Markdown, symbols on full reads (section 7)."""

from __future__ import annotations

import ast
import os
import re
import warnings
from collections.abc import Iterable
from typing import Any

from agentpager.engine.lazytext import Text
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import (
    Call,
    Coverage,
    Opener,
    Profile,
    Shown,
    Tool,
    error_with_prefix,
    lines_covered,
    move_end_with_start,
)
from agentpager.tools.errors import ToolError

LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".go": "go",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".jsx": "jsx",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".java": "java",
    ".kt": "kotlin",
    ".rb": "ruby",
    ".php": "php",
    ".cs": "csharp",
    ".swift": "swift",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".md": "markdown",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".html": "html",
    ".css": "css",
    ".sql": "sql",
    ".xml": "xml",
}

SYMBOL_SOURCE_LIMIT = 2 << 20
"""Symbols are looked for in files up to this many bytes; bigger ones get no symbols section.

A full read of a file this big is always cut by the guard, but the guard's notice counts the symbols
section (section 4: ``returned ~{len(output)/cpt}``), so they are parsed even then; ``ast`` takes
about 200 bytes of memory per byte of dense source (a 16 MB file took 3.5 GB), 2 MB at most ~450 MB."""

_LEADING_TICKS = re.compile(r"[ \t]*(`*)")
_GO_FUNC = re.compile(r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)")
_GO_TYPE = re.compile(r"^type\s+([A-Za-z_]\w*)")


def file_read(call: Call, filename: str, start_line: int | None, end_line: int | None) -> str:
    if start_line is not None and start_line < 1:
        raise ToolError(f"start_line must be >= 1 (got {start_line}).")
    if end_line is not None and end_line < 1:
        raise ToolError(f"end_line must be >= 1 (got {end_line}).")
    if start_line is not None and end_line is not None and end_line < start_line:
        raise ToolError(f"end_line ({end_line}) must be >= start_line ({start_line}).")
    resolved = call.resolve(filename, "file")
    name = resolved.display
    content = call.text_of(resolved)
    is_document = content.classification.kind == "document"
    lang = "markdown" if is_document else LANGUAGES.get(os.path.splitext(name)[1].lower(), "")
    with content.file.open() as reader:
        total = reader.line_count()
        if start_line is None and end_line is None:
            body = reader.lines_text(1, total) if total else ""
            fence = _fence(body)
            head, tail = f"# File: {name}\n\n{fence}{lang}\n", f"\n{fence}"
            symbols = [] if is_document else _symbols(lang, body, reader.size)
            section = "\n\n## Symbols\n" + "\n".join(symbols) if symbols else ""
            return call.answer(head, body, tail + section)
        first = start_line or 1
        last = min(end_line or total, total)
        if first > total:
            raise ToolError(f"start_line {first} is beyond the end of the file ({total} lines).")
        body = reader.lines_text(first, last)
        fence = _fence(body)
        return call.answer(
            f"# File: {name} (Lines {first}-{last})\n\n{fence}{lang}\n",
            body,
            f"\n{fence}\n*Note: Partial read - analysis skipped.*",
        )


def _fence(text: Text) -> str:
    """Three backticks, or one more than the longest run of backticks that starts a line."""
    return "`" * max(3, _longest_leading_ticks((text,) if isinstance(text, str) else text) + 1)


def _longest_leading_ticks(chunks: Iterable[str]) -> int:
    """The longest run of backticks after a line's leading spaces and tabs, never holding a line."""
    longest = 0
    start = ""  # the current line so far, kept only while its leading run may still grow
    decided = False
    for chunk in chunks:
        for number, piece in enumerate(chunk.split("\n")):
            if number:
                start, decided = "", False
            if decided:
                continue
            start += piece
            match = _LEADING_TICKS.match(start)
            assert match is not None  # the pattern matches every string
            longest = max(longest, len(match.group(1)))
            if match.end() < len(start):
                start, decided = "", True
    return longest


def _symbols(lang: str, body: Text, size: int) -> list[str]:
    if lang not in ("python", "go") or size > SYMBOL_SOURCE_LIMIT:
        return []
    source = str(body)
    return _python_symbols(source) if lang == "python" else _go_symbols(source)


def _python_symbols(source: str) -> list[str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    symbols = []
    for node in tree.body:
        symbols.extend(_python_symbol(node, "- "))
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    symbols.extend(_python_symbol(member, "  - "))
    return symbols


def _python_symbol(node: ast.stmt, bullet: str) -> list[str]:
    if isinstance(node, ast.AsyncFunctionDef):
        kind = "async def"
    elif isinstance(node, ast.FunctionDef):
        kind = "def"
    elif isinstance(node, ast.ClassDef):
        kind = "class"
    else:
        return []
    return [f"{bullet}{kind} {node.name} (line {node.lineno})"]


def _go_symbols(source: str) -> list[str]:
    symbols = []
    for number, line in enumerate(source.split("\n"), start=1):
        if found := _GO_FUNC.match(line):
            symbols.append(f"- func {found.group(1)} (line {number})")
        elif found := _GO_TYPE.match(line):
            symbols.append(f"- type {found.group(1)} (line {number})")
    return symbols


class Crush(Profile):
    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        arguments: dict[str, Any] = {"filename": path}
        if shown is not None:
            arguments |= {"start_line": shown.top, "end_line": shown.bottom}
        return "file_read", arguments

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        return lines_covered(arguments["filename"], arguments["start_line"] or 1, arguments["end_line"], open_text)

    def text_offset(self, tool: str, arguments: dict[str, Any], output: str) -> int | None:
        """After the opening fence's line (the header's own line holds the path, so skip it first)."""
        if not output.startswith("# File: "):
            return None
        blank = output.find("\n\n`")
        fence_end = output.find("\n", blank + 2) if blank >= 0 else -1
        return None if fence_end < 0 else fence_end + 1

    def after_edit(self, tool: str, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
        return move_end_with_start(before, after, "start_line", "end_line")


PROFILE = Crush(
    name="crush",
    description="Line ranges of files as fenced Markdown; full reads add a symbols section.",
    error_form=error_with_prefix,
    tools=(
        Tool(
            ToolSpec(
                "file_read",
                "Read a file as a fenced Markdown code block. Give start_line and/or end_line "
                "(1-based, inclusive) to read a range; a full read also lists the Python or Go "
                "symbols it defines.",
                (
                    Param(
                        "filename",
                        "string",
                        "File path, relative to the workspace root or absolute inside it.",
                        is_path=True,
                    ),
                    Param("start_line", "integer", "First line to read (1-based).", None, minimum=1),
                    Param("end_line", "integer", "Last line to read (inclusive).", None, minimum=1),
                ),
            ),
            file_read,
        ),
    ),
)

PROFILES = (PROFILE,)
