"""ripgrep as the agent's release runs it: options, patterns, directory walks and ``--files``.

Options are read as the release reads them (``search.RipgrepRelease``): ``-S`` is case-insensitive
unless the pattern has an uppercase letter, the last of ``-w``/``-x`` decides. A directory (or no
path at all: the working directory, its files named without ``./``) is walked with ripgrep's rules
(``walk``): ignore files, hidden names, ``-g`` globs (``gitignore`` syntax, relative to the working
directory, ``!`` excludes), ``-t``/``-T`` types (each release's own list, ``ripgrep_types/*.txt``,
its ``rg --type-list``). ``-j1`` walks one directory after another in the file system's order, as
``--sort path`` does in name order; otherwise ripgrep searches on parallel threads and prints files
in no fixed order: the answer takes the order of its walker on one thread (each directory's
entries last first) and is marked uncertain when it names several files.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from agentpager.tools.shell import regex
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.gitignore import Rule, Rules, rule_of
from agentpager.tools.shell.grep import common_option, nothing, number
from agentpager.tools.shell.io import Chunks, Io, options
from agentpager.tools.shell.search import Ripgrep, RipgrepRelease, Search, Walking, search_files
from agentpager.tools.shell.walk import Order, is_directory, walk
from agentpager.tools.shell.walk import Ripgrep as Skips

_RG_SHORT = "e:FiSswxvcnNlHIA:B:C:m:j:uqg:t:T:L"
_RG_LONG = [
    "regexp=", "fixed-strings", "ignore-case", "smart-case", "case-sensitive", "word-regexp",
    "line-regexp", "invert-match", "count", "line-number", "no-line-number", "files-with-matches",
    "with-filename", "no-filename", "after-context=", "before-context=", "context=", "max-count=",
    "threads=", "color=", "no-heading", "hidden", "no-ignore", "quiet", "files", "glob=", "type=",
    "type-not=", "sort=", "follow", "no-ignore-vcs",
]  # fmt: skip
PARALLEL_ORDER = "ripgrep searches files on parallel threads and prints them in no fixed order"


def rg(io: Io, args: list[str]) -> Chunks:
    found, operands = options("rg", args, _RG_SHORT, _RG_LONG)
    patterns: list[str] = []
    fixed, case, word, line = False, "sensitive", False, False
    threads = 0
    search = Search()
    release = RipgrepRelease.of(io.ctx.ripgrep)
    many = ("-e", "--regexp", "-g", "--glob", "-t", "--type", "-T", "--type-not")  # given as often as wanted
    valued = [option.lstrip("-")[0] for option, value in found if value and option not in many]
    if release.refuses_some_repeats and len(valued) != len(set(valued)):
        raise Unsupported("rg with an option given twice (ripgrep 13 refuses some)")
    count_or_list = ""
    list_files = hidden = False
    unrestricted = 0
    vcs_ignores = True
    order: Order | None = None
    globs: list[str] = []
    types: dict[str, list[str]] = {"t": [], "T": []}
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
            common_option(search, name, value, "rg")
        elif name in ("A", "after-context", "B", "before-context", "C", "context"):
            # ripgrep 13: -C replaces -A and -B given before it, and -A or -B replaces an earlier -C
            count = number("rg", value)
            if name in ("C", "context"):
                search.context, search.after, search.before = count, -1, -1
            else:
                if search.context >= 0:
                    search.after = search.before = 0
                    search.context = -1
                setattr(search, "after" if name[0] == "A" else "before", count)
        elif name in ("j", "threads"):
            threads = number("rg", value)
        elif name == "no-heading":
            pass  # what ripgrep does when its stdout is not a terminal
        elif name == "hidden":
            hidden = True
        elif name in ("u", "no-ignore"):
            unrestricted += 1 if name == "u" else 0
            vcs_ignores = vcs_ignores and name != "no-ignore"
        elif name == "no-ignore-vcs":
            vcs_ignores = False
        elif name == "files":
            list_files = True
        elif name in ("g", "glob"):
            globs.append(value)
        elif name in ("t", "type", "T", "type-not"):
            types["T" if name in ("T", "type-not") else "t"].append(value)
        elif name == "sort":
            if value not in ("path", "none"):
                raise Unsupported(f"rg --sort={value}")
            order = "sorted" if value == "path" else None
        elif name in ("L", "follow"):
            raise Unsupported("rg -L (following symbolic links)")
        else:
            count_or_list = {"c": "c", "count": "c", "l": "l", "files-with-matches": "l"}.get(name, count_or_list)
            common_option(search, name, value, "rg")
    if search.list_non_matching:
        raise Unsupported("rg --files-without-match")
    if unrestricted >= 3:
        raise Unsupported("rg -uuu (binary files searched as text)")
    if search.count and search.list_matching:  # 13: -c wins over -l; 14 on: the last of them
        last_is_list = release.last_of_count_and_list and count_or_list == "l"
        search.count, search.list_matching = not last_is_list, last_is_list
    if list_files:
        operands = patterns[1:] + operands if patterns else operands
    elif not patterns:
        if not operands:
            raise Unsupported("rg without a pattern")
        patterns.append(operands.pop(0))
    implicit = not operands and (list_files or io.stdin_is_unknown())
    if order is None:
        order = "readdir" if threads == 1 else "reversed"
    skips = Skips(
        hidden=hidden or unrestricted >= 2,
        ignore_files=unrestricted == 0 and vcs_ignores,
        globs=_overrides(io, globs),
        types=_types(release, types),
        parents=release.parent_ignore_paths,
    )
    walking = Walking(order, skips, implicit=implicit, order_uncertain=PARALLEL_ORDER if order == "reversed" else "")
    flavor = Ripgrep(release, release.walks_on_one_thread(threads, len(operands)))
    if implicit:
        operands = ["."]
    if list_files:
        return _files(io, flavor, walking, operands)
    search.walking = walking
    search.pattern = regex.compile_lines(*_translated(patterns, fixed, case), "rg" if word else "", line)
    if search.max_count == 0:
        return nothing(io)
    return search_files(io, flavor, search, operands or ["-"])


def _translated(patterns: list[str], fixed: bool, case: str) -> tuple[list[str], bool]:
    """The patterns in ``re``'s syntax and whether to ignore case (``-S``: when none has an uppercase letter)."""
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
    return translated, case == "insensitive" or (case == "smart" and not uppercase)


