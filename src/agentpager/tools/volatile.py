"""The parts of an agent's answer that change from run to run, and comparing answers apart from them.

An agent names its volatile parts once (``Agent.volatile``: Claude Code's ``<total_tokens>`` countdown,
Codex's chunk id and wall time) and its profiles carry them (``Profile.volatile``). One comparison
serves both uses: the probe's, a profile's answer against the real agent's (``compare``), and
replay's, a recorded output against the replayed one (``Profile.same_output``). The goldens
(``tests/goldens/golden.py``) store the parts as placeholders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Volatile:
    """A part of an output that changes from run to run, and why."""

    placeholder: str
    pattern: str
    """A regular expression (re.MULTILINE) for the part alone."""
    why: str
    marker: str = ""
    """What comes before every such part (the pattern's lookbehind): a text without it is not
    searched (the search of every output took a quarter of a replay); empty: every text is."""


def with_placeholders(text: str, volatile: tuple[Volatile, ...]) -> str:
    """``text`` with every volatile part replaced by its placeholder."""
    for part in volatile:
        if part.marker in text:
            text = re.sub(part.pattern, part.placeholder, text, flags=re.MULTILINE)
    return text


def same_apart_from(one: str, other: str, volatile: tuple[Volatile, ...]) -> bool:
    """Whether two answers say the same once their volatile parts are placeholders."""
    return one == other or with_placeholders(one, volatile) == with_placeholders(other, volatile)


@dataclass(frozen=True)
class Comparison:
    """A profile's answer against the real agent's."""

    exact: bool
    """The same text, byte for byte, and both errors or neither."""
    same: bool
    """The same once the volatile parts are placeholders (``exact`` implies it)."""
    profile_text: str
    """The profile's text with the volatile parts as placeholders (what the difference is taken of)."""
    agent_text: str
    not_counted: tuple[Volatile, ...]
    """The volatile parts that differed and were not counted."""

    @property
    def verdict(self) -> str:
        if self.exact:
            return "the same, byte for byte"
        if self.same:
            return "the same, apart from what changes from run to run"
        return "differs"


def compare(
    profile_text: str, profile_error: bool, agent_text: str, agent_error: bool, volatile: tuple[Volatile, ...]
) -> Comparison:
    """Compare two answers, not counting the agent's volatile parts."""
    profile_shown, agent_shown = with_placeholders(profile_text, volatile), with_placeholders(agent_text, volatile)
    not_counted = tuple(
        part
        for part in volatile
        if re.findall(part.pattern, profile_text, re.MULTILINE) != re.findall(part.pattern, agent_text, re.MULTILINE)
    )
    return Comparison(
        profile_text == agent_text and profile_error == agent_error,
        profile_shown == agent_shown and profile_error == agent_error,
        profile_shown,
        agent_shown,
        not_counted,
    )
