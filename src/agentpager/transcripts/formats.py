"""The transcript formats: each a collector that reads its records into calls, conversation and turns.

Each agent's format is in its package (``agentpager.agents``), named by the agent's id; the logs of
model messages (OpenAI's and Anthropic's) are read by ``agentpager.logs.messages.Messages``.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Iterator

from agentpager.logs.collector import (
    Boundary,
    Collector,
    Event,
    ModelTurn,
    Parsed,
    ResultRef,
    ToolCall,
    text_of_content,
)
from agentpager.logs.messages import Messages
from agentpager.logs.records import BadRecord, Record

__all__ = [
    "MESSAGE_LOGS",
    "Boundary",
    "Collector",
    "Event",
    "ModelTurn",
    "Parsed",
    "ResultRef",
    "ToolCall",
    "collect",
    "collector_types",
    "collectors",
    "detect",
    "detected",
    "feed",
    "format_names",
    "parse",
    "text_of_content",
]

MESSAGE_LOGS = ("openai", "anthropic")
"""The formats of logs of model messages, which any program may write: no agent's own."""


@functools.cache
def collectors() -> dict[str, type[Collector]]:
    """Each format's collector by the format's name: every agent's (named by its id), in the order of
    ``agentpager.agents.AGENTS``, then the message logs'."""
    from agentpager.agents import AGENTS

    return {agent.id: agent.collector() for agent in AGENTS} | dict.fromkeys(MESSAGE_LOGS, Messages)


@functools.cache
def recognised() -> tuple[type[Collector], ...]:
    """Every collector in the order formats are tried: each agent's, in the order of
    ``agentpager.agents.AGENTS`` (its transcripts' before its other logs'), then the message logs'."""
    from agentpager.agents import AGENTS

    return (*(collector for agent in AGENTS for collector in agent.collectors()), Messages)


@functools.cache
def collector_types() -> dict[str, type[Collector]]:
    """Every collector by its class's name (a saved index names the one that read the log)."""
    return {collector.__name__: collector for collector in recognised()}


def format_names() -> str:
    """Every format for people: ``Claude Code, ..., OpenAI or Anthropic``."""
    from agentpager.agents import AGENTS

    return ", ".join(agent.title for agent in AGENTS) + ", OpenAI or Anthropic"


def detect(records: Iterable[Record]) -> type[Collector] | None:
    """The format of a transcript, from the first of its records that shows one: the agents' formats
    are tried in their list's order, a log of model messages last."""
    for record in records:
        for collector in recognised():
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
