"""A transcript's record index: what a list of calls, the context and replay need of every call,
model turn and piece of conversation, in fixed-size columns; the records themselves (arguments,
outputs, texts) are read again from their byte ranges when they are shown.

The index is built by feeding the records to the format's collector, as ``open_transcript`` always
did, and moving what the collector found into the columns every batch of records: memory grows by
about 300 bytes a call (its event and turn included), never with the outputs. It is built in a thread of its own for the
TUI (the first calls show while the rest is read), saved in the cache dir once complete, checked
against the file and reused by the next process, and read on from where it ended when the log grew
(the collector's state is saved with it).

The tokens each recorded output cost come from the usage the log records (see ``Attribution``);
where there is none they are counted with cl100k when an output is shown, and kept here.
"""

from __future__ import annotations

import itertools
import json
import mmap
import os
import struct
import sys
import threading
import zlib
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypeAlias

from agentpager.engine import jsontext
from agentpager.engine.cache import CacheDir, cache_root, file_key
from agentpager.engine.filesystem import ANYWHERE, Filesystem
from agentpager.engine.lineindex import Stamp
from agentpager.engine.textfile import regular_descriptor
from agentpager.logs.collector import EventKind
from agentpager.logs.records import BadRecord, Location, Record, RecordFile
from agentpager.transcripts.formats import Boundary, Collector, Event, ModelTurn, ResultRef, ToolCall, feed

SAVED_MIN_BYTES = 1 << 20
"""Logs smaller than this are indexed again each time (it takes milliseconds)."""
SAVE_AGAIN_BYTES = 16 << 20
"""A followed log's index is saved again when it grew this much since the last save."""
BATCH_RECORDS = 512
"""Records fed between two moves into the columns (and two notices to whoever waits)."""
PROBLEMS_KEPT = 1000
"""Problems kept word for word; past this only their number grows (a hostile log can have millions)."""
_MAGIC = b"agentpager-records-6\n"
_CRC = struct.Struct("<I")
_LENGTH = struct.Struct("<q")
EVENT_KINDS: tuple[EventKind, ...] = ("prompt", "text", "thinking", "call", "summary")
_KIND_IDS = {kind: number for number, kind in enumerate(EVENT_KINDS)}
NO_TOKENS = -1


class Unresumable(Exception):
    """A collector's state that cannot be written down: the log is read again from its start."""


class Strings:
    """Strings kept once each (tool names, models, directories), named by their place."""

    def __init__(self, values: list[str] | None = None) -> None:
        self.values: list[str] = values or [""]
        self._ids: dict[str, int] | None = None
        """Each string's place, made when first asked for (a saved index's 80,000 timestamps are
        only ever read: 2 MB)."""

    def id(self, value: str | None) -> int:
        value = value or ""
        ids = self._ids
        if ids is None:
            ids = self._ids = {text: number for number, text in enumerate(self.values)}
        found = ids.get(value)
        if found is None:
            found = ids[value] = len(self.values)
            self.values.append(value)
        return found

    def __getitem__(self, number: int) -> str:
        return self.values[number]


Column: TypeAlias = "array[int] | memoryview"
"""A column: an array, or a view of a saved index's mapped file (see ``Table.mapped``)."""


class Table:
    """Columns of numbers, one row per item; ``-1`` where a value is unknown."""

    COLUMNS: tuple[tuple[str, str], ...] = ()

    def __init__(self) -> None:
        self._use({name: array(code) for name, code in self.COLUMNS})

    def _use(self, columns: dict[str, Column]) -> None:
        self.columns = columns
        for name, column in columns.items():
            setattr(self, name, column)
        self._first = columns[self.COLUMNS[0][0]]
        self._arrays = [column for column in columns.values() if isinstance(column, array)]

    def __len__(self) -> int:
        return len(self._first)

    def extend(self, rows: list[tuple[int, ...]]) -> None:
        """Rows, each its values in the order of ``COLUMNS``, appended a column at a time (once the
        columns are arrays: see ``own``): a batch's values are packed by ``struct``, which takes
        half the time an array's ``extend`` does (that parses each value as an argument)."""
        if rows:
            for column, values in zip(self._arrays, zip(*rows, strict=True), strict=True):
                column.frombytes(struct.pack(f"{len(values)}{column.typecode}", *values))

    def mapped(self, buffer: memoryview, offset: int, rows: int) -> int:
        """Take ``rows`` rows of each column from ``buffer`` at ``offset``, saved one column after
        another, as views of it (not copied); where they end."""
        columns: dict[str, Column] = {}
        for name, code in self.COLUMNS:
            end = offset + rows * array(code).itemsize
            if rows < 0 or end > len(buffer):
                raise ValueError("truncated")
            columns[name] = buffer[offset:end].cast(code)  # type: ignore[call-overload]  # one of "bhiq"
            offset = end
        self._use(columns)
        return offset

    def own(self) -> None:
        """Columns of its own (arrays, that can grow) in place of views of a saved index."""
        if not isinstance(self._first, memoryview):
            return
        columns: dict[str, Column] = {}
        for name, code in self.COLUMNS:
            column = columns[name] = array(code)
            column.frombytes(memoryview(self.columns[name]).cast("B"))
        self._use(columns)


class Calls(Table):
    COLUMNS = (
        ("offset", "q"),  # the call's record: its first byte (JSON Lines) or character (a document)
        ("size", "q"),  # its bytes (JSON Lines) or characters
        ("line", "q"),
        ("container", "i"),
        ("nth", "i"),  # its place among the calls its record holds
        ("tool", "i"),
        ("agent", "i"),
        ("depth", "i"),
        ("starter", "q"),  # the number of the call that started its subagent
        ("prompt", "i"),
        ("turn", "i"),
        ("version", "i"),
        ("cwd", "i"),
        ("event", "q"),  # its place among the events
        ("arguments", "q"),  # the characters of its arguments (as JSON)
        ("r_offset", "q"),  # its result's record (-1: no result yet)
        ("r_size", "q"),
        ("r_line", "q"),
        ("r_length", "q"),
        ("r_block", "i"),
        ("r_chars", "q"),  # -1 until an output only skimmed is read
        ("r_error", "b"),  # -1 unknown, 0, 1
        ("r_unchanged", "b"),
        ("tokens", "q"),  # what the output cost the context (-1: not known yet)
        ("tokens_counted", "b"),  # 1: counted with cl100k (no usage to take it from)
    )
    offset: Column
    size: Column
    line: Column
    container: Column
    nth: Column
    tool: Column
    agent: Column
    depth: Column
    starter: Column
    prompt: Column
    turn: Column
    version: Column
    cwd: Column
    event: Column
    arguments: Column
    r_offset: Column
    r_size: Column
    r_line: Column
    r_length: Column
    r_block: Column
    r_chars: Column
    r_error: Column
    r_unchanged: Column
    tokens: Column
    tokens_counted: Column


