"""Which call shows what the viewer shows, per profile, and which line a hand-made call reads."""

from __future__ import annotations

from typing import Any

from agentpager.fileview import FileView
from agentpager.tools import get_profile
from agentpager.tools.forge import MAX_RANGE_BYTES
from agentpager.tui.viewer import Window


def read_tool(profile: str) -> str:
    """The profile's tool for reading a file (its first tool)."""
    return get_profile(profile).tools[0].spec.name


def path_argument(profile: str) -> str:
    """The name of the file argument of the profile's read tool (its first parameter)."""
    return get_profile(profile).tools[0].spec.params[0].name


def follow_call(profile: str, view: FileView, window: Window) -> tuple[str, dict[str, Any]]:
    """The call whose output is the window on screen.

    ``qq``: start_line is the top line. ``crush``: the visible line range. ``vault``: the
    character offset of the top line. ``forge``: the byte range of the visible lines (at most
    one read's worth); forge reads UTF-8 text only, so other files get a plain call.
    ``claude-code`` and ``codex``: offset and limit of the visible lines.
    """
    tool = read_tool(profile)
    arguments: dict[str, Any] = {path_argument(profile): view.name}
    if profile == "qq":
        arguments["start_line"] = window.top
    elif profile in ("claude-code", "codex"):
        arguments |= {"offset": window.top, "limit": window.bottom - window.top + 1}
    elif profile == "crush":
        arguments |= {"start_line": window.top, "end_line": window.bottom}
    elif profile == "vault":
        with view.open() as reader:
            arguments["offset"] = reader.char_offset(window.top)
    elif view.kind == "text" and view.encoding == "utf-8":
        with view.open() as reader:
            start, end = reader.line_span(window.top, window.bottom)
        arguments |= {"start_byte": start, "end_byte": min(end, start + MAX_RANGE_BYTES)}
    return tool, arguments


def line_of_call(profile: str, bound: dict[str, Any], view: FileView) -> int:
    """The line where a read call (its arguments with defaults filled in) starts in ``view``."""
    if profile in ("qq", "crush"):
        return bound["start_line"] or 1
    if profile in ("claude-code", "codex"):
        return max(bound["offset"] or 1, 1)
    with view.open() as reader:
        if profile == "vault":
            return reader.line_at_char(bound["offset"])
        return reader.line_at_byte(bound["start_byte"] or 0)
