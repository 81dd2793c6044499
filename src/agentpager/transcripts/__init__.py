"""Agent transcripts: their tool calls, what each returned, the conversation around them, and the
usage of each model turn; read a window at a time, followed while they grow."""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, overload

from agentpager.engine.filesystem import ANYWHERE, Filesystem
from agentpager.engine.lineindex import Cancelled
from agentpager.exchange import arguments_line
from agentpager.logs.records import Record, RecordFile
from agentpager.transcripts.formats import (
    Collector,
    Event,
    ModelTurn,
    Parsed,
    ToolCall,
    detect,
    format_names,
)
from agentpager.transcripts.index import Boundaries, Build, RecordIndex, Rewritten, open_index
from agentpager.wording import cut_end

SEARCHED_ARGUMENTS = 100_000
"""How many characters of a call's arguments a search of the session looks at."""

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
    starter: int | None = None
    """The number of the call that started it; None until that is known (its calls are not shown until then)."""


class Transcript:
    """A transcript's calls, conversation and model turns, read through its record index: nothing is
    kept of a call but its index row until it is shown. While the index is being built (``complete``
    is False) the lists hold what was read so far and grow."""

    def __init__(self, path: str, build: Build, filesystem: Filesystem = ANYWHERE) -> None:
        self.path = path
        self.build = build
        self.filesystem = filesystem
        """Where it and the files beside it are read: anywhere, or beneath a workspace's root."""
        self.index = build.index
        self.files: list[RecordFile] = [self.index.records]
        """The transcript's file, then the files of its subagents (``ToolCall.source`` indexes this)."""
        self.children: list[Subagent] = []
        """The subagents whose own transcripts were found beside it (Claude Code's subagent files)."""
        self.calls = CallList(self)
        self.events = EventList(self)
        self.turns = TurnList(self.index)
        self.subagent_problems: list[str] = []
        self._cwd: str | None = None
        self._finding = threading.Lock()

    @property
    def format(self) -> str:
        return self.parsed.format

    @property
    def parsed(self) -> Parsed:
        """What the collector knows of the session as a whole (its lists are moved into the index)."""
        return self.index.collector.parsed

    @property
    def collector(self) -> Collector | None:
        """The collector a growing JSON Lines transcript is read on with (None for a JSON document)."""
        return self.index.collector if self.index.kind == "jsonl" else None

    @property
    def cwd(self) -> str | None:
        if self._cwd is None:
            self._cwd = self.parsed.cwd or self.index.collector_type.cwd_beside(self.path, self.filesystem)
        return self._cwd

    @cwd.setter
    def cwd(self, value: str | None) -> None:
        self._cwd = value

    @property
    def problems(self) -> list[str]:
        """Records that could not be read, each already skipped (the first PROBLEMS_KEPT of them)."""
        return self.index.problems + self.subagent_problems

    @property
    def problem_count(self) -> int:
        return self.index.problem_count + len(self.subagent_problems)

    @property
    def complete(self) -> bool:
        """Whether the whole transcript is indexed (else its lists are still growing)."""
        return self.index.complete or self.index.error is not None

    @property
    def boundaries(self) -> Boundaries:
        """Its compactions and new sessions, each a ``Boundary`` when taken."""
        return self.index.boundaries

    @property
    def lines_read(self) -> int:
        return self.index.lines_read

    @property
    def subagents(self) -> list[str]:
        """The subagent transcripts shown under their parent calls."""
        return [child.path for child in self.children if child.starter is not None and len(child.transcript.calls)]

    def index_of(self, source: int) -> RecordIndex:
        """The index of the transcript's file ``source`` (see ``files``)."""
        if source == 0:
            return self.index
        return next(child.transcript.index for child in self.children if child.source == source)

    def recorded(self, call: ToolCall) -> str | None:
        """The output the agent received for ``call`` (read again from the file), or None.

        None also when the transcript changed since it was read and the record is no longer there.
        Reading an output that was only skimmed fills in its character count and error flag.
        """
        found = self.index_of(call.source).output(call.number, call.result)
        if found is None:
            return None
        text, is_error = found
        if call.result is not None and call.result.chars is None:
            call.result = replace(call.result, chars=len(text), is_error=is_error)
        return text

    def tokens(self, call: ToolCall) -> tuple[int, bool] | None:
        """What ``call``'s output cost the context, and whether it was counted with cl100k (the log
        records no usage to take it from); None until known (see ``count_tokens``)."""
        index = self.index_of(call.source)
        with index.lock:
            tokens = index.calls.tokens[call.number]
            return None if tokens < 0 else (tokens, bool(index.calls.tokens_counted[call.number]))

    def count_tokens(self, call: ToolCall, count: Callable[[str], int]) -> int | None:
        """The tokens of ``call``'s output: from usage, else counted now with ``count`` (and kept)."""
        return self.index_of(call.source).count_output(call.number, count)

    def context_of(self, call: ToolCall) -> tuple[RecordIndex, str]:
        """The index and the agent whose context ``call`` was made in (a subagent's own)."""
        index = self.index_of(call.source)
        with index.lock:
            return index, index.strings[index.calls.agent[call.number]]

    def search(self, pattern: Matcher, cancel: threading.Event | None = None) -> set[tuple[int, int]]:
        """The calls (by ``ToolCall.key``) whose arguments or output ``pattern`` matches, or the
        conversation that leads to them (a match in the text after the last call counts for it).
        Cancelled when ``cancel`` is set; TranscriptError when ``re``, in its child, takes too long or
        refuses the pattern."""
        from agentpager.engine.patterns import PatternError

        found: set[tuple[int, int]] = set()
        last_call: tuple[int, int] | None = None
        pending_text = False
        index = self.index
        try:
            for position in range(len(index.events)):
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                number = index.events.call[position]
                if number >= 0:
                    if pending_text:
                        found.add((0, number))
                    pending_text, last_call = False, (0, number)
                elif pattern.search(index.event(position).text, cancel):
                    pending_text = True
            if pending_text and last_call is not None:
                found.add(last_call)
            for call in self.calls:
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                if call.key not in found and (
                    pattern.search(one_line_arguments(call.arguments)[:SEARCHED_ARGUMENTS], cancel)
                    or pattern.search(self.recorded(call) or "", cancel)
                ):
                    found.add(call.key)
        except PatternError as error:
            raise TranscriptError(error.message) from None
        return found

    def conversation(self, call: ToolCall, limit: int = 200) -> list[Event]:
        """The prompts, text and thinking between the main agent's call before ``call`` and the one
        after it, with ``call`` itself (at most ``limit`` events each side); empty for a call of a
        subagent's own file."""
        if call.source:
            return []
        index = self.index
        with index.lock:
            here = index.calls.event[call.number]
            kinds, count = index.events.kind, len(index.events)
            if here < 0:
                return []
            start = here
            while start > max(0, here - limit) and kinds[start - 1] != 3:
                start -= 1
            end = here + 1
            while end < min(count, here + 1 + limit) and kinds[end] != 3:
                end += 1
        return [call_event(call) if position == here else index.event(position) for position in range(start, end)]

    def stream(self) -> Iterator[ToolCall]:
        """The calls in the list's order as the index is built, each once its result is read (or
        the whole log was): what the CLI prints as it reads. The subagents a Task call started are
        looked for when it is reached, their calls given after it."""
        index, number = self.index, 0
        tasks = index.collector_type.task_tools
        while True:
            settled = index.settled()
            while number < settled:
                if tasks and index.strings[index.calls.tool[number]] in tasks:
                    self._find_subagents(report=False)
                yield self.calls.call(0, number)
                for child in self.children:
                    if child.starter == number:
                        yield from (self.calls.call(child.source, n) for n in range(child.transcript.index.call_count))
                number += 1
            if self.complete and number >= index.call_count:
                break
            with index.grown:
                index.grown.wait_for(functools.partial(self._settled_past, number), 0.5)

    def _settled_past(self, number: int) -> bool:
        return self.complete or self.index.settled() > number

    def follow(self) -> int:
        """Read what was appended since the last read, to the session and to its subagents' files,
        and the subagents that started since; the number of new calls (negative when the log was
        rewritten and read again from its start).

        Only JSON Lines grow this way (the engine's index extends over the new bytes, so nothing
        read is read again); a line still being written is left for the next read. New calls of a
        subagent go under the call that started it, so the calls after are numbered again.
        """
        if self.collector is None:
            return 0
        before = len(self.calls)
        try:
            self.index.read_on()
        except Rewritten:
            self._read_again()
        for child in self.children:
            child.transcript.follow()
        self._find_subagents(report=False)
        self.calls.changed()
        return len(self.calls) - before

    def _read_again(self) -> None:
        """The log is no longer what was read: read it from its start."""
        build = open_index(self.path, self.filesystem)
        if build is None:
            raise TranscriptError(f"{self.path}: no longer a transcript")
        build.run()
        self.build, self.index = build, build.index
        self.files[0] = self.index.records
        self.turns = TurnList(self.index)
        self.children, self.subagent_problems = [], []
        self.calls.changed()

    def _find_subagents(self, report: bool) -> None:
        """Read the subagent files not read yet, and find the call that started each subagent: the
        one whose result names it, else the Task whose ``prompt`` it was given. A file that cannot
        be read is noted when ``report`` (else tried again at the next follow: it may be new)."""
        with self._finding:
            self._find(report)
        self.calls.changed()

    def _find(self, report: bool) -> None:
        index = self.index
        with index.lock:
            started = dict(index.subagent_starters)
        known = {child.path for child in self.children}
        for agent_id, name in index.collector_type.subagent_files(self.path, started, self.filesystem):
            if name in known:
                continue
            try:
                sub = open_transcript(name, subagents=False, filesystem=self.filesystem)
            except TranscriptError as error:
                if report:
                    self.subagent_problems.append(f"subagent {agent_id}: {error}")
                continue
            self.files.append(sub.files[0])
            self.children.append(Subagent(agent_id, name, sub, len(self.files) - 1))
            self.subagent_problems.extend(f"subagent {agent_id}: {problem}" for problem in sub.problems)
        tasks: list[ToolCall] | None = None
        for child in self.children:
            if child.starter is None:
                child.starter = started.get(child.agent_id)
            if child.starter is None:
                if tasks is None:
                    tasks = [index.call(number) for number in index.calls_of(index.collector_type.task_tools)]
                prompt = next((e.text for e in child.transcript.events if e.kind == "prompt"), None)
                child.starter = next(
                    (c.number for c in tasks if isinstance(c.arguments, dict) and c.arguments.get("prompt") == prompt),
                    None,
                )


