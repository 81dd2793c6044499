"""The hunks jsdiff's ``structuredPatch`` makes of two texts, for texts where one is a run of the other's lines.

Claude Code shows a file that changed since it was read as these hunks ("Here are the relevant
changes"); its old text is always the lines it read, so the line diff needs no search: the common
lines are where the read started. The hunk building follows jsdiff's ``structuredPatch`` as Claude
Code 2.0.21 bundles it (``cli.js``, function ``OX1``): lines keep their newline, a hunk opens with up
to ``context`` common lines before a change and closes after ``context`` after it, unless the next
change is within ``2 * context`` lines.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hunk:
    old_start: int
    lines: list[str]
    """Each line with its mark (`` ``, ``-``, ``+``) and without its newline."""


def _tokens(text: str) -> list[str]:
    """Lines with their ``\\n`` (jsdiff's line tokens); no token for the empty text after a final newline."""
    if text == "":
        return []
    pieces = [piece + "\n" for piece in text.split("\n")]
    if text.endswith("\n"):
        pieces.pop()
    else:
        pieces[-1] = pieces[-1][:-1]
    return pieces


def hunks_of_window(old: str, new: str, first: int, context: int) -> list[Hunk]:
    """The hunks from ``old`` to ``new`` when ``old`` is ``new``'s lines from line ``first`` on (1-based).

    Old tokens that differ from the new ones where they should match (the last line, which lost its
    newline when the read stopped before the end) are removed and added again, as jsdiff finds them.
    """
    old_tokens, new_tokens = _tokens(old), _tokens(new)
    start = first - 1
    common = 0
    while (
        common < len(old_tokens)
        and start + common < len(new_tokens)
        and old_tokens[common] == new_tokens[start + common]
    ):
        common += 1
    components: list[tuple[str, list[str]]] = []
    if start:
        components.append(("+", new_tokens[:start]))
    if common:
        components.append((" ", old_tokens[:common]))
    if old_tokens[common:]:
        components.append(("-", old_tokens[common:]))
    if new_tokens[start + common :]:
        components.append(("+", new_tokens[start + common :]))
    return _structured_patch(components, context)


def _structured_patch(components: list[tuple[str, list[str]]], context: int) -> list[Hunk]:
    components = [*components, (" ", [])]
    hunks: list[Hunk] = []
    old_line = new_line = 1
    old_range_start = 0
    lines: list[str] = []
    for index, (mark, tokens) in enumerate(components):
        if mark != " ":
            if not old_range_start:
                old_range_start = old_line
                previous = components[index - 1] if index else None
                if previous is not None and previous[0] == " " and context > 0:
                    lines = [" " + token for token in previous[1][-context:]]
                    old_range_start -= len(lines)
            lines += [mark + token for token in tokens]
            if mark == "+":
                new_line += len(tokens)
            else:
                old_line += len(tokens)
            continue
        if old_range_start:
            if len(tokens) <= context * 2 and index < len(components) - 2:
                lines += [" " + token for token in tokens]
            else:
                lines += [" " + token for token in tokens[: min(len(tokens), context)]]
                hunks.append(Hunk(old_range_start, lines))
                old_range_start, lines = 0, []
        old_line += len(tokens)
        new_line += len(tokens)
    for hunk in hunks:
        hunk.lines[:] = [line[:-1] if line.endswith("\n") else line for line in hunk.lines]
    return hunks
