"""Profile ``gemini-cli``: Gemini CLI 0.61.0's ``read_file`` and ``list_directory``, and what its ``@path``
references put in the prompt (``read_many_files``), equal to what the real program sent its model
(``tests/goldens/gemini-cli``).

Followed from google-gemini/gemini-cli 0.61.0 (the npm bundle, ``chunk-JDPZ4CE3.js``; the same code
as ``packages/core/src/tools/*.ts`` in the repository):

- ``tools/read-file.ts`` (313460-313590): ``file_path`` (``@`` stripped when no such file,
  ``resolveDefensiveToolPath``, 252335), ``start_line``/``end_line`` (1-based, inclusive); checks in
  order: empty path, the workspace, ``start_line`` after ``end_line``, the ignore files. A text read
  that shows less than the whole file gets the header ``IMPORTANT: The file content has been
  truncated.`` with the lines shown and the next ``start_line``. The file's content: ``content.py``.
- ``tools/ls.ts`` (312763-312944): ``dir_path``, ``ignore`` (globs on names: ``*`` and ``?``),
  ``file_filtering_options``; ``Directory listing for PATH:``, directories first as ``[DIR] name``,
  then ``name (N bytes)``, each group in ``localeCompare`` order (``js/collation.py``), then
  ``(N ignored)`` for entries the ignore files hid. Entries that cannot be stat'ed (a dangling link)
  and blocked names (``.git``, ``.env``, ``node_modules``) are left out uncounted.
- ``tools/read-many-files.ts`` (389885-390150) as ``cli/src/ui/hooks/atCommandProcessor.ts`` runs it for
  ``@path`` references (0.61.0 does not offer the tool to the model): the text added to the user's
  message, from ``--- Content from referenced files ---`` on; ``Content from @PATH:`` and the file's
  trimmed text per file (sorted by path; a directory reads its files, less the default excludes
  and images, PDFs and audio not named); ``--- End of content ---``.
- ``core/coreToolScheduler.ts`` ``convertToFunctionResponse`` (289335): an image, PDF, audio or video
  goes with the function response as ``inlineData``; the output is then the JSON of those parts
  (as ``probe/gemini.py`` records them).
- ``tools/jit-context.ts``: ``GEMINI.md`` files below the project directory, appended once per session.

Paths: the workspace root plays the project directory (setting ``project_dir``: the absolute path
it had for the agent, by default the root's real path); absolute paths under it map into the
workspace, and answers name absolute paths under it. Paths that leave it get Gemini's own
``Path not in workspace`` error, whose project temp directory (``~/.gemini/tmp/NAME``) is uncertain.
Settings: ``project_dir``, ``home`` (for that temp directory), ``call_id`` (the function call's id
echoed in a response with data; default the probe's), ``respect_git_ignore``/``respect_gemini_ignore``.
"""

from __future__ import annotations

import bisect
import errno
import functools
import heapq
import itertools
import json
import os
import re
import stat
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agentpager.agents.gemini_cli import AGENT
from agentpager.agents.gemini_cli.content import (
    Inline,
    ReadFailure,
    TextRead,
    base64_text,
    empty_content,
    file_type,
    media_type,
    node_extname,
    read_content,
)
from agentpager.agents.gemini_cli.discovery import (
    BLOCKED_INITIALS,
    JIT_PREFIX,
    JIT_SUFFIX,
    LINES_LIMIT,
    READ_LIMIT,
    Discovery,
    has_blocked_segment,
    jit_context,
)
from agentpager.engine.beneath import Found, open_beneath
from agentpager.engine.filesystem import DirectoryScan, scan_directory
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import (
    Call,
    Claim,
    Coverage,
    Opener,
    Profile,
    RealAgent,
    RecordedCall,
    Shown,
    Tool,
    lines_covered,
    move_end_with_start,
)
from agentpager.tools.errors import ToolError
from agentpager.tools.js.collation import ascii_locale_order, locale_sorted
from agentpager.tools.js.strings import js_trim
from agentpager.tools.paths import Placed, is_within, look_up

PROBE_CALL_ID = "agentpager_probe_01"
"""The id of the function call the probe's mock makes (the model's server chooses it)."""
TRUNCATION_HEADER = (
    "\nIMPORTANT: The file content has been truncated.\n"
    "Status: Showing lines {first}-{last} of {total} total lines.\n"
    "Action: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent "
    "'read_file' call. For example, to read the next section of the file, use start_line: {next}.\n\n"
    "--- FILE CONTENT (truncated) ---\n"
)
REFERENCES_START = "\n--- Content from referenced files ---"
REFERENCES_END = "\n--- End of content ---"
NOTHING_READ = "No files matching the criteria were found or all were skipped."
TRUNCATED_WARNING = (
    "[WARNING: This file was truncated. To view the full content, use the 'read_file' tool on this specific file.]\n\n"
)
_DEFAULT_EXCLUDES = (
    "node_modules .git bower_components .svn .hg .vscode .idea dist build coverage __pycache__",
    ".bin .exe .dll .so .dylib .class .jar .war .zip .tar .gz .bz2 .rar .7z .pak .rpa .doc .docx .xls .xlsx .ppt "
    ".pptx .odt .ods .odp .pyc .pyo",
    ".DS_Store .env GEMINI.md",
)
"""``getReadManyFilesExcludes`` (``utils/ignorePatterns.ts``): ``**/DIR/**`` for the directories,
``**/*EXT`` for the extensions, ``**/NAME`` for the names."""
_EXCLUDED_DIRECTORIES = frozenset(_DEFAULT_EXCLUDES[0].split())
_EXCLUDED_EXTENSIONS = tuple(_DEFAULT_EXCLUDES[1].split())
_EXCLUDED_NAMES = frozenset(_DEFAULT_EXCLUDES[2].split())
_AT_PATH = re.compile(r'(?<!\\)@(?:(?:"(?:[^"]*)")|(?:\\.|[^ \t\n\r,;!?()\[\]{}.]|\.(?!$|[ \t\n\r])))+')
"""``AT_COMMAND_PATH_REGEX_SOURCE`` (atCommandProcessor.ts): what an ``@`` reference spans in the prompt."""
_LOG_FRAGMENTS = re.compile(r"(^|[/\\])(AssertionError:|FAIL |✓ |× |TestingLibraryElementError:)")


