"""Replaying a transcript's file reads against the workspace as it is now.

Each recorded call is offered to the profiles in the registry's order; the first that claims it
(one of its tools, with arguments that tool has) replays it, with the settings it reads off the
recorded output and with absolute paths under the transcript's cwd made relative, so they land in
the workspace replayed against. Anything no profile claims (shell commands, edits) is listed as not
replayable.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from agentpager.tools import all_profiles
from agentpager.tools.base import RecordedCall
from agentpager.transcripts import Transcript
from agentpager.transcripts.formats import ToolCall
from agentpager.workspace import ToolResult, Workspace


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
        """``same``, ``differs``, ``uncertain`` (different, but decided by what only the model's
        server knows) or ``not replayable``."""
        if self.result is None:
            return "not replayable"
        if self.matches:
            return "same"
        return "uncertain" if self.result.uncertain else "differs"


class Replayer:
    """Replays calls against ``root`` (default: the transcript's cwd if it exists here, else ``.``)."""

    def __init__(self, transcript: Transcript, root: str | None = None) -> None:
        self.transcript = transcript
        cwd = transcript.cwd
        self.root = root or (cwd if cwd and os.path.isdir(cwd) else ".")
        self.workspace = Workspace(self.root)

    def plan(self, call: ToolCall, recorded: str | None) -> Plan | None:
        if not isinstance(call.arguments, dict):
            return None
        recorded_call = RecordedCall(
            call.tool,
            call.arguments,
            recorded,
            self.transcript.format,
            self.transcript.version or "",
            cwd=self.transcript.cwd,
        )
        for profile in all_profiles():
            claim = profile.claim(recorded_call)
            if claim is not None:
                return Plan(claim.profile or profile.name, claim.tool, claim.arguments, claim.settings)
        return None

    def replay(self, call: ToolCall) -> Replay:
        recorded = self.transcript.recorded(call)
        plan = self.plan(call, recorded)
        if plan is None:
            return Replay(call, recorded, None, None)
        workspace = self.workspace.with_profile(plan.profile, plan.settings)
        return Replay(call, recorded, plan, workspace.call(plan.tool, plan.arguments))
