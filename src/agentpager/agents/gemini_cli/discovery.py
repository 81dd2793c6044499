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
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Callable

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


def has_blocked_segment(relative: str) -> bool:
    """``hasBlockedPathSegment``: a component that is ``.git``, ``.env``, ``node_modules`` or a credential file."""
    for segment in re.split(r"[/\\]", relative):
        clean = segment.split(":")[0].rstrip(" .").lower()
        if clean in (".git", ".env", "node_modules") or any(p.match(clean) for p in _SHORT_NAMES):
            return True
        if clean.startswith("gha-creds-") and clean.endswith(".json"):
            return True
    return False


def _text(root: str, path: str) -> tuple[os.stat_result, str] | None:
    """A file below ``root`` (an ignore file, a ``GEMINI.md``) opened beneath it: its stat and its text
    (universal newlines, invalid bytes replaced), or None when it is not a readable regular file inside
    the workspace (missing, a symlink out of it, a FIFO)."""
    found = open_beneath(root, path, "file")
    if found.fd is None or found.st is None:
        return None
    with open(found.fd, encoding="utf-8", errors="replace") as file:
        return found.st, file.read()


def _lines(root: str, path: str) -> list[str]:
    """An ignore file's lines (none when ``_text`` finds no file)."""
    try:
        read = _text(root, path)
    except OSError:
        return []
    return re.split(r"\r\n|\n|\r", read[1]) if read else []


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

    def __init__(self, root: str, extra: list[str]) -> None:
        self.root = root
        self.extra = Ignore().add(_rebased(extra, "."))
        self.exclude = Ignore().add(_rebased(_lines(root, os.path.join(root, ".git", "info", "exclude")), "."))
        self.per_directory: dict[str, Ignore] = {}

    def _of(self, directory: str) -> Ignore:
        found = self.per_directory.get(directory)
        if found is None:
            base = os.path.relpath(directory, self.root).replace(os.sep, "/")
            found = Ignore().add(_rebased(_lines(self.root, os.path.join(directory, ".gitignore")), base))
            self.per_directory[directory] = found
        return found

    def ignores(self, relative: str) -> bool:
        rules = Ignore().add(".git").add(self.exclude)
        parts = relative.split("/")
        directory = self.root
        for depth in range(len(parts)):
            if depth:
                directory = os.path.join(directory, parts[depth - 1])
                above = "/".join(parts[:depth]) + "/"
                if Ignore().add(rules).add(self.extra).ignores(above):
                    break
            rules.add(self._of(directory))
        return rules.add(self.extra).ignores(relative)


class Discovery:
    """``FileDiscoveryService`` for one project directory (its real path)."""

    def __init__(self, root: str) -> None:
        self.root = root
        gemini_path = os.path.join(root, ".geminiignore")
        self.gemini_patterns = [line.strip() for line in _lines(root, gemini_path)]
        self.gemini_patterns = [p for p in self.gemini_patterns if p and not p.startswith("#")]
        self.in_git = _git_root(root) is not None
        self.git = _GitIgnore(root, []) if self.in_git else None
        self.combined = _GitIgnore(root, self.gemini_patterns) if self.in_git else None
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
        if relative is None or re.match(r"^\.*/|^\.+$", relative):
            return False
        if git and gemini and self.combined is not None:
            return self.combined.ignores(relative)
        if git and self.git is not None and self.git.ignores(relative):
            return True
        return bool(gemini and self.gemini_patterns and self.gemini.ignores(relative))

    def ignores(self, path: str, is_directory: bool = False, git: bool = True, gemini: bool = True) -> bool:
        """``_shouldIgnore``: by the ignore files, or a link that leaves the project (``path`` relative to it)."""
        if self._filters(path, is_directory, git, gemini):
            return True
        absolute = os.path.join(self.root, path)
        if not os.path.islink(absolute):
            return False
        found = open_beneath(self.root, absolute, "nothing")  # realpath's answer, whatever changes meanwhile
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
) -> tuple[str, bool]:
    """The ``GEMINI.md`` context a tool appends for ``directory`` (a real path under ``root``), and
    whether one of them imports other files (``@file``), which is not followed here.

    ``loaded`` holds the files the session has (device and inode), updated; ``shown`` names a path
    as the agent does.
    """
    if not is_within(directory, root) or directory == root:
        return "", False
    found: list[str] = []
    current = directory
    while current != root and is_within(current, root):
        found.insert(0, os.path.join(current, CONTEXT_FILE))
        current = os.path.dirname(current)
    blocks, imports = [], False
    for path in found:
        try:
            read = _text(root, path)
        except OSError:
            continue
        if read is None:
            continue
        st, content = read
        if (st.st_dev, st.st_ino) in loaded:
            continue
        loaded.add((st.st_dev, st.st_ino))
        imports = imports or bool(_IMPORT.search(content))
        trimmed = js_trim(content)
        if trimmed:
            where = shown(path)
            blocks.append(f"--- Context from: {where} ---\n{trimmed}\n--- End of Context from: {where} ---")
    return "\n\n".join(blocks), imports