@dataclass(frozen=True)
class _Project:
    """The project directory as the agent names it (``shown``) and where it is here (``real``)."""

    shown: str
    real: str
    home: str

    @classmethod
    def of(cls, call: Call) -> _Project:
        shown = os.path.normpath(str(call.settings.get("project_dir") or call.root.real))
        return cls(shown, call.root.real, str(call.settings.get("home") or os.path.expanduser("~")))

    def local(self, shown_path: str) -> str | None:
        """Where a path the agent names (absolute, normalised) is here; None outside the project."""
        if is_within(shown_path, self.shown):
            return os.path.join(self.real, os.path.relpath(shown_path, self.shown)).rstrip("/.") or "/"
        if is_within(shown_path, self.real):
            return shown_path
        return None

    def name(self, local_path: str) -> str:
        """A path here as the agent names it."""
        if not is_within(local_path, self.real):
            return local_path
        relative = os.path.relpath(local_path, self.real)
        return self.shown if relative == "." else os.path.join(self.shown, relative)

    def resolve(self, argument: str) -> str:
        """``path.resolve(targetDir, argument)`` in the agent's terms."""
        return os.path.normpath(os.path.join(self.shown, argument))

    def outside(self, shown_path: str, call: Call) -> ToolError:
        slug = re.sub(r"^-|-$", "", re.sub(r"-+", "-", re.sub(r"[^a-z0-9]", "-", os.path.basename(self.shown).lower())))
        temp = os.path.join(self.home, ".gemini", "tmp", slug or "project")
        call.uncertain = "the project temp directory is named by Gemini CLI's registry (~/.gemini/projects.json)"
        return ToolError(
            f'Path not in workspace: Attempted path "{shown_path}" resolves outside the allowed workspace '
            f"directories: {self.shown} or the project temp directory: {temp}"
        )

    def checked(self, call: Call, shown_path: str, real_path_checked: bool = True) -> Found:
        """``validatePathAccess`` of a path the agent names: where it leads here (looked up beneath the
        root) and what is there, or the error it gets. That error names the path checked: the real path
        (read-file.ts checks ``resolveToRealPath(path)``), or, not ``real_path_checked``, the path as
        named (ls.ts checks ``path.resolve(targetDir, dir_path)``)."""
        problem = _invalid_path(shown_path)
        if problem:
            raise ToolError(f"Invalid path: {problem}")
        local = self.local(shown_path)
        if local is None:
            raise self.outside(shown_path, call)
        found = look_up(call.root, local)
        if not found.inside:
            raise self.outside(found.real if real_path_checked else shown_path, call)
        if has_blocked_segment(os.path.relpath(found.real, self.real)):
            raise self.outside(self.name(found.real) if real_path_checked else shown_path, call)
        return found


def _invalid_path(path: str) -> str:
    """``validatePath`` (utils/paths.ts 364805): '' for a usable path, else why not."""
    if not path:
        return "Path must be a non-empty string."
    if re.search(r"[\n\r\0\t]", path):
        return "Path contains invalid characters (newlines or control characters)."
    if _LOG_FRAGMENTS.search(path):
        return "Path appears to be a misinterpreted log fragment."
    if ('"' in path or "..." in path) and len(path) > 20:
        return (
            "Path contains suspicious characters (double quotes or ellipses) and is too long to be a simple filename."
        )
    if len(path) > 4096:
        return "Path is too long (maximum 4096 characters)."
    for component in re.split(r"[/\\]", path):
        if len(component) > 255:
            return f'Path component "{component[:20]}..." is too long (maximum 255 characters).'
    return ""


def _discovery(call: Call, project: _Project) -> Discovery:
    found = call.state.get("gemini_discovery")
    if not isinstance(found, Discovery) or found.root != project.real:
        found = call.state["gemini_discovery"] = Discovery(project.real)
    return found


def _ignore_files_noted(run: Callable[..., str]) -> Callable[..., str]:
    """The tool ``run``, its answer said to be uncertain once an ignore file of the project was used
    only in part (``Discovery.cut``): any path may be ignored by a rule past what was read."""

    @functools.wraps(run)
    def noted(call: Call, *arguments: Any, **named: Any) -> str:
        try:
            return run(call, *arguments, **named)
        finally:
            discovery = call.state.get("gemini_discovery")
            if isinstance(discovery, Discovery) and discovery.cut and not call.uncertain:
                call.uncertain = (
                    f"an ignore file is longer than agentpager reads ({', '.join(sorted(discovery.cut))}): its "
                    f"first {READ_LIMIT >> 20} MiB, at most {LINES_LIMIT:,} lines, are used; Gemini CLI reads it whole"
                )

    return noted


def _context(call: Call, project: _Project, directory: str) -> str:
    """The GEMINI.md context the session gets for touching ``directory`` (a path here)."""
    loaded: set[tuple[int, int]] = call.state.setdefault("gemini_loaded_context", set())
    text, imports, cut = jit_context(project.real, directory, loaded, project.name)
    if imports:
        call.uncertain = (
            "a GEMINI.md here imports other files (@file), which Gemini CLI inlines and agentpager does not"
        )
    if cut:
        call.uncertain = (
            f"a GEMINI.md is longer than agentpager reads ({', '.join(cut)}): its first {READ_LIMIT >> 20} MiB "
            "is shown; Gemini CLI shows it whole"
        )
    return text


def _with_data(call: Call, tool: str, output: str, inline: list[Inline]) -> str:
    """A function response with files' data: its parts as JSON (the response first, then the data)."""
    parts: list[dict[str, Any]] = [
        {
            "functionResponse": {
                "name": tool,
                "response": {"output": output},
                "id": str(call.settings.get("call_id") or PROBE_CALL_ID),
            }
        }
    ]
    parts += [{"inlineData": {"data": base64_text(item.data), "mimeType": item.mime}} for item in inline]
    return json.dumps(parts, ensure_ascii=False)


