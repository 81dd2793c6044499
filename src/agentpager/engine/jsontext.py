"""JSON from files and pastes, parsed by Python's C decoder with a bound on nesting.

The decoder recurses: 1,000 levels of ``[`` raise RecursionError, not ValueError, and code that
walks a parsed value recurses too. Values nested deeper than MAX_DEPTH are refused with TooDeep (a
ValueError, so that every caller's "not JSON" path takes them); no agent writes such a record.
"""

from __future__ import annotations

import json
import re
from _json import encode_basestring, make_encoder, make_scanner, scanstring
from collections.abc import Callable
from typing import Any

try:
    from agentpager.engine import _newlines as _native
except ImportError:  # the package was built without a C compiler
    _native = None  # type: ignore[assignment]

MAX_DEPTH = 100
"""Arrays and objects nested deeper than this are refused."""
_DECODER = json.JSONDecoder()
SCAN: Callable[[str, int], tuple[Any, int]] = make_scanner(_DECODER)  # type: ignore[arg-type]
"""The C decoder's ``scan_once``: the JSON value at an index and where it ends (StopIteration or
ValueError when there is none). typeshed types its context as a scanner; CPython takes a decoder."""


class TooDeep(ValueError):
    def __init__(self) -> None:
        super().__init__(f"JSON nested deeper than {MAX_DEPTH} levels")


def scan(text: str, position: int, brackets: int | None = None) -> tuple[Any, int]:
    """``SCAN`` (StopIteration when no value starts at ``position``), TooDeep past MAX_DEPTH.
    ``brackets``: at least the ``[`` and ``{`` of the value (counted from its bytes by
    ``opening_brackets``), else they are counted here; a value with fewer than MAX_DEPTH is not walked."""
    try:
        value, end = SCAN(text, position)
    except RecursionError:
        raise TooDeep() from None
    if brackets is None:
        brackets = text.count("[", position, end) + text.count("{", position, end)
    if brackets > MAX_DEPTH and _deeper(value, MAX_DEPTH):
        raise TooDeep()
    return value, end


def opening_brackets(data: bytes) -> int:
    """The ``[`` and ``{`` in UTF-8 ``data``: as many as its text holds decoded, invalid bytes
    replaced (a replacement never takes an ASCII byte); 1-2 ms a MB fewer than counting the text."""
    if _native is not None:
        return _native.brackets(data)
    return data.count(b"[") + data.count(b"{")


def occurrences(data: bytes, marker: bytes) -> int:
    """How many times ``marker`` (a fragment of JSON, ``"type":"tool_use"``) occurs in ``data``, as
    ``bytes.count``: memmem, about 4x faster on JSON, whose many quotes keep bytes.count's skips short."""
    if _native is not None and marker:
        return _native.occurrences(data, marker)
    return data.count(marker)


def shortened(data: bytes, keep: int) -> bytes:
    """JSON text ``data`` with each string longer than ``keep`` characters cut to its first ``keep``
    (what needs only the start of long strings parses a third as much); ``data`` itself when none is
    that long, or without the C module (the cut saves time, it means nothing)."""
    if _native is None or len(data) <= keep:
        return data
    cut = _native.shortened(data, keep)
    return data if cut is None else cut


def _not_json(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


_ENCODE = make_encoder(None, _not_json, encode_basestring, None, ": ", ", ", False, False, True)
"""The C encoder ``json.dumps(value, ensure_ascii=False)`` makes (``json.encoder``'s
``JSONEncoder.iterencode``), made once. No circular check: the values measured are parsed JSON."""


def encoded_length(value: Any) -> int:
    """The characters of ``json.dumps(value, ensure_ascii=False)``, counted without making the text:
    by the C module (a quarter of the time the encoder takes: the arguments of the calls in the first
    150 MB of a real 1 GB session are 22 MB of text), else by summing the lengths of the encoder's
    pieces, never joined. TypeError, ValueError or RecursionError where ``json.dumps`` raises them."""
    if _native is not None:
        found = _native.encoded_length(value)
        if found is not None:
            return found
    return sum(map(len, _ENCODE(value, 0)))


def decode(text: str, position: int = 0) -> tuple[Any, int]:
    """``JSONDecoder.raw_decode``: the value at ``position`` and where it ends; ValueError (TooDeep
    past MAX_DEPTH) when there is none."""
    try:
        return scan(text, position)
    except StopIteration as stop:
        raise json.JSONDecodeError("Expecting value", text, stop.value) from None


def loads(text: str) -> Any:
    """``json.loads``, TooDeep past MAX_DEPTH."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep() from None
    if (text.count("[") + text.count("{") > MAX_DEPTH) and _deeper(value, MAX_DEPTH):
        raise TooDeep()
    return value


def _deeper(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` deep in ``value`` (walked without recursion)."""
    pending = [(value, 1)] if isinstance(value, (dict, list)) else []
    while pending:
        item, depth = pending.pop()
        if depth > limit:
            return True
        members = item.values() if isinstance(item, dict) else item
        pending += [(member, depth + 1) for member in members if isinstance(member, (dict, list))]
    return False


_BRACKETS = re.compile(r'"|[\[{]+|[\]}]+')


def value_end(text: str, position: int) -> int | None:
    """Where the array or object at ``position`` ends, found by its brackets (strings skipped) without
    parsing it, so that a value too deep to parse can be passed over; None when ``text`` ends first."""
    depth = 0
    while (found := _BRACKETS.search(text, position)) is not None:
        token, position = found.group(), found.end()
        if token == '"':
            try:
                position = scanstring(text, position)[1]
            except ValueError:
                return None
        elif token[0] in "[{":
            depth += len(token)
        elif depth <= len(token):
            return found.start() + depth
        else:
            depth -= len(token)
    return None