class Events(Table):
    COLUMNS = (
        ("kind", "b"),
        ("prompt", "i"),
        ("agent", "i"),
        ("offset", "q"),
        ("size", "q"),
        ("line", "q"),
        ("container", "i"),
        ("nth", "i"),
        ("chars", "q"),
        ("call", "q"),  # the call's number, for a call event
    )
    kind: Column
    prompt: Column
    agent: Column
    offset: Column
    size: Column
    line: Column
    container: Column
    nth: Column
    chars: Column
    call: Column


class Turns(Table):
    COLUMNS = (
        ("offset", "q"),
        ("size", "q"),
        ("line", "q"),
        ("model", "i"),
        ("input", "q"),
        ("cache_read", "q"),
        ("cache_creation", "q"),
        ("output", "q"),
        ("window", "q"),
        ("results_before", "q"),
        ("events_before", "q"),
        ("agent", "i"),
        ("timestamp", "i"),
        ("outputs", "q"),  # tokens of tool outputs in its context, from usage (-1: the turn has none)
    )
    offset: Column
    size: Column
    line: Column
    model: Column
    input: Column
    cache_read: Column
    cache_creation: Column
    output: Column
    window: Column
    results_before: Column
    events_before: Column
    agent: Column
    timestamp: Column
    outputs: Column


class Answers(Table):
    COLUMNS = (("call", "q"),)  # calls in the order their results were logged
    call: Column


class Boundaries(Table):
    """The log's compactions and new sessions in columns; each made a ``Boundary`` only when asked
    for (a saved index of a 1 GB session holds 12,000 of them: objects cost its first screen 0.1 s)."""

    COLUMNS = (
        ("offset", "q"),
        ("size", "q"),
        ("line", "q"),
        ("trigger", "i"),
        ("tokens_before", "q"),
        ("turns_before", "q"),
        ("results_before", "q"),
        ("events_before", "q"),
        ("agent", "i"),
        ("new_session", "b"),
    )
    offset: Column
    size: Column
    line: Column
    trigger: Column
    tokens_before: Column
    turns_before: Column
    results_before: Column
    events_before: Column
    agent: Column
    new_session: Column

    def __init__(self, strings: Strings | None = None) -> None:
        super().__init__()
        self.strings = strings or Strings()
        """Where ``trigger`` and ``agent`` name their strings (the index's)."""

    def add_boundaries(self, boundaries: list[Boundary]) -> None:
        string_id = self.strings.id
        self.extend(
            [
                (
                    *_place(boundary.where),
                    string_id(boundary.trigger),
                    boundary.tokens_before,
                    boundary.turns_before,
                    boundary.results_before,
                    boundary.events_before,
                    string_id(boundary.agent),
                    int(boundary.new_session),
                )
                for boundary in boundaries
            ]
        )

    def boundary(self, row: int) -> Boundary:
        strings = self.strings
        return Boundary(
            location(self.offset[row], self.size[row], self.line[row]),
            strings[self.trigger[row]],
            self.tokens_before[row],
            self.turns_before[row],
            self.results_before[row],
            self.events_before[row],
            strings[self.agent[row]],
            bool(self.new_session[row]),
        )

    def __getitem__(self, rows: int | slice) -> Any:
        if isinstance(rows, slice):
            return [self.boundary(row) for row in range(*rows.indices(len(self)))]
        return self.boundary(range(len(self))[rows])

    def __iter__(self) -> Iterator[Boundary]:
        return (self.boundary(row) for row in range(len(self)))

    def new_sessions(self) -> int:
        """How many of them start a new session (the rest are compactions)."""
        return sum(self.new_session)


def _chars(arguments: dict[str, Any] | str) -> int:
    """The characters of a call's arguments as the model wrote them (JSON)."""
    if isinstance(arguments, str):
        return len(arguments)
    try:
        return jsontext.encoded_length(arguments)
    except (ValueError, TypeError, RecursionError):
        return 0


_RESULT_COLUMNS = ("r_offset", "r_size", "r_line", "r_length", "r_block", "r_chars", "r_error", "r_unchanged")
_NO_RESULT = (-1, 0, 0, 0, -1, -1, -1, 0)
"""A call's result columns while it has none."""


def _result_values(result: ResultRef) -> tuple[int, ...]:
    """A call's result columns (``_RESULT_COLUMNS``) for its result."""
    offset, size, line = _place(result.where)
    return (
        offset,
        size,
        line,
        result.where.length,
        result.block,
        -1 if result.chars is None else result.chars,
        -1 if result.is_error is None else int(result.is_error),
        int(result.unchanged),
    )


def _numbered_places(table: Calls | Events, found: list[ToolCall] | list[Event]) -> Iterator[tuple[int, int, int, int]]:
    """Where each of the calls or events ``found`` is (``_place``), and its place among those of its
    record (``nth``: 0 for the first), going on from the table's last row."""
    offset_before, line_before, nth = -1, -1, 0
    if len(table):
        last = len(table) - 1
        offset_before, line_before, nth = table.offset[last], table.line[last], table.nth[last]
    for item in found:
        offset, size, line = _place(item.where)
        nth = nth + 1 if offset == offset_before and line == line_before else 0
        offset_before, line_before = offset, line
        yield offset, size, line, nth


def location(offset: int, size: int, line: int) -> Location:
    """A record's place: a line of JSON Lines, or a span of a document's characters."""
    return Location(line=line, start=offset, size=size) if line else Location(start=offset, length=size)


def _place(where: Location) -> tuple[int, int, int]:
    return (where.start, where.size, where.line) if where.line else (where.start, where.length, 0)


@dataclass
class _AgentContext:
    """What the attribution knows of one agent's context between two of its turns."""

    context: int = 0
    """The last turn's context, from its usage (0: none yet, or compacted since)."""
    outputs: int = 0
    """Tool outputs' tokens in that context."""
    results: list[tuple[int, int]] = field(default_factory=list)
    """(call, weight) of the results logged since its last turn."""
    other: int = 0
    """Weight of everything else logged since (prompts, text, thinking, calls' arguments)."""


