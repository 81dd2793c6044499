"""A session's calls as the index keeps them, read from where the last read of its log ended.

For each call: its tool; its arguments (absolute paths under the agent's directory written relative
to it, each text cut at ARGUMENT_CHARS: the log keeps them whole); its status as recorded (``ok``,
``error``, ``unchanged``, ``no result``); the recorded output's size (characters, or the bytes of
its record when the output was only skimmed); its tokens; and what it read of a file (its absolute
path, where the log says the agent's directory), as the profile that replays it says
(``replay.plan_of`` among the profiles that may replay the session, then ``Profile.coverage``). The file is not at hand (it may be on another
machine, or changed since), so a read to a file's end is open-ended.

Tokens come from the usage the log records: the context of the model turn after an output, less
the context and output of the turn before, shared among the outputs in between by their sizes;
None where the log records no usage, or where the context shrank (a compaction).

A JSON Lines log that only grew is read on from its first line not read yet: the calls still waiting
for their result, the outputs whose tokens wait for the next turn and the collector's place (turn,
version, cwd) are carried over in ``resume``. One that was rewritten, and a JSON document, are read
again whole.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentpager.engine.textfile import open_regular
from agentpager.logs.records import BadRecord, Location, RecordFile
from agentpager.profiles import get_profile
from agentpager.tools.base import Profile, RecordedCall
from agentpager.tools.errors import ToolError
from agentpager.transcripts import TranscriptError, open_transcript
from agentpager.transcripts.formats import Collector, ModelTurn, Parsed, ToolCall, collectors, feed
from agentpager.transcripts.replay import plan_of, replaying_profiles

ARGUMENT_CHARS = 120
OPEN_END = 1 << 62
"""The line count the index gives a file it does not have: a read to its end covers up to here."""
MARK_BYTES = 32
"""The last bytes read of a log, kept to tell a log that grew from one rewritten."""


@dataclass(frozen=True)
class Task:
    """A session whose calls are to be read, and how far they were read before."""

    session: int
    path: str
    agent: str
    indexed_size: int = 0
    indexed_lines: int = 0
    indexed_mark: bytes | None = None
    resume: str | None = None


@dataclass
class SessionRead:
    """What reading a session's log gave: rows for the index."""

    session: int
    fresh: bool
    """Read from the start: the session's calls and prompts replace those the index has."""
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    """New calls' rows (the columns of ``store.CALL_COLUMNS`` after ``session``)."""
    answered: list[tuple[Any, ...]] = field(default_factory=list)
    """(status, size, result_line, result_block, number) of calls read before that got their result."""
    tokens: list[tuple[int, int]] = field(default_factory=list)
    """(tokens, number) of calls read before whose tokens are known now."""
    prompts: list[int] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    """Summary columns to update (calls, tokens, counted, model, version, ended...)."""
    indexed_size: int = 0
    indexed_lines: int = 0
    indexed_mark: bytes | None = None
    resume: str | None = None


def read_session(task: Task) -> SessionRead:
    """The rows of a session's calls not in the index yet; a log that cannot be read keeps its rows
    and says why in ``facts['problem']``."""
    try:
        with open_regular(task.path):  # refused as the listing refused it (a FIFO is not waited on)
            pass
        records = RecordFile(task.path)
        if records.kind() == "jsonl":
            return _read_lines(task, records)
        return _read_document(task)
    except (OSError, TranscriptError, ValueError) as error:
        return SessionRead(
            task.session,
            False,
            facts={"problem": str(error)},
            indexed_size=task.indexed_size,
            indexed_lines=task.indexed_lines,
            indexed_mark=task.indexed_mark,
            resume=task.resume,
        )


def read_sessions(tasks: list[Task]) -> list[SessionRead]:
    """``read_session`` for each (a worker process's share)."""
    return [read_session(task) for task in tasks]


