"""Sorting more rows of text than a list of Python strings should hold: a directory of a million names.

Rows are sorted a run of 65,536 at a time; each sorted run is kept as one string (the rows' fields
each ended by NUL, which no name or listing line holds) and the runs are merged. What is held is
about the text itself: a million names of 20 characters take 20 MB so, 90 MB as strings in a list,
and more with a sort key each.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

RUN_ROWS = 1 << 16
Row = tuple[str, ...]


def sorted_rows(rows: Iterable[Row], key: Callable[[Row], Any]) -> Iterator[tuple[Any, Row]]:
    """``rows`` (tuples of strings without NUL, all of one length) in the order of ``key``, each with
    its key; rows whose keys are equal come in the order they were given."""
    runs = [_packed(run, key) for run in _batches(rows)]
    read = [((key(row), row) for row in _rows_of(run)) for run in runs]
    del runs
    if len(read) == 1:
        return read[0]
    return heapq.merge(*read, key=_key)


def _key(keyed: tuple[Any, Row]) -> Any:
    return keyed[0]


def _batches(rows: Iterable[Row]) -> Iterator[list[Row]]:
    iterator = iter(rows)
    while batch := list(itertools.islice(iterator, RUN_ROWS)):
        yield batch


def _packed(rows: list[Row], key: Callable[[Row], Any]) -> tuple[int, str]:
    rows.sort(key=key)
    return len(rows[0]), "".join(field + "\0" for row in rows for field in row)


def _rows_of(run: tuple[int, str]) -> Iterator[Row]:
    width, packed = run
    start = 0
    while start < len(packed):
        fields = []
        for _ in range(width):
            end = packed.index("\0", start)
            fields.append(packed[start:end])
            start = end + 1
        yield tuple(fields)
