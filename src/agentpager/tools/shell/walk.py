"""Directories walked as ``rg``, ``grep -r`` and ``find`` walk them: beneath the root, depth first.

Each directory is opened from its parent's descriptor with ``O_NOFOLLOW`` (the walk starts from a
directory opened beneath the root, so nothing it reaches is outside); symbolic links are not
followed (``rg`` without ``-L``, ``grep -r``, ``find`` without ``-L``). Entries come in the file
system's order (``readdir``: what ``rg -j1``, GNU grep's and find's fts see), reversed (what
ripgrep's parallel walker, a stack, gives on one thread: its real order is not fixed), or sorted
(``rg --sort path``). A directory in the file system's order is read as it goes; the other orders
hold one directory's names at a time.

ripgrep's rules (``crates/ignore/src/dir.rs``, ``Ignore::matched``): ``-g`` globs decide first; then
``.rgignore``, ``.ignore`` and, inside a git repository, ``.gitignore`` and ``.git/info/exclude``
(for each kind the deepest directory whose file has a matching rule decides, and the kinds in that
order); then ``-t`` types; then hidden names (those starting with ``.``) are skipped unless a rule
kept them. Ignore files of the directories above a searched one count, up to the workspace root
(above it nothing is read: a ``.git`` or ignore file there is not seen).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from agentpager.engine.lineindex import read_exact
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.gitignore import Rules, rule_of
from agentpager.tools.shell.io import Context, stat_of

Order = Literal["readdir", "reversed", "sorted"]
IGNORE_FILE_BYTES = 1 << 20
"""A larger ignore file is not read (Unsupported)."""
MAX_DEPTH = 256
"""Deeper directories are Unsupported (each level holds a descriptor)."""
_OPEN_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_KINDS = (".rgignore", ".ignore", ".gitignore")


@dataclass
class Ripgrep:
    """What ripgrep skips (its options) and where its ignore files are."""

    hidden: bool = False
    ignore_files: bool = True
    globs: Rules | None = None
    """``-g``: relative to the working directory."""
    types: Rules | None = None
    """``-t`` and ``-T``: rules on file names (``-t`` ones negated: they keep); with a ``-t``, a
    file no rule matches is skipped."""
    parents: Literal["whole", "name", "from the working directory"] = "whole"
    """How the release matches the ignore files of directories above the one searched, read off
    the binaries: 15 with the whole path; 14 with the first directory the command searches and the
    entry's name (the names between dropped: a rule naming a path two levels down never matches,
    nor one naming the second directory searched); 13 only when the working directory is the one
    searched (else their rules naming a path never match)."""
    first_directory: list[str] | None = None
    """The names from the root to the first directory walked (14's rules above use it)."""
    unseen_repository: bool = False
    """A ``.gitignore`` was left out outside any repository the workspace holds: whether it
    counts depends on a ``.git`` above the workspace, which is not looked at."""


@dataclass
class Entry:
    path: str
    """As the program prints it: the operand, then the names below it."""
    kind: Literal["file", "directory", "link", "other"]
    depth: int
    """1 for the operand's own entries."""


@dataclass
class _Level:
    """A directory on the way down: its descriptor and, for ripgrep, its ignore files."""

    fd: int
    depth: int
    """How many names below the top level (the workspace root for ripgrep) it is."""
    rules: dict[str, Rules] = field(default_factory=dict)


def walk(
    ctx: Context,
    operand: str,
    order: Order,
    ripgrep: Ripgrep | None = None,
    on_error: Callable[[str, OSError], None] | None = None,
    shown: str | None = None,
    excluded_directory: Callable[[str], bool] | None = None,
    max_depth: int | None = None,
) -> Iterator[Entry]:
    """Everything below the directory ``operand`` (not itself) that is not skipped, pre-order.

    ``ripgrep`` applies its rules (none for grep and find); ``on_error`` hears of a directory that
    cannot be read (the walk goes on); ``shown`` is what the paths printed start with (default: the
    operand; a name is joined to it with a ``/`` unless it ends with one); a directory whose name
    ``excluded_directory`` accepts is not entered (nor given); nothing deeper than ``max_depth`` is.
    """
    placed = ctx.open(operand)
    if placed.fd is None or placed.st is None or not stat.S_ISDIR(placed.st.st_mode):
        placed.close()
        raise NotADirectoryError(operand)
    top = operand if shown is None else shown
    levels: list[_Level] = []
    try:
        if ripgrep is not None and ripgrep.ignore_files:
            levels = _parents(ctx, operand, ripgrep)
        base = len(levels)
        levels.append(_Level(placed.fd, _depth(ctx, operand), {}))
        placed.fd = None
        names = [] if ripgrep is None else _names_of(ctx, operand)
        if ripgrep is not None and ripgrep.ignore_files:
            levels[-1].rules = _rules(levels[-1].fd, _in_repository(levels, levels[-1].fd), ripgrep)
        searched = os.path.normpath(ctx.local(operand)) == os.path.normpath(ctx.cwd)
        if ripgrep is not None and ripgrep.first_directory is None:
            ripgrep.first_directory = names
        below = _Below(order, ripgrep, on_error, excluded_directory, max_depth, searched)
        yield from below.entries(levels, base, top, names)
    finally:
        placed.close()
        for level in levels:
            os.close(level.fd)
            for rules in level.rules.values():
                rules.close()


@dataclass
class _Below:
    """What a walk skips and how it goes on."""

    order: Order
    ripgrep: Ripgrep | None
    on_error: Callable[[str, OSError], None] | None
    excluded_directory: Callable[[str], bool] | None
    max_depth: int | None
    working_directory: bool
    """Whether the directory walked is the working directory (see ``Ripgrep.parents``)."""

    def entries(self, levels: list[_Level], base: int, prefix: str, names: list[str]) -> Iterator[Entry]:
        level = levels[-1]
        depth = len(levels) - base
        if depth > MAX_DEPTH:
            raise Unsupported(f"a walk deeper than {MAX_DEPTH} directories")
        for entry in _entries(level.fd, self.order):
            name = entry.name
            kind = _kind(entry)
            path = name if not prefix else prefix + name if prefix.endswith("/") else f"{prefix}/{name}"
            if self.ripgrep is not None and self._skipped(levels, base, [*names, name], kind == "directory"):
                continue
            if kind == "directory" and self.excluded_directory is not None and self.excluded_directory(name):
                continue
            yield Entry(path, kind, depth)
            if kind == "directory" and (self.max_depth is None or depth < self.max_depth):
                yield from self._into(levels, base, name, path, [*names, name])

    def _into(self, levels: list[_Level], base: int, name: str, path: str, names: list[str]) -> Iterator[Entry]:
        try:
            fd = os.open(name, _OPEN_DIRECTORY, dir_fd=levels[-1].fd)
        except OSError as error:
            if self.on_error is not None:
                self.on_error(path, error)
            return
        child = _Level(fd, levels[-1].depth + 1)
        levels.append(child)
        try:
            if self.ripgrep is not None and self.ripgrep.ignore_files:
                child.rules = _rules(fd, _in_repository(levels, fd), self.ripgrep)
            yield from self.entries(levels, base, path, names)
        finally:
            levels.pop()
            os.close(fd)
            for rules in child.rules.values():
                rules.close()

    def _skipped(self, levels: list[_Level], base: int, names: list[str], is_dir: bool) -> bool:
        """Whether ripgrep skips the entry ``names`` (its path from the workspace root)."""
        ripgrep = self.ripgrep
        assert ripgrep is not None
        searched = levels[base].depth
        parents = ripgrep.parents

        def rules_of(level: _Level, kind: str) -> tuple[Rules | None, list[str]]:
            rules = level.rules.get(kind)
            if rules is None or level.depth >= searched or parents == "whole":
                return rules, names[level.depth :]
            if parents == "name":
                first = ripgrep.first_directory or []
                return rules, first[level.depth :] + names[-1:]
            if self.working_directory:
                return rules, names[level.depth :]
            return rules.unanchored, names[level.depth :]

        return _skipped(levels, names, is_dir, ripgrep, rules_of)


def _entries(fd: int, order: Order) -> Iterator[os.DirEntry[str]]:
    with os.scandir(fd) as entries:
        if order == "readdir":
            yield from entries
            return
        found = list(entries)
    if order == "reversed":
        yield from reversed(found)
    else:
        yield from sorted(found, key=lambda entry: os.fsencode(entry.name))


def _kind(entry: os.DirEntry[str]) -> Literal["file", "directory", "link", "other"]:
    try:
        if entry.is_symlink():
            return "link"
        if entry.is_dir(follow_symlinks=False):
            return "directory"
        if entry.is_file(follow_symlinks=False):
            return "file"
    except OSError:
        pass
    return "other"


# -- ripgrep's rules ----------------------------------------------------------------------------------


def _skipped(
    levels: list[_Level],
    names: list[str],
    is_dir: bool,
    ripgrep: Ripgrep,
    rules_of: Callable[[_Level, str], tuple[Rules | None, list[str]]],
) -> bool:
    """Whether ripgrep skips the entry ``names`` (its path from the top level), as ``Ignore::matched``;
    ``rules_of`` gives a level's rules of a kind and the names to match them with."""
    path = "/".join(names)
    if ripgrep.globs is not None:
        decided = ripgrep.globs.decide(path, is_dir)
        if decided is not None:
            return decided
        if ripgrep.globs.any_negated and not is_dir:
            return True
    kept = False
    for kind in _KINDS:
        for level in reversed(levels):
            rules, relative = rules_of(level, kind)
            decided = None if rules is None else rules.decide("/".join(relative), is_dir)
            if decided is not None:
                if decided:
                    return True
                kept = True
                break
        if kept:
            break
    if ripgrep.types is not None and not is_dir:
        decided = ripgrep.types.decide(names[-1], False)
        if decided or (decided is None and ripgrep.types.any_negated):
            return True  # a -T type, or no -t type, matches the name
        kept = kept or decided is False
    return not kept and not ripgrep.hidden and names[-1].startswith(".")


def _rules(fd: int, in_repository: bool, ripgrep: Ripgrep) -> dict[str, Rules]:
    """The ignore files of the directory open as ``fd`` (``.gitignore`` and the repository's exclude
    file only inside a git repository)."""
    found: dict[str, Rules] = {}
    for kind in _KINDS:
        if kind == ".gitignore" and not in_repository:
            ripgrep.unseen_repository = ripgrep.unseen_repository or _exists(fd, kind)
            continue
        lines = _lines(fd, kind)
        if kind == ".gitignore" and _exists(fd, ".git"):
            lines = _lines(fd, ".git/info/exclude") + lines  # the exclude file counts for less
        rules = [rule for rule in map(rule_of, lines) if rule is not None]
        if rules:
            found[kind] = Rules(rules)
    return found


def _lines(fd: int, name: str) -> list[str]:
    """An ignore file's lines, read beneath the directory ``fd`` (none when it is not a regular file)."""
    directory = fd
    opened: list[int] = []
    try:
        *parents, leaf = name.split("/")
        for parent in parents:
            directory = os.open(parent, _OPEN_DIRECTORY, dir_fd=directory)
            opened.append(directory)
        file = os.open(leaf, _OPEN_FILE, dir_fd=directory)
    except OSError:
        return []
    finally:
        for each in opened:
            os.close(each)
    return ignore_file_lines(file, name)


def ignore_file_lines(file: int, name: str) -> list[str]:
    """The lines of the ignore file open as ``file`` (closed here): none when it is not a regular
    file, Unsupported when it is over IGNORE_FILE_BYTES."""
    try:
        st = os.fstat(file)
        if not stat.S_ISREG(st.st_mode):
            return []
        if st.st_size > IGNORE_FILE_BYTES:
            raise Unsupported(f"an ignore file over {IGNORE_FILE_BYTES >> 20} MiB ({name})")
        data = read_exact(file, st.st_size, 0)
    finally:
        os.close(file)
    return data.decode("utf-8", "surrogateescape").split("\n")


def _exists(fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError:
        return False
    return True


def _in_repository(levels: list[_Level], fd: int) -> bool:
    """Whether a ``.git`` is in the directory ``fd`` or one above it (within the workspace)."""
    return _exists(fd, ".git") or any(_exists(level.fd, ".git") for level in levels if level.fd != fd)


def _parents(ctx: Context, operand: str, ripgrep: Ripgrep) -> list[_Level]:
    """The directories from the workspace root down to ``operand``'s parent, with their ignore files."""
    target = os.path.normpath(ctx.local(operand))
    relative = os.path.relpath(target, ctx.root.path)
    names = [] if relative == "." else relative.split(os.sep)
    levels: list[_Level] = []
    for depth in range(len(names)):
        placed = ctx.open(os.path.join(ctx.root.path, *names[:depth]))
        if placed.fd is None:
            placed.close()
            break
        levels.append(_Level(placed.fd, depth))
    for level in levels:
        level.rules = _rules(level.fd, _in_repository(levels, level.fd), ripgrep)
    return levels


def _depth(ctx: Context, operand: str) -> int:
    relative = os.path.relpath(os.path.normpath(ctx.local(operand)), ctx.root.path)
    return 0 if relative == "." else len(relative.split(os.sep))


def _names_of(ctx: Context, operand: str) -> list[str]:
    """The names from the workspace root down to ``operand``."""
    relative = os.path.relpath(os.path.normpath(ctx.local(operand)), ctx.root.path)
    return [] if relative == "." else relative.split(os.sep)


def is_directory(ctx: Context, operand: str) -> bool:
    placed = ctx.open(operand)
    placed.close()
    try:
        return stat.S_ISDIR(stat_of(placed).st_mode)
    except OSError:
        return False
