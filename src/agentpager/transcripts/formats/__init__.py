"""The transcript formats: each a collector that reads its records into calls, conversation and turns."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from agentpager.transcripts.formats.anthropic import Messages
from agentpager.transcripts.formats.base import (
    Boundary,
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
from agentpager.transcripts.formats.codex_exec import CodexExec
from agentpager.transcripts.formats.gemini import Gemini
from agentpager.transcripts.formats.trajectories import OpenHands, SweAgent
from agentpager.transcripts.records import BadRecord, Record

__all__ = [
    "COLLECTORS",
    "COLLECTOR_TYPES",
    "Boundary",
    "FORMATS",
    "Collector",
    "Event",
    "ModelTurn",
    "Parsed",
    "ResultRef",
    "ToolCall",
    "collect",
    "detect",
    "detected",
    "feed",
    "parse",
    "text_of_content",
]

_DETECTION_ORDER: tuple[type[Collector], ...] = (Codex, CodexExec, ClaudeCode, Gemini, SweAgent, OpenHands, Messages)
COLLECTOR_TYPES = {collector.__name__: collector for collector in _DETECTION_ORDER}
"""Every collector by its class's name (a saved index names the one that read the log)."""
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
    the format is not recognised (see ``detected``)."""
    found, items = detected(records, lookahead)
    if found is None:
        return None
    collector = found()
    for item in items:
        feed(collector, item)
    return collector


def detected(
    records: Iterable[Record | BadRecord], lookahead: int = 20
) -> tuple[type[Collector] | None, Iterator[Record | BadRecord]]:
    """The format of a transcript, and every record from its first (to be fed to the format's collector).

    The format is decided by the first record that shows it (at most ``lookahead`` records are
    looked at); what was read until then is kept and given first, so detection costs what it reads.
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
    return found, itertools.chain(seen, iterator)


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
