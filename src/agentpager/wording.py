"""Counts in words: "1 call", "2 calls", "1,024 lines"."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` with ``noun``, in the plural (``nouns``, default ``noun + "s"``) unless it is 1."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"
