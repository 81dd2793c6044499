"""What every tool is made of: its spec, its handler, the call it runs in, and its error answers."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from agentpager.engine.content import BinaryContent, ContentStore, TextContent, UnconvertibleContent
from agentpager.engine.lazytext import Text
from agentpager.engine.textfile import Reopener
from agentpager.tools.args import ToolSpec
from agentpager.tools.errors import ToolError, binary_message
from agentpager.tools.guard import GuardSettings, guard
from agentpager.tools.listing import ListingCache
from agentpager.tools.paths import Placed, Resolved, Root, Want, is_within, place, resolve
from agentpager.tools.volatile import Volatile, same_apart_from


@dataclass
class Call:
    """One tool call: the workspace it runs against and how its output is finished."""

    root: Root
    store: ContentStore
    listings: ListingCache
    tool: str
    guard: GuardSettings | None
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Profile settings, for agents whose texts differ between versions."""
    state: dict[str, Any] = field(default_factory=dict)
    """What the profile keeps between calls in one workspace (an agent's open window, say)."""
    truncated: bool = field(default=False, init=False)
    uncertain: str = field(default="", init=False)
    """Why the answer may not be the real agent's (it depends on what only the model's server knows)."""
    unreplayable: str = field(default="", init=False)
    """Why the call was not carried out as the agent carries it out (a command agentpager does not
    emulate: it never runs one); the answer says so to the agent too."""
    _opened: list[Resolved | Placed] = field(default_factory=list, init=False, repr=False)

    def resolve(self, argument: str, want: Want) -> Resolved:
        """Check a path argument (contract section 1) and open it; it stays open until the call is closed."""
        resolved = resolve(self.root, argument, want)
        self._opened.append(resolved)
        return resolved

    def place(self, path: str, argument: str) -> Placed:
        """``path`` opened beneath the root whatever is there (see ``paths.place``), until the call is closed."""
        placed = place(self.root, path, argument)
        self._opened.append(placed)
        return placed

    @contextmanager
    def placed(self, path: str, argument: str) -> Iterator[Placed]:
        """``place``, closed and let go when the block ends: for a call that reads many files, one at a time."""
        placed = place(self.root, path, argument)
        try:
            yield placed
        finally:
            placed.close()

    def close(self) -> None:
        """Close what the call opened."""
        for resolved in self._opened:
            resolved.close()
        self._opened.clear()

    def answer(self, *parts: Text) -> str:
        """The output made of ``parts``, through the output guard when the profile has one."""
        if self.guard is None:
            return "".join(str(part) for part in parts)
        text, self.truncated = guard(parts, self.tool, self.guard)
        return text

    def text_of(self, resolved: Resolved) -> TextContent:
        """The text a line or character tool reads; NotText for binary files and failed conversions."""
        return text_of(self.store, resolved, functools.partial(os.dup, resolved.fd))


class NotText(ToolError):
    """A file the text tools refuse: binary, or a document that could not be converted (``mime`` says which)."""

    def __init__(self, message: str, mime: str) -> None:
        super().__init__(message)
        self.mime = mime


def text_of(
    store: ContentStore, resolved: Resolved, reopen: Reopener, cancel: threading.Event | None = None
) -> TextContent:
    """What the file holds, as the text tools and the viewer read it: the one place that decides.

    ``reopen`` gives each reader a descriptor of the file (a copy of ``resolved.fd`` within a call).
    Raises NotText for binary files and failed conversions; with ``cancel``, see ContentStore.content.
    """
    content = store.content(resolved, reopen, cancel)
    if isinstance(content, BinaryContent):
        raise NotText(binary_message(content.mime), content.mime)
    if isinstance(content, UnconvertibleContent):
        raise NotText(f"Could not convert '{resolved.argument}' to text: {content.reason}.", content.mime)
    return content


@dataclass(frozen=True)
class Tool:
    spec: ToolSpec
    run: Callable[..., str]
    """``run(call, **arguments)`` returns the output or raises ToolError."""