def call_event(call: ToolCall) -> Event:
    return Event("call", call.prompt, call.where, "", 0, call, call.timestamp, call.agent)


class CallList(Sequence[ToolCall]):
    """A transcript's calls as its list shows them: the main agent's in order, each followed by the
    calls of the subagents it started (when their own files were found). A call is read again from
    its record when asked for; the calls asked for lately are kept (the same object each time)."""

    KEPT = 512
    """Calls kept (several screens of rows); one still referenced elsewhere stays the same object
    however long ago it was read (``_held``). 4,096 of them took about 15 MB (their arguments)."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self._kept: OrderedDict[tuple[int, int], ToolCall] = OrderedDict()
        self._held: weakref.WeakValueDictionary[tuple[int, int], ToolCall] = weakref.WeakValueDictionary()
        self._key: tuple[object, ...] = ()
        self._segments: list[tuple[int, int, int, int]] = []
        """(first place, file, first call number, calls) of each run of one file's calls."""
        self._lock = threading.RLock()

    def changed(self) -> None:
        """The list's order may have changed (subagents placed, the log read again): forget the calls."""
        with self._lock:
            self._kept.clear()
            self._held = weakref.WeakValueDictionary()
            self._key = ()

    def segments(self) -> list[tuple[int, int, int, int]]:
        transcript = self.transcript
        placed = sorted(
            (child for child in transcript.children if child.starter is not None),
            key=lambda child: child.starter or 0,
        )
        main = transcript.index.call_count
        key = (
            id(transcript.index),
            main,
            *((child.source, child.starter, child.transcript.index.call_count) for child in placed),
        )
        with self._lock:
            if key == self._key:
                return self._segments
            segments: list[tuple[int, int, int, int]] = []
            place = done = 0
            for child in placed:
                upto = min(main, (child.starter or 0) + 1)
                if upto > done:
                    segments.append((place, 0, done, upto - done))
                    place, done = place + upto - done, upto
                count = child.transcript.index.call_count
                if count:
                    segments.append((place, child.source, 0, count))
                    place += count
            if main > done:
                segments.append((place, 0, done, main - done))
            self._key, self._segments = key, segments
            return segments

    def __len__(self) -> int:
        segments = self.segments()
        return segments[-1][0] + segments[-1][3] if segments else 0

    def keys(self) -> Iterator[tuple[int, int]]:
        """(file, call number) of each call, in the list's order (no call is read)."""
        for _, source, start, count in self.segments():
            for number in range(start, start + count):
                yield source, number

    def place_of(self, source: int, number: int) -> int | None:
        """Where the call ``number`` of file ``source`` is in the list (None: it is not shown)."""
        for first, file, start, count in self.segments():
            if file == source and start <= number < start + count:
                return first + number - start
        return None

    def key_at(self, place: int) -> tuple[int, int]:
        """(file, call number) of the call at ``place``."""
        segments = self.segments()
        at = bisect.bisect_right(segments, (place, 1 << 62)) - 1
        if place < 0 or at < 0 or place >= segments[at][0] + segments[at][3]:
            raise IndexError(place)
        first, source, start, _ = segments[at]
        return source, start + place - first

    @overload
    def __getitem__(self, place: int) -> ToolCall: ...

    @overload
    def __getitem__(self, place: slice) -> list[ToolCall]: ...

    def __getitem__(self, place: int | slice) -> ToolCall | list[ToolCall]:
        if isinstance(place, slice):
            return [self[n] for n in range(*place.indices(len(self)))]
        if place < 0:
            place += len(self)
        source, number = self.key_at(place)
        return self.call(source, number, place)

    def call(self, source: int, number: int, place: int | None = None) -> ToolCall:
        """Call ``number`` of file ``source``, placed in the list."""
        key = (source, number)
        with self._lock:
            found = self._kept.get(key) or self._held.get(key)
        if found is None:
            found = self._read(source, number)
            with self._lock:
                self._held[key] = found
        with self._lock:
            self._kept[key] = found
            self._kept.move_to_end(key)
            if len(self._kept) > self.KEPT:
                self._kept.popitem(last=False)
        if place is None:
            place = self.place_of(source, number)
        found.index = -1 if place is None else place
        if found.result is None:  # read before its result was
            found.result = self.transcript.index_of(source).result_ref(number)
        return found

    def _read(self, source: int, number: int) -> ToolCall:
        transcript = self.transcript
        index = transcript.index_of(source)
        call = index.call(number)
        call.source = source
        if source:
            child = next(child for child in transcript.children if child.source == source)
            call.depth, call.agent = call.depth + 1, child.agent_id
            if child.starter is not None:
                call.starter = self.call(0, child.starter)
        else:
            starter = index.calls.starter[number]
            if 0 <= starter < number:
                call.starter = self.call(0, starter)
        return call


