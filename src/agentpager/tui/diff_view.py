"""A recorded output against its replay (or a profile's answer against the real agent's), coloured:
unified where the screen is narrow, side by side where there is room. Texts that do not end with a newline are marked so, never joined to the next
line (difflib's unified_diff joins them)."""

from __future__ import annotations

import difflib

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

SIDE_BY_SIDE_FROM = 140
"""Columns from which the two outputs are shown side by side."""
MAX_DIFF_LINES = 4000
"""Past this many lines of difference, the rest is summed up (the outputs themselves are in their tabs)."""
NO_NEWLINE = "\\ No newline at end of text"
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


def side_by_side(recorded: str, replayed: str, names: tuple[str, str] = REPLAY) -> Table:
    """The changed parts of both texts in two columns, with their line numbers."""
    left, right = _lines(recorded), _lines(replayed)
    table = Table(expand=True, show_edge=False, box=None, padding=(0, 1))
    table.add_column("#", justify="right", style="dim", no_wrap=True)
    table.add_column(names[0], ratio=1, overflow="fold")
    table.add_column("#", justify="right", style="dim", no_wrap=True)
    table.add_column(names[1], ratio=1, overflow="fold")
    rows = 0
    for group in difflib.SequenceMatcher(None, left, right, autojunk=False).get_grouped_opcodes(3):
        if rows:
            table.add_row("", Text("⋯", "cyan"), "", Text("⋯", "cyan"))
        for tag, i1, i2, j1, j2 in group:
            for k in range(max(i2 - i1, j2 - j1)):
                a, b = i1 + k, j1 + k
                old = Text(left[a], "red" if tag != "equal" else "") if a < i2 else Text("")
                new = Text(right[b], "green" if tag != "equal" else "") if b < j2 else Text("")
                table.add_row(str(a + 1) if a < i2 else "", old, str(b + 1) if b < j2 else "", new)
                rows += 1
                if rows >= MAX_DIFF_LINES:
                    table.add_row("", Text("… more", "dim"), "", Text("… more", "dim"))
                    return table
    return table


def difference(
    recorded: str | None, replayed: str | None, width: int, names: tuple[str, str] = REPLAY
) -> RenderableType:
    """What the difference tab shows for a call."""
    if replayed is None:
        return Text("(not replayable)", "dim")
    if recorded is None:
        return Text("(no result recorded)", "dim")
    if recorded == replayed:
        return Text("(the same, byte for byte)", "green")
    if width >= SIDE_BY_SIDE_FROM:
        return Group(Text(f"{names[0]} ← → {names[1]}", "bold"), side_by_side(recorded, replayed, names))
    return unified(recorded, replayed, names)
