"""What a session cost its context window: the fill of each model turn, the tool outputs in it.

The usage a model turn records (input, cache read, cache creation, output tokens) gives how full
the context was, and how much it grew since the agent's previous turn; that growth is shared out
among what was logged in between, so each tool output's tokens and the outputs' share of each turn
come from the log's own counts too (``index.Attribution``), with no output read. Each agent
(a subagent has its own context) is reported on its own; a compaction starts a context again.

A turn whose log records no usage is estimated with cl100k (an estimate for every model: each
vendor's tokenizer differs): the context of the agent's last turn that has usage (none: an empty
one), plus what was logged since, counted: prompts, text, thinking, calls (``tool(arguments)``)
and tool outputs. Where a turn's context went past the model's window, seed 002's overflow
classes say how far (``tools/guard.overflow_severity``).
"""

from __future__ import annotations

import bisect
import heapq
import json
import threading
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from agentpager.engine.tokens import count_tokens
from agentpager.tools.guard import overflow_severity
from agentpager.transcripts import Transcript
from agentpager.transcripts.formats import Boundary, ModelTurn
from agentpager.transcripts.index import RecordIndex

MODEL_WINDOWS = (
    ("claude", 200_000),
    ("gpt-5", 400_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("gemini", 1_048_576),
)
"""Context windows by model name prefix, for logs that do not say (Codex does)."""


def window_of(model: str) -> int | None:
    """The context window of a model, by its name; None when unknown."""
    name = model.lower()
    if "[1m]" in name:
        return 1_000_000
    return next((window for prefix, window in MODEL_WINDOWS if name.startswith(prefix)), None)


class TurnFill(NamedTuple):
    number: int
    """The turn's number among its agent's turns (what the call list's ``turn`` says)."""
    timestamp: str
    model: str
    input: int
    cache_read: int
    cache_creation: int
    output: int
    context: int
    """Tokens of context the turn sent (estimated with cl100k when the log records none)."""
    outputs: int
    """Tokens of the tool outputs in that context."""
    window: int | None
    estimated: bool
    compacted: Boundary | None = None
    """The compaction logged since the agent's previous turn, if one was."""

    @property
    def overflow(self) -> str:
        """``none``, or how far past the window the context went: minor, major, catastrophic."""
        if self.window is None or self.context <= self.window:
            return "none"  # as overflow_severity says, without a call (a session has 100,000 turns)
        return overflow_severity(self.context - self.window)


@dataclass(frozen=True)
class OutputCost:
    number: int
    """The call's number in its file."""
    tokens: int
    counted: bool
    """Counted with cl100k (else taken from usage)."""


@dataclass
class Counts:
    """cl100k counts kept between reports on one agent's context (a followed session grows): the
    running sums of the tokens of what the agent logged before each event and each result."""

    events: array = field(default_factory=lambda: array("q", [0]))
    results: array = field(default_factory=lambda: array("q", [0]))


class AgentContext:
    """One agent's model turns in one file's index, each with its fill, as the index grows."""

    def __init__(self, index: RecordIndex, agent: str = "", count: Callable[[str], int] = count_tokens) -> None:
        self.index = index
        self.agent = agent
        self.count = count
        self.counts = Counts()
        self._rows = array("q")
        """The index rows of the agent's turns found so far (the collector's live last one excluded;
        an array: a list of 80,000 rows took 3 MB)."""
        self._scanned = 0
        self._lock = threading.Lock()
        self._models: dict[int, tuple[str, int | None]] = {}
        self._compactions: list[Boundary] = []
        """The agent's compactions, in order; ``_places``: how many turns came before each."""
        self._places: list[int] = []
        self._seen = 0
        self._bases: list[tuple[int, int, int]] = []
        """For each turn, what an estimate of it starts from (see ``_base``)."""

    def rows(self) -> list[int]:
        """Index rows of the agent's turns; the last may still change (the collector's live one)."""
        return self._rows_on([], 0)[0]

    def _rows_on(self, rows: list[int], final: int) -> tuple[list[int], int]:
        """``rows`` (a list this gave before, its first ``final`` rows final) brought up to date in
        place, and how many of them are final now: only the rows found since are copied (a session
        has 100,000 turns; a copy of them all each time the index grew took a 1 GB session's first
        report 1.5 s)."""
        index = self.index
        with index.lock:
            found = self._final_rows()
            del rows[final:]
            rows.extend(found[final:])
            final, first_live = len(rows), len(index.turns)
            rows.extend(first_live + n for n, turn in enumerate(index.live) if turn.agent == self.agent)
        return rows, final

    def turn(self, number: int) -> ModelTurn | None:
        """The agent's turn ``number`` (1-based, as ``ToolCall.turn`` counts them); None when not read."""
        index = self.index
        with index.lock:
            final = self._final_rows()
            if 0 < number <= len(final):
                return index.turn(final[number - 1])
            live = [turn for turn in index.live if turn.agent == self.agent]
            later = number - 1 - len(final)
            return live[later] if 0 <= later < len(live) else None

    def _final_rows(self) -> array:
        """The rows of the agent's turns that no longer change, scanned on from where the last look
        ended (the caller holds the index's lock)."""
        index = self.index
        agent = index.strings.id(self.agent)
        column, final = index.turns.agent, len(index.turns)
        with self._lock:
            self._rows.extend(row for row in range(self._scanned, final) if column[row] == agent)
            self._scanned = final
            return self._rows

    def fill(self, rows: list[int], k: int) -> TurnFill:
        """The fill of the agent's turn ``k`` (0-based) of ``rows``."""
        recorded = self._usage_fills(rows, k, k + 1)  # a turn with usage, read from the columns
        if recorded:
            return recorded[0]
        index = self.index
        turn = index.turn(rows[k])
        compacted = self._compaction(rows, k)
        if turn.estimated:
            context, outputs = self._estimate(rows, k)
        else:
            context, outputs = turn.context, max(0, index.turn_outputs(rows[k]))
        model = turn.model or index.collector.parsed.model
        return TurnFill(
            k + 1,
            turn.timestamp,
            model,
            turn.input,
            turn.cache_read,
            turn.cache_creation,
            turn.output,
            context,
            min(outputs, context),
            turn.window or window_of(model),
            turn.estimated,
            compacted,
        )

    def fills(self, wait: bool = False) -> Iterator[TurnFill]:
        """Every turn's fill in order; ``wait``: as the index is built (each turn once it is final)."""
        k, final_rows = 0, 0
        rows: list[int] = []
        while True:
            done = not wait or self.index.complete or self.index.error is not None
            rows, final_rows = self._rows_on(rows, final_rows)
            final = len(rows) if done else len(rows) - 1
            while k < final:
                batch = self._usage_fills(rows, k, min(final, k + 1024))
                yield from batch
                k += len(batch)
                if k < final and not batch:
                    yield self.fill(rows, k)
                    k += 1
            if done:
                return
            with self.index.grown:
                self.index.grown.wait(0.5)

    def _usage_fills(self, rows: list[int], first: int, last: int) -> list[TurnFill]:
        """The fills of turns ``first`` on (before ``last``) as long as they record usage, read from
        the columns in one look (a session can have 100,000 turns); ``fill`` of such a turn too."""
        index, found = self.index, []
        compactions = self._compaction_places()
        at = bisect.bisect_left(compactions, rows[first - 1] + 1 if first else 0)
        models, model_of = self._models, self._model
        with index.lock:
            t, timestamps = index.turns, index.timestamps.values
            inputs, reads, creations, outputs_of = t.input, t.cache_read, t.cache_creation, t.outputs
            final, next_compaction = len(t), compactions[at] if at < len(compactions) else -1
            for k in range(first, last):
                row = rows[k]
                if row >= final:
                    break
                given, read, created = inputs[row], reads[row], creations[row]
                context = given + read + created
                if not context:
                    break
                compacted = None
                if 0 <= next_compaction <= row:  # between the previous turn and this one
                    compacted = self._compactions[at]
                    while at < len(compactions) and compactions[at] <= row:
                        at += 1
                    next_compaction = compactions[at] if at < len(compactions) else -1
                model, window = models.get(t.model[row]) or model_of(t.model[row])
                outputs = outputs_of[row]
                found.append(
                    TurnFill(
                        k + 1,
                        timestamps[t.timestamp[row]],
                        model,
                        given,
                        read,
                        created,
                        t.output[row],
                        context,
                        min(outputs, context) if outputs > 0 else 0,
                        t.window[row] or window,
                        False,
                        compacted,
                    )
                )
        return found

    def _compaction_places(self) -> list[int]:
        """How many turns came before each of the agent's compactions (``_compactions`` in order)."""
        index = self.index
        with self._lock:
            for boundary in index.boundaries[self._seen :]:
                if boundary.agent == self.agent:
                    self._places.append(boundary.turns_before)
                    self._compactions.append(boundary)
            self._seen = len(index.boundaries)
            return self._places

    def _model(self, model_id: int) -> tuple[str, int | None]:
        """A model's name (the session's when the turn names none) and its window, by the name's id."""
        found = self._models.get(model_id)
        if found is None:
            model = self.index.strings[model_id] or self.index.collector.parsed.model
            found = self._models[model_id] = (model, window_of(model))
        return found

    def costliest(self, top: int = 10) -> list[OutputCost]:
        """The outputs that cost the agent's context most, by the tokens known (from usage, or counted)."""
        index = self.index
        with index.lock:
            calls = index.calls
            agent = index.strings.id(self.agent)
            found = heapq.nlargest(
                top,
                (
                    (tokens, -number)
                    for number, (tokens, owner) in enumerate(zip(calls.tokens, calls.agent, strict=True))
                    if tokens >= 0 and owner == agent
                ),
            )
            return [OutputCost(-number, tokens, bool(calls.tokens_counted[-number])) for tokens, number in found]

    def _compaction(self, rows: list[int], k: int) -> Boundary | None:
        """The compaction between the agent's turn ``k - 1`` and turn ``k``."""
        places = self._compaction_places()
        at = bisect.bisect_left(places, rows[k - 1] + 1 if k else 0)
        return self._compactions[at] if at < len(places) and places[at] <= rows[k] else None

    def _estimate(self, rows: list[int], k: int) -> tuple[int, int]:
        """Context and outputs of a turn without usage: from the agent's last turn with usage (and no
        compaction since), plus the cl100k tokens of what was logged after it."""
        index = self.index
        turn = index.turn(rows[k])
        base_row, since_events, since_results = self._base(rows, k)
        base_context = base_outputs = 0
        if base_row >= 0:
            base_context, base_outputs = index.turn(base_row).context, max(0, index.turn_outputs(base_row))
        events = self._sum(self.counts.events, turn.events_before, self._event_tokens)
        results = self._sum(self.counts.results, turn.results_before, self._result_tokens)
        outputs = results[turn.results_before] - results[min(since_results, turn.results_before)]
        conversation = events[turn.events_before] - events[min(since_events, turn.events_before)]
        return base_context + conversation + outputs, base_outputs + outputs

    def _base(self, rows: list[int], k: int) -> tuple[int, int, int]:
        """What an estimate of turn ``k`` starts from: the row of the agent's last turn with usage
        before it (-1: none since the start or a compaction), and the events and results logged
        before that point (what came after is counted)."""
        bases = self._bases
        for j in range(len(bases), k + 1):
            boundary = self._compaction(rows, j)
            if boundary is not None:
                base = (-1, boundary.events_before, boundary.results_before)
            elif j == 0:
                base = (-1, 0, 0)
            else:
                earlier = self.index.turn(rows[j - 1])
                before = bases[j - 1] if j - 1 < len(bases) else self._base(rows, j - 1)
                base = before if earlier.estimated else (rows[j - 1], earlier.events_before, earlier.results_before)
            if rows[j] >= len(self.index.turns):  # the collector's live turn: not kept, it may change
                return base
            bases.append(base)
        return bases[k]

    def _sum(self, sums: array, end: int, tokens: Callable[[int], int]) -> array:
        """``sums`` extended to position ``end``: the agent's tokens before each position."""
        while len(sums) <= end:
            sums.append(sums[-1] + tokens(len(sums) - 1))
        return sums

    def _event_tokens(self, position: int) -> int:
        """cl100k tokens of the agent's event at ``position`` (a call as ``tool(arguments)``; a text
        kept cut is scaled up to its whole length); 0 for another agent's."""
        index = self.index
        with index.lock:
            if index.strings[index.events.agent[position]] != self.agent:
                return 0
            number = index.events.call[position]
        if number >= 0:
            call = index.call(number)
            arguments = call.arguments
            text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
            return self.count(f"{call.tool}({text})")
        event = index.event(position)
        tokens = self.count(event.text)
        if event.text and event.chars > len(event.text):
            tokens = tokens * event.chars // len(event.text)
        return tokens

    def _result_tokens(self, position: int) -> int:
        """cl100k tokens of the output logged at ``position`` among results, if the agent's."""
        index = self.index
        with index.lock:
            number = index.answers.call[position]
            if index.strings[index.calls.agent[number]] != self.agent:
                return 0
            tokens, counted = index.calls.tokens[number], index.calls.tokens_counted[number]
        if tokens >= 0 and counted:
            return tokens
        found = index.output(number)
        tokens = index.as_sent(self.count(found[0] if found else ""))
        with index.lock:
            if index.calls.tokens[number] < 0:
                index.calls.tokens[number], index.calls.tokens_counted[number] = tokens, 1
        return tokens


def agent_context(transcript: Transcript, source: int = 0, agent: str = "") -> AgentContext:
    """The context of one agent: the main agent (``source`` 0, ``agent`` ""), a subagent logged in
    the session's own file (its ``agent``), or one with its own file (its ``source``)."""
    return AgentContext(transcript.index_of(source), agent)


def subagent_contexts(transcript: Transcript) -> Iterator[tuple[int, int | None, AgentContext]]:
    """The context of each subagent whose model turns the session logs (inline, or in its own file),
    in the order their turns were logged: its file (``ToolCall.source``), the list index of the call
    that started it (its first call's parent; None when it made no call), and its context."""
    files = [(0, transcript.index)]
    files += [(child.source, child.transcript.index) for child in transcript.children if child.starter is not None]
    for source, index in files:
        with index.lock:
            agents = list(dict.fromkeys([*index.turns.agent, *(index.strings.id(turn.agent) for turn in index.live)]))
            first_calls: dict[int, int] = {}
            for number, agent in enumerate(index.calls.agent):
                first_calls.setdefault(agent, number)
            names = {agent: index.strings[agent] for agent in agents}
        for agent in agents:
            if source == 0 and names[agent] == "":
                continue  # the main agent
            first = first_calls.get(agent)
            starter = None if first is None else transcript.calls.call(source, first).parent
            yield source, starter, AgentContext(index, names[agent])


def subagent_name(starter: int | None, agent: str) -> str:
    """``the subagent of call #12``: a subagent as the reports name it (by its id when it made no call)."""
    return f"the subagent of call #{starter}" if starter is not None else f"the subagent {agent}"


def estimate_note(estimated: list[int], turns: int) -> str:
    """The line that says which of ``turns`` turns' contexts are estimates (``estimated``: their
    numbers; ``~``: counted with cl100k over what the log holds before the turn); empty when none is."""
    if not estimated:
        return ""
    if len(estimated) == turns:
        return "~ estimated with cl100k: the log records no usage"
    which = f"turn {estimated[0]} records" if len(estimated) == 1 else f"turns {_spans(estimated)} record"
    return f"~ estimated with cl100k: {which} no usage"


def compaction_note(boundary: Boundary) -> str:
    """``compaction (auto) at 155,379 tokens``: a compaction as the reports name it (or ``a new
    session``)."""
    if boundary.new_session:
        return "a new session"
    how = f" ({boundary.trigger})" if boundary.trigger else ""
    at = f" at {boundary.tokens_before:,} tokens" if boundary.tokens_before else ""
    return f"compaction{how}{at}"


def _spans(numbers: list[int]) -> str:
    """Ascending numbers as spans: ``1-3, 7``."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and spans[-1][1] == number - 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(str(first) if first == last else f"{first}-{last}" for first, last in spans)
