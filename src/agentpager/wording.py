"""Words for counts, lists and things: "1 call", "1,024 lines", "462 KB", "a, b and c", "an expansion"."""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len, get_character_cell_size


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
    """``text`` in at most ``width`` cells of a terminal (a wide character takes two): cut at its end,
    marked ``…``, when wider."""
    if _fits(text, width):
        return text
    return text[: _fitting(text, width - 1)] + "…"[: max(0, width)]


def fit(text: str, width: int) -> str:
    """``text`` in exactly ``width`` cells, for a column: cut at its end (``cut_end``) or padded with spaces."""
    shown = cut_end(text, width)
    return shown + " " * (width - cell_len(shown))


def cut_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, cut in its middle when wider (marked ``…``): a path keeps
    its last part, the file name, whole when that fits (``src/…/app.py``), else its two ends."""
    if _fits(text, width):
        return text
    if width < 3:
        return cut_end(text, width)
    name = text[text.rfind("/", 0, len(text) - 1) :] if "/" in text[:-1] else ""
    tail_cells = cell_len(name) if name and _fits(name, width - 2) else (width - 1) // 2
    tail = last_cells(text, tail_cells)
    return text[: _fitting(text, width - 1 - cell_len(tail))] + "…" + tail


def cells_up_to(text: str, most: int) -> int:
    """The cells ``text`` takes, counted up to ``most``: ``most + 1`` for a wider text, whose other
    characters are not measured (a call's argument may be megabytes, and a line shows ``most``)."""
    return cell_len(text) if _fits(text, most) else most + 1


def last_cells(text: str, width: int) -> str:
    """The end of ``text`` that fits in ``width`` cells."""
    return text[len(text) - _fitting(reversed(text), width) :]


def cut_around(text: str, start: int, end: int, width: int) -> str:
    """``text`` in at most ``width`` cells with its part ``text[start:end]`` in them (from its start, as
    much as fits): cut at its end, and when that would cut the part, at its start too (marked ``…``),
    a third of the width left before the part."""
    if _fits(text, width) or _fits(text[:end], width - 1):
        return cut_end(text, width)
    before = max(0, min(width // 3 - 1, width - 2 - cell_len(text[start:end])))
    kept = start - _fitting(reversed(text[:start]), before)
    return cut_end(("…" if kept else "") + text[kept:], width)


def _fits(text: str, width: int) -> bool:
    """Whether ``text`` takes at most ``width`` cells (measured as far as needed: a long text past a
    narrow width in a few characters)."""
    return cell_len(text) <= width if len(text) <= width else _fitting(text, width) == len(text)


def _fitting(characters: Iterable[str], cells: int) -> int:
    """How many of ``characters``, from the first, fit in ``cells`` cells (those past them are not
    measured)."""
    count = used = 0
    for character in characters:
        used += get_character_cell_size(character)
        if used > cells:
            break
        count += 1
    return count
