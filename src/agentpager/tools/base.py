"""What every tool is made of: its spec, its handler, the call it runs in, and its error answers."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentpager.engine.content import BinaryContent, ContentStore, TextContent, UnconvertibleContent
from agentpager.engine.lazytext import Text
from agentpager.tools.guard import GuardSettings, guard

if TYPE_CHECKING:
    from agentpager.tools.args import ToolSpec
    from agentpager.tools.listing import ListingCache
    from agentpager.tools.paths import Resolved, Root


class ToolError(Exception):
    """An answer that is one of the contract's error texts, before the profile gives it its form.

    ``whole`` marks a message that already is the entire output (some agents' errors have no form).
    ``reason`` names a path check that failed (``missing``, ``directory``), for the agent profiles
    whose own tools word those failures differently.
    """

    def __init__(self, message: str, whole: bool = False, reason: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.whole = whole
        self.reason = reason


def binary_message(mime: str) -> str:
    return (
        f"Binary files are not supported. File detected as {mime}. "
        "Please use another tool or method to process this file."
    )


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
    truncated: bool = field(default=False, init=False)

    def answer(self, *parts: Text) -> str:
        """The output made of ``parts``, through the output guard when the profile has one."""
        if self.guard is None:
            return "".join(str(part) for part in parts)
        text, self.truncated = guard(parts, self.tool, self.guard)
        return text

    def text_of(self, resolved: Resolved, cancel: threading.Event | None = None) -> TextContent:
        """The text a line or character tool reads; ToolError for binary files and failed conversions."""
        content = self.store.content(resolved.real, resolved.display, cancel)
        if isinstance(content, BinaryContent):
            raise ToolError(binary_message(content.mime))
        if isinstance(content, UnconvertibleContent):
            raise ToolError(f"Could not convert '{resolved.argument}' to text: {content.reason}.")
        return content


@dataclass(frozen=True)
class Tool:
    spec: ToolSpec
    run: Callable[..., str]
    """``run(call, **arguments)`` returns the output or raises ToolError."""


@dataclass(frozen=True)
class Profile:
    """One agent's tool set and the form its errors take.

    The first tool reads a file, and its first parameter is the file: the TUI relies on it.
    """

    name: str
    description: str
    tools: tuple[Tool, ...]
    error_form: Callable[[str], str]
    guarded: bool = True

    def tool(self, name: str) -> Tool | None:
        return next((tool for tool in self.tools if tool.spec.name == name), None)


def error_with_prefix(message: str) -> str:
    return "Error: " + message


def schema_of(profile: Profile) -> list[dict[str, Any]]:
    """The profile's tools as name, description and JSON Schema."""
    return [
        {"name": t.spec.name, "description": t.spec.description, "input_schema": t.spec.input_schema()}
        for t in profile.tools
    ]
