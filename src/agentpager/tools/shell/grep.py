"""GNU grep 3.8: its options, patterns and exit rules, on named files, pipes and directories (``-r``).

Options are read as grep reads them (``-C`` is the default of ``-A``/``-B``, ``-NUM`` is ``-C NUM``,
``-l`` wins over ``-c``). Patterns are translated by ``regex`` and matched by the engine; the search
itself is ``search``. ``-r`` walks a directory in the file system's order (GNU fts without sorting,
as ``walk`` does), without following symbolic links, ``--include``/``--exclude``/``--exclude-dir``
on names; with no file it searches the working directory, naming files without ``./``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agentpager.engine.patterns import PatternError, compile_glob
from agentpager.tools.shell import regex
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.io import Chunks, Io, options
from agentpager.tools.shell.search import Flavor, Search, Walking, search_files

# -- GNU grep ---------------------------------------------------------------------------------------

_GREP_SHORT = "e:EFGiywxvcnlLHhqsA:B:C:m:ar"
_GREP_LONG = [
    "regexp=", "extended-regexp", "fixed-strings", "basic-regexp", "ignore-case", "no-ignore-case",
    "word-regexp", "line-regexp", "invert-match", "count", "line-number", "files-with-matches",
    "files-without-match", "with-filename", "no-filename", "quiet", "silent", "no-messages",
    "after-context=", "before-context=", "context=", "max-count=", "text", "color=", "colour=",
    "line-buffered", "recursive", "include=", "exclude=", "exclude-dir=",
]  # fmt: skip


def grep(io: Io, args: list[str]) -> Chunks:
    args = ["-C" + arg[1:] if re.fullmatch(r"-\d+", arg) else arg for arg in args]
    found, operands = options("grep", args, _GREP_SHORT, _GREP_LONG)
    patterns: list[str] = []
    syntax, ignore_case, word, line = "G", False, False, False
    recursive = False
    globs: dict[str, list[str]] = {"include": [], "exclude": [], "exclude-dir": []}
    search = Search()
    for option, value in found:
        name = option.lstrip("-")
        if name in ("e", "regexp"):
            patterns.append(value)
        elif name in ("E", "extended-regexp", "F", "fixed-strings", "G", "basic-regexp"):
            syntax = name[0].upper()
        elif name in ("i", "y", "ignore-case", "no-ignore-case"):
            ignore_case = name != "no-ignore-case"
        elif name in ("w", "word-regexp"):
            word = True
        elif name in ("x", "line-regexp"):
            line = True
        elif name in ("color", "colour"):
            if value not in ("never", "auto"):
                raise Unsupported(f"grep --color={value}")
        elif name in ("r", "recursive"):
            recursive = True
        elif name in ("include", "exclude", "exclude-dir"):
            globs[name].append(value)
        elif name != "line-buffered":
            common_option(search, name, value, "grep")
    if not patterns:
        if not operands:
            raise Unsupported("grep without a pattern")
        patterns.append(operands.pop(0))
    if search.max_count == 0:
        return nothing(io)
    pieces = [piece for pattern in patterns for piece in pattern.split("\n")]
    if syntax == "F":
        translated = [re.escape(piece) for piece in pieces]
    else:
        translated = [regex.posix(piece, extended=syntax == "E") for piece in pieces]
    search.pattern = regex.compile_lines(translated, ignore_case, "grep" if word else "", line)
    search.null_output = io.stdout_is_null
    if recursive:
        included, excluded_directory = _name_filters(globs)
        search.walking = Walking("readdir", None, included, excluded_directory, implicit=not operands)
        operands = operands or ["."]
    elif any(globs.values()):
        raise Unsupported("grep --include/--exclude without -r")
    return search_files(io, Flavor(), search, operands or ["-"])


def _name_filters(globs: dict[str, list[str]]) -> tuple[Callable[[str], bool] | None, Callable[[str], bool] | None]:
    """GNU grep's ``--include``, ``--exclude`` (a walked file's base name) and ``--exclude-dir``
    (a directory's name), as fnmatch globs through the engine (the last of --include/--exclude
    that matches decides; a file neither matches is kept unless an --include came first)."""
    for glob in (glob for each in globs.values() for glob in each):
        if "\\" in glob or "[^" in glob:
            raise Unsupported(f"grep's glob {glob!r} (fnmatch escapes and [^ differ from Python's)")
    try:
        includes = [compile_glob(glob) for glob in globs["include"]]
        excludes = [compile_glob(glob) for glob in globs["exclude"]]
        directories = [compile_glob(glob) for glob in globs["exclude-dir"]]
    except PatternError as error:
        raise Unsupported(f"a grep glob: {error.message}") from None

    def included(path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        if any(glob.search(name) for glob in excludes):
            return False
        return not includes or any(glob.search(name) for glob in includes)

    def excluded_directory(name: str) -> bool:
        return any(glob.search(name) for glob in directories)

    return (included if includes or excludes else None), (excluded_directory if directories else None)


def nothing(io: Io) -> Chunks:
    io.status = 1
    return iter(())


def common_option(search: Search, name: str, value: str, program: str) -> None:
    """The options grep and ripgrep share (same letters, same meaning)."""
    if name in ("v", "invert-match"):
        search.invert = True
    elif name in ("c", "count"):
        search.count = True
    elif name in ("n", "line-number"):
        search.line_numbers = True
    elif name in ("l", "files-with-matches"):
        search.list_matching = True
    elif name in ("L", "files-without-match"):
        search.list_non_matching = True
    elif name in ("H", "with-filename"):
        search.with_names = True
    elif name in ("h", "no-filename", "I"):
        search.with_names = False
    elif name in ("q", "quiet", "silent"):
        search.quiet = True
    elif name in ("s", "no-messages"):
        search.no_messages = True
    elif name in ("a", "text"):
        search.text_mode = True
    elif name in ("m", "max-count"):
        search.max_count = number(program, value)
    elif name in ("A", "after-context"):
        search.after = number(program, value)
    elif name in ("B", "before-context"):
        search.before = number(program, value)
    elif name in ("C", "context"):
        search.context = number(program, value)
    else:
        raise Unsupported(f"{program} -{name}")


def number(program: str, value: str) -> int:
    if not value.isascii() or not value.isdigit():
        raise Unsupported(f"{program}: the number {value!r}")
    return int(value)