@dataclass(frozen=True)
class Shown:
    """What a viewer shows of a file: its display path, its text, and the lines on screen."""

    path: str
    content: TextContent
    top: int
    bottom: int


@dataclass(frozen=True)
class Coverage:
    """What a read call covers of a file: lines ``first_line..last_line`` of its text.

    Tools that count characters or bytes also say which: ``unit`` and the range ``[start, end)``.
    """

    path: str
    first_line: int
    last_line: int
    unit: Literal["line", "char", "byte"] = "line"
    start: int = 0
    end: int = 0
    cut: tuple[int, int] | None = None
    """Where the output guard cut the output: the line, and the characters of it the output still
    shows; None when the output was not cut (or its text cannot be traced back to the file)."""


Opener = Callable[[str], TextContent]
"""Opens a path argument as the tools would (ToolError when they would refuse it)."""


@dataclass(frozen=True)
class RecordedCall:
    """A tool call as an agent's transcript recorded it, for a profile to recognise."""

    tool: str
    arguments: dict[str, Any]
    output: str | None
    agent: str = ""
    """The transcript's format: an agent's id (``claude-code``, ``codex``...), or ``openai`` or ``anthropic``
    for a log of model messages, which any program may write."""
    version: str = ""
    """The agent's version, when the transcript says."""
    cwd: str | None = None
    """The directory the agent ran in: absolute paths under it are paths in the workspace."""
    model: str = ""
    """The model the agent was talking to, when the log says."""
    used_tokens: int | None = None
    """The tokens the model's server reported used by the request that made the call (its context
    and output), when the log says."""

    def path_in_workspace(self, path: Any) -> Any:
        """An absolute path under the recorded cwd, made relative to it; anything else unchanged."""
        if isinstance(path, str) and self.cwd and os.path.isabs(path):
            normal, base = os.path.normpath(path), os.path.normpath(self.cwd)
            if is_within(normal, base):
                return os.path.relpath(normal, base).replace(os.sep, "/")
        return path


@dataclass(frozen=True)
class ShellCommand:
    """A recorded shell call's command line and the directory it ran in (None: the agent's cwd)."""

    command: str | list[str]
    workdir: str | None = None


@dataclass(frozen=True)
class Claim:
    """A recorded call a profile replays: which of its tools, with which arguments and settings."""

    tool: str
    arguments: dict[str, Any]
    settings: dict[str, Any] = field(default_factory=dict)
    profile: str = ""
    """The profile that runs it, when not the one that claims it (a variant for the agent's version)."""


@dataclass(frozen=True)
class RealAgent:
    """The program a profile's answers must equal, as the probe (``agentpager.probe``) runs it."""

    agent: str
    """The id of an agent in ``agentpager.agents.AGENTS`` that the probe can run."""
    version: str
    """The exact version whose answers the profile equals (its goldens' version)."""


CONTRACT = "its tools are defined by the contract, docs/TOOLS.md, which its tests check byte for byte"