def _defensive(call: Call, project: _Project, argument: str) -> str:
    """``resolveDefensiveToolPath``: NULs dropped; ``@name`` read as ``name`` unless ``@name`` exists."""
    clean = argument.replace("\0", "")

    def exists(path: str) -> bool:
        local = project.local(project.resolve(path))
        if local is None:
            return False
        found = look_up(call.root, local)
        return not found.inside or found.st is not None  # one that leads outside is kept, to be refused

    if exists(clean) or not (clean.startswith("@") and len(clean) > 1):
        return clean
    stripped = re.sub(r"^[\\/]+", "", clean[1:])
    if clean.startswith(("@/", "@\\")):
        return stripped or clean
    first = re.split(r"[\\/]", stripped)[0]
    if first and not exists("@" + first):
        return stripped
    return clean


@_ignore_files_noted
def read_file(call: Call, file_path: str, start_line: int | None, end_line: int | None) -> str:
    for name, value in (("start_line", start_line), ("end_line", end_line)):
        if value is not None and value < 1:
            raise ToolError(f"params/{name} must be >= 1")
    if file_path.strip() == "":
        raise ToolError("The 'file_path' parameter must be non-empty.")
    project = _Project.of(call)
    sanitized = _defensive(call, project, file_path)
    real = project.checked(call, project.resolve(sanitized)).real
    if start_line is not None and end_line is not None and start_line > end_line:
        raise ToolError("start_line cannot be greater than end_line")
    discovery = _discovery(call, project)
    git, gemini = _respects(call, {})
    literal = project.local(project.resolve(sanitized)) or real
    if discovery.ignores(literal, git=git, gemini=gemini) or discovery.ignores(real, git=git, gemini=gemini):
        raise ToolError(f"File path '{project.name(real)}' is ignored by configured ignore patterns.")
    shown = project.name(real)
    placed = call.place(real, shown)
    try:
        relative = os.path.relpath(real, project.real).replace(os.sep, "/")
        content = read_content(placed, real, relative, start_line, end_line)
    except ReadFailure as failure:
        raise ToolError(failure.message.replace(real, shown)) from None
    context = _context(call, project, os.path.dirname(real))  # a directory was refused above
    extra = f"{JIT_PREFIX}{context}{JIT_SUFFIX}" if context else ""
    if isinstance(content, Inline):
        return _with_data(call, "read_file", _data_output(content, extra), [content])
    if isinstance(content, TextRead):
        text = content.text
        if content.truncated:
            numbers = {"first": content.first, "last": content.last, "total": content.total, "next": content.last + 1}
            text = TRUNCATION_HEADER.format(**numbers) + text
        return text + extra
    return content + extra


def _data_output(content: Inline, context: str) -> str:
    """The response's text beside a file's data (``convertToFunctionResponse``): audio and video, which
    the model gets in the next turn, are announced; the context text, if any, comes after."""
    texts = [context] if context else []
    if content.mime.startswith(("audio/", "video/")):
        announced = f"Binary content ({content.mime}) read successfully. Content will be injected for analysis in the next sequence."
        texts.insert(0, announced)
    return "\n".join(texts) or "Binary content provided (1 item(s))."


def _respects(call: Call, options: Any) -> tuple[bool, bool]:
    """Whether the ignore files count: the call's ``file_filtering_options``, else the settings (default yes)."""
    options = options if isinstance(options, dict) else {}
    git = options.get("respect_git_ignore", call.settings.get("respect_git_ignore", True))
    gemini = options.get("respect_gemini_ignore", call.settings.get("respect_gemini_ignore", True))
    return git is not False, gemini is not False


def _ignored_names(names: list[str], globs: list[str]) -> set[str]:
    """``LSToolInvocation.shouldIgnore``: a glob's ``*`` is any run of characters, ``?`` one, the rest
    literal, matched against the whole name; run by RE2 in linear time (``*a*a*a...b`` made ``re``
    backtrack for ever)."""
    from agentpager.engine.patterns import MAX_PATTERN_CHARS, PatternError, PatternTooLong, compile_regex

    ignored: set[str] = set()
    for glob in globs:
        escaped = re.sub(r"[.+^${}()|\[\]\\]", lambda m: "\\" + m.group(0), glob)
        regex = "^" + escaped.replace("*", ".*").replace("?", ".") + "$"
        try:
            with compile_regex(regex) as pattern:
                ignored.update(name for name, hit in zip(names, pattern.matches(names), strict=True) if hit)
        except PatternTooLong:
            raise ToolError(
                f"An ignore pattern is too long: {len(glob):,} characters, {len(regex):,} as a regex"
                f" (at most {MAX_PATTERN_CHARS:,})."
            ) from None
        except PatternError as error:
            raise ToolError(error.message) from None
    return ignored


@_ignore_files_noted
def list_directory(call: Call, dir_path: str, ignore: list[str] | None, file_filtering_options: Any) -> str:
    project = _Project.of(call)
    shown = project.resolve(dir_path)
    project.checked(call, shown, real_path_checked=False)
    local = project.local(shown) or shown
    directory = call.place(local, shown)
    if directory.st is None:
        if directory.error == errno.EACCES:
            raise ToolError(f"Error listing directory: EACCES: permission denied, stat '{shown}'")
        raise ToolError(f"Error listing directory: ENOENT: no such file or directory, stat '{shown}'")
    if not stat.S_ISDIR(directory.st.st_mode):
        raise ToolError(f"Error: Path is not a directory: {shown}")
    if directory.fd is None:
        raise ToolError(f"Error listing directory: EACCES: permission denied, scandir '{shown}'")
    discovery = _discovery(call, project)
    git, gemini = _respects(call, file_filtering_options)
    relative_dir = os.path.relpath(local, project.real)
    scan = scan_directory(directory.fd)
    if not scan.names:
        return f"Directory {shown} is empty."
    listed = _listed(call, project, directory.real, scan, discovery, relative_dir, (git, gemini), ignore)
    del scan
    pieces = [f"Directory listing for {shown}:\n"]
    lines = listed.lines()
    while batch := list(itertools.islice(lines, _LISTED_AT_ONCE)):  # joined a piece at a time
        pieces.append(("\n" if len(pieces) > 1 else "") + "\n".join(batch))
    if listed.ignored:
        pieces.append(f"\n\n({listed.ignored} ignored)")
    context = _context(call, project, local)
    return "".join(pieces) + (f"{JIT_PREFIX}{context}{JIT_SUFFIX}" if context else "")


