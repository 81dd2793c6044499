"""The transcript formats: each a collector that reads its records into calls, conversation and turns.

Each agent's format is in its package (``agentpager.agents``), named by the agent's id; the logs of
model messages (OpenAI's and Anthropic's) are read by ``agentpager.logs.messages.Messages``.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable

from agentpager.logs.collector import (
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
    "Collector",
    "Event",
    "ModelTurn",
    "Parsed",
    "ResultRef",
    "ToolCall",
    "collect",
    "collectors",
    "detect",
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


def format_names() -> str:
    """Every format for people: ``Claude Code, ..., OpenAI or Anthropic``."""
    from agentpager.agents import AGENTS

    return ", ".join(agent.title for agent in AGENTS) + ", OpenAI or Anthropic"


def detect(records: Iterable[Record]) -> type[Collector] | None:
    """The format of a transcript, from the first of its records that shows one: the agents' formats
    are tried in their list's order, a log of model messages last."""
    candidates = tuple(dict.fromkeys(collectors().values()))
    for record in records:
        for collector in candidates:
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
