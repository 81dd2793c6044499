"""What every transcript format is read into: tool calls, their results, the conversation, model turns.

A collector is fed a transcript's records in order and keeps summaries only: where each record is,
short texts, counts. Results are paired with calls by id; when ids repeat (shared logs often
replace them with one placeholder) or are missing, by order.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from agentpager.engine import jsontext
from agentpager.engine.filesystem import ANYWHERE, Filesystem
from agentpager.logs.records import Location, Record

EVENT_TEXT_CHARS = 64 * 1024
"""Conversation texts longer than this are kept cut (the whole text is read again when shown)."""

EventKind = Literal["prompt", "text", "thinking", "call", "summary"]
"""``summary``: what an agent's compaction left in place of the conversation before it."""


@dataclass(frozen=True)
class ResultRef:
    """Where a call's recorded result is, and what is known of it without reading it again."""

    where: Location
    block: int
    """Index of the result in the record (a content block, a tool call), or -1 for the whole record."""
    chars: int | None
    """Characters of the output; None until it is read, when its record was long and only skimmed
    (``where.size`` bounds it meanwhile)."""
    is_error: bool | None
    unchanged: bool = False
    """The agent answered with a stub because the file had not changed since an earlier read."""
    timestamp: str = ""


@dataclass(eq=False)
class ToolCall:
    """One call (compared by identity: a transcript's calls are its own)."""

    index: int
    """Its number in the transcript's list (subagents' calls under the call that started them)."""
    prompt: int
    """The user prompt it answers (1-based): the prompts before it."""
    call_id: str
    tool: str
    arguments: dict[str, Any] | str
    """The arguments, or their raw text when it is not a JSON object."""
    where: Location
    result: ResultRef | None = None
    version: str = ""
    """The agent's version when it made the call, where the log says."""
    cwd: str | None = None
    """The directory the agent worked in at the call, where the log says."""
    timestamp: str = ""
    agent: str = ""
    """The subagent that made it (``""``: the main agent)."""
    depth: int = 0
    """0 for the main agent's calls, 1 for its subagents' and so on."""
    starter: ToolCall | None = None
    """The call that started the subagent that made this one."""
    source: int = 0
    """Which of the transcript's files holds the call (0: the transcript, then its subagents' files)."""
    turn: int = 0
    """The model turn (request) that made it, counted in its agent's own turns (1-based; 0: the log
    records no request before it)."""
    number: int = 0
    """Its number among the calls of its file, in the order they were logged."""

    @property
    def key(self) -> tuple[int, int]:
        """What names the call whatever the list's order: its file and its number there."""
        return self.source, self.number

    @property
    def parent(self) -> int | None:
        """The number of the call that started the subagent that made this one."""
        return None if self.starter is None else self.starter.index


@dataclass
class Event:
    """A piece of the conversation: a user prompt, assistant text, thinking, or a tool call (``call``)."""

    kind: EventKind
    prompt: int
    """The user prompt it follows (1-based)."""
    where: Location
    text: str
    """The text (cut at EVENT_TEXT_CHARS); empty for ``call``."""
    chars: int
    tool_call: ToolCall | None = None
    timestamp: str = ""
    agent: str = ""
    """The subagent it belongs to (``""``: the main agent)."""

    @property
    def call(self) -> int | None:
        """The number of the call, for a ``call`` event."""
        return None if self.tool_call is None else self.tool_call.index


@dataclass
class ModelTurn:
    """One model request and what its usage says; ``estimated`` when the log records no usage (a
    format that knows where a request was made reports it all the same)."""

    where: Location
    model: str = ""
    input: int = 0
    """Input tokens not read from the cache."""
    cache_read: int = 0
    cache_creation: int = 0
    output: int = 0
    window: int | None = None
    """The model's context window, when the log says."""
    timestamp: str = ""
    results_before: int = 0
    """How many tool results (of every agent) had been recorded before this request."""
    events_before: int = 0
    """How many conversation events came before this request."""
    key: str = ""
    """The model's message id, where one request is logged in several records."""
    agent: str = ""
    """The subagent that made the request (``""``: the main agent): each agent has its own context."""

    @property
    def context(self) -> int:
        """Tokens of context the request sent: new input, cache reads and cache writes."""
        return self.input + self.cache_read + self.cache_creation

    @property
    def estimated(self) -> bool:
        """Whether the log records no usage for the request (its context is then estimated)."""
        return self.context == 0


@dataclass(frozen=True)
class Boundary:
    """Where an agent's context starts again: it was compacted (what came before is replaced by a
    summary), or a new session began in the same log."""

    where: Location
    trigger: str
    """``auto`` or ``manual``, as the log says (``""`` when it does not)."""
    tokens_before: int
    """The context's tokens when it was compacted, where the log says (else 0)."""
    turns_before: int
    """Model turns (of every agent) before it."""
    results_before: int
    events_before: int
    agent: str = ""
    new_session: bool = False
    """A new session, its context empty (not a compaction)."""


