"""JavaScript's ``a.localeCompare(b)`` as Node 20 (ICU, CLDR root order) answers it, as a sort key.

Node tools sort names this way (Gemini CLI's ``list_directory``): case and accents count only after
the letters themselves (``a.txt`` < ``B.md`` < ``b.md``), and punctuation sorts before digits and
letters in its own order (``_`` < ``-`` < ``.``). The Unicode Collation Algorithm with the DUCET
(``pyuca``) gives the same order as Node's ICU 78 on 3,000 random names with accents, CJK and
emoji (measured; ``tests/test_gemini_cli.py`` compares with node when it is installed). Names in
printable ASCII, nearly all of them, take a shortcut with the same weights; ``pyuca`` (0.5 s to
load its table) is loaded only for the others.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Iterable, Iterator
from typing import Any

from agentpager.engine.runs import sorted_rows

_ASCII_ORDER = "\t\n\x0b\x0c\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_ASCII_WEIGHTS = (
    "513 514 515 516 517 521 523 525 546 564 569 608 614 631 773 780 791 792 793 794 795 796 910 911 916 917 918 "
    "920 921 1154 1157 1558 1562 1563 1564 1566 1568 7186 7229 7230 7231 7232 7233 7234 7235 7236 7237 7238 7239 "
    "7264 7290 7311 7338 7397 7412 7448 7474 7500 7525 7543 7594 7609 7645 7692 7713 7731 7793 7829 7861 7907 7925 "
    "7935 7947 7969"
)
"""The DUCET 10.0 primary weights of printable ASCII and its whitespace (``pyuca``'s ``allkeys``);
an upper-case letter has its lower case's, with tertiary weight 8 instead of 2."""
_PRIMARY = dict(zip(_ASCII_ORDER, map(int, _ASCII_WEIGHTS.split()), strict=True))
_PRIMARY |= {char.upper(): weight for char, weight in _PRIMARY.items() if char.isalpha()}
_IGNORABLE = frozenset(chr(code) for code in [*range(0x09), *range(0x0E, 0x20), 0x7F])
"""ASCII controls the DUCET ignores entirely."""


@functools.cache
def _collator() -> Any:
    import pyuca

    return pyuca.Collator()


def sort_key(name: str) -> tuple[int, ...]:
    """The key that orders names as ``localeCompare`` does (ties: names it calls equal)."""
    if name.isascii():
        kept = [char for char in name if char not in _IGNORABLE]
        primaries = tuple(_PRIMARY[char] for char in kept)
        # Every ASCII character has the same secondary weight; the tertiary one marks upper case.
        tertiaries = tuple(8 if char.isupper() else 2 for char in kept)
        return (*primaries, 0, *([32] * len(kept)), 0, *tertiaries, 0)
    return tuple(_collator().sort_key(name))


_PRIMARY_CHARACTERS = str.maketrans(
    {char: chr(weight + 1) for char, weight in _PRIMARY.items()} | dict.fromkeys(_IGNORABLE)
)


def primary_key(name: str) -> str:
    """The primary level of ``sort_key`` as a string (each weight a character): names whose keys
    differ in it compare as their keys do; equal ones need the whole key."""
    if name.isascii():
        return name.translate(_PRIMARY_CHARACTERS)
    key = sort_key(name)
    return "".join(chr(weight + 1) for weight in key[: key.index(0)])


def locale_sorted(rows: Iterable[tuple[int, str, str]]) -> Iterator[str]:
    """The ``line`` of each row ``(group, name, line)`` (group 0 to 9), ordered by group, then by name as
    ``localeCompare`` orders names, then by the name's bytes: what Node's stable sort gives for a
    list that ``scandir`` read in ``strcmp`` order.

    Names in printable ASCII (nearly all) are sorted as one string each that holds the whole order
    (``_ascii_order``): a million in one ``list.sort``. Once another name comes, all are sorted in
    runs (``engine.runs``): a ``sort_key`` tuple takes 700 bytes for a name of 20 characters."""
    ordered: list[str] = []
    iterator = iter(rows)
    for group, name, line in iterator:
        if not (name.isascii() and name.isprintable()):
            told = (_parsed(row) for row in ordered)
            yield from _sorted_in_runs(itertools.chain(told, [(group, name, line)], iterator))
            return
        ordered.append(_ascii_order(group, name, line))
    ordered.sort()
    while ordered:  # let go of the rows a batch at a time, as their lines are taken
        batch = ordered[:_LET_GO_AT_ONCE]
        del ordered[:_LET_GO_AT_ONCE]
        yield from (row.rpartition("\0")[2] for row in batch)


_LET_GO_AT_ONCE = 1 << 14
_RANKS = sorted(set(_PRIMARY.values()))
_RANK_CHARACTERS = str.maketrans({char: chr(0x20 + _RANKS.index(weight)) for char, weight in _PRIMARY.items()})
"""Each printable ASCII character as its primary weight's rank among theirs: a key string that
compares as ``primary_key`` does, one byte a character."""
_TERTIARY_CHARACTERS = str.maketrans({chr(code): "\x02" if chr(code).isupper() else "\x01" for code in range(0x80)})




def _byte_table(characters: dict[int, str]) -> bytes:
    """A ``str.translate`` table of ASCII as a ``bytes.translate`` one, ``/`` (in no name) made NUL:
    the separator of names joined with ``/``."""
    return bytes(0 if code == ord("/") else ord(characters.get(code, chr(code))) for code in range(256))


_RANK_BYTES = _byte_table(_RANK_CHARACTERS)
_TERTIARY_BYTES = _byte_table(_TERTIARY_CHARACTERS)
_KEYED_AT_ONCE = 1 << 16


def ascii_locale_order(names: list[str]) -> list[int] | None:
    """The indices of ``names`` (of one directory, so all different) in ``locale_sorted``'s order, when
    each is printable ASCII (None otherwise). A name's key is its primary ranks, then (when some name
    has upper case) NUL and its tertiary weights: in printable ASCII only a letter's two cases share a
    primary weight, so two names with one key are one name, and no key needs the name itself. The
    keys are made for many names at once with ``bytes.translate`` on the names joined with ``/``,
    which no name holds."""
    whole = "/".join(names)
    if not (whole.isascii() and whole.isprintable()):
        return None
    cased = whole != whole.lower()
    del whole
    keys: list[str] = []  # str, not bytes: a list of one-byte strings sorts faster
    for start in range(0, len(names), _KEYED_AT_ONCE):
        joined = "/".join(names[start : start + _KEYED_AT_ONCE]).encode("ascii")
        ranks = joined.translate(_RANK_BYTES).decode("ascii").split("\0")
        if cased:
            tertiaries = joined.translate(_TERTIARY_BYTES).decode("ascii").split("\0")
            ranks = list(map("\0".join, zip(ranks, tertiaries, strict=True)))
        keys += ranks
    return sorted(range(len(keys)), key=keys.__getitem__)


def _ascii_order(group: int, name: str, line: str) -> str:
    """A row of a name in printable ASCII as a string whose order is the row's: the group, the name's
    primary weights, its tertiary ones (upper case; left out for a name with none, which sorts first
    among those of the same primary weights), the name itself, then the line, NUL between them. In
    printable ASCII every character has one primary weight and the same secondary one."""
    tertiary = "" if name.islower() else name.translate(_TERTIARY_CHARACTERS)
    return f"{group}{name.translate(_RANK_CHARACTERS)}\0{tertiary}\0{name}\0{line}"


def _parsed(row: str) -> tuple[int, str, str]:
    """The ``(group, name, line)`` an ``_ascii_order`` row was made from."""
    head, _, name, line = row.split("\0")
    return int(head[0]), name, line


def _sorted_in_runs(rows: Iterable[tuple[int, str, str]]) -> Iterator[str]:
    keyed = sorted_rows(((f"{group}{name}", line) for group, name, line in rows), key=_group_and_primary)
    for _, tied in itertools.groupby(keyed, key=lambda pair: pair[0]):
        group = list(tied)
        if len(group) > 1:  # the same primary weights: the whole key, then the bytes, decide
            group.sort(key=lambda pair: (sort_key(pair[1][0][1:]), os.fsencode(pair[1][0][1:])))
        yield from (row[1] for _, row in group)


def _group_and_primary(row: tuple[str, ...]) -> tuple[str, str]:
    return row[0][0], primary_key(row[0][1:])
