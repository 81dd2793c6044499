"""How the viewer paints one line: control characters, search matches, what the call covers, the cut.

Pure functions of a line's text and a few facts, so a line is painted the same way whether it is
shown whole, scrolled sideways or wrapped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rich.style import Style
from rich.text import Text

from agentpager.fileview import compile_search
from agentpager.workspace import printable

if TYPE_CHECKING:
    from agentpager.fileview import Matcher

TAB_SIZE = 4
CUT_NOTE = " ✂ the output guard cuts here"
DISPLAY_CUT_NOTE = " …cut for display"

_CONTROL_PICTURES = {code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)}
_CONTROL_PICTURES |= {0x7F: "\u2421", 0x2028: "\u2424", 0x2029: "\u2424", 0x85: "\u2424"}
_ROW_PICTURES = _CONTROL_PICTURES | {0x09: "\u2409", 0x0A: "\u240a"}
_PICTURE = re.compile("[\u2400-\u241f\u2421\u2424]")
_ESCAPED = re.compile(r"\\.")


def visible(text: str) -> str:
    """Text as shown: tabs expanded, control characters but the newline as their control pictures."""
    return text.expandtabs(TAB_SIZE).translate(_CONTROL_PICTURES)


def one_row(text: str) -> str:
    """Text for one row of the screen (a file name, a message that names one): bytes that are not
    UTF-8 as U+FFFD, and every control character, a tab or a newline too, as its control picture,
    one for one; a terminal never gets an escape sequence from a file's name."""
    return printable(text).translate(_ROW_PICTURES)


def display_column(text: str, index: int) -> int:
    """The column where character ``index`` of ``text`` is shown (tabs take up to TAB_SIZE columns)."""
    return len(text[:index].expandtabs(TAB_SIZE))


def smart_case(pattern: str) -> Matcher:
    """Compile a search as ``less -i`` does: case matters only when the pattern has a capital letter
    (an escape such as ``\\S`` is not one). ViewError for a bad pattern."""
    capitals = any(char.isupper() for char in _ESCAPED.sub("", pattern))
    return compile_search(pattern, re.MULTILINE | (0 if capitals else re.IGNORECASE))


@dataclass(frozen=True)
class Shading:
    """What the panel's call covers of the viewer's file, in lines and columns (characters).

    Lines ``first_line..last_line``, from ``first_column`` of the first to ``end_column`` of the last
    (None: to its end); ``cut``: where the output guard cut the output (line, column), or None.
    """

    path: str
    first_line: int
    last_line: int
    first_column: int = 0
    end_column: int | None = None
    cut: tuple[int, int] | None = None

    def columns(self, number: int) -> tuple[int, int | None] | None:
        """The covered columns of line ``number`` (end None: to the end), or None when it is not covered."""
        if not self.first_line <= number <= self.last_line:
            return None
        start = self.first_column if number == self.first_line else 0
        return start, self.end_column if number == self.last_line else None

    def lost_from(self, number: int) -> int | None:
        """The column from which line ``number`` is covered but cut off by the guard, or None."""
        if self.cut is None or self.columns(number) is None:
            return None
        cut_line, cut_column = self.cut
        if number < cut_line:
            return None
        return cut_column if number == cut_line else 0


Marker = Literal["match", "cut", "lost", "covered", ""]


def paint(
    raw: str,
    number: int,
    cut_for_display: bool,
    style: Callable[[str], Style],
    shading: Shading | None = None,
    pattern: Matcher | None = None,
    current: bool = False,
) -> Text:
    """Line ``number`` as shown: the columns the call covers shaded, those the guard cut off marked
    (with a note where the cut falls), matches of ``pattern`` highlighted (``current``: this is the
    current match's line)."""
    line = Text(visible(raw), no_wrap=True, end="")
    covered = None if shading is None else shading.columns(number)
    if covered is not None:
        start, end = covered
        end_column = None if end is None else display_column(raw, end)
        line.stylize(style("viewer--covered"), display_column(raw, start), end_column)
    lost_from = None if shading is None else shading.lost_from(number)
    if lost_from is not None:
        line.stylize(style("viewer--lost"), display_column(raw, lost_from))
    line.highlight_regex(_PICTURE, style("viewer--control"))
    if pattern is not None:  # RE2's spans; a line only re could match (in a child) is not highlighted
        for start, end in pattern.spans(line.plain) or ():
            line.stylize(style("viewer--current" if current else "viewer--match"), start, end)
    if cut_for_display:
        line.append(DISPLAY_CUT_NOTE, style("viewer--cut"))
    if shading is not None and shading.cut is not None and shading.cut[0] == number:
        line.append(CUT_NOTE, style("viewer--cut"))
    return line


def marker(number: int, shading: Shading | None, current_match: int | None) -> Marker:
    """What the gutter marks on line ``number``: the current match, the guard's cut, or coverage."""
    if number == current_match:
        return "match"
    if shading is None or shading.columns(number) is None:
        return ""
    if shading.cut is not None and shading.cut[0] == number:
        return "cut"
    return "covered" if shading.lost_from(number) is None else "lost"