_LISTED_AT_ONCE = 1 << 14
"""Lines a listing joins, and entries a read of many files takes, at a time."""


@dataclass
class _Listing:
    """The entries a listing shows: its directories' names, its files' names and sizes; and how many
    entries the ignore files hid."""

    directories: list[str]
    files: list[str]
    sizes: array[int]
    ignored: int

    def lines(self) -> Iterator[str]:
        """Directories first, then files, each in ``localeCompare`` order (names of printable ASCII in
        one sort, others in runs)."""
        directories, files, sizes = self.directories, self.files, self.sizes
        directory_order, file_order = ascii_locale_order(directories), ascii_locale_order(files)
        if directory_order is None or file_order is None:
            rows = itertools.chain(
                ((0, name, f"[DIR] {name}") for name in directories),
                ((1, name, f"{name} ({size} bytes)") for name, size in zip(files, sizes, strict=True)),
            )
            yield from locale_sorted(rows)
            return
        yield from (f"[DIR] {directories[n]}" for n in directory_order)
        yield from (f"{files[n]} ({sizes[n]} bytes)" for n in file_order)


def _listed(
    call: Call,
    project: _Project,
    directory: str,
    scan: DirectoryScan,
    discovery: Discovery,
    relative_dir: str,
    respects: tuple[bool, bool],
    globs: list[str] | None,
) -> _Listing:
    """The entries of a listing: less those the ignore files hide (counted), those its ``ignore``
    globs match, blocked names, and links that lead nowhere, out of the root or to a blocked name."""
    names = scan.names
    links = {names[n] for n in _where(scan.kinds, b"l")}
    hidden = discovery.ignores_entries(relative_dir, names, links, *respects)
    ignored = hidden.count(True)
    kept = [name for name, hide in zip(names, hidden, strict=True) if not hide] if ignored else names
    unwanted = _ignored_names(kept, globs) if globs else set()
    del kept
    listing = _Listing([], [], array("q"), ignored)
    directories, files, sizes = listing.directories, listing.files, listing.sizes
    for name, kind, size, hide in zip(names, scan.kinds, scan.sizes, hidden, strict=True):
        if hide or name in unwanted:
            continue
        if kind == _LINK:
            real, child_st = _stat_link(call, directory, name)
            if child_st is None or has_blocked_segment(os.path.relpath(real, project.real)):
                continue
            if stat.S_ISDIR(child_st.st_mode):
                directories.append(name)
            else:
                files.append(name)
                sizes.append(child_st.st_size)
        elif (name[:1] in BLOCKED_INITIALS or "~" in name or "\\" in name) and has_blocked_segment(name):
            continue  # the directory's own path was checked
        elif kind == _DIRECTORY:  # a directory's size is not shown
            directories.append(name)
        elif size >= 0:  # else gone since it was listed
            files.append(name)
            sizes.append(size)
    return listing


_LINK, _DIRECTORY, _FILE = b"l"[0], b"d"[0], b"f"[0]


def _where(kinds: bytes, kind: bytes) -> Iterator[int]:
    """The indices of the entries of one kind (a few links among a million files: found by ``find``)."""
    at = kinds.find(kind)
    while at >= 0:
        yield at
        at = kinds.find(kind, at + 1)


def _stat_link(call: Call, directory: str, name: str) -> tuple[str, os.stat_result | None]:
    """``fs.statSync`` of a symbolic link in the directory whose real path is ``directory``: where it
    leads and what is there, followed beneath the root; None when it leads nowhere, or outside."""
    found = look_up(call.root, os.path.join(directory, name))
    return found.real, found.st if found.inside else None


# -- @path references (read_many_files) ----------------------------------------------------------------


def at_references(include: list[str]) -> list[str]:
    """The paths the CLI sees in a prompt of ``@path`` references (``parseAllAtCommands``): each
    reference spans up to a space or punctuation, backslash escapes removed."""
    prompt = " ".join(f"@{path}" for path in include)
    return [re.sub(r"\\(.)", r"\1", match.group(0)[1:]) for match in _AT_PATH.finditer(prompt)]


def _excluded(relative: str) -> bool:
    """Whether a file found under a referenced directory is one of the default excludes."""
    directory, _, name = relative.rpartition("/")
    return _excluded_directory(directory) or _excluded_name(name)


def _excluded_directory(relative: str) -> bool:
    """Whether the files in a directory (relative to the project, '' for itself) are excluded by its path."""
    return any(part in _EXCLUDED_DIRECTORIES for part in relative.split("/"))


def _excluded_name(name: str) -> bool:
    return name in _EXCLUDED_NAMES or name.lower().endswith(_EXCLUDED_EXTENSIONS)


@dataclass(frozen=True)
class _Reference:
    label: str
    """How the reference is named in ``Content from @LABEL:``."""
    local: str
    shown: str
    is_directory: bool


def _resolved_reference(call: Call, project: _Project, path: str) -> _Reference | None:
    """``resolveAtCommandPath``: the file or directory a reference names, None when there is none."""
    if _invalid_path(path):
        return None
    shown = project.resolve(path)
    try:
        found = project.checked(call, shown)
    except ToolError:
        return None
    local = project.local(shown)
    if local is None or found.st is None:
        call.uncertain = (
            f"Gemini CLI looks for **/*{path}* when @{path} does not exist (its glob tool); agentpager does not"
        )
        return None
    label = os.path.relpath(shown, project.shown) if os.path.isabs(path) else path
    return _Reference(label, local, shown, stat.S_ISDIR(found.st.st_mode))


@dataclass(frozen=True)
class _Files:
    """Files ``_candidates`` found together (a directory's, or one referenced): each at ``prefix + name``
    relative to the project."""

    prefix: str
    names: list[str]
    empty: bool | list[bool]
    """Whether each is known to be ``_empty``; one bool for all."""
    extension: str | None = None
    """The lower-case ``node_extname`` all the names share when they are in ASCII, hold no backslash
    and are sorted (a directory's plain files, read at once); else None."""