class Attribution:
    """The tokens of each tool output, and the outputs' share of each turn's context, from usage.

    A turn's usage says how big its context was; what grew since the agent's previous turn is what
    was logged in between: tool outputs, and the rest (the previous answer's text, thinking and
    calls, prompts, summaries). That growth is shared out by size (characters where read, else the
    record's bytes): an output gets its part of it, never more tokens than it has characters (what
    grew past that is something the log does not hold), and the turn's outputs' share is the last
    turn's plus what the outputs brought. A compaction starts the agent's context again; a context
    that shrank without one (old outputs cleared) keeps its share in proportion. A turn without
    usage leaves all this to the next that has some (its context is estimated when reported).
    """

    def __init__(self) -> None:
        self.agents: dict[int, _AgentContext] = {}
        self.events = 0
        self.answers = 0
        self.boundaries = 0
        self.turns = 0

    def advance(self, index: RecordIndex, turns: int) -> None:
        """Attribute the first ``turns`` turns (those the collector will no longer change)."""
        t = index.turns
        events_before, results_before, agents, outputs = t.events_before, t.results_before, t.agent, t.outputs
        while self.turns < turns:
            row = self.turns
            self._until(index, events_before[row], results_before[row], row)
            outputs[row] = self._turn(index, agents[row], _context_of(t, row))
            self.turns += 1

    def _until(self, index: RecordIndex, events: int, answers: int, turns: int) -> None:
        """Take in what was logged before a point, and the compactions there."""
        b = index.boundaries
        while self.boundaries < len(b) and b.turns_before[self.boundaries] <= turns:
            row = self.boundaries
            self._take(index, b.events_before[row], b.results_before[row])
            self.agents[b.agent[row]] = _AgentContext()
            self.boundaries += 1
        self._take(index, events, answers)

    def _take(self, index: RecordIndex, events: int, answers: int) -> None:
        e, c, agents = index.events, index.calls, self.agents
        kinds, event_agents, event_calls, event_chars, arguments = e.kind, e.agent, e.call, e.chars, c.arguments
        for position in range(self.events, min(events, len(e))):
            agent = agents.get(event_agents[position])
            if agent is None:
                agent = agents[event_agents[position]] = _AgentContext()
            if kinds[position] == 3:  # a call: its arguments
                agent.other += arguments[event_calls[position]]
            else:
                agent.other += event_chars[position]
        self.events = max(self.events, min(events, len(e)))
        answered, r_chars, r_size, call_agents = index.answers.call, c.r_chars, c.r_size, c.agent
        for position in range(self.answers, min(answers, len(answered))):
            number = answered[position]
            chars = r_chars[number]
            weight = chars if chars >= 0 else r_size[number]
            agent = agents.get(call_agents[number])
            if agent is None:
                agent = agents[call_agents[number]] = _AgentContext()
            agent.results.append((number, max(weight, 1)))
        self.answers = max(self.answers, min(answers, len(answered)))

    def _turn(self, index: RecordIndex, agent_id: int, context: int, keep: bool = True) -> int:
        """The outputs' share of a turn's context, each output's tokens noted; unless ``keep`` is
        False (a turn the collector may still change), the agent moves on to this turn."""
        agent = self.agents.get(agent_id) or self.agents.setdefault(agent_id, _AgentContext())
        if context <= 0:
            return NO_TOKENS  # no usage: what came since waits for the next turn that has some
        outputs = agent.outputs if agent.context else 0
        if agent.context and context < agent.context:
            outputs = outputs * context // agent.context
        growth = context - agent.context if context >= agent.context else context
        weights = sum(weight for _, weight in agent.results)
        if weights and growth > 0:
            share = growth * weights // (weights + agent.other)
            calls = index.calls
            for number, weight in agent.results:  # the last turn's may be worked out again later
                # No more tokens than characters (bytes where not read): a growth past that is
                # something the log does not hold (a reminder the agent added, say), not the output.
                tokens = min(share * weight // weights, weight)
                calls.tokens[number] = tokens
                calls.tokens_counted[number] = 0
                outputs += tokens
        outputs = min(outputs, context)
        if keep:
            agent.context, agent.outputs, agent.results, agent.other = context, outputs, [], 0
        return outputs

    def state(self) -> dict[str, Any]:
        return {
            "agents": {str(k): [v.context, v.outputs, v.results, v.other] for k, v in self.agents.items()},
            "cursors": [self.events, self.answers, self.boundaries, self.turns],
        }

    @classmethod
    def restored(cls, state: dict[str, Any]) -> Attribution:
        found = cls()
        for key, (context, outputs, results, other) in state["agents"].items():
            pairs = [(int(number), int(weight)) for number, weight in results]
            found.agents[int(key)] = _AgentContext(int(context), int(outputs), pairs, int(other))
        found.events, found.answers, found.boundaries, found.turns = map(int, state["cursors"])
        return found


def _context_of(turns: Turns, row: int) -> int:
    return turns.input[row] + turns.cache_read[row] + turns.cache_creation[row]


class RecordIndex:
    """The index of one transcript file; see the module's docstring.

    ``lock`` guards the columns: the thread that builds them appends under it, readers take it for
    a consistent look. ``grown`` is notified after each batch and when the build ends.
    """

    def __init__(self, records: RecordFile, collector: Collector) -> None:
        self.records = records
        self.collector = collector
        self.collector_type: type[Collector] = type(collector)
        self.path = records.path
        self.kind = records.kind()
        self.lock = threading.RLock()
        self.grown = threading.Condition(self.lock)
        self.calls = Calls()
        self.events = Events()
        self.turns = Turns()
        self.answers = Answers()
        self.strings = Strings()
        self.boundaries = Boundaries(self.strings)
        self.timestamps = Strings()
        self.attribution = Attribution()
        self.problems: list[str] = []
        self.problem_count = 0
        self.absorbed = False
        """Whether a batch of records was moved into the columns yet."""
        self.resumable = True
        """Whether the collector has the state the records read so far left it in (a saved index
        whose collector's state could not be kept has not: the log is read again to read on)."""
        self.subagent_starters: dict[str, int] = {}
        """Subagent id -> the number of the call that started it (to find its own transcript)."""
        self.live: list[ModelTurn] = []
        self.live_outputs = NO_TOKENS
        """The last turn as the collector had it at the last move into the columns (it may still
        change: a message logged in parts, a request whose usage comes later); the collector's own
        list is its, changing while it is fed."""
        self.pending: dict[int, ToolCall] = {}
        """Calls moved into the columns whose result is not known yet, by number."""
        self.lines_read = 0
        """JSON Lines read whole so far (a growing log is read on from there)."""
        self.bytes_read = 0
        self.size = 0
        """The file's size when it was last read."""
        self.complete = False
        self.error: str | None = None
        """Why the build stopped early (the file became unreadable), if it did."""
        self.generation = 0
        """The line index generation the offsets belong to (see ``RecordFile.generation``)."""
        self.saved_size = 0
        """The log's size when the index was last saved (or restored)."""
        self._materialized: OrderedDict[tuple[int, int], Collector] = OrderedDict()
        """Records read again lately, each as a collector fed only it."""
        self._reading = threading.Lock()
        self._containers: dict[Location, str] = {}
        """The array member each record of a document fed since the last move came from."""

    # -- building ---------------------------------------------------------------------------------

    def read(
        self,
        items: Iterator[Record | BadRecord],
        stop: threading.Event | None = None,
        gate: threading.Event | None = None,
    ) -> None:
        """Feed records to the collector, moving what it found into the columns every batch (and
        then waiting for ``gate`` to be open, when given)."""
        collector, containers = self.collector, self._containers
        for fed, item in enumerate(items, 1):
            where = item.where
            if where.line:
                self.lines_read = where.line
                end = where.start + where.size
            else:
                end = where.start + where.length
            if isinstance(item, Record) and item.container:
                containers[where] = item.container
            feed(collector, item)
            if end > self.bytes_read:
                self.bytes_read = end
            if fed % BATCH_RECORDS == 0:
                self.absorb()
                if gate is not None:
                    gate.wait()
                if stop is not None and stop.is_set():
                    return
        self.absorb()

    def absorb(self) -> None:
        """Move what the collector found since the last call into the columns."""
        collector, parsed = self.collector, self.collector.parsed
        with self.lock:
            self.generation = self.records.generation
            self.calls.extend(self._call_rows(parsed.calls))
            parsed.calls.clear()
            self.events.extend(self._event_rows(parsed.events))
            parsed.events.clear()
            for number, call in list(self.pending.items()):
                if call.result is not None:
                    self._set_result(number, call.result)
                if call.result is not None or not collector.is_waiting(call):  # answered, or never will be
                    del self.pending[number]
            self.answers.extend([(call.number,) for call in collector.answer_order])
            collector.answer_order.clear()
            self.boundaries.add_boundaries(parsed.boundaries)
            for key, call in parsed.subagent_ids.items():
                self.subagent_starters[key] = call.number
            parsed.boundaries.clear()
            self.turns.extend(self._turn_rows(parsed.turns[:-1]))
            del parsed.turns[:-1]
            self.live = list(parsed.turns)
            self.attribution.advance(self, len(self.turns))
            self.live_outputs = self._live_outputs()
            problems = parsed.problems
            self.problem_count += len(problems)
            self.problems.extend(problems[: max(0, PROBLEMS_KEPT - len(self.problems))])
            problems.clear()
            self._containers.clear()
            self.absorbed = True
            self.grown.notify_all()

    def _call_rows(self, found: list[ToolCall]) -> list[tuple[int, ...]]:
        """The rows of calls the collector made (a call still waiting for its result goes to
        ``pending``: its result's columns are set when it comes)."""
        string_id, containers, pending = self.strings.id, self._containers, self.pending
        rows: list[tuple[int, ...]] = []
        for call, (offset, size, line, nth) in zip(found, _numbered_places(self.calls, found), strict=True):
            where, result = call.where, call.result
            rows.append(
                (
                    offset,
                    size,
                    line,
                    string_id(containers.get(where, "")) if containers else 0,  # container
                    nth,
                    string_id(call.tool),  # tool
                    string_id(call.agent),  # agent
                    call.depth,
                    -1 if call.starter is None else call.starter.number,  # starter
                    call.prompt,
                    call.turn,
                    string_id(call.version),  # version
                    string_id(call.cwd),  # cwd
                    -1,  # event
                    _chars(call.arguments),  # arguments
                    *(_NO_RESULT if result is None else _result_values(result)),  # r_offset to r_unchanged
                    NO_TOKENS,  # tokens
                    0,  # tokens_counted
                )
            )
            if result is None:
                pending[call.number] = call
        return rows

    def _set_result(self, number: int, result: ResultRef) -> None:
        calls = self.calls
        for column, value in zip(_RESULT_COLUMNS, _result_values(result), strict=True):
            calls.columns[column][number] = value

    def _event_rows(self, found: list[Event]) -> list[tuple[int, ...]]:
        """The rows of events the collector said (a call's event is noted in its call's row)."""
        events, calls, string_id, containers = self.events, self.calls, self.strings.id, self._containers
        position = len(events) - 1
        call_count = len(calls)
        rows: list[tuple[int, ...]] = []
        for event, (offset, size, line, nth) in zip(found, _numbered_places(events, found), strict=True):
            where, tool_call = event.where, event.tool_call
            rows.append(
                (
                    _KIND_IDS[event.kind],  # kind
                    event.prompt,
                    string_id(event.agent),  # agent
                    offset,
                    size,
                    line,
                    string_id(containers.get(where, "")) if containers else 0,  # container
                    nth,
                    event.chars,
                    -1 if tool_call is None else tool_call.number,  # call
                )
            )
            position += 1
            if tool_call is not None and tool_call.number < call_count:
                calls.event[tool_call.number] = position
        return rows

    def _turn_rows(self, found: list[ModelTurn]) -> list[tuple[int, ...]]:
        string_id, timestamp_id = self.strings.id, self.timestamps.id
        rows: list[tuple[int, ...]] = [
            (
                *_place(turn.where),
                string_id(turn.model),  # model
                turn.input,
                turn.cache_read,
                turn.cache_creation,
                turn.output,
                turn.window or 0,  # window
                turn.results_before,
                turn.events_before,
                string_id(turn.agent),  # agent
                timestamp_id(turn.timestamp),  # timestamp
                NO_TOKENS,  # outputs
            )
            for turn in found
        ]
        return rows

    def read_on(self) -> None:
        """Read what was appended to the log since the last read. Rewritten when the log is no
        longer what was read (replaced, cut, rewritten in place), or when this index cannot go on
        from where it ended (a saved index without its collector's state)."""
        if self.kind != "jsonl" or not self.resumable:
            raise Rewritten()
        self.own()
        items = whole_lines(self.records, self.lines_read + 1)
        first = next(items, None)  # the file is open: its generation is known
        if self.records.generation != self.generation:
            raise Rewritten()
        if first is not None:
            self.read(itertools.chain((first,), items))
            self.save()

    # -- reading it -------------------------------------------------------------------------------

    def progress(self) -> float:
        """How much of the log is read (0 to 1)."""
        return 1.0 if self.complete or not self.size else min(1.0, self.bytes_read / self.size)

    def compacted_calls(self) -> dict[int, int]:
        """The first call of the compacted agent after each compaction (not a new session) that has
        one: its number -> the compaction's row in ``boundaries`` (the last one, when several came
        before it). Read from the columns: a saved index of a 1 GB session holds 12,000 compactions."""
        found: dict[int, int] = {}
        with self.lock:
            boundaries, calls, agents, end = self.boundaries, self.events.call, self.events.agent, len(self.events)
            for row, (new_session, agent, position) in enumerate(
                zip(boundaries.new_session, boundaries.agent, boundaries.events_before, strict=True)
            ):
                if new_session:
                    continue
                while position < end and (calls[position] < 0 or agents[position] != agent):
                    position += 1
                if position < end:
                    found[calls[position]] = row
        return found

    def calls_of(self, tools: tuple[str, ...]) -> list[int]:
        """The numbers of the calls of these tools."""
        with self.lock:
            wanted = {self.strings.id(tool) for tool in tools}
            return [number for number, tool in enumerate(self.calls.tool) if tool in wanted]

    @property
    def call_count(self) -> int:
        return len(self.calls)

    @property
    def turn_count(self) -> int:
        """Turns so far, the one the collector may still change included."""
        return len(self.turns) + len(self.live)

    def wait(self, calls: int = 0, timeout: float | None = None) -> None:
        """Until the index has ``calls`` calls (0: until it is complete), or the build ended."""
        with self.grown:
            self.grown.wait_for(
                lambda: self.complete or self.error is not None or (calls and len(self.calls) >= calls), timeout
            )

    def settled(self) -> int:
        """How many calls (from the first) have their result known or will never get one in what was read."""
        with self.lock:
            if self.complete or not self.pending:
                return len(self.calls)
            return min(self.pending)

    def turn(self, row: int) -> ModelTurn:
        """The model turn at ``row`` (the last one as the collector has it so far)."""
        with self.lock:
            if row >= len(self.turns):
                return self.live[row - len(self.turns)]
            t = self.turns
            return ModelTurn(
                location(t.offset[row], t.size[row], t.line[row]),
                model=self.strings[t.model[row]],
                input=t.input[row],
                cache_read=t.cache_read[row],
                cache_creation=t.cache_creation[row],
                output=t.output[row],
                window=t.window[row] or None,
                timestamp=self.timestamps[t.timestamp[row]],
                results_before=t.results_before[row],
                events_before=t.events_before[row],
                agent=self.strings[t.agent[row]],
            )

    def turn_outputs(self, row: int) -> int:
        """Tokens of tool outputs in turn ``row``'s context, from usage; -1 when it records none."""
        with self.lock:
            return self.turns.outputs[row] if row < len(self.turns) else self.live_outputs

    def _live_outputs(self) -> int:
        """``turn_outputs`` of the last turn, which the collector may still change: worked out (its
        outputs' tokens noted) without the attribution moving on to it."""
        if not self.live:
            return NO_TOKENS
        live = self.live[-1]
        probe = Attribution.restored(self.attribution.state())
        probe._until(self, live.events_before, live.results_before, len(self.turns))
        return probe._turn(self, self.strings.id(live.agent), live.context, keep=False)

    def result_ref(self, number: int) -> ResultRef | None:
        c = self.calls
        if c.r_offset[number] < 0:
            return None
        where = location(c.r_offset[number], c.r_size[number], c.r_line[number])
        if not c.r_line[number]:
            where = Location(start=c.r_offset[number], length=c.r_length[number])
        error = c.r_error[number]
        chars = c.r_chars[number]
        return ResultRef(
            where, c.r_block[number], None if chars < 0 else chars, None if error < 0 else bool(error),
            bool(c.r_unchanged[number]),
        )  # fmt: skip

    def output(self, number: int, result: ResultRef | None = None) -> tuple[str, bool | None] | None:
        """Call ``number``'s recorded output and whether it was an error, read again (at ``result``
        when given); None when it has none, or its record is no longer there. Reading an output
        that was only skimmed notes its character count and error flag."""
        with self.lock:
            result = result or self.result_ref(number)
        if result is None:
            return None
        try:
            value = self.records.read_again(result.where, self.generation)
            text, is_error = self.collector_type.result_text(value, result.block)
        except (OSError, ValueError, LookupError, TypeError, AttributeError, RecursionError):
            return None
        if result.chars is None:
            with self.lock:
                self.calls.r_chars[number] = len(text)
                if is_error is not None:
                    self.calls.r_error[number] = int(is_error)
        return text, is_error

    def count_output(self, number: int, count: Callable[[str], int]) -> int | None:
        """Tokens of call ``number``'s output: from usage, else counted with ``count`` (and kept)."""
        with self.lock:
            tokens = self.calls.tokens[number]
        if tokens >= 0:
            return tokens
        found = self.output(number)
        if found is None:
            return None
        tokens = self.as_sent(count(found[0]))
        with self.lock:
            if self.calls.tokens[number] < 0:
                self.calls.tokens[number] = tokens
                self.calls.tokens_counted[number] = 1
            return self.calls.tokens[number]

    def as_sent(self, tokens: int) -> int:
        """The tokens counted over an output as logged, cut to what its agent sends at most."""
        most = self.collector_type.sent_tokens_at_most
        return tokens if most is None else min(tokens, most)

    def record(self, offset: int, size: int, line: int, container: int) -> Record | None:
        """The record at a place, read and parsed again; None when it cannot be (the file changed)."""
        where = location(offset, size, line)
        try:
            value = self.records.read_again(where, self.generation)
        except (OSError, ValueError, RecursionError):
            return None
        return Record(value, where, self.strings[container])

    def _fresh(self, offset: int, size: int, line: int, container: int) -> Collector | None:
        """A new collector fed only the record at a place: what that record holds, in order."""
        key = (offset, line)
        with self._reading:
            found = self._materialized.get(key)
            if found is not None:
                self._materialized.move_to_end(key)
                return found
        record = self.record(offset, size, line, container)
        if record is None:
            return None
        fresh = self.collector_type()
        feed(fresh, record)
        with self._reading:
            self._materialized[key] = fresh
            if len(self._materialized) > 64:
                self._materialized.popitem(last=False)
        return fresh

    def call(self, number: int) -> ToolCall:
        """Call ``number`` as the collector made it, its record read again; numbered and placed by
        the columns (the caller places it in the transcript's list)."""
        with self.lock:
            c = self.calls
            values = {name: column[number] for name, column in c.columns.items()}
        strings = self.strings
        fresh = self._fresh(values["offset"], values["size"], values["line"], values["container"])
        found = fresh.parsed.calls if fresh is not None else []
        nth = values["nth"]
        if nth < len(found):
            call = found[nth]
        else:  # the record is no longer there, or no longer says so
            where = location(values["offset"], values["size"], values["line"])
            call = ToolCall(number, 1, "", strings[values["tool"]], "(the record could not be read again)", where)
        call.number, call.index = number, number
        call.prompt, call.turn = values["prompt"], values["turn"]
        call.version, call.cwd = strings[values["version"]], strings[values["cwd"]] or None
        call.agent, call.depth, call.starter = strings[values["agent"]], values["depth"], None
        call.result = self.result_ref(number)
        return call

    def event(self, position: int) -> Event:
        """The event at ``position``, its text read again from its record."""
        with self.lock:
            e = self.events
            values = {name: column[position] for name, column in e.columns.items()}
        kind = EVENT_KINDS[values["kind"]]
        where = location(values["offset"], values["size"], values["line"])
        text = ""
        if kind != "call":
            fresh = self._fresh(values["offset"], values["size"], values["line"], values["container"])
            found = [] if fresh is None else [event for event in fresh.parsed.events]
            nth = values["nth"]
            if nth < len(found) and found[nth].chars == values["chars"]:
                text = found[nth].text
            else:
                text = next((event.text for event in found if event.chars == values["chars"]), "")
        return Event(kind, values["prompt"], where, text, values["chars"], None, agent=self.strings[values["agent"]])

    # -- saving and loading -------------------------------------------------------------------------

    def save(self) -> None:
        """Keep the index in the cache dir, for the next process (a log big enough to be worth it,
        and grown enough since the last save)."""
        try:
            stamp = self.records.stamp()
        except OSError:
            return
        if stamp.size < SAVED_MIN_BYTES or (self.saved_size and stamp.size - self.saved_size < SAVE_AGAIN_BYTES):
            return
        try:
            fingerprint, generation = _fingerprint(self.records, stamp.size)
        except OSError:
            return
        if generation == self.generation:
            with self.lock:  # no column changes between the write and the mapping
                if SavedIndexes().save(self, stamp, fingerprint):
                    self._map_saved()
            self.saved_size = stamp.size

    def _map_saved(self) -> None:
        """The columns of the entry just saved, mapped, in place of the arrays they were copied from
        (those go: 30 MB of the process's own memory for a 1 GB session); kept as they are when the
        entry is not what was saved (another process saved the log's index since). The lock held."""
        saved = SavedIndexes().load(self.records, state=False)
        if saved is None:
            return
        tables = (self.calls, self.events, self.turns, self.answers, self.boundaries)
        mapped = (saved.calls, saved.events, saved.turns, saved.answers, saved.boundaries)
        for table, same in zip(tables, mapped, strict=True):
            if any(column != same.columns[name] for name, column in table.columns.items()):
                return
        self.calls, self.events, self.turns, self.answers, self.boundaries = mapped
        self.boundaries.strings = self.strings
        _release_freed_memory()

    def adopt(self, saved: Saved, generation: int) -> None:
        """Take the columns and state of a saved index."""
        state = saved.state
        self.calls, self.events, self.turns, self.answers = saved.calls, saved.events, saved.turns, saved.answers
        self.strings = Strings([str(value) for value in state["strings"]])
        self.timestamps = Strings([str(value) for value in state["timestamps"]])
        self.boundaries = saved.boundaries
        self.boundaries.strings = self.strings
        self.problems = [str(problem) for problem in state["problems"]][:PROBLEMS_KEPT]
        self.problem_count = int(state["problem_count"])
        self.lines_read = int(state["lines_read"])
        self.bytes_read = int(state["bytes_read"])
        self.attribution = Attribution.restored(state["attribution"])
        self.generation = generation
        self.saved_size = int(state["stamp"][2])
        parsed = self.collector.parsed
        for name, value in state["parsed"].items():
            setattr(parsed, name, value)
        starters = state["subagent_starters"]
        self.subagent_starters = {
            str(key): int(number) for key, number in starters.items() if 0 <= number < len(self.calls)
        }
        self.pending = {int(number): None for number in state["pending"]}  # type: ignore[misc]

    def own(self) -> None:
        """Columns of its own in place of a saved index's mapped ones: before it grows."""
        with self.lock:
            for table in (self.calls, self.events, self.turns, self.answers, self.boundaries):
                table.own()

    def state(self) -> dict[str, Any]:
        """Everything but the columns, as JSON values (the collector's state, when it can be written)."""
        parsed = self.collector.parsed
        try:
            collector = _collector_state(self.collector, self)
        except Unresumable:
            collector = None
        return {
            "collector_type": self.collector_type.__name__,
            "kind": self.kind,
            "lines_read": self.lines_read,
            "bytes_read": self.bytes_read,
            "complete": self.complete,
            "strings": self.strings.values,
            "timestamps": self.timestamps.values,
            "problems": self.problems,
            "problem_count": self.problem_count,
            "parsed": {
                name: getattr(parsed, name)
                for name in ("format", "cwd", "version", "model", "session_id", "started", "ended")
            },
            "subagent_starters": self.subagent_starters,
            "pending": sorted(self.pending),
            "collector": collector,
            "attribution": self.attribution.state(),
        }


def _collector_state(collector: Collector, index: RecordIndex) -> dict[str, Any]:
    """The collector's own attributes as JSON values: calls by number, the last turn by its fields;
    Unresumable for anything else (a format whose state holds something new is read again whole)."""
    live_turns = collector.parsed.turns

    def encoded(value: Any) -> Any:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, ToolCall):
            return {"$call": value.number}
        if isinstance(value, ModelTurn) and live_turns and value is live_turns[-1]:
            return {"$turn": "last"}
        if isinstance(value, dict) and all(isinstance(key, str) for key in value):
            return {"$dict": {key: encoded(item) for key, item in value.items()}}
        if isinstance(value, (list, tuple)):
            return [encoded(item) for item in value]
        raise Unresumable(type(value).__name__)

    state = {}
    for name, value in vars(collector).items():
        if name in ("parsed", "_waiting_by_id", "answered", "answer_order"):
            continue
        if name == "_waiting":
            state[name] = [call.number for call in value]
            continue
        state[name] = encoded(value)
    state["$turns"] = [_turn_state(turn) for turn in live_turns]
    return state


