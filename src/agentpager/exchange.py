"""A tool call and its result in the JSON shapes the model APIs exchange (for copying and replay)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from agentpager.engine import jsontext
from agentpager.wording import cells_up_to, cut_end, cut_middle, last_cells

PAIR_FORMATS = ("openai", "anthropic")
_SURROGATE = re.compile("[\ud800-\udfff]")


def to_json(value: Any, indent: int | None = None) -> str:
    """``value`` as JSON that encodes as UTF-8: other characters as they are, and lone surrogates (a file
    name's undecodable bytes) as ``\\udcff`` escapes, which read back as the same value."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def call_json(name: str, arguments: Mapping[str, Any]) -> str:
    """The call as ``{"name": ..., "arguments": {...}}``."""
    return to_json({"name": name, "arguments": dict(arguments)}, indent=2)


def call_and_result(
    format: str, name: str, arguments: Mapping[str, Any], output: str, is_error: bool, call_id: str = "call_1"
) -> list[dict[str, Any]]:
    """The assistant message that makes the call and the message that answers it.

    ``openai``: an assistant ``tool_calls`` message and a ``tool`` message. ``anthropic``: an
    assistant ``tool_use`` block and a user ``tool_result`` block.
    """
    if format == "openai":
        return [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": to_json(dict(arguments))},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": output},
        ]
    if format == "anthropic":
        return [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": call_id, "name": name, "input": dict(arguments)}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call_id, "content": output, "is_error": is_error}],
            },
        ]
    raise ValueError(f"Unknown format '{format}'. Formats: {', '.join(PAIR_FORMATS)}.")


def arguments_line(
    arguments: Mapping[str, Any], width: int | None = None, under: str | None = None, keep_numbers: bool = False
) -> str:
    """``path="src/app.py" start_line=450``: arguments on one line, as name=value with JSON values
    (runs of white space made one space), a path under the directory ``under`` written relative to it.

    Past ``width`` cells of a terminal (a wide character takes two), paths are cut in the middle, the
    longest first, down to the file name (``"…/app.py"``); a number is never cut. Then as many
    arguments as fit are shown from the first (`` …`` for the others); when the first alone does not
    fit, its value and then the line are cut.
    ``keep_numbers``, for a line where the numbers say which lines: the texts give way instead, the
    longest first; other texts are cut in the middle too, down to 8 cells; then, when that keeps the
    file names whole, paths lose their last ``/`` (``"…app.py"``) and other texts are left out
    (``command=…``); else paths are cut past their file names too (``"…p.py"``, down to ``"…py"``);
    then texts are left out, the longest first. A text is never cut to only an ellipsis (a short
    one, ``"src/"``, is whole or left out), and cells a text left out frees past the line's need go
    back to a text that was cut. Only when the numbers alone do not fit is the line's end cut.
    """
    names, whole, texts = _shown_arguments(arguments, under)

    def line(values: list[str]) -> str:
        shown = " ".join(name + value for name, value in zip(names, values, strict=False))
        return shown + (" …" if len(values) < len(names) else "")

    if width is None:
        return line(whole)
    most = width + 1  # a value may be megabytes: each measured once, and no further than the line
    cells = cache(lambda text: cells_up_to(text, most))

    def excess(values: list[str]) -> int:
        """The cells ``line(values)`` takes past ``width``, from its parts'."""
        parts = sum(cells(name) + cells(value) for name, value in zip(names, values, strict=False))
        return parts + len(values) - 1 + (2 if len(values) < len(names) else 0) - width

    if excess(whole) <= 0:
        return line(whole)
    floors = _floors(whole, texts, keep_numbers, cells)
    if keep_numbers:
        values = _cut_longest_first(whole, floors, excess, [_cut_middle_of] * len(whole), cells)
        paths = {index for index in texts if _is_path(whole[index])}
        ends = [_cut_past_file_name if index in paths else _left_out for index in range(len(whole))]
        names_whole = [
            floor - 1 if index in paths else 1 if index in texts else floor for index, floor in enumerate(floors)
        ]
        names_kept = _cut_longest_first(values, names_whole, excess, ends, cells)
        if excess(names_kept) <= 0:
            return line(_widened(names_kept, whole, excess, cells))
        least = [_LEAST_CUT if index in paths else 1 if index in texts else floor for index, floor in enumerate(floors)]
        values = _cut_longest_first(values, least, excess, ends, cells)
        for index in sorted(texts, key=lambda index: cells(values[index]), reverse=True):
            if excess(values) > 0:
                values[index] = "…"
        return cut_end(line(_widened(values, whole, excess, cells)), width)
    for kept in range(len(whole), 0, -1):
        values = _cut_longest_first(whole[:kept], floors, excess, [_cut_middle_of] * kept, cells)
        if excess(values) <= 0:
            return line(values)
    first = whole[:1]
    if texts and 0 in texts:
        first[0] = cut_middle(first[0], max(_SHORTEST_CUT, cells(first[0]) - excess(first)))
    return cut_end(line(first), width)


