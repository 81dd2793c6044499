"""The output guard (contract section 4): outputs over ``max_chars`` are cut with a notice.

It works on the parts of an output, some of which may be LazyText, so a window of a 1 GB line is
measured and cut without the line ever being held in memory.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

from agentpager.engine.lazytext import Text, head

_NOTICE = "\n\n[OUTPUT TRUNCATED]\n"
DEFAULT_MAX_CHARS = 28000
DEFAULT_CHARS_PER_TOKEN = 3.5


def positive_number(text: str | None) -> float | None:
    """``text`` as a positive finite number, or None when it is not one."""
    try:
        value = float(text) if text is not None else math.nan
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


@dataclass(frozen=True)
class GuardSettings:
    max_chars: int = DEFAULT_MAX_CHARS
    chars_per_token: float = DEFAULT_CHARS_PER_TOKEN

    @classmethod
    def from_env(cls, max_chars: int | None = None) -> GuardSettings:
        """``max_chars`` if given, else ``$QQ_MAX_TOOL_OUTPUT``; ``$QQ_CHARS_PER_TOKEN``.

        A value that is not a positive number is ignored and the default holds.
        """
        chosen = (
            positive_number(None if max_chars is None else str(max_chars))
            or positive_number(os.environ.get("QQ_MAX_TOOL_OUTPUT"))
            or DEFAULT_MAX_CHARS
        )
        chars_per_token = positive_number(os.environ.get("QQ_CHARS_PER_TOKEN"))
        return cls(max(1, int(chosen)), chars_per_token or DEFAULT_CHARS_PER_TOKEN)


def guard(parts: Sequence[Text], tool: str, settings: GuardSettings) -> tuple[str, bool]:
    """The output made of ``parts``, cut if it is too long; and whether it was cut."""
    limit = settings.max_chars
    total = sum(len(part) for part in parts)
    if total <= limit:
        return "".join(str(part) for part in parts), False
    taken: list[str] = []
    remaining = limit
    for part in parts:
        if remaining <= 0:
            break
        taken.append(head(part, remaining))
        remaining -= len(taken[-1])
    cut = "".join(taken)
    newline = cut.rfind("\n")
    if newline > limit * 0.8:
        cut = cut[:newline]
    cpt = settings.chars_per_token
    return (
        f"{cut}{_NOTICE}"
        f"Tool '{tool}' returned ~{int(total / cpt)} tokens, showing first ~{int(len(cut) / cpt)}.\n"
        "Use more specific parameters or pagination to get remaining data."
    ), True


def kept_part(output: str) -> str:
    """What a cut output kept of the original, before the guard's notice."""
    found = output.rfind(_NOTICE)
    return output if found < 0 else output[:found]


def overflow_severity(overflow_tokens: int) -> str:
    """How far past a context budget an output goes (seed 002, phase 4).

    ``none`` when it fits; ``minor`` under 1,000 tokens over (trimming history helps), ``major``
    under 50,000, ``catastrophic`` beyond (the tool output itself is the problem).
    """
    if overflow_tokens <= 0:
        return "none"
    if overflow_tokens < 1000:
        return "minor"
    if overflow_tokens < 50000:
        return "major"
    return "catastrophic"