def _turn_state(turn: ModelTurn) -> dict[str, Any]:
    return {f.name: getattr(turn, f.name) for f in fields(ModelTurn) if f.name != "where"} | {
        "where": list(_place(turn.where))
    }


def restore_collector(index: RecordIndex, state: dict[str, Any]) -> None:
    """Give ``index.collector`` the state saved with the index (calls read again from the log)."""
    collector = index.collector
    calls: dict[int, ToolCall] = {}

    def call(number: int) -> ToolCall:
        if number not in calls:
            if not 0 <= number < len(index.calls):
                raise ValueError("a call the index does not have")
            found = calls[number] = index.call(number)
            starter = index.calls.starter[number]
            found.starter = call(starter) if 0 <= starter < number else None
        return calls[number]

    turns = [
        ModelTurn(location(*turn.pop("where")), **{k: v for k, v in turn.items() if k in _TURN_FIELDS})
        for turn in state["$turns"]
    ]

    def decoded(value: Any) -> Any:
        if isinstance(value, list):
            return [decoded(item) for item in value]
        if isinstance(value, dict):
            if "$call" in value:
                return call(int(value["$call"]))
            if "$turn" in value:
                if not turns:
                    raise ValueError("no last turn")
                return turns[-1]
            return {key: decoded(item) for key, item in value["$dict"].items()}
        return value

    for name, value in state.items():
        if name == "$turns":
            continue
        if name == "_waiting":
            waiting = [call(int(number)) for number in value]
            collector._waiting = OrderedDict((found, None) for found in waiting)
            by_id: dict[str, list[ToolCall]] = {}
            for found in waiting:
                by_id.setdefault(found.call_id, []).append(found)
            collector._waiting_by_id = by_id
            continue
        if not hasattr(collector, name):
            raise ValueError(f"{name}: not an attribute of the collector")
        setattr(collector, name, decoded(value))
    collector.parsed.turns = turns
    index.live = list(turns)
    index.live_outputs = index._live_outputs()
    index.pending = {number: call(number) for number in index.pending}


