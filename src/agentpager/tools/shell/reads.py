"""Which lines of which file a plain read command prints, read off the command alone (no file is opened).

The forms agents use to read a window of a file: ``sed -n 'A,Bp' F`` (and ``'Ap'``), ``cat F``,
``head [-n N] F``, and ``nl -ba F | sed -n 'A,Bp'``. Anything else (several files, other options,
more steps) is not a plain read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentpager.tools.shell.command import Command, parse
from agentpager.tools.shell.errors import Unsupported

_SED_WINDOW = re.compile(r"(\d+)(?:,(\d+|\$))?p")
_HEAD_DEFAULT = 10


@dataclass(frozen=True)
class LinesRead:
    path: str
    first: int
    last: int | None
    """None: to the end of the file."""


def lines_read(command: str) -> LinesRead | None:
    """The file and lines ``command`` prints when it is one of the plain reads above; else None."""
    try:
        script = parse(command)
    except Unsupported:
        return None
    if len(script.steps) != 1:
        return None
    commands = script.steps[0].pipeline.commands
    if any((c.stdout, c.stderr, c.stdin_file) != ("stdout", "stderr", None) for c in commands):
        return None
    if len(commands) == 2 and commands[0].argv[:2] == ["nl", "-ba"] and len(commands[0].argv) == 3:
        window = _sed_window(commands[1].argv[1:])
        return LinesRead(commands[0].argv[2], *window) if window else None
    if len(commands) != 1:
        return None
    return _single(commands[0])


def _single(command: Command) -> LinesRead | None:
    program, *args = command.argv
    if program == "cat" and len(args) == 1 and not args[0].startswith("-"):
        return LinesRead(args[0], 1, None)
    if program == "head":
        count, rest = _HEAD_DEFAULT, args
        if len(args) == 3 and args[0] == "-n" and args[1].isdigit():
            count, rest = int(args[1]), args[2:]
        if len(rest) == 1 and not rest[0].startswith("-") and count > 0:
            return LinesRead(rest[0], 1, count)
        return None
    if program == "sed" and len(args) == 3:
        window = _sed_window(args[:2])
        return LinesRead(args[2], *window) if window and not args[2].startswith("-") else None
    return None


def _sed_window(args: list[str]) -> tuple[int, int | None] | None:
    """``-n 'A,Bp'`` (or ``'Ap'``, ``'A,$p'``) as lines ``A..B``."""
    if len(args) != 2 or args[0] != "-n":
        return None
    match = _SED_WINDOW.fullmatch(args[1])
    if match is None or int(match.group(1)) < 1:
        return None
    first, last = int(match.group(1)), match.group(2)
    if last is None:
        return first, first
    if last == "$":
        return first, None
    return (first, int(last)) if int(last) >= first else None
