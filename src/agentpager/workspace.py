"""The Python API: a workspace root and a profile, answering tool calls with the contract's text.

With ``fileview``, this is all the TUI sees of the layers below: what it needs of the tools and of
the profile (a tool's spec, the error its argument checks raise, the listing's page, the real agent
to ask, how answers compare) is a method or property here.
"""

from __future__ import annotations

import functools
import json
import os
import stat
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentpager.engine.content import ContentStore, TextContent
from agentpager.engine.filesystem import Filesystem
from agentpager.engine.lineindex import FileChanged
from agentpager.engine.tokens import count_tokens
from agentpager.engine.utf8 import printable
from agentpager.fileview import FileView, ViewError
from agentpager.profiles import get_profile, profile_names
from agentpager.tools.args import ToolSpec, echoed
from agentpager.tools.base import Call, Coverage, NotText, Profile, RealAgent, Shown, schema_of, text_of
from agentpager.tools.errors import ToolError
from agentpager.tools.guard import GuardSettings, guard, kept_part, overflow_severity
from agentpager.tools.listing import DirectoryEntries, ListingCache, matcher, read_directory
from agentpager.tools.paths import Root, look_up, resolve
from agentpager.tools.volatile import Comparison, compare

if TYPE_CHECKING:
    from agentpager.tools.shell.gitignore import Rules

__all__ = [
    "INTERNAL_ERROR",
    "Comparison",
    "DirectoryEntries",
    "RealAgent",
    "Shared",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "Workspace",
    "overflow_severity",
    "printable",
]

_ATTEMPTS = 3
INTERNAL_ERROR = "Internal error in agentpager"


@dataclass(frozen=True)
class ToolResult:
    text: str
    """The exact output the agent receives."""
    is_error: bool
    """Whether the output is one of the contract's error texts."""
    truncated: bool = False
    """Whether the output guard cut it."""
    uncertain: str = ""
    """Why the real agent may answer otherwise (what decides it is only known to the model's server)."""
    unreplayable: str = ""
    """Why the call was not carried out (a shell command agentpager does not emulate); the text says so."""


INSTALLED_OR_BUILT = frozenset(("node_modules", "bower_components", "site-packages", "__pycache__", "build", "dist"))
"""Directories that hold what a project installs or builds, whether a ``.gitignore`` names them or not."""


