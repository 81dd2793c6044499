"""GNU grep 3.8 and ripgrep 13: their options, patterns and exit rules, on named files and pipes.

Options are read as each program reads them (grep: ``-C`` is the default of ``-A``/``-B``, ``-NUM``
is ``-C NUM``, ``-l`` wins over ``-c``; ripgrep: the last of ``-A``/``-B``/``-C`` and of ``-w``/``-x``
decides, ``-c`` wins over ``-l``, ``-S`` is case-insensitive unless the pattern has an uppercase
letter). Patterns are translated by ``regex`` and matched by the engine; the search itself is ``search``. Recursive searches
(a directory, ``-r``, ``rg`` without a path) are Unsupported: their file order is the file system's.
Several files are searched in argument order; real ripgrep searches them on parallel threads and
may print them in another order (``-j1`` keeps it).
"""

from __future__ import annotations

import re

from agentpager.tools.shell import regex
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.io import Chunks, Io, options
from agentpager.tools.shell.search import Flavor, Ripgrep, RipgrepRelease, Search, search_files

# -- GNU grep ---------------------------------------------------------------------------------------

_GREP_SHORT = "e:EFGiywxvcnlLHhqsA:B:C:m:a"
_GREP_LONG = [
    "regexp=", "extended-regexp", "fixed-strings", "basic-regexp", "ignore-case", "no-ignore-case",
    "word-regexp", "line-regexp", "invert-match", "count", "line-number", "files-with-matches",
    "files-without-match", "with-filename", "no-filename", "quiet", "silent", "no-messages",
    "after-context=", "before-context=", "context=", "max-count=", "text", "color=", "colour=",
    "line-buffered",
]  # fmt: skip


def grep(io: Io, args: list[str]) -> Chunks:
    args = ["-C" + arg[1:] if re.fullmatch(r"-\d+", arg) else arg for arg in args]
    found, operands = options("grep", args, _GREP_SHORT, _GREP_LONG)
    patterns: list[str] = []
    syntax, ignore_case, word, line = "G", False, False, False
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
        elif name != "line-buffered":
            _common_option(search, name, value, "grep")
    if not patterns:
        if not operands:
            raise Unsupported("grep without a pattern")
        patterns.append(operands.pop(0))
    if search.max_count == 0:
        return _nothing(io)
    pieces = [piece for pattern in patterns for piece in pattern.split("\n")]
    if syntax == "F":
        translated = [re.escape(piece) for piece in pieces]
    else:
        translated = [regex.posix(piece, extended=syntax == "E") for piece in pieces]
    search.pattern = regex.compile_lines(translated, ignore_case, "grep" if word else "", line)
    search.null_output = io.stdout_is_null
    return search_files(io, Flavor(), search, operands or ["-"])


def _nothing(io: Io) -> Chunks:
    io.status = 1
    return iter(())


def _common_option(search: Search, name: str, value: str, program: str) -> None:
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
        search.max_count = _number(program, value)
    elif name in ("A", "after-context"):
        search.after = _number(program, value)
    elif name in ("B", "before-context"):
        search.before = _number(program, value)
    elif name in ("C", "context"):
        search.context = _number(program, value)
    else:
        raise Unsupported(f"{program} -{name}")


def _number(program: str, value: str) -> int:
    if not value.isascii() or not value.isdigit():
        raise Unsupported(f"{program}: the number {value!r}")
    return int(value)


# -- ripgrep ----------------------------------------------------------------------------------------

_RG_SHORT = "e:FiSswxvcnNlHIA:B:C:m:j:uq"
_RG_LONG = [
    "regexp=", "fixed-strings", "ignore-case", "smart-case", "case-sensitive", "word-regexp",
    "line-regexp", "invert-match", "count", "line-number", "no-line-number", "files-with-matches",
    "with-filename", "no-filename", "after-context=", "before-context=", "context=", "max-count=",
    "threads=", "color=", "no-heading", "hidden", "no-ignore", "quiet",
]  # fmt: skip


def rg(io: Io, args: list[str]) -> Chunks:
    found, operands = options("rg", args, _RG_SHORT, _RG_LONG)
    patterns: list[str] = []
    fixed, case, word, line = False, "sensitive", False, False
    threads = 0
    search = Search()
    release = RipgrepRelease.of(io.ctx.ripgrep)
    valued = [option.lstrip("-")[0] for option, value in found if value and option not in ("-e", "--regexp")]
    if release.refuses_some_repeats and len(valued) != len(set(valued)):
        raise Unsupported("rg with an option given twice (ripgrep 13 refuses some)")
    count_or_list = ""
    for option, value in found:
        name = option.lstrip("-")
        if name in ("e", "regexp"):
            patterns.append(value)
        elif name in ("F", "fixed-strings"):
            fixed = True
        elif name in ("i", "ignore-case"):
            case = "insensitive"
        elif name in ("S", "smart-case"):
            case = "smart"
        elif name in ("s", "case-sensitive"):
            case = "sensitive"
        elif name in ("w", "word-regexp", "x", "line-regexp"):
            word, line = name[0] == "w", name[0] == "x"  # ripgrep keeps the last of the two
        elif name in ("N", "no-line-number"):
            search.line_numbers = False
        elif name == "color":
            if value not in ("never", "auto"):
                raise Unsupported(f"rg --color={value}")
        elif name in ("A", "after-context", "B", "before-context", "C", "context") and release.context_as_grep:
            _common_option(search, name, value, "rg")
        elif name in ("A", "after-context", "B", "before-context", "C", "context"):
            # ripgrep 13: -C replaces -A and -B given before it, and -A or -B replaces an earlier -C
            number = _number("rg", value)
            if name in ("C", "context"):
                search.context, search.after, search.before = number, -1, -1
            else:
                if search.context >= 0:
                    search.after = search.before = 0
                    search.context = -1
                setattr(search, "after" if name[0] == "A" else "before", number)
        elif name in ("j", "threads"):
            threads = _number("rg", value)
        elif name in ("no-heading", "hidden", "no-ignore", "u"):
            pass  # no effect on named files
        else:
            count_or_list = {"c": "c", "count": "c", "l": "l", "files-with-matches": "l"}.get(name, count_or_list)
            _common_option(search, name, value, "rg")
    if search.list_non_matching:
        raise Unsupported("rg --files-without-match")
    if search.count and search.list_matching:  # 13: -c wins over -l; 14 on: the last of them
        last_is_list = release.last_of_count_and_list and count_or_list == "l"
        search.count, search.list_matching = not last_is_list, last_is_list
    if not patterns:
        if not operands:
            raise Unsupported("rg without a pattern")
        patterns.append(operands.pop(0))
    translated, uppercase = [], False
    for pattern in patterns:
        for piece in pattern.split("\n"):
            if fixed:
                translated.append(re.escape(piece))
                uppercase = uppercase or any(char.isupper() for char in piece)
            else:
                text, upper = regex.rust(piece)
                translated.append(text)
                uppercase = uppercase or upper
    ignore_case = case == "insensitive" or (case == "smart" and not uppercase)
    search.pattern = regex.compile_lines(translated, ignore_case, "rg" if word else "", line)
    if not operands and io.stdin_is_unknown():
        raise Unsupported("rg without a path searches the working directory recursively")
    if search.max_count == 0:
        return _nothing(io)
    flavor = Ripgrep(release, release.walks_on_one_thread(threads, len(operands)))
    return search_files(io, flavor, search, operands or ["-"])