def _candidates(
    call: Call,
    project: _Project,
    discovery: Discovery,
    references: list[_Reference],
    respects: tuple[bool, bool],
    directories: dict[str, None],
) -> Iterator[_Files]:
    """The files the references read, in the order found (as paths relative to the project, as found:
    through the links inside it that lead to them): a file referenced, or the regular files below a
    directory less the excludes; less those the ignore files hide, those that lead out of the project
    and blocked names. ``directories`` gets the directory (here) of each, in that order.

    Each directory is opened beneath the root and read through its descriptor (``scan_directory``,
    each entry lstat'ed once, sorted by name), once; symlinks are followed (as
    ``os.walk(followlinks=True)``), but only to places inside the root, and never into a directory that
    contains them. A directory of plain files (no link, no subdirectory) has its names checked all at
    once (``_plain_extension``), not one at a time."""
    git, gemini = respects
    scanned: set[str] = set()
    for reference in references:
        if not reference.is_directory:
            relative = _relative_to(project, reference.local)
            if _excluded(relative) or discovery.ignores(relative, git=git, gemini=gemini):
                continue
            if _leads_inside(call, project, relative):
                directories.setdefault(os.path.dirname(reference.local))
                yield _Files("", [relative], False)
            continue
        pending = [(reference.local, reference.local, frozenset[tuple[int, int]](), False)]
        while pending:
            # the path as found, the path to open, the directories above it, whether a link led here
            local, path, above, linked = pending.pop()
            if local in scanned:
                continue  # referenced again: its files are found once
            directory = open_beneath(project.real, path, "directory")
            if directory.fd is None or directory.st is None:
                continue
            try:
                here = (directory.st.st_dev, directory.st.st_ino)
                if here in above:
                    continue
                scanned.add(local)
                found_here = _relative_to(project, local)
                prefix = "" if found_here == "." else found_here + "/"
                excluded_here, blocked_here = _excluded_directory(prefix[:-1]), has_blocked_segment(prefix)
                scan = scan_directory(directory.fd, sort=True)
                names, kinds = scan.names, scan.kinds
                if kinds.count(_FILE) == len(kinds) and not linked and not excluded_here and not blocked_here:
                    extension = _plain_extension(prefix, names)
                    if extension is not None:
                        hidden = discovery.ignores_entries(found_here, names, (), git, gemini)
                        if not any(hidden):
                            directories.setdefault(local)
                            yield _Files(prefix, names, _empties(scan), extension)
                            continue
                files, subdirectories = [], []
                for n, (name, kind) in enumerate(zip(names, kinds, strict=True)):
                    if kind == _LINK:
                        _, st = _stat_link(call, directory.real, name)
                        is_directory = st is not None and stat.S_ISDIR(st.st_mode)
                        is_file = st is not None and stat.S_ISREG(st.st_mode)
                    else:
                        is_directory, is_file = kind == _DIRECTORY, kind == _FILE
                    if is_directory and name not in _EXCLUDED_DIRECTORIES:
                        subdirectories.append(n)
                    elif is_file and not excluded_here and not _excluded_name(name):
                        files.append(n)
                read_at = scan.read_at
                for n in sorted(subdirectories, key=read_at.__getitem__) if read_at is not None else subdirectories:
                    child, opened = os.path.join(local, names[n]), os.path.join(directory.real, names[n])
                    pending.append((child, opened, above | {here}, linked or kinds[n] == _LINK))
                links = {names[n] for n in _where(kinds, b"l")}
                hidden = discovery.ignores_entries(found_here, [names[n] for n in files], links, git, gemini)
                kept, empty = [], []
                for n, hide in zip(files, hidden, strict=True):
                    if hide:
                        continue
                    name = names[n]
                    if linked or kinds[n] == _LINK:
                        if _leads_inside(call, project, prefix + name):
                            kept.append(name)
                            empty.append(False)
                    elif not blocked_here and not has_blocked_segment(name):
                        kept.append(name)
                        empty.append(_empty(scan, n))
                if kept:
                    directories.setdefault(local)
                    yield _Files(prefix, kept, empty)
            except OSError:
                continue  # unreadable, as os.walk skips it
            finally:
                os.close(directory.fd)


def _plain_extension(prefix: str, names: list[str]) -> str | None:
    """The lower-case ``node_extname`` that all of a directory's ``names`` (sorted) share when none is
    excluded by name or extension or may be blocked (``has_blocked_segment``), and all are in ASCII
    without a backslash; else None. Told from the names joined (a few searches of one string) and by
    bisection, not by a call a name."""
    if not names or not prefix.isascii():
        return None
    joined = "\0".join(names) + "\0"
    if not joined.isascii() or "\\" in joined or "~" in joined:
        return None
    if any(_starts_one(names, initial) for initial in BLOCKED_INITIALS):
        return None  # may be blocked; so may be excluded (.env, .DS_Store) or have no extension (.txt)
    extension = node_extname(names[0])
    if not extension:
        return None
    if joined.count(extension + "\0") != len(names):  # each name ends with it (its last dot)
        extension = extension.lower()
        if joined.lower().count(extension + "\0") != len(names):
            return None
    extension = extension.lower()
    if extension in _EXCLUDED_EXTENSIONS or any(_has(names, name) for name in _EXCLUDED_NAMES_BY.get(extension, ())):
        return None
    return extension


def _starts_one(names: list[str], initial: str) -> bool:
    """Whether a name of the sorted ``names`` starts with ``initial``."""
    at = bisect.bisect_left(names, initial)
    return at < len(names) and names[at].startswith(initial)


def _has(names: list[str], name: str) -> bool:
    at = bisect.bisect_left(names, name)
    return at < len(names) and names[at] == name


_EXCLUDED_NAMES_BY = {
    extension: [name for name in _EXCLUDED_NAMES if node_extname(name).lower() == extension]
    for extension in {node_extname(name).lower() for name in _EXCLUDED_NAMES}
}
"""The excluded names by their lower-case extension (a directory's names that share one can only be these)."""