_TURN_FIELDS = {f.name for f in fields(ModelTurn)} - {"where"}


def _release_freed_memory() -> None:
    """Give the heap's free pages back to the system: glibc keeps what the arrays just replaced and
    the build's parsed records took (most of what a cold transcript screen held more than a warm
    one); a C library without ``malloc_trim`` keeps them."""
    import ctypes

    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


class SavedIndexes:
    """Record indexes kept in the cache dir (``records/{key of the log's real path}.idx``), one per log."""

    def __init__(self, cache: CacheDir | None = None) -> None:
        self.cache = cache or CacheDir(cache_root())

    def _path(self, records: RecordFile) -> Path:
        """The entry of a log: by its real path (a path in a workspace is taken from its root)."""
        real_path = os.path.realpath(os.path.join(records.filesystem.root or "", records.path))
        return self.cache.root / "records" / f"{file_key(real_path)}.idx"

    def save(self, index: RecordIndex, stamp: Stamp, fingerprint: bytes) -> bool:
        """Whether the index could be written. Its columns are written as they are, one at a time
        (not joined first: 30 MB for a 1 GB session), the index's lock held meanwhile."""
        with index.lock:
            state = index.state() | {"stamp": list(vars(stamp).values()), "fingerprint": fingerprint.hex()}
            tables = [index.calls, index.events, index.turns, index.answers, index.boundaries]
            header = json.dumps(state, ensure_ascii=False).encode("utf-8", "surrogatepass")
            head = b"".join([_LENGTH.pack(len(header)), header, *(_LENGTH.pack(len(table)) for table in tables)])
            columns = [column for table in tables for column in table.columns.values()]
            crc = zlib.crc32(head)
            for column in columns:
                crc = zlib.crc32(column, crc)
            chunks = itertools.chain([_MAGIC, _CRC.pack(crc), head], (column.tobytes() for column in columns))
            try:
                self.cache.write(self._path(index.records), chunks)
            except OSError:
                return False  # a cache that cannot be written only costs the next process a read of the log
        return True

    def load(self, records: RecordFile, state: bool = True) -> Saved | None:
        """The state and columns saved for the log ``records`` reads, if an entry reads back whole
        (not yet checked against the log). The entry is mapped, not read: its columns are views of
        the mapping (pages of the file, that the kernel can drop and read again, not the process's
        own memory: 30 MB for a 1 GB session), copied on write (a token counted, say) and never
        written back. Entries are replaced by a rename, never rewritten in place, so a mapped one
        keeps its bytes."""
        entry = self._path(records)
        try:
            descriptor = regular_descriptor(str(entry))  # a FIFO or a device in its place is not waited on
        except OSError:
            return None
        try:
            data = mmap.mmap(descriptor, 0, access=mmap.ACCESS_COPY)
        except (OSError, ValueError):  # ValueError: an empty file
            return None
        finally:
            os.close(descriptor)
        if not self.cache.lookup(entry):
            return None
        try:
            return _decoded(data, state)
        except (ValueError, KeyError, TypeError, IndexError, struct.error, UnicodeDecodeError, RecursionError):
            return None