class EventList(Sequence[Event]):
    """The main file's conversation, each event's text read again from its record when asked for."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript

    def __len__(self) -> int:
        return len(self.transcript.index.events)

    @overload
    def __getitem__(self, position: int) -> Event: ...

    @overload
    def __getitem__(self, position: slice) -> list[Event]: ...

    def __getitem__(self, position: int | slice) -> Event | list[Event]:
        if isinstance(position, slice):
            return [self[n] for n in range(*position.indices(len(self)))]
        if position < 0:
            position += len(self)
        if not 0 <= position < len(self):
            raise IndexError(position)
        index = self.transcript.index
        number = index.events.call[position]
        if number >= 0:
            return call_event(self.transcript.calls.call(0, number))
        return index.event(position)


class TurnList(Sequence[ModelTurn]):
    """A file's model turns, from its index (the last as the collector has it so far)."""

    def __init__(self, index: RecordIndex) -> None:
        self._index = index

    def __len__(self) -> int:
        return self._index.turn_count

    @overload
    def __getitem__(self, row: int) -> ModelTurn: ...

    @overload
    def __getitem__(self, row: slice) -> list[ModelTurn]: ...

    def __getitem__(self, row: int | slice) -> ModelTurn | list[ModelTurn]:
        if isinstance(row, slice):
            return [self[n] for n in range(*row.indices(len(self)))]
        if row < 0:
            row += len(self)
        if not 0 <= row < len(self):
            raise IndexError(row)
        return self._index.turn(row)


