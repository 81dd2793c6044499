"""Counts and lists in words: "1 call", "2 calls", "1,024 lines", "462 KB", "a, b and c"."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` with ``noun``, in the plural (``nouns``, default ``noun + "s"``) unless it is 1."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def byte_size(count: int) -> str:
    """A size in bytes, in the largest decimal unit it reaches: ``512 B``, ``462 KB``, ``1.5 MB``."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if count >= scale:
            value = count / scale
            return f"{value:,.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    return f"{count} B"


def listed(words: list[str], conjunction: str = "and") -> str:
    """Words in a list for people: ``a, b and c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {conjunction} {words[-1]}"
