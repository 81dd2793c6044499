"""Agent transcripts: their tool calls, what each returned, the conversation around them, and the
usage of each model turn; read a window at a time, followed while they grow."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from agentpager.engine.filesystem import ANYWHERE, Filesystem
from agentpager.engine.lineindex import Cancelled
from agentpager.exchange import arguments_line
from agentpager.logs.records import BadRecord, Record, RecordFile
from agentpager.transcripts.formats import (
    Collector,
    Event,
    ModelTurn,
    Parsed,
    ToolCall,
    collect,
    collectors,
    detect,
    feed,
    format_names,
)

if TYPE_CHECKING:
    from agentpager.engine.patterns import Matcher


class TranscriptError(Exception):
    """The file is not a transcript this project can read."""


@dataclass
class Subagent:
    """A subagent's own transcript, under the main agent's call that started it."""

    agent_id: str
    path: str
    transcript: Transcript
    source: int
    """Its file's place in the main transcript's ``files``."""
    starter: ToolCall | None = None
    """The call that started it; None until that is known (its calls are not shown until then)."""


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
    children: list[Subagent] = field(default_factory=list)
    """The subagents whose own transcripts were found beside it (Claude Code's subagent files)."""
    filesystem: Filesystem = ANYWHERE
    """Where it and the files beside it are read: anywhere, or beneath a workspace's root."""

    @property
    def subagents(self) -> list[str]:
        """The subagent transcripts shown under their parent calls."""
        return [child.path for child in self.children if child.starter is not None and child.transcript.calls]

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
            text, is_error = collectors()[self.format].result_text(value, result.block)
        except (OSError, ValueError, LookupError, TypeError, AttributeError):
            return None
        if result.chars is None:
            call.result = replace(result, chars=len(text), is_error=is_error)
        return text

    def search(self, pattern: Matcher, cancel: threading.Event | None = None) -> set[ToolCall]:
        """The calls whose arguments or output ``pattern`` matches, or the conversation that leads to
        them (a match in the text after the last call counts for it). Cancelled when ``cancel`` is
        set; TranscriptError when ``re``, in its child, takes too long or refuses the pattern."""
        from agentpager.engine.patterns import PatternError

        found: set[ToolCall] = set()
        last_call: ToolCall | None = None
        pending_text = False
        try:
            for event in list(self.events):
                if event.kind == "call" and event.tool_call is not None:
                    if pending_text:
                        found.add(event.tool_call)
                    pending_text, last_call = False, event.tool_call
                elif pattern.search(event.text, cancel):
                    pending_text = True
            if pending_text and last_call is not None:
                found.add(last_call)
            for call in list(self.calls):
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                if call not in found and (
                    pattern.search(short_arguments(call.arguments, 100_000), cancel)
                    or pattern.search(self.recorded(call) or "", cancel)
                ):
                    found.add(call)
        except PatternError as error:
            raise TranscriptError(error.message) from None
        return found

    def follow(self) -> int:
        """Read what was appended since the last read, to the session and to its subagents' files,
        and the subagents that started since; the number of new calls.

        Only JSON Lines grow this way (the engine's index extends over the new bytes, so nothing
        read is read again); a line still being written is left for the next read. New calls of a
        subagent go under the call that started it, so the calls after are numbered again.
        """
        if self.collector is None:
            return 0
        before = len(self.calls)
        for item in _whole_lines(self.files[0], self.lines_read + 1, self):
            feed(self.collector, item)
        for child in self.children:
            child.transcript.follow()
        self._find_subagents(report=False)
        self._number()
        return len(self.calls) - before

    def _find_subagents(self, report: bool) -> None:
        """Read the subagent files not read yet, and find the call that started each subagent: the
        one whose result names it, else the Task whose ``prompt`` it was given. A file that cannot
        be read is noted when ``report`` (else tried again at the next follow: it may be new)."""
        if self.collector is None:
            return
        known = {child.path for child in self.children}
        found = type(self.collector).subagent_files(self.path, self.parsed.subagent_ids, self.filesystem)
        for agent_id, name in found:
            if name in known:
                continue
            try:
                sub = open_transcript(name, subagents=False, filesystem=self.filesystem)
            except TranscriptError as error:
                if report:
                    self.problems.append(f"subagent {agent_id}: {error}")
                continue
            self.files.append(sub.files[0])
            self.children.append(Subagent(agent_id, name, sub, len(self.files) - 1))
            self.problems.extend(f"subagent {agent_id}: {problem}" for problem in sub.problems)
        tasks = [call for call in self.parsed.calls if isinstance(call.arguments, dict) and "prompt" in call.arguments]
        for child in self.children:
            if child.starter is None:
                child.starter = self.parsed.subagent_ids.get(child.agent_id)
            if child.starter is None:
                prompt = next((e.text for e in child.transcript.events if e.kind == "prompt"), None)
                child.starter = next(
                    (c for c in tasks if isinstance(c.arguments, dict) and c.arguments.get("prompt") == prompt), None
                )

    def _number(self) -> None:
        """The main calls in order, each followed by the calls of the subagents it started; each
        call numbered by its place."""
        under: dict[ToolCall, list[ToolCall]] = {}
        for child in self.children:
            if child.starter is None:
                continue
            for call in child.transcript.calls:
                if call.source != child.source:  # not placed yet
                    call.source, call.agent, call.depth = child.source, child.agent_id, call.depth + 1
                    call.starter = call.starter or child.starter
                under.setdefault(child.starter, []).append(call)
        if not under:
            self.calls = self.parsed.calls
            return
        ordered: list[ToolCall] = []
        for call in self.parsed.calls:
            ordered.append(call)
            ordered.extend(under.get(call, ()))
        for number, call in enumerate(ordered):
            call.index = number
        self.calls = ordered


def open_transcript(path: str, subagents: bool = True, filesystem: Filesystem = ANYWHERE) -> Transcript:
    """Read a transcript's tool calls; TranscriptError when it cannot be read as one.

    Claude Code subagents' own transcripts, when found beside the session, are read too and their
    calls placed under the call that started them. Every file is opened in ``filesystem`` (a
    workspace's: beneath its root).
    """
    records = RecordFile(path, filesystem)
    lines = _LinesRead()
    try:
        kind = records.kind()
        collector = collect(_whole_lines(records, 1, lines) if kind == "jsonl" else records.records())
    except OSError as error:  # unreadable, or changed while it was read
        raise TranscriptError(f"{path}: {error.strerror or error}") from None
    if collector is None:
        raise TranscriptError(f"{path}: not a {format_names()} transcript (no record looks like one).")
    parsed = collector.parsed
    transcript = Transcript(
        path,
        parsed.format,
        parsed.calls,
        parsed.problems,
        parsed.cwd or type(collector).cwd_beside(path, filesystem),
        [records],
        parsed,
        collector if kind == "jsonl" else None,
        lines.lines_read,
        filesystem=filesystem,
    )
    if subagents:
        transcript._find_subagents(report=True)
        transcript._number()
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


def sniff(path: str, records: int = 20, filesystem: Filesystem = ANYWHERE) -> str | None:
    """The transcript format of a file (in ``filesystem``), judged from its first records; None if it is not one."""
    try:
        head = itertools.islice(RecordFile(path, filesystem).records(), records)
        collector = detect(record for record in head if isinstance(record, Record))
    except (OSError, ValueError):
        return None
    return None if collector is None else collector.format


def short_arguments(arguments: dict | str, width: int = 60) -> str:
    """The arguments on one line, cut to ``width`` characters."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return _one_line(text, width)


def listed_arguments(call: ToolCall, width: int) -> str:
    """The call's arguments as a list row shows them, where 80 columns leave ~30 for them:
    ``file_path="src/app.py" offset=40``, a path under the directory the agent worked in written
    relative to it, cut in its middle to keep the file name (the row's point is which file; the
    call's view shows the arguments as recorded)."""
    if isinstance(call.arguments, str):
        return short_arguments(call.arguments, width)
    return arguments_line(call.arguments, width, under=call.cwd)


def _one_line(text: str, width: int) -> str:
    """``text`` with its runs of whitespace made single spaces, cut to ``width`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
