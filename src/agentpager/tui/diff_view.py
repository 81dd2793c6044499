"""A recorded output against its replay (or a profile's answer against the real agent's), coloured:
unified where the difference is drawn narrow, side by side where there is room. Texts that do not end with a newline are marked so, never joined
to the next line (difflib's unified_diff joins them).

The layout is chosen when the difference is drawn, for the width it is drawn at, so it follows the
terminal when it is resized. Side by side, each side has its own column of line numbers, dim and
closed by ``│``, titled ``line``: they count the lines of that output, and an output's own
numbers (Claude Code's ``4\\t``, Codex's ``nl``) stay in its text, after the bar. A long line wraps
within its own side (or, unified, after its marker), so the rows of both sides stay side by side.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass

from rich.cells import cell_len, chop_cells
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.style import Style
from rich.text import Text

SIDE_BY_SIDE_FROM = 140
"""Columns from which the two outputs are shown side by side."""
MAX_DIFF_LINES = 4000
"""Past this many lines of difference, the rest is summed up (the outputs themselves are in their tabs)."""
NO_NEWLINE = "\\ No newline at end of text"
TAB_SIZE = 8
NUMBER_STYLE = Style(dim=True)
BAR = " │ "
CONTINUED = "↪"
"""In place of a unified line's marker where the line goes on under itself."""
REPLAY = ("recorded", "replayed now")
"""The names of the two texts, old first, as the transcript screen compares them."""


def _lines(text: str) -> list[str]:
    """Lines without their ends; a text that does not end with a newline has its last line marked."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
        return lines
    return [*lines[:-1], lines[-1] + " ⏎̸"] if lines else lines


def unified(recorded: str, replayed: str, names: tuple[str, str] = REPLAY) -> Text:
    """A coloured unified diff (``-`` the first text, ``+`` the second)."""
    out = Text(no_wrap=False)
    lines = list(difflib.unified_diff(_lines(recorded), _lines(replayed), *names, lineterm="", n=3))
    for number, line in enumerate(lines):
        if number >= MAX_DIFF_LINES:
            out.append(f"… {len(lines) - MAX_DIFF_LINES:,} more lines of difference\n", "dim")
            break
        style = (
            "bold"
            if line.startswith(("---", "+++"))
            else "cyan"
            if line.startswith("@@")
            else "red"
            if line.startswith("-")
            else "green"
            if line.startswith("+")
            else ""
        )
        out.append(line.replace(" ⏎̸", "") + "\n", style)
        if line.endswith(" ⏎̸"):
            out.append(NO_NEWLINE + "\n", "dim")
    return out


@dataclass(frozen=True)
class Row:
    """One line of each side (None: no line there), or a gap between the changed parts (all None)."""

    left: int | None = None
    right: int | None = None
    changed: bool = False


def side_by_side_rows(left: list[str], right: list[str]) -> list[Row]:
    """The changed parts of two lists of lines with three lines around each, line against line."""
    rows: list[Row] = []
    for group in difflib.SequenceMatcher(None, left, right, autojunk=False).get_grouped_opcodes(3):
        if rows:
            rows.append(Row())
        for tag, i1, i2, j1, j2 in group:
            for k in range(max(i2 - i1, j2 - j1)):
                a, b = i1 + k, j1 + k
                rows.append(Row(a if a < i2 else None, b if b < j2 else None, tag != "equal"))
                if len(rows) >= MAX_DIFF_LINES:
                    return rows
    return rows


def _pieces(line: str, width: int) -> list[str]:
    """``line`` (tabs expanded) cut into pieces of at most ``width`` cells."""
    line = line.expandtabs(TAB_SIZE)
    if cell_len(line) <= width:
        return [line]
    return chop_cells(line, width) or [""]


class Difference:
    """What the difference tab draws: side by side from SIDE_BY_SIDE_FROM columns, else unified."""

    def __init__(self, recorded: str, replayed: str, names: tuple[str, str] = REPLAY) -> None:
        self.left, self.right = _lines(recorded), _lines(replayed)
        self.names = names
        self.rows = side_by_side_rows(self.left, self.right)
        self.unified = unified(recorded, replayed, names)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if width >= SIDE_BY_SIDE_FROM:
            yield from self._side_by_side(width)
        else:
            yield from self._unified(width)

    def _unified(self, width: int) -> Iterator[Text]:
        """Each line of the unified diff; a long one goes on under its text, after ``↪`` in place of
        its marker."""
        for line in self.unified.split("\n", allow_blank=False):
            marker, body = line.plain[:1], line.plain[1:]
            style = line.spans[0].style if line.spans else ""
            if marker not in "-+ " or line.plain.startswith(("---", "+++")):
                marker, body = "", line.plain
            for number, piece in enumerate(_pieces(body, max(1, width - 1))):
                yield Text(f"{marker if number == 0 else CONTINUED}{piece}", style, no_wrap=True)

    def _side_by_side(self, width: int) -> Iterator[Text]:
        last = max(len(self.left), len(self.right), 1)
        digits = max(len(f"{last:,}"), len("line"))
        side = (width - 2 * (digits + len(BAR)) - 2) // 2
        title = Text(no_wrap=True)
        first, second = self.names
        for name in (f"{first[:side]:<{side}}  ", second):
            title.append(f"{'line':>{digits}}", NUMBER_STYLE)
            title.append(BAR, NUMBER_STYLE)
            title.append(name, "bold")
        yield title
        for row in self.rows:
            if row.left is None and row.right is None:
                gap = Text(no_wrap=True)
                for _ in range(2):
                    gap.append(" " * digits + BAR, NUMBER_STYLE)
                    gap.append(f"{'⋯':<{side}}  ", "cyan")
                yield gap
                continue
            left = _pieces(self.left[row.left], side) if row.left is not None else []
            right = _pieces(self.right[row.right], side) if row.right is not None else []
            for k in range(max(len(left), len(right))):
                line = Text(no_wrap=True)
                for number, pieces, colour in ((row.left, left, "red"), (row.right, right, "green")):
                    shown = f"{number + 1:,}" if number is not None and k == 0 else ""
                    line.append(f"{shown:>{digits}}", NUMBER_STYLE)
                    line.append(BAR, NUMBER_STYLE)
                    piece = pieces[k] if k < len(pieces) else ""
                    line.append(piece, colour if row.changed else "")
                    if colour == "red":
                        line.append(" " * (side - cell_len(piece) + 2))
                yield line
        if len(self.rows) >= MAX_DIFF_LINES:
            yield Text("… more (the outputs themselves are in their tabs)", "dim")


def difference(recorded: str | None, replayed: str | None, names: tuple[str, str] = REPLAY) -> RenderableType:
    """What the difference tab shows for a call (or the probe screen for an answer)."""
    if replayed is None:
        return Text("(not replayable)", "dim")
    if recorded is None:
        return Text("(no result recorded)", "dim")
    if recorded == replayed:
        return Text("(the same, byte for byte)", "green")
    return Difference(recorded, replayed, names)