@dataclass
class Saved:
    """A saved index as read back: its state and its columns."""

    state: dict[str, Any]
    calls: Calls
    events: Events
    turns: Turns
    answers: Answers
    boundaries: Boundaries


def _decoded(data: bytes | bytearray | mmap.mmap, with_state: bool = True) -> Saved:
    """A saved index from its bytes; its columns are views of them (of a copy, when they cannot be
    written: a column is written when a token is counted). ``with_state`` False: the columns only
    (the state left empty, not parsed)."""
    view = memoryview(data)
    if view.readonly:
        view = memoryview(bytearray(view))
    if view[: len(_MAGIC)] != _MAGIC:
        raise ValueError("not a record index")
    (crc,) = _CRC.unpack_from(view, len(_MAGIC))
    body = view[len(_MAGIC) + _CRC.size :]
    if zlib.crc32(body) != crc:
        raise ValueError("damaged")
    (length,) = _LENGTH.unpack_from(body, 0)
    if not 0 <= length <= len(body) - 8:
        raise ValueError("truncated")
    state = json.loads(bytes(body[8 : 8 + length]).decode("utf-8", "surrogatepass")) if with_state else {}
    offset = 8 + length
    saved = Saved(state, Calls(), Events(), Turns(), Answers(), Boundaries())
    tables: list[Table] = [saved.calls, saved.events, saved.turns, saved.answers, saved.boundaries]
    rows = []
    for _ in tables:
        rows.append(_LENGTH.unpack_from(body, offset)[0])
        offset += 8
    for table, count in zip(tables, rows, strict=True):
        offset = table.mapped(body, offset, count)
    if offset != len(body):
        raise ValueError("trailing bytes")
    return saved