def _read_document(task: Task) -> SessionRead:
    size = os.stat(task.path).st_size
    transcript = open_transcript(task.path, subagents=False)
    parsed = transcript.parsed  # its lists are in the transcript's index: read through the transcript
    calls, turns = list(transcript.calls), list(transcript.turns)
    read = SessionRead(task.session, True, indexed_size=size)
    answered = _answered(calls)
    by_number = output_tokens([(call.number, _size(call)) for call in answered], _usage_turns(turns, answered, 0))
    rows = _Rows(parsed.format, parsed.version, transcript.cwd or "")
    read.calls = [rows.row(call.number, call, by_number.get(call.number)) for call in calls]
    read.prompts = [event.where.line for event in transcript.events if event.kind == "prompt"]
    read.facts = _facts(parsed, turns, len(calls), True)
    return read


def _read_lines(task: Task, records: RecordFile) -> SessionRead:
    st = os.stat(task.path)
    resume = _carried(task, st)
    collector = collectors()[task.agent]()
    state = _restore(collector, resume)
    first = task.indexed_lines + 1 if resume is not None else 1
    lines = first - 1
    for item in records.records(first):
        if isinstance(item, BadRecord) and item.where.line == records.partial_line:
            break  # a line still being written: read at the next update
        lines = item.where.line
        feed(collector, item)
    with records.file.open() as reader:
        end = reader.line_span(lines, lines)[1] if lines else 0
        tail = reader.read_at(max(0, end - MARK_BYTES), min(end, MARK_BYTES))
    parsed = collector.parsed
    carried: list[int] = state["waiting_numbers"]
    before = state["calls"]
    numbers = {call: number for call, number in zip(parsed.calls, carried, strict=False)}
    for offset, call in enumerate(parsed.calls[len(carried) :]):
        numbers[call] = before + offset
    pending = [tuple(pair) for pair in state["pending"]]
    answered = _answered(parsed.calls)
    turns = _usage_turns(parsed.turns, answered, len(pending))
    if state["last_turn"] is not None:
        turns.insert(0, (*state["last_turn"], 0))
    main = [call for call in answered if call.depth == 0]
    tokens = output_tokens([*pending, *((numbers[call], _size(call)) for call in main)], turns)
    read = SessionRead(task.session, resume is None, indexed_size=end, indexed_lines=lines)
    read.indexed_mark = _mark(st, tail)
    rows = _Rows(parsed.format or task.agent, parsed.version, parsed.cwd or "")
    for call in parsed.calls[len(carried) :]:
        read.calls.append(rows.row(numbers[call], call, tokens.get(numbers[call])))
    for call in parsed.calls[: len(carried)]:
        if call.result is not None:
            read.answered.append((_status(call), _size(call), call.result.where.line, call.result.block, numbers[call]))
    known = {number for number, _ in pending} | {numbers[call] for call in parsed.calls[: len(carried)]}
    read.tokens = [(count, number) for number, count in tokens.items() if number in known]
    read.prompts = [event.where.line for event in parsed.events if event.kind == "prompt"]
    total = before + len(parsed.calls) - len(carried)
    read.facts = _facts(parsed, parsed.turns, total, end == st.st_size, state)
    read.facts["subagents"] = len(type(collector).subagent_files(task.path, parsed.subagent_ids))
    read.resume = _resume_state(collector, numbers, total, main, turns, pending)
    return read


# -- carrying a read over ---------------------------------------------------------------------------


def _mark(st: os.stat_result, tail: bytes) -> bytes:
    """What tells this version of the log from another: its device and inode, and its last bytes read."""
    return f"{st.st_dev}:{st.st_ino}:".encode() + tail


def _carried(task: Task, st: os.stat_result) -> dict[str, Any] | None:
    """The state to read on with, when the log only grew since it was read; None to read it from the start."""
    if not task.indexed_lines or task.resume is None or task.indexed_mark is None or st.st_size < task.indexed_size:
        return None
    tail_length = min(task.indexed_size, MARK_BYTES)
    with open_regular(task.path) as file:
        file.seek(task.indexed_size - tail_length)
        tail = file.read(tail_length)
    if _mark(st, tail) != task.indexed_mark:
        return None
    try:
        state = json.loads(task.resume)
    except ValueError:
        return None
    return state if isinstance(state, dict) else None