def _empties(scan: DirectoryScan) -> bool | list[bool]:
    """``_empty`` for every entry of a directory of regular files: True for all when every size is 0,
    every owner this process and every mode the same (one that lets its owner read); these are told
    by comparing the scan's numbers as bytes, not one at a time."""
    count = len(scan.names)
    if (
        count
        and _all_are(scan.sizes, 0)
        and _all_are(scan.owners, _EUID)
        and scan.modes[0] & stat.S_IRUSR
        and _all_are(scan.modes, scan.modes[0])
    ):
        return True
    return [_empty(scan, n) for n in range(count)]


def _all_are(numbers: Sequence[int], value: int) -> bool:
    return bytes(numbers) == array("q", [value]).tobytes() * len(numbers)


def _empty(scan: DirectoryScan, n: int) -> bool:
    """Whether entry ``n`` (not a symbolic link) of a directory opened beneath the root is an empty
    regular file its owner may read, and this process is that owner: the tool's answer for it then
    follows from its name (``empty_content``), and it is not opened. Stat'ed through the directory's
    descriptor (``fstatat``), the file stays where it was found."""
    return (
        scan.sizes[n] == 0 and scan.kinds[n] == _FILE and scan.owners[n] == _EUID and bool(scan.modes[n] & stat.S_IRUSR)
    )


_EUID = os.geteuid()


def _relative_to(project: _Project, local: str) -> str:
    """A path here, under the project directory, relative to it (``.`` for itself)."""
    if local == project.real:
        return "."
    return local[len(project.real.rstrip("/")) + 1 :]


def _leads_inside(call: Call, project: _Project, relative: str) -> bool:
    """Whether a file found at ``relative``, where a link may have led to it, is in the project and has
    no blocked name: where it leads is looked up beneath the root."""
    found = look_up(call.root, os.path.join(project.real, relative))
    return found.inside and not has_blocked_segment(os.path.relpath(found.real, project.real))


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _utf16_order(path: str) -> str:
    """A path's place in JavaScript's sort (UTF-16 code units): code point order, but for a character
    past U+FFFF, which sorts as its surrogates do (before U+E000)."""
    if path.isascii():
        return path
    return _ASTRAL.sub(lambda found: _surrogates(ord(found.group()) - 0x10000), path)


def _surrogates(offset: int) -> str:
    return chr(0xD800 + (offset >> 10)) + chr(0xDC00 + (offset & 0x3FF))


def _referenced_content(
    placed: Placed, local: str, relative: str, patterns: list[str]
) -> str | TextRead | Inline | None:
    """A referenced file's content (here at ``local``, ``relative`` to the project), read through
    ``placed``; None when it is skipped: unreadable, or an image, PDF or audio file not asked for."""
    fd, regular = placed.fd, placed.st is not None and stat.S_ISREG(placed.st.st_mode)
    kind = file_type(local, os.pread(fd, 515, 0)) if fd is not None and regular else None
    if kind is not None and _unasked(local, kind, patterns):
        return None
    try:
        return read_content(placed, local, relative, kind=kind)
    except ReadFailure:
        return None


def _unasked(local: str, kind: str, patterns: list[str]) -> bool:
    """Whether a file is an image, PDF or audio file that no reference names by extension or by stem."""
    if kind not in ("image", "pdf", "audio"):
        return False
    extension = node_extname(local).lower()
    stem = os.path.basename(local)[: len(os.path.basename(local)) - len(extension) or None]
    return not any(extension in p.lower() or stem in p for p in patterns)


@_ignore_files_noted
def read_many_files(call: Call, include: list[str]) -> str:
    project = _Project.of(call)
    discovery = _discovery(call, project)
    git, gemini = _respects(call, {})
    references = []
    for path in at_references(include):
        if path and (
            (git and discovery.ignores(path, git=True, gemini=False))
            or (gemini and discovery.ignores(path, git=False, gemini=True))
        ):
            continue
        reference = _resolved_reference(call, project, path) if path else None
        if reference is not None:
            references.append(reference)
    if not references:
        return ""
    patterns = [ref.shown + ("/**" if ref.is_directory else "") for ref in references]
    directories: dict[str, None] = {}
    labels: dict[str, str] = {}
    for ref in references:
        if is_within(ref.shown, project.shown):
            labels.setdefault(os.path.relpath(ref.shown, project.shown), ref.label)
    contents = _Contents(call, project, labels, patterns)
    # each file as "relative\0" or, known to be empty, "relative\0e": the sort of one list of strings;
    # but a directory's plain empty files of one extension, a run: its sorted names, one text for all
    rows: list[str] = []
    runs: list[_Run] = []
    for files in _candidates(call, project, discovery, references, (git, gemini), directories):
        told = contents.told(files) if files.empty is True and len(files.names) >= _RUN_FILES else None
        if told is not None:
            runs.append(_Run(files.prefix, files.names, told))
        else:
            marks = itertools.repeat(files.empty) if isinstance(files.empty, bool) else files.empty
            rows.extend(f"{files.prefix}{name}\0{'e' if empty else ''}" for name, empty in zip(files.names, marks, strict=False))
    if all(map(str.isascii, rows)):
        rows.sort()  # each its own key
    else:
        for run in runs:  # rows too: one sort by UTF-16 keys
            rows.extend(f"{run.prefix}{name}\0e" for name in run.names)
        runs.clear()
        rows.sort(key=_utf16_order)
    contents.message.text(REFERENCES_START)
    for source, start, end in _in_order(rows, runs):
        if source < 0:
            contents.rows(rows, start, end)
        else:
            contents.run(runs[source], start, end)
    del rows, runs
    message = contents.message
    contexts = []
    for directory in directories:
        context = _context(call, project, directory)
        if context:
            contexts.append(context)
    if len(contexts) > 1:
        call.uncertain = "Gemini CLI adds the GEMINI.md context of several directories in its glob's order"
    if contexts:
        message.text(JIT_PREFIX + "\n".join(contexts) + JIT_SUFFIX)
    message.text(REFERENCES_END if message.parts > 1 else NOTHING_READ)
    return message.output()


_RUN_FILES = 256
"""Files of a directory below which they are rows, not a run."""


@dataclass(frozen=True)
class _Run:
    """A directory's empty plain files whose extension tells what each adds (``told``): names sorted."""

    prefix: str
    names: list[str]
    told: str


