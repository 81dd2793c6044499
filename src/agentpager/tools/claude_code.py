"""Profile ``claude-code``: Claude Code's ``Read`` tool, as its session transcripts record it.

Lines are split on ``\\r?\\n``, so a file that ends with a newline has one more, empty, numbered
line; numbering starts at ``offset`` (0 reads from line 1 but numbers from 0); nothing caps the
lines unless ``limit`` does. The texts that changed between versions are settings:

- ``line_format``: ``"tab"`` (``{n}\\t{line}``, from about 2.1.123) or ``"arrow"``
  (``{n:>6}→{line}``, 1.0.x to 2.1.84);
- ``reminder``: text appended as ``\\n\\n<system-reminder>\\n{text}\\n</system-reminder>\\n`` (the
  malware reminder some versions add), or None.
"""

from __future__ import annotations

import re
from typing import Any

from agentpager.engine.tokens import count_tokens
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import (
    Call,
    Claim,
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

MAX_SIZE_BYTES = 256 * 1024
MAX_TOKENS = 25000
LINE_FORMATS = ("tab", "arrow")
_TOKEN_SAMPLE_BYTES = 256 * 1024
_REMINDER_START, _REMINDER_END = "\n\n<system-reminder>\n", "\n</system-reminder>\n"
_ARROW_LINE = re.compile(r" *\d+→")
_ADVICE = (
    "Use offset and limit parameters to read specific portions of the file, "
    "or search for specific content instead of reading the whole file."
)


def error_form(message: str) -> str:
    return f"<tool_use_error>{message}</tool_use_error>"


def _shorter_than(offset: int, lines: int) -> str:
    return (
        f"<system-reminder>Warning: the file exists but is shorter than the provided offset ({offset}). "
        f"The file has {lines} lines.</system-reminder>"
    )


TOKENIZER_MARGIN = 0.3
"""Claude Code's token limit is counted by Anthropic's API with Claude's tokenizer, which cl100k only
approximates: within this fraction of the limit, either answer may be the real one."""


def _check_tokens(call: Call, tokens: int) -> None:
    """Refuse an output over the token limit; say so when the count is too close to the limit to tell."""
    if abs(tokens - MAX_TOKENS) <= MAX_TOKENS * TOKENIZER_MARGIN:
        call.uncertain = (
            f"about {tokens:,} tokens (cl100k) against Claude Code's {MAX_TOKENS:,}-token limit, which the "
            "model's server counts with Claude's own tokenizer"
        )
    if tokens > MAX_TOKENS:
        raise ToolError(
            f"File content ({tokens} tokens) exceeds maximum allowed tokens ({MAX_TOKENS}). {_ADVICE}", whole=True
        )


def read(call: Call, file_path: str, offset: int | None, limit: int | None) -> str:
    if offset is not None and offset < 0:
        raise ToolError(f"offset must be >= 0 (got {offset}).")
    if limit is not None and limit < 1:
        raise ToolError(f"limit must be >= 1 (got {limit}).")
    try:
        resolved = call.resolve(file_path, "file")
    except ToolError as error:
        if error.reason == "missing":
            raise ToolError("File does not exist.") from None
        if error.reason == "directory":
            raise ToolError("EISDIR: illegal operation on a directory, read", whole=True) from None
        raise
    if offset is None and limit is None and resolved.st.st_size > MAX_SIZE_BYTES:
        size = f"{resolved.st.st_size / 1024:.1f}"
        raise ToolError(f"File content ({size}KB) exceeds maximum allowed size (256KB). {_ADVICE}", whole=True)
    start = max(offset or 1, 1)
    first_number = 1 if offset is None else offset
    with call.text_of(resolved).file.open() as reader:
        total = reader.line_count()
        lines = total + reader.ends_with_newline()  # the empty line after a final newline is numbered too
        if total == 0 or start > lines:
            return _shorter_than(first_number, max(lines, 1))
        last = lines if limit is None else min(lines, start + limit - 1)
        last_real = min(last, total)
        span_start, span_end = reader.line_span(start, last_real)
        if span_end - span_start > _TOKEN_SAMPLE_BYTES:  # too big to build: estimate from its start
            sample_end = reader.line_at_byte(span_start + _TOKEN_SAMPLE_BYTES)
            sample = str(reader.lines_text(start, min(sample_end, last_real)))
            _check_tokens(call, count_tokens(sample) * (span_end - span_start) // max(len(sample.encode()), 1))
        texts = str(reader.lines_text(start, last_real)).split("\n")
    texts += [""] * (last - last_real)
    arrow = call.settings.get("line_format") == "arrow"
    numbered = "\n".join(
        f"{number:>6}→{text}" if arrow else f"{number}\t{text}" for number, text in enumerate(texts, first_number)
    )
    if len(numbered) > MAX_TOKENS * (1 - TOKENIZER_MARGIN):
        _check_tokens(call, count_tokens(numbered))
    reminder = call.settings.get("reminder")
    return numbered + (f"{_REMINDER_START}{reminder}{_REMINDER_END}" if reminder else "")


ARROW_UNTIL = (2, 1, 84)
"""The last version seen numbering lines ``{n:>6}→`` (FIELD-NOTES); ``{n}\\t`` from about 2.1.123."""


def _version(text: str) -> tuple[int, ...] | None:
    parts = text.split(".")
    return tuple(int(part) for part in parts) if all(part.isdigit() for part in parts) and text else None


def settings_shown_by(recorded: str | None, version: str = "") -> dict[str, Any]:
    """The settings that reproduce what a recorded Read shows: its line format and reminder.

    A recorded output with no numbered line (an empty file's warning, an error) says nothing of the
    line format: the agent's version decides it then.
    """
    settings: dict[str, Any] = {}
    shown = _version(version)
    if recorded is None:
        return settings
    if _ARROW_LINE.match(recorded) or (not re.match(r"\d+\t", recorded) and shown is not None and shown <= ARROW_UNTIL):
        settings["line_format"] = "arrow"
    if recorded.endswith(_REMINDER_END) and _REMINDER_START in recorded:
        start = recorded.rindex(_REMINDER_START) + len(_REMINDER_START)
        settings["reminder"] = recorded[start : -len(_REMINDER_END)]
    return settings


class ClaudeCode(Profile):
    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        arguments: dict[str, Any] = {"file_path": path}
        if shown is not None:
            arguments |= {"offset": shown.top, "limit": shown.bottom - shown.top + 1}
        return "Read", arguments

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        first = max(arguments["offset"] or 1, 1)
        limit = arguments["limit"]
        return lines_covered(arguments["file_path"], first, None if limit is None else first + limit - 1, open_text)

    def shell_command(self, recorded: RecordedCall) -> ShellCommand | None:
        command = recorded.arguments.get("command")
        if recorded.agent != "claude-code" or recorded.tool != "Bash" or not isinstance(command, str):
            return None
        return ShellCommand(command)

    def claim(self, recorded: RecordedCall) -> Claim | None:
        claim = super().claim(recorded)
        if claim is None:
            return None
        return Claim(claim.tool, claim.arguments, settings_shown_by(recorded.output, recorded.version))


PROFILE = ClaudeCode(
    name="claude-code",
    description="Claude Code's Read tool: numbered lines, with its size and token limits.",
    error_form=error_form,
    guarded=False,
    tools=(
        Tool(
            ToolSpec(
                "Read",
                "Reads a file from the local filesystem. Results are returned with line numbers "
                "starting at 1. You can optionally give a line offset and a limit (useful for long "
                "files); by default the whole file is read.",
                (
                    Param("file_path", "string", "The path to the file to read.", is_path=True),
                    Param("offset", "integer", "The line number to start reading from (default 1).", None, minimum=0),
                    Param("limit", "integer", "The number of lines to read (default: all).", None, minimum=1),
                ),
            ),
            read,
        ),
    ),
)

PROFILES = (PROFILE,)
