"""Replaying a transcript's file reads against the workspace as it is now.

A call replays when it is one of this project's tools: ``read_file`` with ``start_line`` (qq),
with ``offset``/``length`` (vault) or with ``file_path`` (codex); ``fs_read`` (forge);
``file_read`` (crush); ``list_files`` and ``count_files`` (qq); Claude Code's ``Read``. Absolute
paths under the transcript's cwd are made relative, so they land in the workspace replayed
against. Anything else (shell commands, edits) is listed as not replayable.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from agentpager.tools import PROFILE_NAMES, get_profile
from agentpager.tools.paths import is_within
from agentpager.transcripts import Transcript
from agentpager.transcripts.formats import ToolCall
from agentpager.workspace import ToolResult, Workspace

PATH_ARGUMENTS = ("path", "file_path", "filename")
_REMINDER_START, _REMINDER_END = "\n\n<system-reminder>\n", "\n</system-reminder>\n"
_ARROW_LINE = re.compile(r" *\d+→")


@dataclass(frozen=True)
class Plan:
    """How a call replays: which profile and tool, with which arguments and settings."""

    profile: str
    tool: str
    arguments: dict[str, Any]
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Replay:
    call: ToolCall
    recorded: str | None
    plan: Plan | None
    result: ToolResult | None

    @property
    def matches(self) -> bool | None:
        """Whether the replayed output is the recorded one, byte for byte; None if not replayable."""
        if self.result is None:
            return None
        return self.result.text == self.recorded

    @property
    def status(self) -> str:
        if self.result is None:
            return "not replayable"
        return "same" if self.matches else "differs"


def claude_code_settings(recorded: str | None) -> dict[str, Any]:
    """The Read output settings that reproduce what a recorded Read shows."""
    settings: dict[str, Any] = {}
    if recorded is None:
        return settings
    if _ARROW_LINE.match(recorded):
        settings["line_format"] = "arrow"
    if recorded.endswith(_REMINDER_END) and _REMINDER_START in recorded:
        start = recorded.rindex(_REMINDER_START) + len(_REMINDER_START)
        settings["reminder"] = recorded[start : -len(_REMINDER_END)]
    return settings


def _profile_of(call: ToolCall, arguments: dict[str, Any], recorded: str | None) -> str | None:
    """The profile whose tool the call is; ``read_file`` (qq, vault, codex) by its arguments."""
    owners = [name for name in PROFILE_NAMES if get_profile(name).tool(call.tool) is not None]
    if len(owners) <= 1:
        return owners[0] if owners else None
    if "file_path" in arguments:
        return "codex"
    if "offset" in arguments or "length" in arguments:
        return "vault"
    if "start_line" in arguments or "num_lines" in arguments:
        return "qq"
    looks_like_qq = recorded is None or recorded.startswith(("[File: ", "Start line ", "Error: "))
    return "qq" if looks_like_qq else "vault"


class Replayer:
    """Replays calls against ``root`` (default: the transcript's cwd if it exists here, else ``.``)."""

    def __init__(self, transcript: Transcript, root: str | None = None) -> None:
        self.transcript = transcript
        cwd = transcript.cwd
        self.root = root or (cwd if cwd and os.path.isdir(cwd) else ".")
        self.workspace = Workspace(self.root)

    def map_path(self, path: Any) -> Any:
        """An absolute path under the transcript's cwd, made relative to it; others unchanged."""
        cwd = self.transcript.cwd
        if isinstance(path, str) and cwd and os.path.isabs(path):
            normal, base = os.path.normpath(path), os.path.normpath(cwd)
            if is_within(normal, base):
                return os.path.relpath(normal, base).replace(os.sep, "/")
        return path

    def plan(self, call: ToolCall, recorded: str | None) -> Plan | None:
        if not isinstance(call.arguments, dict):
            return None
        profile = _profile_of(call, call.arguments, recorded)
        if profile is None:
            return None
        arguments = {
            name: self.map_path(value) if name in PATH_ARGUMENTS else value for name, value in call.arguments.items()
        }
        settings = claude_code_settings(recorded) if profile == "claude-code" else {}
        return Plan(profile, call.tool, arguments, settings)

    def replay(self, call: ToolCall) -> Replay:
        recorded = self.transcript.recorded(call)
        plan = self.plan(call, recorded)
        if plan is None:
            return Replay(call, recorded, None, None)
        workspace = self.workspace.with_profile(plan.profile, plan.settings)
        return Replay(call, recorded, plan, workspace.call(plan.tool, plan.arguments))
