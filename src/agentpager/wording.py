"""Words for counts, lists and things: "1 call", "1,024 lines", "462 KB", "a, b and c", "an expansion"."""

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


def listed(words: list[str], conjunction: str = "and") -> str:
    """Words in a list for people: ``a, b and c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


def cut_end(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: cut at its end, marked ``…``, when longer."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"[: max(0, width)]


def cut_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, cut in its middle when longer (marked ``…``): a path
    keeps its last part, the file name, whole when that fits (``src/…/app.py``), else its two ends."""
    if len(text) <= width:
        return text
    if width < 3:
        return cut_end(text, width)
    name = text[text.rfind("/", 0, len(text) - 1) :] if "/" in text[:-1] else ""
    tail = len(name) if name and len(name) <= width - 2 else (width - 1) // 2
    return text[: width - 1 - tail] + "…" + text[len(text) - tail :]