def kept_arguments_width(arguments: Mapping[str, Any], most: int) -> int:
    """How many cells ``arguments_line`` needs with ``keep_numbers`` to cut no path past its file name
    nor another text below 8 cells, counted up to about ``most`` (past it, more than ``most``)."""
    names, whole, texts = _shown_arguments(arguments)
    cells = cache(lambda text: cells_up_to(text, most))
    floors = _floors(whole, texts, True, cells)
    return sum(cells(name) + floor for name, floor in zip(names, floors, strict=True)) + len(names) - 1


def _shown_arguments(arguments: Mapping[str, Any], under: str | None = None) -> tuple[list[str], list[str], set[int]]:
    """The arguments' ``name=`` parts, their values as shown whole, and which values are texts (a
    string, or a list of more than numbers), the values that may be cut."""
    prefix = under.rstrip("/") + "/" if under else None

    def relative(value: Any) -> Any:
        if isinstance(value, str) and prefix and value.startswith(prefix) and len(value) > len(prefix):
            return value[len(prefix) :]
        return [relative(item) for item in value] if isinstance(value, list) else value

    names = [f"{name}=" for name in arguments]
    whole = [" ".join(json.dumps(relative(value), ensure_ascii=False).split()) for value in arguments.values()]
    texts = {
        index
        for index, value in enumerate(arguments.values())
        if isinstance(value, str)
        or isinstance(value, list)
        and not all(isinstance(item, int | float) for item in value)
    }
    return names, whole, texts


def _floors(whole: list[str], texts: set[int], keep_numbers: bool, cells: Callable[[str], int]) -> list[int]:
    """How short (in cells) each shown value may be cut before an argument is left out: a path down to
    its file name, another text not at all (with ``keep_numbers``, down to a few cells), a number not at all."""
    floors = [_file_name_floor(value, cells) if index in texts else cells(value) for index, value in enumerate(whole)]
    if keep_numbers:
        return [
            min(floor, _SHORTEST_CUT) if index in texts and not _is_path(value) else floor
            for index, (value, floor) in enumerate(zip(whole, floors, strict=True))
        ]
    return floors


def _cut_longest_first(
    values: list[str],
    floors: list[int],
    excess: Callable[[list[str]], int],
    cuts: Sequence[Callable[[str, int], str]],
    cells: Callable[[str], int],
) -> list[str]:
    """``values`` cut, the widest first, each no narrower than its floor (and by its cutter in ``cuts``),
    until their line's ``excess`` is gone (or every value is at its floor)."""
    values = list(values)
    for index in sorted(range(len(values)), key=lambda index: cells(values[index]), reverse=True):
        over = excess(values)
        if over > 0 and floors[index] < cells(values[index]):
            values[index] = cuts[index](values[index], max(floors[index], cells(values[index]) - over))
    return values


