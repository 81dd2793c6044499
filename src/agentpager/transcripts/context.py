"""What a session cost its context window: the fill of each model turn, the tool outputs in it.

The usage a model turn records (input, cache read, cache creation, output tokens) gives how full
the context was; the tool outputs recorded before it were part of that context, and their share
is counted with cl100k (an estimate for every model: each vendor's tokenizer differs). A log with
no usage gets its whole context estimated the same way, and says so. Where a turn's context went
past the model's window, seed 002's overflow classes say how far (``tools/guard.overflow_severity``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from agentpager.engine.tokens import count_tokens
from agentpager.tools.guard import overflow_severity
from agentpager.transcripts import Transcript
from agentpager.transcripts.formats import ToolCall

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


@dataclass(frozen=True)
class TurnFill:
    number: int
    timestamp: str
    model: str
    input: int
    cache_read: int
    cache_creation: int
    output: int
    context: int
    """Tokens of context the turn sent (estimated with cl100k when the log records none)."""
    outputs: int
    """Tokens (cl100k) of the tool outputs recorded before the turn: their share of its context."""
    window: int | None
    estimated: bool
    after_compaction: bool = False
    """The context was compacted since the turn before (see ``ModelTurn.after_compaction``)."""

    @property
    def overflow(self) -> str:
        """``none``, or how far past the window the context went: minor, major, catastrophic."""
        return "none" if self.window is None else overflow_severity(self.context - self.window)


@dataclass(frozen=True)
class OutputCost:
    call: ToolCall
    tokens: int


@dataclass(frozen=True)
class ContextReport:
    turns: list[TurnFill]
    costliest: list[OutputCost]
    """Tool outputs, the most tokens first."""
    estimated: bool
    """Whether any turn's context is an estimate (the log records no usage for it)."""


@dataclass
class Counts:
    """Token counts kept between reports on one transcript (a followed session grows): each tool
    output and each piece of the conversation is counted once. ``outputs`` may be filled by others
    who counted a call's recorded output (the transcript screen's replay worker does)."""

    outputs: dict[ToolCall, int] = field(default_factory=dict)
    events: list[int] = field(default_factory=lambda: [0])
    """Running sums: the tokens of the conversation before each of the transcript's events."""


def context_report(
    transcript: Transcript, count: Callable[[str], int] = count_tokens, top: int = 10, counts: Counts | None = None
) -> ContextReport:
    """Each model turn's context fill and the share of tool outputs in it; the costliest outputs.

    A turn whose log records no usage is estimated: the tool outputs and the conversation (prompts,
    assistant text, thinking, tool calls) recorded before it, counted with ``count``.
    """
    counts = counts or Counts()
    answered = sorted(
        (call for call in transcript.calls if call.depth == 0 and call.result is not None),
        key=lambda call: (
            (call.result.where.line, call.result.where.start, call.result.block) if call.result else (0, 0, 0)
        ),
    )
    costs = [OutputCost(call, _output_tokens(transcript, call, count, counts)) for call in answered]
    output_sums = _running_sums(cost.tokens for cost in costs)
    turns = []
    for number, turn in enumerate(transcript.turns, 1):
        outputs = output_sums[min(turn.results_before, len(costs))]
        if turn.estimated:
            context = outputs + _conversation_before(transcript, turn.events_before, count, counts)
        else:
            context = turn.context
        turns.append(
            TurnFill(
                number,
                turn.timestamp,
                turn.model or transcript.parsed.model,
                turn.input,
                turn.cache_read,
                turn.cache_creation,
                turn.output,
                context,
                min(outputs, context),
                turn.window or window_of(turn.model or transcript.parsed.model),
                turn.estimated,
                turn.after_compaction,
            )
        )
    costliest = sorted(costs, key=lambda cost: cost.tokens, reverse=True)[:top]
    return ContextReport(turns, costliest, any(turn.estimated for turn in turns))


def estimate_note(report: ContextReport) -> str:
    """The line that says which turns' contexts are estimates (``~``: counted with cl100k over what
    the log holds before the turn); empty when none is."""
    estimated = [turn.number for turn in report.turns if turn.estimated]
    if not estimated:
        return ""
    if len(estimated) == len(report.turns):
        return "~ estimated with cl100k: the log records no usage"
    which = f"turn {estimated[0]} records" if len(estimated) == 1 else f"turns {_spans(estimated)} record"
    return f"~ estimated with cl100k: {which} no usage"


def _spans(numbers: list[int]) -> str:
    """Ascending numbers as spans: ``1-3, 7``."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and spans[-1][1] == number - 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(str(first) if first == last else f"{first}-{last}" for first, last in spans)


def _output_tokens(transcript: Transcript, call: ToolCall, count: Callable[[str], int], counts: Counts) -> int:
    tokens = counts.outputs.get(call)
    if tokens is None:
        tokens = counts.outputs[call] = count(transcript.recorded(call) or "")
    return tokens


def _conversation_before(transcript: Transcript, end: int, count: Callable[[str], int], counts: Counts) -> int:
    """Tokens of the conversation's first ``end`` events, counting only those not counted before.

    A call counts as ``tool(arguments as JSON)``; a text kept cut (``EVENT_TEXT_CHARS``) is scaled
    up to its whole length.
    """
    sums, events = counts.events, transcript.events
    for event in events[len(sums) - 1 : end]:
        if event.tool_call is not None:
            call = event.tool_call
            arguments = (
                call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments, ensure_ascii=False)
            )
            tokens = count(f"{call.tool}({arguments})")
        else:
            tokens = count(event.text)
            if event.text and event.chars > len(event.text):
                tokens = tokens * event.chars // len(event.text)
        sums.append(sums[-1] + tokens)
    return sums[min(end, len(sums) - 1)]


def _running_sums(values) -> list[int]:  # noqa: ANN001 - an iterable of ints
    """``[0, v0, v0 + v1, ...]``: the sum of the values before each index."""
    sums = [0]
    for value in values:
        sums.append(sums[-1] + value)
    return sums
