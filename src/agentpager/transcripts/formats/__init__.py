"""The transcript formats: each a collector that reads its records into calls, conversation and turns."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from agentpager.transcripts.formats.anthropic import Messages
from agentpager.transcripts.formats.base import (
    Collector,
    Event,
    ModelTurn,
    Parsed,
    ResultRef,
    ToolCall,
    text_of_content,
)
from agentpager.transcripts.formats.claude_code import ClaudeCode
from agentpager.transcripts.formats.codex import Codex
from agentpager.transcripts.formats.gemini import Gemini
from agentpager.transcripts.formats.trajectories import OpenHands, SweAgent
from agentpager.transcripts.records import BadRecord, Record

__all__ = [
    "COLLECTORS",
    "FORMATS",
    "Collector",
    "Event",
    "ModelTurn",
    "Parsed",
    "ResultRef",
    "ToolCall",
    "collect",
    "detect",
    "feed",
    "parse",
    "text_of_content",
]

_DETECTION_ORDER: tuple[type[Collector], ...] = (Codex, ClaudeCode, Gemini, SweAgent, OpenHands, Messages)
COLLECTORS: dict[str, type[Collector]] = {
    "claude-code": ClaudeCode,
    "codex": Codex,
    "gemini": Gemini,
    "swe-agent": SweAgent,
    "openhands": OpenHands,
    "openai": Messages,
    "anthropic": Messages,
}
FORMATS = tuple(COLLECTORS)
FORMAT_NAMES = "Claude Code, Codex, Gemini CLI, SWE-agent, OpenHands, OpenAI or Anthropic"


def detect(records: Iterable[Record]) -> type[Collector] | None:
    """The format of a transcript, from the first of its records that shows one."""
    for record in records:
        for collector in _DETECTION_ORDER:
            if collector.recognises(record):
                return collector
    return None


def parse(records: Iterable[Record | BadRecord], lookahead: int = 20) -> Parsed | None:
    """The calls of a transcript; None when its format is not recognised."""
    collector = collect(records, lookahead)
    return None if collector is None else collector.parsed


def collect(records: Iterable[Record | BadRecord], lookahead: int = 20) -> Collector | None:
    """A collector fed with every record (it can be fed more as the transcript grows); None when
    the format is not recognised.

    The format is decided by the first record that shows it (at most ``lookahead`` records are
    looked at); what was read until then is kept and fed first, so detection costs what it reads.
    """
    iterator = iter(records)
    seen: list[Record | BadRecord] = []
    looked_at = 0
    found = None
    for item in iterator:
        seen.append(item)
        if isinstance(item, Record):
            looked_at += 1
            found = detect((item,))
            if found is not None or looked_at >= lookahead:
                break
    if found is None:
        return None
    collector = found()
    for item in itertools.chain(seen, iterator):
        feed(collector, item)
    return collector


def feed(collector: Collector, item: Record | BadRecord) -> None:
    """One record into ``collector``; what cannot be read is noted as a problem and skipped. A long
    line read at its ends only is read whole unless the collector needs no more of it."""
    if isinstance(item, Record) and item.skim is not None and not collector.skims(item):
        try:
            item = item.skim.whole()
        except OSError as error:
            item = BadRecord(item.where, f"could not be read again ({error})")
    if isinstance(item, BadRecord):
        collector.parsed.problems.append(f"{item.where.describe()}: {item.problem}, skipped")
        return
    try:
        collector.feed(item)
    except (AttributeError, TypeError, KeyError, IndexError, ValueError) as error:
        collector.parsed.problems.append(f"{item.where.describe()}: unexpected shape ({error!r}), skipped")