@dataclass(frozen=True)
class Profile:
    """One agent's tool set, the form its errors take, and every fact the layers above need of it.

    The app, replay and the panel never ask which profile this is: they ask the profile. Profiles
    override the methods below; the defaults fit a profile whose first tool reads a file named by
    its first parameter.
    """

    name: str
    description: str
    tools: tuple[Tool, ...]
    error_form: Callable[[str], str]
    guarded: bool = True
    real_agent: RealAgent | None = None
    """The real agent that can be asked for any call of this profile's (``agentpager probe``), or None."""
    ground_truth: str = CONTRACT
    """What decides this profile's answers, in a phrase: says why when no real agent can be asked."""
    volatile: tuple[Volatile, ...] = ()
    """The parts of its answers that change from run to run (its agent's ``Agent.volatile``)."""
    listing_page_size: int = 100
    """The files a viewer's tree shows of a directory at a time, and pages ``listing_call`` by."""
    listing_warning_threshold: int | None = None
    """More files than this in a directory make the listing tool warn instead of listing; None: it never does."""

    def tool(self, name: str) -> Tool | None:
        return next((tool for tool in self.tools if tool.spec.name == name), None)

    @property
    def read_tool(self) -> Tool:
        """The tool that reads a file."""
        return self.tools[0]

    @property
    def file_argument(self) -> str:
        """The read tool's parameter that names the file."""
        return self.read_tool.spec.params[0].name

    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        """The call that reads ``path``: the lines ``shown`` on screen when given, else the default read."""
        return self.read_tool.spec.name, {self.file_argument: path}

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        """What a read call (its arguments with defaults filled in) covers, made now in a workspace
        whose profile keeps ``state`` between calls; None for other calls."""
        return None

    def text_offset(self, tool: str, arguments: dict[str, Any], output: str) -> int | None:
        """Characters of a read call's ``output`` before the file's text starts; None when the output
        does not hold the text as the file has it (numbered lines, JSON), so a cut cannot be traced."""
        return None

    def listing_call(self, path: str, offset: int | None) -> tuple[str, dict[str, Any]] | None:
        """The call that lists directory ``path``: the page from its ``offset``-th file, or (None) the
        call an agent makes first; None without a listing tool."""
        return None

    def refuses(self, path: str) -> str | None:
        """Why the tools refuse every call on ``path`` (a display path) whatever it holds, or None."""
        return None

    def after_edit(self, tool: str, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
        """The arguments of a call after a person edited ``before`` into ``after``.

        A profile whose window is bounded by two arguments moves the end with the start, so a new
        start past the old end is not an error; by default the edit stands as it is.
        """
        return after

    def shell_command(self, recorded: RecordedCall) -> ShellCommand | None:
        """The command line of a recorded call to this agent's shell tool; None for other calls.

        A shell call that only reads files (``cat``, ``sed -n``, ``head``...) can be replayed by
        emulating its command over the workspace; the profile says which calls are shell calls.
        """
        return None

    def received(self, recorded: RecordedCall) -> str | None:
        """What the model received for a recorded call, from what the agent's log kept of it
        (``recorded.output``) by the agent's rules for its version and model: what its harness adds
        to a result on the way to the model, which no log holds. None when the log does not hold
        enough to tell. By default the model received what was logged."""
        return recorded.output

    def same_output(self, recorded: str, replayed: str) -> bool:
        """Whether a replayed output says what the recorded one said: byte for byte apart from the
        parts that change from run to run (how long a command took)."""
        return same_apart_from(recorded, replayed, self.volatile)

    def claim(self, recorded: RecordedCall) -> Claim | None:
        """How this profile replays a recorded call, or None when the call is not one of its own.

        By default: a call of one of its tools with no argument the tool does not have.
        """
        tool = self.tool(recorded.tool)
        if tool is None or not set(recorded.arguments) <= {param.name for param in tool.spec.params}:
            return None
        paths = {param.name for param in tool.spec.params if param.is_path}
        arguments = {
            name: recorded.path_in_workspace(value) if name in paths else value
            for name, value in recorded.arguments.items()
        }
        return Claim(recorded.tool, arguments)


def error_with_prefix(message: str) -> str:
    return "Error: " + message


def lines_covered(path: str, first: int, last: int | None, open_text: Opener) -> Coverage:
    """Lines ``first..last`` of ``path`` (``last`` None: to the end), as far as the file has them."""
    with open_text(path).file.open() as reader:
        total = reader.line_count()
    last = total if last is None else min(last, total)
    return Coverage(path, first, max(first, last))


def move_end_with_start(before: dict[str, Any], after: dict[str, Any], start: str, end: str) -> dict[str, Any]:
    """``after`` with argument ``end`` moved as far as ``start`` moved, when only ``start`` was edited."""
    old_start, new_start, old_end = before.get(start), after.get(start), before.get(end)
    if old_start is None or new_start is None or old_end is None or after.get(end) != old_end:
        return after
    return after | {end: old_end + new_start - old_start}


def schema_of(profile: Profile) -> list[dict[str, Any]]:
    """The profile's tools as name, description and JSON Schema."""
    return [
        {"name": t.spec.name, "description": t.spec.description, "input_schema": t.spec.input_schema()}
        for t in profile.tools
    ]