def consistent(saved: Saved) -> bool:
    """Whether saved columns could describe a log of the saved size (a damaged or crafted entry does
    not): every place within the log, every name and number within its table. Without numpy (its
    import took 0.1-0.2 s of a 1 GB session's first screen): mostly by bytes, see ``_below``."""
    state, calls, events, turns, answers = saved.state, saved.calls, saved.events, saved.turns, saved.answers
    boundaries = saved.boundaries
    size, strings, timestamps = int(state["stamp"][2]), len(state["strings"]), len(state["timestamps"])
    n, e = len(calls), len(events)

    def places(offsets: Column, sizes: Column) -> bool:
        return _below(offsets, size + 1) and _below(sizes, size + 1)

    names = (calls.tool, calls.agent, calls.version, calls.cwd, calls.container, events.agent, events.container)
    return (
        places(calls.offset, calls.size)
        and _below(calls.r_offset, size + 1, -1)
        and _below(calls.r_size, size + 1)
        and places(events.offset, events.size)
        and places(turns.offset, turns.size)
        and places(boundaries.offset, boundaries.size)
        and all(_below(column, strings) for column in (*names, turns.model, turns.agent))
        and all(_below(column, strings) for column in (boundaries.trigger, boundaries.agent))
        and _below(turns.timestamp, timestamps)
        and _below(calls.starter, n, -1)
        and _below(calls.event, e, -1)
        and _below(events.kind, len(EVENT_KINDS))
        and _below(events.call, n, -1)
        and _below(answers.call, n)
        and all(0 <= int(number) < n for number in state["pending"])
    )


