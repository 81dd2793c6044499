"""Words for counts and things: "1 call", "2 calls", "1,024 lines", "462 KB", "an expansion"."""

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


_A_BEFORE = ("uni", "una", "use", "usu", "uti", "one")
"""Words that start with a vowel letter but not a vowel sound (a unary expression, a use)."""


def with_article(phrase: str) -> str:
    """``phrase`` after "a" or "an", as its first sound asks: "an expansion", "a for statement"."""
    first = phrase.lower()
    vowel_sound = first[:1] in ("a", "e", "i", "o", "u") and not first.startswith(_A_BEFORE)
    return f"{'an' if vowel_sound else 'a'} {phrase}"