def _restore(collector: Collector, state: dict[str, Any] | None) -> dict[str, Any]:
    """Put ``collector`` where the last read left it: the calls waiting for a result are called again
    (their numbers in ``waiting_numbers``); the state's defaults for a read from the start."""
    if state is None:
        return {"calls": 0, "waiting_numbers": [], "pending": [], "last_turn": None, "facts": {}}
    collector.prompt = int(state.get("prompt", 0))
    collector.turns_of = {str(agent): int(turns) for agent, turns in state.get("turns_of", {}).items()}
    collector.saw(
        state.get("timestamp"), state.get("version"), state.get("cwd"), state.get("model"), state.get("branch")
    )
    numbers = []
    for number, call_id, tool in state.get("waiting", []):
        collector.call(call_id, tool, {}, Location())
        numbers.append(int(number))
    collector.parsed.events.clear()
    return {
        "calls": int(state.get("calls", 0)),
        "waiting_numbers": numbers,
        "pending": state.get("pending", []),
        "last_turn": state.get("last_turn"),
        "facts": state.get("facts", {}),
    }


def _resume_state(
    collector: Collector,
    numbers: dict[ToolCall, int],
    total: int,
    answered: list[ToolCall],
    turns: list[tuple[int, int, int]],
    pending: list[tuple[int, int]],
) -> str:
    parsed = collector.parsed
    sequence = [*pending, *((numbers[call], _size(call)) for call in answered)]
    last = next((turn for turn in reversed(turns) if turn[0]), None)
    return json.dumps(
        {
            "prompt": collector.prompt,
            "turns_of": collector.turns_of,
            "timestamp": collector.timestamp,
            "version": collector.version,
            "cwd": collector.cwd,
            "model": parsed.model,
            "branch": parsed.branch,
            "calls": total,
            "waiting": [[numbers[call], call.call_id, call.tool] for call in collector.waiting()],
            "pending": sequence[last[2] :] if last is not None else sequence,
            "last_turn": None if last is None else [last[0], last[1]],
            "facts": {"started": parsed.started, "ended": parsed.ended},
        }
    )


# -- the rows ---------------------------------------------------------------------------------------


