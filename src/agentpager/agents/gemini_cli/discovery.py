"""What Gemini CLI 0.61.0 hides and adds around a path: ignore files, blocked names, GEMINI.md context.

Followed from google-gemini/gemini-cli 0.61.0 (bundle ``chunk-JDPZ4CE3.js``):

- ``services/fileDiscoveryService.ts`` (313246-313460): in a git repository (a ``.git`` in the project
  directory or above it) ``.gitignore`` rules and ``.geminiignore`` ones are asked together
  (``GitIgnoreParser`` with the latter as extra patterns); outside one only ``.geminiignore``. A
  symbolic link whose target leaves the project is ignored too.
- ``utils/gitIgnoreParser.ts`` (312990-313100): ``.git`` is always ignored, then
  ``.git/info/exclude``, then each directory's ``.gitignore`` from the project directory down to the
  path's, its patterns rebased to that directory; an ignored directory ends the walk.
- ``utils/ignoreFileParser.ts`` (313100-313160): ``.geminiignore`` in the project directory, lines trimmed.
- ``utils/paths.ts`` ``hasBlockedPathSegment`` (252373): ``.git``, ``.env``, ``node_modules`` (and
  their Windows short names) are outside the workspace for every tool.
- ``tools/jit-context.ts`` and ``utils/memoryDiscovery.ts`` ``loadJitSubdirectoryMemory`` (361755-361850):
  a tool that touches a directory below the project directory appends the ``GEMINI.md`` files from
  there up that the session has not loaded yet (the project directory's own, and those above it up
  to the git root, are loaded at start-up), trimmed, each between ``--- Context from: PATH ---`` lines.

Gemini CLI reads an ignore file or a GEMINI.md whole (``readFileSync``, ``fs.readFile``; one longer than
V8's longest string, 2**29 - 24 UTF-16 units, fails and counts as absent). These are workspace files,
so here each is read up to READ_LIMIT bytes and an ignore file up to LINES_LIMIT lines (each line is a
rule the engine compiles): past that the first part is used, and the call says its answer is uncertain.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Callable, Collection
from dataclasses import dataclass

from agentpager.engine.beneath import open_beneath
from agentpager.tools.js.ignore import Ignore
from agentpager.tools.js.strings import js_trim
from agentpager.tools.paths import is_within

CONTEXT_FILE = "GEMINI.md"
JIT_PREFIX = "\n\n--- Newly Discovered Project Context ---\n"
JIT_SUFFIX = "\n--- End Project Context ---"
_SHORT_NAMES = (
    re.compile(r"^(git|gi[0-9a-f]{4})~\d+$"),
    re.compile(r"^(env|en[0-9a-f]{4})~\d+$"),
    re.compile(r"^(node_m|no[0-9a-f]{4})~\d+$"),
    re.compile(r"^(gha-cr|gh[0-9a-f]{4})~\d+\.jso(n)?$"),
)
_IMPORT = re.compile(r"(?:^|\s)@[^\s@]")
_MAY_BE_BLOCKED = re.compile(r"(?:^|[/\\])[.ngNG]")
"""A component that starts as one of the blocked names does (a short name has a ``~``)."""
BLOCKED_INITIALS = frozenset(".ngNG")
"""How a name that may be blocked starts (else it holds ``~`` or ``\\``)."""
_NOT_RELATIVE = re.compile(r"^\.*/|^\.+$")
"""node-ignore's ``REGEX_TEST_INVALID_PATH``: such paths are never ignored (``filterFiles`` skips them)."""


def has_blocked_segment(relative: str) -> bool:
    """``hasBlockedPathSegment``: a component that is ``.git``, ``.env``, ``node_modules`` or a credential file."""
    if "~" not in relative and relative[:1] not in BLOCKED_INITIALS and "/" not in relative and "\\" not in relative:
        return False  # one name, as a directory lists it, that does not start as a blocked name
    if "~" not in relative and not _MAY_BE_BLOCKED.search(relative):
        return False
    for segment in re.split(r"[/\\]", relative):
        clean = segment.split(":")[0].rstrip(" .").lower()
        if clean in (".git", ".env", "node_modules") or any(p.match(clean) for p in _SHORT_NAMES):
            return True
        if clean.startswith("gha-creds-") and clean.endswith(".json"):
            return True
    return False


READ_LIMIT = 1 << 20
"""Bytes read of an ignore file or a GEMINI.md (a longer one is used as far as its last line break
in them)."""
LINES_LIMIT = 4096
"""Lines used of an ignore file: each is compiled in the engine (about half a millisecond and 5 KB)."""


@dataclass(frozen=True)
class _Read:
    st: os.stat_result
    text: str
    """Universal newlines, invalid bytes replaced."""
    cut: bool
    """Whether the file goes on past READ_LIMIT (``text`` then ends at the last line break before it)."""


