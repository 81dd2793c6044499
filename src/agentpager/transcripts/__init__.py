"""Agent transcripts: their tool calls, what each returned, and a replay against the files now."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass

from agentpager.transcripts.formats import COLLECTORS, ToolCall, detect, parse
from agentpager.transcripts.records import Record, RecordFile


class TranscriptError(Exception):
    """The file is not a transcript this project can read."""


@dataclass
class Transcript:
    path: str
    format: str
    calls: list[ToolCall]
    problems: list[str]
    """Records that could not be read, each already skipped."""
    cwd: str | None
    _records: RecordFile
    version: str | None = None
    """The agent's version, when the transcript says."""

    def recorded(self, call: ToolCall) -> str | None:
        """The output the agent received for ``call`` (read again from the file), or None.

        None also when the transcript changed since it was read and the record is no longer there.
        """
        if call.result is None:
            return None
        try:
            value = self._records.read_again(call.result.where)
            return COLLECTORS[self.format].result_text(value, call.result.block)[0]
        except (OSError, ValueError, LookupError, TypeError, AttributeError):
            return None


def open_transcript(path: str) -> Transcript:
    """Read a transcript's tool calls; TranscriptError when it cannot be read as one."""
    records = RecordFile(path)
    try:
        parsed = parse(records.records())
    except OSError as error:  # unreadable, or changed while it was read
        raise TranscriptError(f"{path}: {error.strerror or error}") from None
    if parsed is None:
        raise TranscriptError(
            f"{path}: not a Claude Code, Codex, OpenAI or Anthropic transcript (no record looks like one)."
        )
    return Transcript(path, parsed.format, parsed.calls, parsed.problems, parsed.cwd, records, parsed.version)


def sniff(path: str, records: int = 20) -> str | None:
    """The transcript format of a file, judged from its first records; None if it is not one."""
    try:
        head = itertools.islice(RecordFile(path).records(), records)
        collector = detect(record.value for record in head if isinstance(record, Record))
    except (OSError, ValueError):
        return None
    return None if collector is None else collector.format


def short_arguments(arguments: dict | str, width: int = 60) -> str:
    """The arguments on one line, cut to ``width`` characters."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