def _widened(
    values: list[str], whole: list[str], excess: Callable[[list[str]], int], cells: Callable[[str], int]
) -> list[str]:
    """``values`` with the cells left over on their line (a text left out frees all of its, when fewer
    were needed) given back to the texts that were cut, the first first."""
    values = list(values)
    for index, shown in enumerate(whole):
        spare = -excess(values)
        if spare > 0 and values[index] not in ("…", shown):
            wider = cells(values[index]) + spare
            past_file_name = _is_path(shown) and wider < _file_name_floor(shown, cells)
            values[index] = (_cut_past_file_name if past_file_name else _cut_middle_of)(shown, wider)
    return values


def _cut_middle_of(shown: str, width: int) -> str:
    """``cut_middle`` for a shown value: a directory's path (``"src/tui/"``) keeps its last part whole
    as a file's path does (``"…/tui/"``)."""
    if shown.endswith('/"') and _is_path(shown):
        return cut_middle(shown[:-2], width - 2) + '/"'
    return cut_middle(shown, width)


def _left_out(shown: str, width: int) -> str:
    """A text left out of the line, whatever the room: cut shorter it would show only its ellipsis."""
    return "…"


def _cut_past_file_name(shown: str, width: int) -> str:
    """A shown path cut past its file name: its first character (a quote), ``…`` and as much of its end
    as fits in ``width`` cells (``"…app.py"``)."""
    return shown if cells_up_to(shown, width) <= width else shown[0] + "…" + last_cells(shown, width - 2)


def _name_start(shown: str) -> int:
    """Where a shown path's last part starts, at its ``/`` (a directory's trailing ``/`` is of its
    last part, ``/tui/"``); -1 for a value with no ``/`` before it, which is no path."""
    return shown.rfind("/", 0, len(shown) - 1 - shown.endswith('/"'))


def _is_path(shown: str) -> bool:
    """Whether a shown value has a ``/`` before its last part: a path, which ends with its file name."""
    return _name_start(shown) >= 0


def _file_name_floor(shown: str, cells: Callable[[str], int]) -> int:
    """How short (in cells) a shown path may be cut: ``"…`` and its last part, the file name (a text
    that is no path is not cut)."""
    name_starts = _name_start(shown)
    return cells(shown[name_starts:]) + 2 if name_starts >= 0 else cells(shown)


_SHORTEST_CUT = 8
"""No value is cut shorter than this (``"ab…yz"``): past it, the line's end is; with ``keep_numbers``,
a text is left out instead (one this short is whole or left out), but a path, which may be cut past
its file name down to _LEAST_CUT."""
_LEAST_CUT = 5
"""With ``keep_numbers``, paths are cut past their file names down to this (``"…py"``, a directory's
``"…i/"``) before they are left out (``…``): shorter, a path would show little more than its ellipsis."""


def read_call(text: str) -> tuple[str, dict[str, Any]]:
    """A tool call pasted as JSON: the shape ``call_json`` writes, an OpenAI ``tool_calls`` entry (or
    its ``function``), an Anthropic ``tool_use`` block, or either message pair ``call_and_result``
    writes (its first call). ValueError says what is wrong."""
    try:
        value = jsontext.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"Not JSON yet: {error.msg} (line {error.lineno}, column {error.colno}).") from None
    found = _find_call(value)
    if found is None:
        raise ValueError('Not a tool call: expected {"name": "...", "arguments": {...}}.')
    name, arguments = found
    if isinstance(arguments, str):  # OpenAI sends the arguments as a JSON string
        try:
            arguments = jsontext.loads(arguments)
        except json.JSONDecodeError as error:
            raise ValueError(f"The arguments string is not JSON: {error.msg}.") from None
    if not isinstance(arguments, dict):
        raise ValueError(f"The arguments must be an object, got {json.dumps(arguments)}.")
    return name, arguments


def _find_call(value: Any) -> tuple[str, Any] | None:
    if isinstance(value, list):
        return next((found for item in value if (found := _find_call(item)) is not None), None)
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("name"), str):
        for key in ("arguments", "input"):
            if key in value:
                return value["name"], value[key]
        return value["name"], {}
    for key in ("function", "tool_calls", "content"):
        if key in value and (found := _find_call(value[key])) is not None:
            return found
    return None
