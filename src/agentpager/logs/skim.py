"""What the two ends of a long JSON line show, without reading its middle.

An agent's session is mostly tool outputs, and the long lines are the ones that carry them. A list
of calls needs each output's place, not its text, so a long line is read at its ends only: its head
is parsed as far as it goes (the value the head ends inside becomes ``CUT``), and the members that
close its outermost object are found in its tail. This works because a ``"`` that follows a ``,``
always opens a string in JSON text (a quote inside a string is escaped, and a string that ends in
``,`` is followed by ``,``, ``:``, ``]`` or ``}``, never by a letter): every ``,"`` in the tail is
where a member (or an array's string) starts, and the first one from which members parse to the
last ``}`` starts the outermost object's last members.
"""

from __future__ import annotations

import json
from _json import scanstring
from typing import Any

from agentpager.engine.jsontext import MAX_DEPTH, SCAN, TooDeep, decode, scan

_WHITESPACE = " \t\r\n"


class _Cut:
    """The value a line's head ends inside."""

    def __repr__(self) -> str:
        return "CUT"


CUT: Any = _Cut()
Path = tuple[str | int, ...]
_PLACEHOLDER_TEXT = "\ue000cut\ue000"
_PLACEHOLDER = json.dumps(_PLACEHOLDER_TEXT)


def is_cut(value: Any) -> bool:
    """Whether ``value`` is, or holds, the value a skimmed line's head ended inside."""
    if value is CUT:
        return True
    if isinstance(value, dict):
        return any(is_cut(member) for member in value.values())
    if isinstance(value, list):
        return any(is_cut(element) for element in value)
    return False


class Skimmer:
    """Skims the long lines of one file.

    Long lines of one kind (the tool outputs of one agent) end their heads inside the same value
    with the same brackets still open. Once a head has been walked (``_object``, in Python), the
    next one is parsed by the C decoder instead: cut at the start of its last string value (the last
    ``":"`` whose first quote is not escaped), closed with a placeholder and those brackets. A head
    that does not parse so is walked, and its brackets kept for the next.
    """

    def __init__(self) -> None:
        self.closing = ""

    def skim(self, head: str, tail: str) -> tuple[dict[str, Any], Path] | None:
        """The object a long line holds as far as its ``head`` and ``tail`` show it, and the path to
        the value the head ends inside (``()`` when it is not inside a member); None when the line
        is not an object; TooDeep when its head nests deeper than MAX_DEPTH."""
        found = self._decoded(head) if self.closing else None
        if found is None:
            try:
                position = _skip(head, 0)
            except IndexError:
                return None
            if head[position] != "{":
                return None
            value, cut_at, cut = _object(head, position + 1)
            if cut and cut_at < len(head) and head[cut_at] == '"':
                self.closing = _closing(value, cut)
            found = value, cut or ()
        for key, member in _last_members(tail).items():
            found[0].setdefault(key, member)
        return found

    def _decoded(self, head: str) -> tuple[dict[str, Any], Path] | None:
        colon = head.rfind('":"')
        while colon > 0 and _escaped(head, colon):
            colon = head.rfind('":"', 0, colon)
        text = head[: colon + 2] + _PLACEHOLDER + self.closing
        try:
            value, end = scan(text, 0)
        except TooDeep:
            raise
        except (StopIteration, ValueError):
            return None
        if end != len(text) or not isinstance(value, dict):
            return None
        path: list[str | int] = []
        inner: Any = value
        while isinstance(inner, (dict, list)) and inner:
            key = next(reversed(inner)) if isinstance(inner, dict) else len(inner) - 1
            path.append(key)
            if inner[key] == _PLACEHOLDER_TEXT:
                inner[key] = CUT
                return value, tuple(path)
            inner = inner[key]
        return None


def skim(head: str, tail: str) -> tuple[dict[str, Any], Path] | None:
    """One long line's object as far as its ends show it (see ``Skimmer.skim``)."""
    return Skimmer().skim(head, tail)


def _closing(value: Any, path: Path) -> str:
    """The brackets that close the containers along ``path``, innermost first."""
    containers = [value]
    for key in path[:-1]:
        containers.append(containers[-1][key])
    return "".join("}" if isinstance(container, dict) else "]" for container in reversed(containers))


def _escaped(text: str, quote: int) -> bool:
    """Whether the ``"`` at ``quote`` follows an odd number of backslashes."""
    start = quote
    while start > 0 and text[start - 1] == "\\":
        start -= 1
    return (quote - start) % 2 == 1