def _files(io: Io, flavor: Ripgrep, walking: Walking, operands: list[str]) -> Chunks:
    """``rg --files``: the files a search would search, one a line."""
    found = 0
    errors = False

    def failed(path: str, error: OSError) -> None:
        nonlocal errors
        errors = True
        flavor.error(io, path, error)

    for name in operands:
        if not is_directory(io.ctx, name):
            placed = io.ctx.open(name)
            placed.close()
            if placed.st is None:
                failed(name, FileNotFoundError(2, os.strerror(2)))
                continue
            found += 1
            yield name.encode("utf-8", "surrogateescape") + b"\n"
            continue
        top = "" if walking.implicit else name
        for entry in walk(io.ctx, name, walking.order, walking.ripgrep, failed, top):
            if entry.kind == "file":
                found += 1
                yield entry.path.encode("utf-8", "surrogateescape") + b"\n"
    walking.note_uncertain(io, found)
    io.status = 2 if errors else 0 if found else 1


def _overrides(io: Io, globs: list[str]) -> Rules | None:
    """``-g``: a glob keeps what it matches, ``!glob`` skips it (the reverse of an ignore file's
    rules); paths are relative to the working directory."""
    if not globs:
        return None
    if os.path.normpath(io.ctx.cwd) != os.path.normpath(io.ctx.root.path):
        raise Unsupported("rg -g in a directory below the workspace root")
    rules = []
    for glob in globs:
        rule = rule_of(glob, from_file=False)
        if rule is not None:
            rules.append(Rule(rule.regex, not rule.negated, rule.directories_only))
    return Rules(rules)


def _types(release: RipgrepRelease, types: dict[str, list[str]]) -> Rules | None:
    """``-t NAME`` keeps the files whose name matches one of the type's globs, ``-T NAME`` skips them
    (the last rule that matches decides, a ``-t`` given: a file none matches is skipped)."""
    if not types["t"] and not types["T"]:
        return None
    table = _type_table(".".join(map(str, release.version)))
    rules = []
    for kind, skip in (("t", False), ("T", True)):
        for name in types[kind]:
            if name not in table:
                raise Unsupported(f"rg: the file type {name!r}, which ripgrep does not know")
            for glob in table[name]:
                rule = rule_of(glob, from_file=False)
                assert rule is not None
                rules.append(Rule(rule.regex, not skip, False))
    return Rules(rules)


@functools.cache
def _type_table(version: str) -> dict[str, list[str]]:
    """A release's built-in types, as its ``rg --type-list`` prints them (``name: glob, glob``)."""
    path = Path(__file__).with_name("ripgrep_types") / f"{version}.txt"
    if not path.is_file():
        raise Unsupported(f"the file types of ripgrep {version}")
    table = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, _, globs = line.partition(": ")
        table[name] = globs.split(", ")
    return table