def _in_order(rows: list[str], runs: list[_Run]) -> Iterator[tuple[int, int, int]]:
    """The sorted ``rows`` (``relative\0`` or ``relative\0e``) and ``runs`` (no two of one directory;
    names in ASCII) in the order of one sort of them all, a row before a run's file of the same path:
    as slices ``(source, start, end)``, the source -1 for the rows, else the run's index. A run's
    files come in a few long slices (only its own directory's rows, few, fall among them), each
    found by bisection."""
    heads = [(rows[0].partition("\0")[0], -1)] if rows else []
    heads += [(run.prefix + run.names[0], n) for n, run in enumerate(runs) if run.names]
    heapq.heapify(heads)
    taken = [0] * (len(runs) + 1)
    while heads:
        _, source = heapq.heappop(heads)
        start = taken[source]
        items = rows if source < 0 else runs[source].names
        if not heads:
            end = len(items)
        elif source < 0:
            end = bisect.bisect_left(rows, heads[0][0] + "\0f", start)  # every row of that path or before
        else:
            bound, prefix = heads[0][0], runs[source].prefix
            end = bisect.bisect_left(items, bound[len(prefix) :], start) if bound.startswith(prefix) else len(items)
        end = max(end, start + 1)
        yield source, start, end
        taken[source] = end
        if end < len(items):
            head = rows[end].partition("\0")[0] if source < 0 else runs[source].prefix + items[end]
            heapq.heappush(heads, (head, source))


class _Contents:
    """What read_many_files adds for the files found, in order (a file found twice, once)."""

    def __init__(self, call: Call, project: _Project, labels: dict[str, str], patterns: list[str]) -> None:
        self.call, self.labels, self.patterns = call, labels, patterns
        self.real_prefix = project.real.rstrip("/") + "/"
        self.shown = project.shown
        self.message = _Message()
        self.previous: str | None = None
        self.empty_texts: dict[str, str] = {}
        """What an empty file adds, by its lower-case extension, once told for a file whose answer
        follows from that extension alone and is text (see ``empty_content``)."""

    def told(self, files: _Files) -> str | None:
        """What each of ``files`` (all known empty, sharing an extension) adds, when that is text."""
        if files.extension is None:
            return None
        if files.extension not in self.empty_texts:
            relative = files.prefix + files.names[0]
            local = self.real_prefix + relative
            kind, content = empty_content(local, relative)
            if kind == "binary" or not isinstance(content, (str, TextRead)) or _unasked(local, kind, self.patterns):
                return None  # an answer that names the file, data, none, or a file skipped
            self.empty_texts[files.extension] = js_trim(content if isinstance(content, str) else content.text)
        return self.empty_texts[files.extension]

    def rows(self, rows: list[str], start: int, end: int) -> None:
        message, labels, empty_texts, patterns = self.message, self.labels, self.empty_texts, self.patterns
        for row in itertools.islice(rows, start, end):
            relative, _, empty = row.partition("\0")
            if relative == self.previous:
                continue  # referenced twice
            self.previous = relative
            local = self.real_prefix + relative
            if empty:
                base = relative[relative.rfind("/") + 1 :]
                extension = node_extname(base).lower() if "\\" not in base else None
                told = empty_texts.get(extension) if extension is not None else None
                if told is not None:
                    message.text(f"\nContent from @{labels.get(relative) or relative}:\n", told)
                    continue
                kind, content = empty_content(local, relative)
                if _unasked(local, kind, patterns):
                    continue
                if extension is not None and kind != "binary" and isinstance(content, (str, TextRead)):
                    empty_texts[extension] = js_trim(content if isinstance(content, str) else content.text)
            else:
                try:  # a directory may hold many files: one open at a time
                    with self.call.placed(local, os.path.join(self.shown, relative)) as placed:
                        content = _referenced_content(placed, local, relative, patterns)
                except ToolError:
                    continue  # it left the workspace since it was found
            if content is None:
                continue
            if isinstance(content, Inline):
                message.data({"inlineData": {"data": base64_text(content.data), "mimeType": content.mime}})
                continue
            text = content if isinstance(content, str) else content.text
            warning = TRUNCATED_WARNING if isinstance(content, TextRead) and content.truncated else ""
            message.text(f"\nContent from @{labels.get(relative) or relative}:\n", js_trim(warning + text))

    def run(self, run: _Run, start: int, end: int) -> None:
        """The files ``start`` to ``end`` of a run, joined at once (but a first one just added as a row).
        Each is named by its path: a file referenced by a path of its own is a row too, which comes first."""
        prefix, names = run.prefix, run.names
        if prefix + names[start] == self.previous:
            start += 1
        self.message.run(prefix, names if (start, end) == (0, len(names)) else names[start:end], run.told)
        self.previous = prefix + names[end - 1]


class _Message:
    """The parts added to the user's message: joined as text when all are text (they are then kept
    joined, a piece at a time, with where each part ends), else as the JSON of the parts, written a
    part at a time. A run of files (``run``) is joined at once, and its parts told apart only for JSON."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.pending: list[str] = []
        self.ends = array("q")
        """Where each text part ends in the text, but those of runs."""
        self.runs: list[tuple[int, int, str, list[str], str]] = []
        """Each run's first text part, its length, prefix, names and text a file."""
        self.texts = 0
        self.length = 0
        self.data_parts: list[tuple[int, dict[str, Any]]] = []
        """The data parts, each with its place among all the parts."""

    @property
    def parts(self) -> int:
        return self.texts + len(self.data_parts)

    def text(self, *texts: str) -> None:
        """Each of ``texts`` as a part."""
        for text in texts:
            self.length += len(text)
            self.ends.append(self.length)
        self.texts += len(texts)
        self.pending.extend(texts)
        if len(self.pending) >= _LISTED_AT_ONCE:
            self.pieces.append("".join(self.pending))
            self.pending.clear()

    def run(self, prefix: str, names: list[str], told: str) -> None:
        """Two parts a name, ``Content from @PREFIXNAME:`` and ``told``, joined at once."""
        if not names:
            return
        head = "\nContent from @" + prefix
        text = head + (":\n" + told + head).join(names) + ":\n" + told
        self.pieces.append("".join(self.pending))
        self.pending.clear()
        self.pieces.append(text)
        self.runs.append((self.texts, len(text), prefix, names, told))
        self.texts += 2 * len(names)
        self.length += len(text)

    def data(self, part: dict[str, Any]) -> None:
        self.data_parts.append((self.parts, part))

    def output(self) -> str:
        text = "".join([*self.pieces, *self.pending])
        if not self.data_parts:
            return text
        written, texts = [], self._text_parts(text)
        data = dict(self.data_parts)
        for place in range(self.parts):
            part = data[place] if place in data else {"text": next(texts)}
            written.append(json.dumps(part, ensure_ascii=False))
        return "[" + ", ".join(written) + "]"

    def _text_parts(self, text: str) -> Iterator[str]:
        start, ends, runs, part = 0, iter(self.ends), iter(self.runs), 0
        run = next(runs, None)
        while part < self.texts:
            if run is not None and run[0] == part:
                _, length, prefix, names, told = run
                for name in names:
                    yield f"\nContent from @{prefix}{name}:\n"
                    yield told
                start, part, run = start + length, part + 2 * len(names), next(runs, None)
            else:
                end = next(ends)
                yield text[start:end]
                start, part = end, part + 1