def _skip(text: str, position: int) -> int:
    """The first position from ``position`` that is not white space (IndexError at the end)."""
    while text[position] in _WHITESPACE:
        position += 1
    return position


# The parsers below return (value, where it ends, None), or (what was parsed, where the value the
# text ends inside starts, the path from this value to it). White space is rare (agents write compact
# JSON): it is looked for only where a character is not the one expected.


def _value(text: str, position: int, depth: int) -> tuple[Any, int, Path | None]:
    """``depth``: the containers this value is in (TooDeep past MAX_DEPTH)."""
    opening = text[position]
    if opening in "{[" and depth >= MAX_DEPTH:
        raise TooDeep()
    if opening == "{":
        return _object(text, position + 1, depth + 1)
    if opening == "[":
        return _array(text, position + 1, depth + 1)
    try:
        value, end = scanstring(text, position + 1) if opening == '"' else SCAN(text, position)
    except (StopIteration, ValueError):
        return CUT, position, ()
    if end >= len(text) and opening != '"':  # a number the head cut would parse too short
        return CUT, position, ()
    return value, end, None


def _object(text: str, position: int, depth: int = 1) -> tuple[dict[str, Any], int, Path | None]:
    """The members of the object whose ``{`` ends before ``position``, as far as the text goes."""
    members: dict[str, Any] = {}
    try:
        if text[position] in _WHITESPACE:
            position = _skip(text, position)
        if text[position] == "}":
            return members, position + 1, None
        while text[position] == '"':
            key, position = scanstring(text, position + 1)
            if text[position] != ":":
                position = _skip(text, position)
                if text[position] != ":":
                    break
            position += 1
            if text[position] in _WHITESPACE:
                position = _skip(text, position)
            value, position, cut = _value(text, position, depth)
            members[key] = value
            if cut is not None:
                return members, position, (key, *cut)
            closed, position = _after(text, position, "}")
            if closed:
                return members, position, None
            if closed is None:
                break
    except TooDeep:
        raise
    except (IndexError, ValueError):
        position = len(text)
    return members, position, ()


def _array(text: str, position: int, depth: int) -> tuple[list[Any], int, Path | None]:
    """The elements of the array whose ``[`` ends before ``position``, as far as the text goes."""
    elements: list[Any] = []
    try:
        if text[position] in _WHITESPACE:
            position = _skip(text, position)
        if text[position] == "]":
            return elements, position + 1, None
        while True:
            value, position, cut = _value(text, position, depth)
            elements.append(value)
            if cut is not None:
                return elements, position, (len(elements) - 1, *cut)
            closed, position = _after(text, position, "]")
            if closed:
                return elements, position, None
            if closed is None:
                break
    except IndexError:
        position = len(text)
    return elements, position, ()


def _after(text: str, position: int, closing: str) -> tuple[bool | None, int]:
    """After a member or an element: (True, past ``closing``) at the container's end, (False, the
    next one's start) after a comma, (None, where it is) at anything else."""
    if text[position] in _WHITESPACE:
        position = _skip(text, position)
    if text[position] == closing:
        return True, position + 1
    if text[position] != ",":
        return None, position
    position += 1
    if text[position] in _WHITESPACE:
        position = _skip(text, position)
    return False, position


def _last_members(tail: str) -> dict[str, Any]:
    """The members that end the outermost object, as far back as ``tail`` holds them whole."""
    end = len(tail.rstrip(_WHITESPACE))
    if not end or tail[end - 1] != "}":
        return {}
    candidate = tail.find(',"')
    while 0 <= candidate < end:
        # A member's name is followed by a colon: a ``,"`` that closes a string is passed over
        # without parsing.
        if tail.find('":', candidate + 2, end) < 0:
            return {}
        members = _members_to(tail, candidate + 1, end - 1)
        if members is not None:
            return members
        candidate = tail.find(',"', candidate + 1)
    return {}


def _members_to(text: str, position: int, closing: int) -> dict[str, Any] | None:
    """The members from ``position`` if they run exactly to the ``}`` at ``closing``, else None."""
    members: dict[str, Any] = {}
    try:
        while True:
            key, position = scanstring(text, position + 1)
            position = _skip(text, position)
            if text[position] != ":":
                return None
            members[key], position = decode(text, _skip(text, position + 1))
            position = _skip(text, position)
            if position == closing:
                return members
            if text[position] != ",":
                return None
            position = _skip(text, position + 1)
            if text[position] != '"':
                return None
    except (ValueError, IndexError):
        return None