def _facts(
    parsed: Parsed, turns: Sequence[ModelTurn], calls: int, whole: bool, state: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The summary columns a read of the calls makes exact (``turns``: the model turns read)."""
    before = (state or {}).get("facts", {})
    usage = next((turn for turn in reversed(turns) if turn.context and not turn.agent), None)
    facts: dict[str, Any] = {"calls": calls, "counted": whole, "problem": ""}
    if usage is not None:
        facts["tokens"] = usage.context + usage.output
    for name in ("model", "version", "branch"):
        if getattr(parsed, name):
            facts[name] = getattr(parsed, name)
    facts["started"] = before.get("started") or parsed.started
    facts["ended"] = parsed.ended or before.get("ended", "")
    return {name: value for name, value in facts.items() if value is not None}


def _status(call: ToolCall) -> str:
    result = call.result
    if result is None:
        return "no result"
    if result.unchanged:
        return "unchanged"
    return "error" if result.is_error else "ok"


def _size(call: ToolCall) -> int:
    result = call.result
    if result is None:
        return 0
    return result.chars if result.chars is not None else result.where.size


def _answered(calls: Sequence[ToolCall]) -> list[ToolCall]:
    """The calls (of every agent) that have a result, in the order the results were recorded."""
    answered = [call for call in calls if call.result is not None]
    return sorted(answered, key=lambda call: (call.result.where.line, call.result.where.start, call.result.block))  # type: ignore[union-attr]


def _usage_turns(turns: Sequence[ModelTurn], answered: list[ToolCall], offset: int) -> list[tuple[int, int, int]]:
    """(context, output, main agent's results before it) of each of the main agent's model turns,
    ``offset`` added to the results (outputs read before come first); (0, 0, n) for a turn without
    usage. A turn counts the results of every agent before it (``answered``: in their order); a
    subagent's are in its own context, not the main agent's."""
    main_before = [0]
    for call in answered:
        main_before.append(main_before[-1] + (call.depth == 0))
    return [
        (turn.context, turn.output, main_before[min(turn.results_before, len(answered))] + offset)
        for turn in turns
        if not turn.agent
    ]


def output_tokens(answered: list[tuple[int, int]], turns: list[tuple[int, int, int]]) -> dict[int, int]:
    """Tokens of each output (by number) in ``answered`` ((number, size) in the order recorded), from
    the usage of the turns around it: ``turns`` are (context, output, how many of ``answered`` came
    before the turn)."""
    tokens: dict[int, int] = {}
    for (context, output, before), (next_context, _, next_before) in zip(turns, turns[1:], strict=False):
        between = answered[before:next_before]
        grown = next_context - context - output
        if not context or not next_context or not between or grown < 0:
            continue
        total = sum(size for _, size in between)
        for number, size in between:
            tokens[number] = grown * size // total if total else grown // len(between)
    return tokens


class _Rows:
    """Rows of one session's calls."""

    def __init__(self, format: str, version: str, cwd: str) -> None:
        self.format, self.version, self.cwd = format, version, cwd
        self.profiles = replaying_profiles(format)

    def row(self, number: int, call: ToolCall, tokens: int | None) -> tuple[Any, ...]:
        cwd = call.cwd or self.cwd
        result = call.result
        covered = coverage_of(call, self.format, call.version or self.version, cwd, self.profiles)
        file, first, last = covered if covered is not None else (None, None, None)
        if file is not None and cwd:
            file = os.path.normpath(os.path.join(cwd, file))
        return (
            number,
            call.turn,
            call.tool,
            stored_arguments(call.arguments, cwd),
            _status(call),
            None if result is None else _size(call),
            tokens,
            file,
            first,
            last,
            call.where.line,
            None if result is None else result.where.line,
            None if result is None else result.block,
            call.timestamp,
        )


def stored_arguments(arguments: dict[str, Any] | str, cwd: str) -> str:
    """The arguments as JSON: paths under ``cwd`` relative to it, texts cut at ARGUMENT_CHARS."""
    prefix = cwd.rstrip("/") + "/" if cwd else None

    def kept(value: Any) -> Any:
        if isinstance(value, str):
            if prefix and value.startswith(prefix) and len(value) > len(prefix):
                value = value[len(prefix) :]
            return value if len(value) <= ARGUMENT_CHARS else value[: ARGUMENT_CHARS - 1] + "…"
        if isinstance(value, dict):
            return {key: kept(member) for key, member in value.items()}
        if isinstance(value, list):
            return [kept(element) for element in value]
        return value

    return json.dumps(kept(arguments), ensure_ascii=False)


class _OpenEnded:
    """A file the index does not have, as ``Profile.coverage`` opens one: OPEN_END lines long."""

    @property
    def file(self) -> _OpenEnded:
        return self

    @contextlib.contextmanager
    def open(self) -> Iterator[_OpenEnded]:
        yield self

    def line_count(self) -> int:
        return OPEN_END


def _open_ended(path: str) -> Any:
    return _OpenEnded()


def coverage_of(
    call: ToolCall, format: str, version: str, cwd: str, profiles: tuple[Profile, ...]
) -> tuple[str, int, int | None] | None:
    """(file, first line, last line or None for its end) that a recorded call read, as the profile
    that replays it says (the first of ``profiles``, those that may replay the transcript's calls, that
    claims it); None for other calls, and for reads measured in characters or bytes (those need the
    file as it was)."""
    if not isinstance(call.arguments, dict):
        return None
    plan = plan_of(RecordedCall(call.tool, call.arguments, None, format, version, cwd or None), profiles)
    if plan is None:
        return None
    profile = get_profile(plan.profile)
    tool = profile.tool(plan.tool)
    if tool is None:
        return None
    try:
        coverage = profile.coverage(plan.tool, tool.spec.bind(plan.arguments), _open_ended, {})
    except (ToolError, OSError, ValueError, LookupError, TypeError, AttributeError):
        return None
    if coverage is None or coverage.unit != "line":
        return None
    return coverage.path, coverage.first_line, None if coverage.last_line >= OPEN_END else coverage.last_line