class Shared:
    """What every profile's view of one workspace shares: the root, the output guard's limit, the
    files' indexes and converted documents, the listings, and what each profile keeps between calls.

    ``max_output_chars`` defaults to ``$QQ_MAX_TOOL_OUTPUT``, else 28000.
    """

    def __init__(
        self,
        root: str | os.PathLike[str] = ".",
        max_output_chars: int | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.root = Root.of(root)
        self.guard_settings = GuardSettings.from_env(max_output_chars)
        self.store = ContentStore(Path(cache_dir) if cache_dir else None)
        self.listings = ListingCache()
        self.states: dict[str, dict[str, Any]] = {}
        """What each profile keeps between calls, by profile name."""


class Workspace:
    """Tool calls against one root with one profile.

    File indexes, converted documents and listings are kept between calls, so paging through a file
    costs one window; views of the same files with other profiles share them (``with_profile``).
    ``root`` is a directory, or the ``Shared`` state of another view.
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | Shared = ".",
        profile: str = "qq",
        max_output_chars: int | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        self.shared = root if isinstance(root, Shared) else Shared(root, max_output_chars, cache_dir)
        self.root = self.shared.root
        self._profile: Profile = get_profile(profile)
        self.settings = dict(settings or {})
        """Profile settings (see the claude-code profile); unknown keys are ignored."""

    def with_profile(self, profile: str, settings: Mapping[str, Any] | None = None) -> Workspace:
        """A view of the same files (sharing their indexes and caches) with another profile and settings."""
        return Workspace(self.shared, profile, settings=self.settings if settings is None else settings)

    @staticmethod
    def profile_names() -> tuple[str, ...]:
        """Every profile's name, variants included, in the order the app lists them."""
        return profile_names()

    # -- the profile --------------------------------------------------------------------------------

    @property
    def profile_name(self) -> str:
        return self._profile.name

    def tool_names(self) -> list[str]:
        """The profile's tools' names, its read tool first."""
        return [tool.spec.name for tool in self._profile.tools]

    def tool_spec(self, tool: str) -> ToolSpec | None:
        """The spec of the profile's tool ``tool``, or None when it has none of that name."""
        found = self._profile.tool(tool)
        return None if found is None else found.spec

    @property
    def real_agent(self) -> RealAgent | None:
        """The real agent that can be asked for the profile's calls (the probe), or None."""
        return self._profile.real_agent

    @property
    def ground_truth(self) -> str:
        """What decides the profile's answers, in a phrase (why there is no real agent to ask)."""
        return self._profile.ground_truth

    @property
    def listing_page_size(self) -> int:
        """Files a tree shows of a directory at a time: the page ``listing_call`` asks for."""
        return self._profile.listing_page_size

    @property
    def listing_warning_threshold(self) -> int | None:
        """More files than this in a directory make the profile's listing warn instead of listing (a
        tree marks such directories); None: it never does."""
        return self._profile.listing_warning_threshold

    def compare(self, result: ToolResult, agent_text: str, agent_error: bool) -> Comparison:
        """The profile's answer against the real agent's, apart from what changes from run to run."""
        return compare(result.text, result.is_error, agent_text, agent_error, self._profile.volatile)

    def tools(self) -> list[dict[str, Any]]:
        """The profile's tools: name, description and JSON Schema of the arguments."""
        return schema_of(self._profile)

    def call(self, tool: str, arguments: Any = None) -> ToolResult:
        """Run one tool call. Never raises: whatever is sent is answered, bad calls with an error text.

        The text is always printable: a file name that is not UTF-8, or an argument with a lone
        surrogate, shows U+FFFD where the name has a byte UTF-8 cannot decode.
        """
        result = self._answer(tool, arguments)
        return replace(result, text=printable(result.text))

    def _answer(self, tool: str, arguments: Any) -> ToolResult:
        found = self._profile.tool(tool)
        if found is None:
            names = ", ".join(t.spec.name for t in self._profile.tools)
            return self._error(tool, f"Unknown tool '{echoed(str(tool))}'. Tools: {names}.")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            got = echoed(json.dumps(arguments, default=repr))
            return self._error(tool, f"Arguments must be a JSON object, got {got}.")
        shared = self.shared
        guard_settings = shared.guard_settings if self._profile.guarded else None
        state = shared.states.setdefault(self._profile.name, {})
        for _ in range(_ATTEMPTS):
            call = Call(self.root, shared.store, shared.listings, tool, guard_settings, self.settings, state)
            try:
                bound = found.spec.bind(arguments)
                return ToolResult(found.run(call, **bound), False, call.truncated, call.uncertain, call.unreplayable)
            except ToolError as error:
                return replace(
                    self._error(tool, error.message, error.whole, call.uncertain), unreplayable=call.unreplayable
                )
            except FileChanged:
                continue
            except OSError as error:  # never the path: it may be the file's real one, outside the root
                return self._error(tool, f"Could not read the file: {error.strerror or type(error).__name__}.")
            except Exception as error:  # a bug: answer, so that no agent or UI goes down with it
                return self._error(tool, f"{INTERNAL_ERROR}: {type(error).__name__}: {error}")
            finally:
                call.close()
        return self._error(tool, "The file kept changing while it was being read; try again.")

    def _error(self, tool: str, message: str, whole: bool = False, uncertain: str = "") -> ToolResult:
        """An error answer: the message in the profile's form (unless it is the whole output), guarded."""
        text = message if whole else self._profile.error_form(message)
        truncated = False
        if self._profile.guarded:
            text, truncated = guard([text], tool, self.shared.guard_settings)
        return ToolResult(text, True, truncated, uncertain)

    def open_view(self, path: str, cancel: threading.Event | None = None) -> FileView:
        """The file at ``path`` for a viewer, checked exactly as the tools check it.

        Raises ViewError with the message an agent would get (binary, missing, outside, ...). A
        document not in the cache yet is converted in a child process; setting ``cancel`` kills it
        (raising Cancelled).
        """
        try:
            with resolve(self.root, path, "file") as resolved:
                try:
                    content = text_of(self.shared.store, resolved, functools.partial(self._reopen, path), cancel)
                except NotText as error:
                    raise ViewError(error.message, error.mime, resolved.st.st_size) from None
                return FileView(resolved.display, content)
        except ToolError as error:
            raise ViewError(error.message) from None

    def _reopen(self, path: str) -> int:
        """The file at ``path`` opened again beneath the root, as it is now (for a viewer that follows it)."""
        try:
            return resolve(self.root, path, "file").fd  # the reader that asked closes it
        except ToolError as error:
            raise FileChanged(error.message) from None

    # -- what the profile says about what a viewer shows ----------------------------------------------

    def read_call(
        self, path: str, view: FileView | None = None, lines: tuple[int, int] = (1, 1)
    ) -> tuple[str, dict[str, Any]]:
        """The call an agent makes to read ``path``: the ``lines`` of ``view`` on screen, when given.

        It may read the file (a character or byte offset), so keep it off a UI thread.
        """
        shown = None if view is None else Shown(view.name, view.content, *lines)
        return self._profile.read_call(path, shown)

    def coverage(self, tool: str, arguments: Mapping[str, Any], cut_output: str | None = None) -> Coverage | None:
        """What a read call covers of its file (display path, lines, offsets); None for other calls,
        bad arguments, or a file the tool refuses. It may read the file: keep it off a UI thread.

        ``cut_output``: the call's output, which the output guard cut; the coverage then says where
        in the file the cut falls (``Coverage.cut``), when the profile can trace its text back.
        """
        found = self._profile.tool(tool)
        if found is None:
            return None
        call = Call(self.root, self.shared.store, self.shared.listings, tool, None)

        def open_text(path: str) -> TextContent:
            return call.text_of(call.resolve(path, "file"))

        try:
            bound = found.spec.bind(arguments)
            coverage = self._profile.coverage(tool, bound, open_text, self.shared.states.get(self._profile.name, {}))
            if coverage is None:
                return None
            if cut_output is not None:
                coverage = replace(coverage, cut=self._cut(coverage, tool, bound, cut_output, open_text))
        except (ToolError, OSError, ValueError, LookupError):
            return None
        finally:
            call.close()
        return replace(coverage, path=self.root.display(coverage.path))

    def _cut(
        self,
        coverage: Coverage,
        tool: str,
        arguments: dict[str, Any],
        output: str,
        open_text: Callable[[str], TextContent],
    ) -> tuple[int, int] | None:
        """Where the guard's cut falls in the file: the line, and the characters of it still shown."""
        start = self._profile.text_offset(tool, arguments, output)
        if start is None:
            return None
        shown = kept_part(output)[start:]
        if coverage.unit == "line":
            return coverage.first_line + shown.count("\n"), len(shown) - shown.rfind("\n") - 1
        length = len(shown) if coverage.unit == "char" else len(shown.encode("utf-8", "surrogatepass"))
        with open_text(coverage.path).file.open() as reader:
            return reader.position(coverage.start + length, coverage.unit)

    def read_directory(self, path: str) -> DirectoryEntries:
        """The entries of directory ``path`` as ``list_files`` sees them (its files are exactly the ones it
        lists), or why it cannot be read. Keep it off a UI thread."""
        return read_directory(self.root, path)

    def directory_stamp(self, path: str) -> tuple[int, int] | None:
        """What changes when an entry is added to, removed from or renamed in directory ``path``
        (its mtime and ctime), looked up beneath the root; None when it is not a directory there."""
        found = look_up(self.root, path)
        if not found.inside or found.st is None or found.error or not stat.S_ISDIR(found.st.st_mode):
            return None
        return found.st.st_mtime_ns, found.st.st_ctime_ns

    @property
    def filesystem(self) -> Filesystem:
        """The files under the root, for readers handed paths (a transcript in the workspace, and the
        files beside it): opened beneath the root, a symlink that leads out of it refused."""
        return Filesystem(self.root.real)

    def listing_call(self, path: str, offset: int | None = None) -> tuple[str, dict[str, Any]] | None:
        """The call that lists directory ``path``: the page from its ``offset``-th file, or the call an
        agent makes first; None without a listing tool."""
        return self._profile.listing_call(path, offset)

    def refuses(self, path: str) -> str | None:
        """Why the profile refuses ``path`` (a display path) whatever it holds (vault's ``.git``), or None."""
        return self._profile.refuses(path)

    def after_edit(self, tool: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments after a person edited ``before`` into ``after``: a window's end moves with
        its start (crush's lines, forge's bytes), so moving the start does not make the call an error."""
        return self._profile.after_edit(tool, dict(before), dict(after))

    def files(self) -> list[str]:
        """Every file ``list_files`` would list under the root, recursively, sorted (for a file
        finder). It walks the whole tree: keep it off a UI thread."""
        with matcher("*", use_regex=False) as everything, resolve(self.root, ".", "directory") as root:
            return self.shared.listings.files(self.root, root, everything, True)

    def ignored_directories(self, files: list[str]) -> set[str]:
        """The directories of ``files`` (as ``files`` gives them) that are not the project's own:
        hidden ones, those named in INSTALLED_OR_BUILT, those the ``.gitignore`` files among ``files``
        ignore (git's rules: the nearest file with a matching rule decides, its last such rule), and
        every one below them; a repository's ``.git/info/exclude`` counts as the first rules of the
        ``.gitignore`` beside its ``.git`` (as the tools' walk reads it). Only those ignore files are
        read, not the tree; one that cannot be read counts for nothing, and so do a directory's rules
        that cannot be compiled."""
        from agentpager.tools.shell.errors import Unsupported
        from agentpager.tools.shell.gitignore import Rule, Rules, rule_of
        from agentpager.tools.shell.walk import ignore_file_lines

        listed = set(files)
        directories = {path.rpartition("/")[0] for path in files}
        for directory in list(directories):
            while directory and (directory := directory.rpartition("/")[0]) not in directories:
                directories.add(directory)
        rules: dict[str, Rules] = {}
        ignored: set[str] = set()
        try:
            for directory in sorted(directories):  # a directory before those below it
                parent, _, name = directory.rpartition("/")
                if directory and (
                    parent in ignored
                    or name.startswith(".")
                    or name in INSTALLED_OR_BUILT
                    or _ignored_by(rules, directory)
                ):
                    ignored.add(directory)
                    continue
                found: list[Rule] = []
                for kind in (".git/info/exclude", ".gitignore"):  # the exclude file counts for less
                    ignore_file = f"{directory}/{kind}".removeprefix("/")
                    if ignore_file in listed:
                        try:
                            lines = ignore_file_lines(self.filesystem.open(ignore_file), ignore_file)
                            found += [rule for rule in map(rule_of, lines) if rule is not None]
                        except (OSError, Unsupported):
                            pass
                try:
                    if found:
                        rules[directory] = Rules(found)
                except Unsupported:
                    pass
        finally:
            for each in rules.values():
                each.close()
        return ignored

    @staticmethod
    def count_tokens(text: str) -> int:
        """cl100k_base tokens in ``text`` (tiktoken, offline)."""
        return count_tokens(text)


def _ignored_by(rules: Mapping[str, Rules], directory: str) -> bool:
    """Whether the ignore files above ``directory`` (``rules`` by the directory holding each) ignore it."""
    above = directory
    while above:
        above = above.rpartition("/")[0]
        if (found := rules.get(above)) is not None:
            decided = found.decide(directory[len(above) + 1 :] if above else directory, True)
            if decided is not None:
                return decided
    return False
