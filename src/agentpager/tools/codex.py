"""Profile ``codex``: the Codex CLI's ``read_file`` tool, as its rollout transcripts record it, and its shell calls.

Lines are split on ``\\n`` with a final ``\\r`` removed, shown as ``L{n}: {line}``, each cut at 500
bytes on a character boundary with no marker; errors are plain sentences.
"""

from __future__ import annotations

import json
from typing import Any

from agentpager.engine.lazytext import join_lines
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import (
    Call,
    Coverage,
    Opener,
    Profile,
    RecordedCall,
    ShellCommand,
    Shown,
    Tool,
    lines_covered,
)
from agentpager.tools.errors import ToolError

MAX_LINE_BYTES = 500
SHELL_TOOLS = ("shell", "shell_command", "exec_command", "local_shell", "container.exec")
"""The tools Codex has run commands with: ``shell`` (argv), ``shell_command`` (0.5x, a command line),
``exec_command`` (``cmd``), ``local_shell`` (an ``exec`` action), ``container.exec``."""


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


class Codex(Profile):
    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        arguments: dict[str, Any] = {"file_path": path}
        if shown is not None:
            arguments |= {"offset": shown.top, "limit": shown.bottom - shown.top + 1}
        return "read_file", arguments

    def shell_command(self, recorded: RecordedCall) -> ShellCommand | None:
        if recorded.agent != "codex" or recorded.tool not in SHELL_TOOLS:
            return None
        arguments = recorded.arguments
        command = arguments.get("command", arguments.get("cmd"))
        workdir = arguments.get("workdir", arguments.get("working_directory"))
        if isinstance(command, str) or (isinstance(command, list) and all(isinstance(a, str) for a in command)):
            return ShellCommand(command, workdir if isinstance(workdir, str) else None)
        return None

    def same_output(self, recorded: str, replayed: str) -> bool:
        """Shell outputs compare on what the command printed and its exit code, not its wall time."""
        body = shell_body(recorded)
        return recorded == replayed or (body is not None and body == shell_body(replayed))

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        first = arguments["offset"]
        return lines_covered(arguments["file_path"], first, first + arguments["limit"] - 1, open_text)


PROFILE = Codex(
    name="codex",
    description="The Codex CLI's read_file tool: L-numbered lines, 500-byte line cap.",
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

PROFILES = (PROFILE,)


def shell_body(output: str) -> tuple[str, int | None] | None:
    """A shell call's output without its timing: what the command printed and its exit code.

    Codex wraps it as ``Exit code: N\nWall time: T seconds\nOutput:\n...`` (0.5x and later, as in
    pinouchon/rtchess ``dev_history/exported-session.jsonl``) or as JSON ``{"output": ...,
    "metadata": {"exit_code": N, "duration_seconds": T}}`` (earlier). None for other outputs.
    """
    if output.startswith("Exit code: "):
        head, separator, body = output.partition("\nOutput:\n")
        code = head.split("\n", 1)[0].removeprefix("Exit code: ")
        if separator and code.lstrip("-").isdigit():
            return body, int(code)
        return None
    if not output.startswith("{"):
        return None
    try:
        value = json.loads(output)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("output"), str):
        return None
    metadata = value.get("metadata")
    exit_code = metadata.get("exit_code") if isinstance(metadata, dict) else None
    return value["output"], exit_code if isinstance(exit_code, int) else None