@dataclass
class Parsed:
    format: str
    calls: list[ToolCall] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    cwd: str | None = None
    events: list[Event] = field(default_factory=list)
    turns: list[ModelTurn] = field(default_factory=list)
    version: str = ""
    model: str = ""
    session_id: str = ""
    started: str = ""
    ended: str = ""
    branch: str = ""
    """The git branch the agent worked on, where the log says."""
    subagent_ids: dict[str, ToolCall] = field(default_factory=dict)
    """Subagent id -> the call that started it (to find its transcript)."""
    boundaries: list[Boundary] = field(default_factory=list)
    """Where contexts were compacted."""


def text_of_content(content: Any, separator: str) -> str:
    """A tool result's text: a string, or the text parts of a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return separator.join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type", "text") in ("text", "input_text", "output_text")
        )
    if content is None:
        return ""
    return json.dumps(content, ensure_ascii=False)


def arguments_of(raw: Any) -> dict[str, Any] | str:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = jsontext.loads(raw)
        except ValueError:  # not JSON, or nested too deep (kept as the text it is)
            return raw
        return parsed if isinstance(parsed, dict) else raw
    return json.dumps(raw, ensure_ascii=False)


MOST_TOKENS = 1 << 48
"""More tokens than any count a log can mean (a crafted one could overflow the index's columns)."""


def number(value: Any) -> int:
    """A token count from a log: an int from 0 to MOST_TOKENS, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MOST_TOKENS else 0


class Collector:
    """Feeds on records; pairs results with calls by id when ids are unique, else in order."""

    format = ""
    call_markers: tuple[bytes, ...] = ()
    """Byte strings that occur once per tool call in a log of this format, outside JSON strings
    (where quotes are escaped): calls are counted by searching for them, without parsing."""
    turn_markers: tuple[bytes, ...] = ()
    """Byte strings in every record that can hold a model turn's usage (or the model's name)."""
    prompt_markers: tuple[bytes, ...] = ()
    """Byte strings in every record that can hold a user's prompt."""
    task_tools: tuple[str, ...] = ()
    """The tools that start a subagent (its transcript is found by ``subagent_files``)."""
    not_sent_as_logged = ""
    """Why a result as logged is not the one the agent sent its model (what its harness adds aside),
    when it is not: a log of what a client was shown (``codex exec --json``: a command's whole
    output, which Codex cut for the model)."""
    sent_tokens_at_most: int | None = None
    """Where the log keeps more than was sent: the most tokens of an output the agent ever sends its
    model, to which an output's estimate (counted over the whole of it) is cut."""

    def __init__(self) -> None:
        self.parsed = Parsed(self.format)
        self.prompt = 0
        """The user prompts so far."""
        self.calls_made = 0
        self.events_said = 0
        self.turns_of: dict[str, int] = {}
        """Model turns so far, by agent (each counts its own)."""
        self.version = ""
        self.cwd: str | None = None
        self.timestamp = ""
        self.agent = ""
        self.depth = 0
        self.starter: ToolCall | None = None
        self._waiting: OrderedDict[ToolCall, None] = OrderedDict()
        self._waiting_by_id: dict[str, list[ToolCall]] = {}
        self._results = 0
        self.answered: list[ToolCall] = []
        """The calls answered since the format last cleared this list."""
        self.answer_order: list[ToolCall] = []
        """The calls answered, in the order of their results (a reader of the collector may clear it)."""

    # -- what the formats report --------------------------------------------------------------------

    def call(self, call_id: Any, tool: Any, arguments: Any, where: Location) -> ToolCall:
        call = ToolCall(
            self.calls_made,
            max(self.prompt, 1),
            str(call_id or ""),
            str(tool or "?"),
            arguments_of(arguments),
            where,
            version=self.version,
            cwd=self.cwd,
            timestamp=self.timestamp,
            agent=self.agent,
            depth=self.depth,
            starter=self.starter,
            turn=self.turns_of.get(self.agent, 0),
            number=self.calls_made,
        )
        self.calls_made += 1
        self.parsed.calls.append(call)
        self._waiting[call] = None
        self._waiting_by_id.setdefault(call.call_id, []).append(call)
        self._add_event(Event("call", call.prompt, where, "", 0, call, self.timestamp, self.agent))
        return call

    def result(self, call_id: Any, reference: ResultRef) -> ToolCall | None:
        if not self._waiting:
            self.parsed.problems.append(f"{reference.where.describe()}: a result for no call, skipped")
            return None
        same_id = self._waiting_by_id.get(str(call_id or ""), [])
        call = same_id[0] if call_id and len(same_id) == 1 else next(iter(self._waiting))
        call.result = reference
        del self._waiting[call]
        waiting = self._waiting_by_id[call.call_id]
        waiting.remove(call)
        if not waiting:
            del self._waiting_by_id[call.call_id]
        self._results += 1
        self.answered.append(call)
        self.answer_order.append(call)
        return call

    def waiting(self) -> list[ToolCall]:
        """Calls still waiting for their result, oldest first."""
        return list(self._waiting)

    def is_waiting(self, call: ToolCall) -> bool:
        return call in self._waiting

    def give_up_waiting(self) -> None:
        """The run ended: the calls still waiting will get no result."""
        self._waiting.clear()
        self._waiting_by_id.clear()

    def say(self, kind: EventKind, text: str, where: Location) -> None:
        """A prompt, a piece of assistant text or thinking, a compaction's summary; a prompt of the
        main agent is a new user prompt."""
        if not text.strip():
            return
        if kind == "prompt" and not self.depth:
            self.prompt += 1
        cut = text[:EVENT_TEXT_CHARS]
        self._add_event(Event(kind, max(self.prompt, 1), where, cut, len(text), None, self.timestamp, self.agent))

    def _add_event(self, event: Event) -> None:
        self.events_said += 1
        self.parsed.events.append(event)

    def boundary(self, where: Location, trigger: Any, tokens_before: Any, new_session: bool = False) -> None:
        """The agent's context starts again here: it was compacted, or (``new_session``) a new session began."""
        trigger = trigger if isinstance(trigger, str) else ""
        self.parsed.boundaries.append(
            Boundary(
                where,
                trigger,
                number(tokens_before),
                self._turns_made(),
                self._results,
                self.events_said,
                self.agent,
                new_session,
            )
        )

    def _turns_made(self) -> int:
        return sum(self.turns_of.values())

    def model_turn(self, turn: ModelTurn) -> None:
        """A model request, with its usage where the log records it. A repeated ``key`` (one message
        logged in parts) updates the last one, unless only the last part records usage."""
        turns = self.parsed.turns
        turn.agent = self.agent
        if turn.key and turns and turns[-1].key == turn.key and turns[-1].agent == turn.agent:
            if not turn.estimated or turns[-1].estimated:
                turn.results_before, turn.events_before = turns[-1].results_before, turns[-1].events_before
                turns[-1] = turn
            return
        turn.results_before = self._results
        turn.events_before = self.events_said
        self.turns_of[self.agent] = self.turns_of.get(self.agent, 0) + 1
        turns.append(turn)

    def saw(
        self, timestamp: Any = None, version: Any = None, cwd: Any = None, model: Any = None, branch: Any = None
    ) -> None:
        """Facts a record states about the session at its point."""
        parsed = self.parsed
        if isinstance(branch, str) and branch:
            parsed.branch = branch
        if isinstance(timestamp, str) and timestamp:
            self.timestamp = timestamp
            parsed.started = parsed.started or timestamp
            parsed.ended = max(parsed.ended, timestamp)
        if isinstance(version, str) and version:
            self.version = version
            parsed.version = version
        if isinstance(cwd, str) and cwd:
            self.cwd = cwd
            parsed.cwd = parsed.cwd or cwd
        if isinstance(model, str) and model and not model.startswith("<"):
            parsed.model = model

    # -- what each format defines --------------------------------------------------------------------

    def feed(self, record: Record) -> None:
        raise NotImplementedError

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        """The text of the result at ``block`` of a record read again, and whether it is an error."""
        raise NotImplementedError

    @classmethod
    def recognises(cls, record: Record) -> bool:
        """Whether a record shows that the transcript is in this format."""
        raise NotImplementedError

    @classmethod
    def skims(cls, record: Record) -> bool:
        """Whether what the ends of a long line show (``record.skim``) is all this format needs of
        it: a tool output it does not have to read to place. Otherwise the line is read whole."""
        return False

    @classmethod
    def subagent_files(
        cls, path: str, agent_ids: Collection[str], filesystem: Filesystem = ANYWHERE
    ) -> list[tuple[str, str]]:
        """(agent id, path) of the subagents' own transcripts of the transcript at ``path`` (``agent_ids``:
        the subagents its records name), found in ``filesystem``."""
        return []

    @classmethod
    def cwd_beside(cls, path: str, filesystem: Filesystem = ANYWHERE) -> str | None:
        """The agent's directory as a file beside the transcript at ``path`` names it (the transcript
        does not), read from ``filesystem``."""
        return None
