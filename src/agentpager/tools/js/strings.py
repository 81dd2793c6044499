"""JavaScript string semantics the Node agents' texts depend on: ``trim``, ``trimEnd``, ``length``, ``slice``."""

from __future__ import annotations

JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def js_trim(text: str) -> str:
    """``String.prototype.trim``: JavaScript's whitespace, which is not Python's (``\\ufeff`` is, ``\\x1c`` is not)."""
    return text.strip(JS_WHITESPACE)


def js_trim_end(text: str) -> str:
    """``String.prototype.trimEnd``."""
    return text.rstrip(JS_WHITESPACE)


def js_length(text: str) -> int:
    """A string's ``length`` in JavaScript: UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for char in text if char > "\uffff")


def js_prefix(text: str, units: int) -> str:
    """``text.substring(0, units)``: a surrogate pair cut in two keeps its first half, as a lone surrogate."""
    encoded = text.encode("utf-16-le", "surrogatepass")[: 2 * units]
    return encoded.decode("utf-16-le", "surrogatepass")


def js_slice(text: str, start: int, end: int | None = None) -> str:
    """``text.slice(start, end)`` in UTF-16 units (a surrogate pair cut in two keeps its half)."""
    encoded = text.encode("utf-16-le", "surrogatepass")
    return encoded[2 * start : None if end is None else 2 * end].decode("utf-16-le", "surrogatepass")