def open_transcript(
    path: str, subagents: bool = True, wait: bool = True, paused: bool = False, filesystem: Filesystem = ANYWHERE
) -> Transcript:
    """A transcript's tool calls; TranscriptError when it cannot be read as one.

    ``wait``: return once the whole transcript is indexed; else once its first records are, the rest
    being read in a thread of its own (``Transcript.complete`` says when it is done; ``paused``: not
    before ``transcript.build.resume()``, see ``Build.start``). Claude Code
    subagents' own transcripts, when found beside the session, are read once the session is, and
    their calls placed under the call that started them. Every file is opened in ``filesystem`` (a
    workspace's: beneath its root).
    """
    try:
        build = open_index(path, filesystem)
    except OSError as error:  # unreadable
        raise TranscriptError(f"{path}: {error.strerror or error}") from None
    if build is None:
        raise TranscriptError(f"{path}: not a {format_names()} transcript (no record looks like one).")
    transcript = Transcript(path, build, filesystem)
    if subagents:
        build.done.append(lambda: transcript._find_subagents(report=True))
    if not wait:
        build.start(paused)
        return transcript
    build.run()
    if build.index.error is not None:
        raise TranscriptError(f"{path}: {build.index.error}")
    return transcript


def sniff(path: str, records: int = 20, filesystem: Filesystem = ANYWHERE) -> str | None:
    """The transcript format of a file (in ``filesystem``), judged from its first records; None if it is not one."""
    try:
        head = itertools.islice(RecordFile(path, filesystem).records(), records)
        collector = detect(record for record in head if isinstance(record, Record))
    except (OSError, ValueError):
        return None
    return None if collector is None else collector.format


def short_arguments(arguments: dict | str, width: int = 60) -> str:
    """The arguments on one line, cut to ``width`` cells."""
    return cut_end(one_line_arguments(arguments), width)


def one_line_arguments(arguments: dict | str) -> str:
    """The arguments as JSON on one line (runs of white space made one space)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return " ".join(text.split())


def listed_arguments(call: ToolCall, width: int) -> str:
    """The call's arguments as a list row shows them, where 80 columns leave ~30 for them:
    ``file_path="src/app.py" offset=40``, a path under the directory the agent worked in written
    relative to it, cut in its middle to keep the file name (the row's point is which file; the
    call's view shows the arguments as recorded)."""
    if isinstance(call.arguments, str):
        return short_arguments(call.arguments, width)
    return arguments_line(call.arguments, width, under=call.cwd)