def _below(values: Column, limit: int, lowest: int = 0) -> bool:
    """Whether every value is in ``[lowest, limit)`` (``lowest`` 0, or -1 for "unknown"), found from
    its bytes, each byte's column at once: from the most significant byte down, no value still equal
    to ``limit - 1`` in the bytes above may have a byte above that of ``limit - 1``. A negative
    value's top byte is above that of any limit, so it fails as a large one would; a -1 allowed is
    all ``0xff`` bytes, made 0 in each byte's column. A mask (a big int, one byte a value) keeps
    the values still equal."""
    count, width = len(values), values.itemsize
    if not count:
        return True
    if not 0 < limit <= 1 << (8 * width - 1) or sys.byteorder != "little":
        return min(values) >= lowest and max(values) < limit
    top, raw = (limit - 1).to_bytes(width, "little"), values.tobytes()
    columns = [raw[byte::width] for byte in range(width)]
    if lowest == -1 and 0xFF in columns[-1]:
        unknown = int.from_bytes(columns[-1].translate(_SIGNED), "little")  # 0xff a negative value
        for byte, column in enumerate(columns):
            bits = int.from_bytes(column, "little")
            if bits & unknown != unknown:
                return False  # a negative value other than -1
            columns[byte] = (bits & ~unknown).to_bytes(count, "little")
    equal: int | None = None  # None while every value is equal to limit - 1 in the bytes above
    for byte in reversed(range(width)):
        column, allowed = columns[byte], top[byte]
        if equal is None:
            if column.count(allowed) == count:
                continue
            equal = (1 << (8 * count)) - 1
        else:
            column = (int.from_bytes(column, "little") & equal).to_bytes(count, "little")
        if column.translate(None, bytes(range(allowed + 1))):
            return False  # one is above limit - 1 here (and equal to it above)
        marks = bytes(allowed) + b"\xff" + bytes(255 - allowed)  # 0xff where a byte is ``allowed``
        equal &= int.from_bytes(column.translate(marks), "little")
        if not equal:
            return True
    return True  # the rest are limit - 1


_SIGNED = bytes([0] * 128 + [255] * 128)
"""A top byte's translation: 0xff where its value is negative, else 0."""


class Rewritten(Exception):
    """The log was replaced or rewritten since it was indexed: what the index says is no longer there."""


def whole_lines(records: RecordFile, first: int) -> Iterator[Record | BadRecord]:
    """The records of JSON Lines from line ``first``. A last line without its newline that is not
    JSON yet is being written: it is left for later."""
    for item in records.records(first):
        if isinstance(item, BadRecord) and item.where.line == records.partial_line:
            return
        yield item


def _fingerprint(records: RecordFile, size: int) -> tuple[bytes, int]:
    """The first and last 4 KiB before ``size`` (unchanged ones mean the log only grew), and the
    generation of the file's line index they were read in."""
    with records.file.open() as reader:
        return reader.read_at(0, min(4096, size)) + reader.read_at(max(0, size - 4096), min(4096, size)), (
            reader.generation
        )


class Build:
    """Builds a log's index: from the saved one when it still describes the log, else from the start;
    in a thread of its own, or in the caller's. ``done`` callbacks run in the building thread."""

    def __init__(self, index: RecordIndex, rest: Iterator[Record | BadRecord] | None) -> None:
        self.index = index
        self.rest = rest
        self.stop = threading.Event()
        self.gate = threading.Event()
        """Open while the build may go on (see ``start``)."""
        self.gate.set()
        self.done: list[Callable[[], None]] = []
        self.thread: threading.Thread | None = None

    def resume(self) -> None:
        """Let a build started ``paused`` go on."""
        self.gate.set()

    def join(self) -> None:
        """Wait for the thread building the index (and saving it) to end."""
        if self.thread is not None:
            self.thread.join()

    def run(self) -> None:
        index = self.index
        try:
            index.size = index.records.stamp().size
            if self.rest is not None:
                index.read(self.rest, self.stop, self.gate)
        except OSError as error:  # unreadable, or changed while it was read
            with index.lock:
                index.error = str(error.strerror or error)
        finally:
            with index.grown:
                index.complete = index.error is None and not self.stop.is_set()
                index.grown.notify_all()
        if index.complete:
            index.save()
        for callback in self.done:
            callback()

    def start(self, paused: bool = False) -> None:
        """Build in a daemon thread; return once the first batch of records is in the columns.
        ``paused``: the build waits there until ``resume`` (a screen that shows the first records
        lets it go on once they are painted: the build would hold the GIL half the time meanwhile)."""
        if paused:
            self.gate.clear()
        thread = self.thread = threading.Thread(target=self.run, name=f"indexing {self.index.path}", daemon=True)
        thread.start()
        with self.index.grown:
            self.index.grown.wait_for(lambda: self.index.absorbed or self.index.complete or not thread.is_alive())


def open_index(path: str, filesystem: Filesystem = ANYWHERE) -> Build | None:
    """How to build the index of the transcript at ``path`` in ``filesystem`` (its format found, or its
    saved index checked); None when no record looks like one of the formats. OSError when it cannot
    be read."""
    from agentpager.transcripts.formats import detected

    records = RecordFile(path, filesystem)
    kind = records.kind()
    try:
        size = records.stamp().size
    except OSError:
        size = 0
    if size >= SAVED_MIN_BYTES:
        restored = _restored(records)
        if restored is not None:
            return restored
    items = whole_lines(records, 1) if kind == "jsonl" else records.records()
    found, items = detected(items)
    if found is None:
        return None
    return Build(RecordIndex(records, found()), items)


def _restored(records: RecordFile) -> Build | None:
    """The saved index of the log, when it still describes it: as it is, or to read on from where
    it ended (the log grew since); None otherwise (then the log is read again from its start)."""
    from agentpager.transcripts.formats import collector_types

    loaded = SavedIndexes().load(records)
    if loaded is None:
        return None
    state = loaded.state
    try:
        collector_type = collector_types().get(state["collector_type"])
        stamp = Stamp(*(int(value) for value in state["stamp"]))
        if collector_type is None or state["kind"] != records.kind() or not consistent(loaded):
            return None
        current = records.stamp()
        if (current.dev, current.ino) != (stamp.dev, stamp.ino) or current.size < stamp.size:
            return None
        fingerprint, generation = _fingerprint(records, stamp.size)
        if fingerprint.hex() != state["fingerprint"]:
            return None
        grown = current.size > stamp.size
        if current != stamp and not (grown and records.kind() == "jsonl" and state["collector"] is not None):
            return None  # rewritten in place (the same size), or a log that cannot be read on
        index = RecordIndex(records, collector_type())
        index.adopt(loaded, generation)
        if state["collector"] is None:
            index.resumable = False
            index.pending = {}
        else:
            restore_collector(index, state["collector"])
        if not grown:
            index.complete = True
            return Build(index, None)
        index.own()
        return Build(index, whole_lines(records, index.lines_read + 1))
    except (ValueError, KeyError, TypeError, IndexError, OSError, RecursionError):
        return None