def _read(root: str, path: str) -> _Read | None:
    """A file below ``root`` (an ignore file, a ``GEMINI.md``) opened beneath it and read up to
    READ_LIMIT bytes, or None when it is not a readable regular file inside the workspace (missing, a
    symlink out of it, a FIFO)."""
    found = open_beneath(root, path, "file")
    if found.fd is None or found.st is None:
        return None
    with os.fdopen(found.fd, "rb") as file:
        data = file.read(READ_LIMIT + 1)
    cut = len(data) > READ_LIMIT
    if cut:
        data = data[: max(data.rfind(b"\n", 0, READ_LIMIT), data.rfind(b"\r", 0, READ_LIMIT)) + 1]
    return _Read(found.st, data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n"), cut)


def _lines(root: str, path: str, cut: set[str]) -> list[str]:
    """An ignore file's lines (none when ``_read`` finds no file), at most LINES_LIMIT; ``path`` is
    added to ``cut`` when the file has more."""
    try:
        read = _read(root, path)
    except OSError:
        return []
    if read is None:
        return []
    lines = read.text.split("\n", LINES_LIMIT)
    if read.cut or len(lines) > LINES_LIMIT:
        cut.add(os.path.relpath(path, root).replace(os.sep, "/"))
    return lines[:LINES_LIMIT]


def _rebased(patterns: list[str], base: str) -> list[str]:
    """``GitIgnoreParser.processPatterns``: patterns of a ``.gitignore`` in ``base`` made relative to the project."""
    result = []
    for raw in patterns:
        pattern = raw.lstrip()
        if pattern == "" or pattern.startswith("#"):
            continue
        negative = pattern.startswith("!")
        pattern = pattern[1:] if negative else pattern
        anchored = pattern.startswith("/")
        pattern = pattern[1:] if anchored else pattern
        if pattern == "":
            continue
        rebased = pattern
        if base and base != ".":
            if not anchored and "/" not in pattern:
                rebased = posixpath.join("**", pattern)
            rebased = posixpath.join(base, rebased)
            rebased = rebased if rebased.startswith("/") else "/" + rebased
        if anchored and not rebased.startswith("/"):
            rebased = "/" + rebased
        result.append(("!" if negative else "") + rebased)
    return result


class _GitIgnore:
    """``GitIgnoreParser``: the repository's rules, with extra patterns asked last."""

    def __init__(self, root: str, extra: list[str], cut: set[str]) -> None:
        self.root = root
        self.cut = cut
        """The ignore files used in part (see ``_lines``)."""
        self.extra = Ignore().add(_rebased(extra, "."))
        self.exclude = Ignore().add(_rebased(_lines(root, os.path.join(root, ".git", "info", "exclude"), cut), "."))
        self.per_directory: dict[str, Ignore] = {}
        self.at: dict[tuple[str, ...], tuple[Ignore, Ignore, bool]] = {}
        """For a directory (its parts): the rules found down to it, those with the extra ones (what a
        path in it is asked against), and whether the walk down stopped above it at an ignored
        directory (then no ``.gitignore`` below counts)."""

    def _of(self, directory: str) -> Ignore:
        found = self.per_directory.get(directory)
        if found is None:
            base = os.path.relpath(directory, self.root).replace(os.sep, "/")
            found = Ignore().add(_rebased(_lines(self.root, os.path.join(directory, ".gitignore"), self.cut), base))
            self.per_directory[directory] = found
        return found

    def _rules_in(self, parts: tuple[str, ...]) -> Ignore:
        """The rules a path in the directory ``parts`` is asked against: ``.git``, the excludes and each
        ``.gitignore`` from the root down to it (or to the first ignored directory), then the extra ones."""
        if () not in self.at:
            rules = Ignore().add(".git").add(self.exclude).add(self._of(self.root))
            self.at[()] = (rules, Ignore().add(rules).add(self.extra), False)
        known = len(parts)
        while parts[:known] not in self.at:
            known -= 1
        for depth in range(known + 1, len(parts) + 1):
            rules, combined, stopped = self.at[parts[: depth - 1]]
            if not stopped and combined.ignores("/".join(parts[:depth]) + "/"):
                stopped = True
            if not stopped:
                rules = Ignore().add(rules).add(self._of(os.path.join(self.root, *parts[:depth])))
                combined = Ignore().add(rules).add(self.extra)
            self.at[parts[:depth]] = (rules, combined, stopped)
        return self.at[parts][1]

    def ignores_each(self, directory: str, relatives: list[str]) -> list[bool]:
        """For each path in the directory ``directory`` (relative, ``""`` for the root), whether it is ignored."""
        parts = tuple(part for part in directory.split("/") if part)
        return self._rules_in(parts).ignores_each(relatives)


class Discovery:
    """``FileDiscoveryService`` for one project directory (its real path)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.cut: set[str] = set()
        """The ignore files (relative paths) used in part: past READ_LIMIT or LINES_LIMIT."""
        gemini_path = os.path.join(root, ".geminiignore")
        self.gemini_patterns = [line.strip() for line in _lines(root, gemini_path, self.cut)]
        self.gemini_patterns = [p for p in self.gemini_patterns if p and not p.startswith("#")]
        self.in_git = _git_root(root) is not None
        self.git = _GitIgnore(root, [], self.cut) if self.in_git else None
        self.combined = _GitIgnore(root, self.gemini_patterns, self.cut) if self.in_git else None
        self.gemini = Ignore().add(self.gemini_patterns)

    def _relative(self, path: str, is_directory: bool) -> str | None:
        """``getNormalizedRelativePath``: None outside the project, ``dir/`` for a directory."""
        absolute = os.path.normpath(os.path.join(self.root, path))
        if not is_within(absolute, self.root):
            return None
        relative = os.path.relpath(absolute, self.root).replace(os.sep, "/")
        if relative == ".":
            return None
        return relative + "/" if is_directory else relative

    def _filters(self, path: str, is_directory: bool, git: bool, gemini: bool) -> bool:
        relative = self._relative(path, is_directory)
        if relative is None:
            return False
        directory = relative.rsplit("/", 1)[0] if "/" in relative else ""  # "dir/" is in itself
        return self._filters_each(directory, [relative], git, gemini)[0]

    def _filters_each(self, directory: str, relatives: list[str], git: bool, gemini: bool) -> list[bool]:
        """``filterFilesWithReport`` for paths relative to the project, in ``directory``."""
        answers = [False] * len(relatives)
        asked = [n for n, relative in enumerate(relatives) if not _NOT_RELATIVE.match(relative)]
        paths = [relatives[n] for n in asked]
        if git and gemini and self.combined is not None:
            found = self.combined.ignores_each(directory, paths)
        else:
            found = [False] * len(paths)
            if git and self.git is not None:
                found = self.git.ignores_each(directory, paths)
            if gemini and self.gemini_patterns:
                found = [a or b for a, b in zip(found, self.gemini.ignores_each(paths), strict=True)]
        for n, answer in zip(asked, found, strict=True):
            answers[n] = answer
        return answers

    def ignores(self, path: str, is_directory: bool = False, git: bool = True, gemini: bool = True) -> bool:
        """``_shouldIgnore``: by the ignore files, or a link that leaves the project (``path`` relative to it)."""
        if self._filters(path, is_directory, git, gemini):
            return True
        return os.path.islink(os.path.join(self.root, path)) and self._link_ignored(path, git, gemini)

    def ignores_entries(
        self, directory: str, names: list[str], links: Collection[str], git: bool, gemini: bool
    ) -> list[bool]:
        """``ignores`` for entries of the project's directory ``directory`` (relative to it, normal), all
        at once; ``links``: those of ``names`` that are symbolic links (told by the listing)."""
        if (git and self.in_git) or (gemini and self.gemini_patterns):
            relatives = [name if directory == "." else f"{directory}/{name}" for name in names]
            answers = self._filters_each("" if directory == "." else directory, relatives, git, gemini)
        else:  # no rule to ask
            answers = [False] * len(names)
        if links:
            for n, name in enumerate(names):
                if not answers[n] and name in links:
                    relative = name if directory == "." else f"{directory}/{name}"
                    answers[n] = self._link_ignored(relative, git, gemini)
        return answers

    def _link_ignored(self, path: str, git: bool, gemini: bool) -> bool:
        """A symbolic link: ignored when it leads out of the project, or to a path that is ignored."""
        found = open_beneath(self.root, os.path.join(self.root, path), "nothing")  # realpath, whatever changes
        if not found.inside or found.real == self.root:
            return True
        return self._filters(found.real, found.st is not None and stat.S_ISDIR(found.st.st_mode), git, gemini)


def _git_root(directory: str) -> str | None:
    """The nearest directory from ``directory`` up that holds ``.git`` (``findProjectRoot``)."""
    current = directory
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def jit_context(
    root: str, directory: str, loaded: set[tuple[int, int]], shown: Callable[[str], str]
) -> tuple[str, bool, list[str]]:
    """The ``GEMINI.md`` context a tool appends for ``directory`` (a real path under ``root``),
    whether one of them imports other files (``@file``), which is not followed here, and those (as
    ``shown`` names them) longer than READ_LIMIT, of which the first part is shown.

    ``loaded`` holds the files the session has (device and inode), updated; ``shown`` names a path
    as the agent does.
    """
    if not is_within(directory, root) or directory == root:
        return "", False, []
    found: list[str] = []
    current = directory
    while current != root and is_within(current, root):
        found.insert(0, os.path.join(current, CONTEXT_FILE))
        current = os.path.dirname(current)
    blocks, imports, cut = [], False, []
    for path in found:
        try:
            read = _read(root, path)
        except OSError:
            continue
        if read is None:
            continue
        if (read.st.st_dev, read.st.st_ino) in loaded:
            continue
        loaded.add((read.st.st_dev, read.st.st_ino))
        imports = imports or bool(_IMPORT.search(read.text))
        trimmed = js_trim(read.text)
        if read.cut:
            cut.append(shown(path))
        if trimmed:
            where = shown(path)
            blocks.append(f"--- Context from: {where} ---\n{trimmed}\n--- End of Context from: {where} ---")
    return "\n\n".join(blocks), imports, cut
