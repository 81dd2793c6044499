"""Codex's ``read_file`` tool, as its rollout transcripts record it (offered only to internal test
models, and removed upstream): profile ``codex@read_file``.

Lines are split on ``\\n`` with a final ``\\r`` removed, shown as ``L{n}: {line}``, each cut at 500
bytes on a character boundary with no marker; errors are plain sentences.
"""

from __future__ import annotations

from typing import Any

from agentpager.engine.lazytext import join_lines
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import (
    Call,
    Coverage,
    Opener,
    Profile,
    Shown,
    Tool,
    lines_covered,
)
from agentpager.tools.errors import ToolError

MAX_LINE_BYTES = 500


def _cut(line: str) -> str:
    """The line, cut at MAX_LINE_BYTES of UTF-8 on a character boundary."""
    if len(line) * 4 <= MAX_LINE_BYTES:
        return line
    data = line.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_LINE_BYTES:
        return line
    return data[:MAX_LINE_BYTES].decode("utf-8", "ignore")


def read_file(call: Call, file_path: str, offset: int, limit: int) -> str:
    if offset < 1:
        raise ToolError("offset must be a 1-indexed line number")
    if limit < 1:
        raise ToolError("limit must be greater than zero")
    try:
        resolved = call.resolve(file_path, "file")
    except ToolError as error:
        if error.reason == "missing":
            raise ToolError("failed to read file: No such file or directory (os error 2)") from None
        raise
    with call.text_of(resolved).file.open() as reader:
        total = reader.line_count()
        if offset > total:
            raise ToolError("offset exceeds file length")
        # 500 characters hold at least 500 bytes: a prefix that long is all a cut line needs.
        prefixes = reader.line_prefixes(offset, min(total, offset + limit - 1), MAX_LINE_BYTES)
        return join_lines(
            f"L{number}: {_cut(text if cut else text.removesuffix(chr(13)))}"
            for number, (text, cut) in enumerate(prefixes, offset)
        )


class ReadFile(Profile):
    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        arguments: dict[str, Any] = {"file_path": path}
        if shown is not None:
            arguments |= {"offset": shown.top, "limit": shown.bottom - shown.top + 1}
        return "read_file", arguments

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        first = arguments["offset"]
        return lines_covered(arguments["file_path"], first, first + arguments["limit"] - 1, open_text)


PROFILE = ReadFile(
    name="codex@read_file",
    description="Codex's read_file tool (internal test models only): L-numbered lines, 500-byte line cap.",
    error_form=lambda message: message,
    guarded=False,
    ground_truth=(
        "Codex offered read_file only to its internal test models (removed upstream); real Codex reads with its "
        "shell, which agentpager probe codex exec_command asks"
    ),
    tools=(
        Tool(
            ToolSpec(
                "read_file",
                "Reads a local file with 1-indexed line numbers.",
                (
                    Param("file_path", "string", "Absolute path to the file.", is_path=True),
                    Param("offset", "integer", "The line number to start reading from (1-indexed).", 1, minimum=1),
                    Param("limit", "integer", "The maximum number of lines to return.", 2000, minimum=1),
                ),
            ),
            read_file,
        ),
    ),
)