# -- the profile ---------------------------------------------------------------------------------------

TOOL_NAMES = ("read_file", "list_directory", "read_many_files")


class GeminiCli(Profile):
    def received(self, recorded: RecordedCall) -> str | None:
        """What was logged, but for a file sent as data (an image, a PDF, audio, video): the model got
        the data beside the response's text, and the chat log keeps the text only (not known)."""
        path = recorded.arguments.get("file_path") if recorded.tool == "read_file" else None
        if isinstance(path, str) and media_type(path) is not None:
            return None
        return recorded.output

    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        arguments: dict[str, Any] = {"file_path": path}
        if shown is not None:
            arguments |= {"start_line": shown.top, "end_line": shown.bottom}
        return "read_file", arguments

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        if tool != "read_file":
            return None
        first, last = arguments["start_line"], arguments["end_line"]
        first = first or 1
        if last is None:
            last = first + 1999
        return lines_covered(arguments["file_path"], first, last, open_text)

    def after_edit(self, tool: str, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
        return move_end_with_start(before, after, "start_line", "end_line") if tool == "read_file" else after

    def listing_call(self, path: str, offset: int | None) -> tuple[str, dict[str, Any]] | None:
        return "list_directory", {"dir_path": path}

    def claim(self, recorded: RecordedCall) -> Claim | None:
        """A Gemini CLI session's ``read_file``, ``list_directory`` (``absolute_path`` and ``path``, their
        older names, read as ``file_path`` and ``dir_path``) or ``read_many_files``, with the session's
        directory as the project directory (its absolute paths then name workspace paths)."""
        if recorded.agent != AGENT.id:
            return None
        renamed = _OLDER_NAMES.get(recorded.tool, {})
        arguments = {renamed.get(name, name): value for name, value in recorded.arguments.items()}
        claim = super().claim(replace(recorded, arguments=arguments))
        if claim is None:
            return None
        return Claim(claim.tool, claim.arguments, {"project_dir": recorded.cwd} if recorded.cwd else {})

    def same_output(self, recorded: str, replayed: str) -> bool:
        """A session records a response with data as its text alone; the data parts are compared by that."""
        if recorded == replayed:
            return True
        if not replayed.startswith('[{"functionResponse"'):
            return False
        parts = json.loads(replayed)
        return bool(parts[0]["functionResponse"]["response"].get("output") == recorded)


_OLDER_NAMES = {"read_file": {"absolute_path": "file_path"}, "list_directory": {"path": "dir_path"}}


PROFILE = GeminiCli(
    name="gemini-cli",
    description="Gemini CLI's read_file (2,000 lines, the truncation header), list_directory and @path references.",
    error_form=lambda message: message,
    guarded=False,
    real_agent=RealAgent(AGENT.id, "0.61.0"),
    volatile=AGENT.volatile,
    ground_truth="the real Gemini CLI 0.61.0, recorded in tests/goldens/gemini-cli",
    tools=(
        Tool(
            ToolSpec(
                "read_file",
                "Reads and returns the content of a specified file. If the file is large, the content will be "
                "truncated. The tool's response will clearly indicate if truncation has occurred and will provide "
                "details on how to read more of the file using the 'start_line' and 'end_line' parameters. Handles "
                "text, images (PNG, JPG, GIF, WEBP, SVG, BMP), audio files (MP3, WAV, AIFF, AAC, OGG, FLAC), and PDF "
                "files. For text files, it can read specific line ranges.",
                (
                    Param("file_path", "string", "The path to the file to read.", is_path=True),
                    Param("start_line", "integer", "Optional: The 1-based line number to start reading from.", None, 1),
                    Param(
                        "end_line",
                        "integer",
                        "Optional: The 1-based line number to end reading at (inclusive).",
                        None,
                        1,
                    ),
                ),
            ),
            read_file,
        ),
        Tool(
            ToolSpec(
                "list_directory",
                "Lists the names of files and subdirectories directly within a specified directory path. Can "
                "optionally ignore entries matching provided glob patterns.",
                (
                    Param("dir_path", "string", "The path to the directory to list", is_path=True),
                    Param("ignore", "strings", "List of glob patterns to ignore", None),
                    Param(
                        "file_filtering_options",
                        "object",
                        "Optional: Whether to respect ignore patterns from .gitignore or .geminiignore "
                        "(respect_git_ignore, respect_gemini_ignore; both default to true)",
                        None,
                    ),
                ),
            ),
            list_directory,
        ),
        Tool(
            ToolSpec(
                "read_many_files",
                "What Gemini CLI adds to the user's message for @path references (it runs read_many_files on "
                "them; 0.61.0 does not offer the tool to the model): each path as typed after @, a directory "
                "for all its files.",
                (Param("include", "strings", "The paths referenced with @, as typed.", is_path=True),),
            ),
            read_many_files,
        ),
    ),
)
PROFILES = (PROFILE,)
