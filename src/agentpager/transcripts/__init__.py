"""Agent transcripts: their tool calls, what each returned, the conversation around them, and the
usage of each model turn; read a window at a time, followed while they grow."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from agentpager.transcripts.formats import (
    COLLECTORS,
    FORMAT_NAMES,
    Collector,
    Event,
    ModelTurn,
    Parsed,
    ToolCall,
    collect,
    detect,
    feed,
)
from agentpager.transcripts.records import BadRecord, Record, RecordFile


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
    files: list[RecordFile]
    """The transcript's file, then the files of its subagents (``ToolCall.source`` indexes this)."""
    parsed: Parsed
    collector: Collector | None = None
    lines_read: int = 0
    """JSON Lines read whole so far (a growing transcript is read on from there)."""
    subagents: list[str] = field(default_factory=list)
    """The subagent transcripts shown under their parent calls."""

    @property
    def events(self) -> list[Event]:
        return self.parsed.events

    @property
    def turns(self) -> list[ModelTurn]:
        return self.parsed.turns

    def recorded(self, call: ToolCall) -> str | None:
        """The output the agent received for ``call`` (read again from the file), or None.

        None also when the transcript changed since it was read and the record is no longer there.
        Reading an output that was only skimmed fills in its character count and error flag.
        """
        result = call.result
        if result is None:
            return None
        try:
            value = self.files[call.source].read_again(result.where)
            text, is_error = COLLECTORS[self.format].result_text(value, result.block)
        except (OSError, ValueError, LookupError, TypeError, AttributeError):
            return None
        if result.chars is None:
            call.result = replace(result, chars=len(text), is_error=is_error)
        return text

    def event_text(self, event: Event) -> str:
        """An event's whole text (read again when it was kept cut)."""
        if event.kind == "call" and event.call is not None:
            call = self.calls[event.call]
            return f"{call.tool}({short_arguments(call.arguments, 10_000)})"
        return event.text

    def follow(self) -> int:
        """Read what was appended since the last read; the number of new calls.

        Only JSON Lines grow this way (the engine's index extends over the new bytes, so nothing
        read is read again); a line still being written is left for the next read.
        """
        if self.collector is None or self.subagents:
            return 0
        before = len(self.calls)
        for item in _whole_lines(self.files[0], self.lines_read + 1, self):
            feed(self.collector, item)
        self.calls = self.parsed.calls
        return len(self.calls) - before


def open_transcript(path: str, subagents: bool = True) -> Transcript:
    """Read a transcript's tool calls; TranscriptError when it cannot be read as one.

    Claude Code subagents' own transcripts, when found beside the session, are read too and their
    calls placed under the call that started them.
    """
    records = RecordFile(path)
    lines = _LinesRead()
    try:
        kind = records.kind()
        collector = collect(_whole_lines(records, 1, lines) if kind == "jsonl" else records.records())
    except OSError as error:  # unreadable, or changed while it was read
        raise TranscriptError(f"{path}: {error.strerror or error}") from None
    if collector is None:
        raise TranscriptError(f"{path}: not a {FORMAT_NAMES} transcript (no record looks like one).")
    parsed = collector.parsed
    transcript = Transcript(
        path,
        parsed.format,
        parsed.calls,
        parsed.problems,
        parsed.cwd,
        [records],
        parsed,
        collector if kind == "jsonl" else None,
        lines.lines_read,
    )
    if subagents:
        _add_subagents(transcript, type(collector).subagent_files(path, parsed.subagent_ids))
    return transcript


@dataclass
class _LinesRead:
    lines_read: int = 0


def _whole_lines(records: RecordFile, first: int, state: _LinesRead | Transcript) -> Iterator[Record | BadRecord]:
    """The records of JSON Lines from line ``first``, noting in ``state`` how far they were read.

    A last line without its newline that is not yet JSON is being written: it is left for later.
    """
    for item in records.records(first):
        if isinstance(item, BadRecord) and item.where.line == records.partial_line:
            return
        state.lines_read = item.where.line
        yield item


def _add_subagents(transcript: Transcript, files: list[tuple[str, str]]) -> None:
    """Place each subagent's calls right under the call that started it (named by its id, else the
    call whose ``prompt`` argument the subagent was given)."""
    parsed = transcript.parsed
    tasks = {
        call.index: call for call in parsed.calls if isinstance(call.arguments, dict) and "prompt" in call.arguments
    }
    children: dict[int, list[ToolCall]] = {}
    for agent_id, name in files:
        try:
            sub = open_transcript(name, subagents=False)
        except TranscriptError as error:
            transcript.problems.append(f"subagent {agent_id}: {error}")
            continue
        parent = parsed.subagent_ids.get(agent_id)
        if parent is None:  # no Task result named it: the Task whose prompt it was given
            prompt = next((e.text for e in sub.events if e.kind == "prompt"), None)
            parent = next(
                (i for i, c in tasks.items() if isinstance(c.arguments, dict) and c.arguments.get("prompt") == prompt),
                None,
            )
        if parent is None or not sub.calls:
            continue
        source = len(transcript.files)
        transcript.files.append(sub.files[0])
        transcript.subagents.append(name)
        transcript.problems.extend(f"subagent {agent_id}: {problem}" for problem in sub.problems)
        for call in sub.calls:
            call.source, call.agent, call.depth, call.parent = source, agent_id, call.depth + 1, parent
        children.setdefault(parent, []).extend(sub.calls)
    if children:
        transcript.calls = _spliced(parsed, children)


def _spliced(parsed: Parsed, children: dict[int, list[ToolCall]]) -> list[ToolCall]:
    """The main calls with each one's subagent calls after it, numbered again in that order."""
    ordered: list[ToolCall] = []
    new_index: dict[tuple[int, int], int] = {}
    for call in parsed.calls:
        new_index[(0, call.index)] = len(ordered)
        ordered.append(call)
        for child in children.get(call.index, ()):
            new_index[(child.source, child.index)] = len(ordered)
            ordered.append(child)
    for call in ordered:
        if call.parent is not None:
            call.parent = new_index[(0, call.parent)]
    for event in parsed.events:
        if event.call is not None:
            event.call = new_index[(0, event.call)]
    for number, call in enumerate(ordered):
        call.index = number
    parsed.calls = ordered
    return ordered


def sniff(path: str, records: int = 20) -> str | None:
    """The transcript format of a file, judged from its first records; None if it is not one."""
    try:
        head = itertools.islice(RecordFile(path).records(), records)
        collector = detect(record for record in head if isinstance(record, Record))
    except (OSError, ValueError):
        return None
    return None if collector is None else collector.format


def short_arguments(arguments: dict | str, width: int = 60) -> str:
    """The arguments on one line, cut to ``width`` characters."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
