"""Replaying a transcript's file reads against the workspace as it is now.

Each recorded call is offered to the profiles in the registry's order; the first that claims it
(one of its tools, with arguments that tool has) replays it, with the settings it reads off the
recorded output (and the agent's version at that call) and with absolute paths under the cwd the
agent had at that call made relative, so they land in the workspace replayed against. The profile
also says whether the replayed output is the recorded one (``Profile.same_output``: a shell answer
compares what the command printed and its exit code, not its timing). A shell call is replayed the
same way, its command emulated over the workspace (``agentpager.tools.shell``): a read-only command
gives what the real programs print; any other command is not run, and the call is listed as not
replayable with the emulator's reason. Anything no profile claims (edits, plans) is not replayable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentpager.tools import all_profiles, get_profile
from agentpager.tools.base import RecordedCall
from agentpager.transcripts import Transcript
from agentpager.transcripts.formats import ToolCall
from agentpager.workspace import ToolResult, Workspace

SHELL_NOT_CLAIMED = "a shell call with arguments its agent's shell tools do not take"
STATUSES = ("same", "differs", "uncertain", "unchanged", "not replayable")


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
    reason: str = ""
    """Why the call is not replayed, when it is not (a shell command that was not run has its answer,
    which says so, in ``result``)."""

    @property
    def matches(self) -> bool | None:
        """Whether the replayed output says what the recorded one said (as its profile compares
        them); None when not replayable, or when the agent recorded only that the file was unchanged."""
        if self.result is None or self.plan is None or self.unchanged or self.reason:
            return None
        if self.recorded is None:
            return False
        return get_profile(self.plan.profile).same_output(self.recorded, self.result.text)

    @property
    def unchanged(self) -> bool:
        """The agent answered "unchanged since the earlier read" instead of the file's text."""
        return self.call.result is not None and self.call.result.unchanged

    @property
    def status(self) -> str:
        """``same``, ``differs``, ``uncertain`` (different, but decided by what only the model's
        server knows), ``unchanged`` (the agent was told the file had not changed since it read it)
        or ``not replayable``."""
        if self.result is None or self.reason:
            return "not replayable"
        if self.unchanged:
            return "unchanged"
        if self.matches:
            return "same"
        return "uncertain" if self.result.uncertain else "differs"


def plan_of(recorded: RecordedCall) -> Plan | None:
    """How a recorded call replays: the first profile that claims it, in the registry's order."""
    for profile in all_profiles():
        claim = profile.claim(recorded)
        if claim is not None:
            return Plan(claim.profile or profile.name, claim.tool, claim.arguments, claim.settings)
    return None


class Replayer:
    """Replays calls against ``root`` (default: the current directory).

    The root never comes from the transcript: a log that says ``"cwd": "/"`` must not turn a
    replay into a read of the whole machine. A recorded cwd only maps absolute paths into the root.
    """

    def __init__(self, transcript: Transcript, root: str | None = None) -> None:
        self.transcript = transcript
        self.root = root or "."
        self.workspace = Workspace(self.root)

    def recorded_call(self, call: ToolCall, recorded: str | None) -> RecordedCall | None:
        if not isinstance(call.arguments, dict):
            return None
        transcript = self.transcript
        return RecordedCall(
            call.tool,
            call.arguments,
            recorded,
            transcript.format,
            version=call.version or transcript.parsed.version,
            cwd=call.cwd or transcript.cwd,
        )

    def plan(self, call: ToolCall, recorded: str | None) -> Plan | None:
        recorded_call = self.recorded_call(call, recorded)
        return None if recorded_call is None else plan_of(recorded_call)

    def not_replayed(self, call: ToolCall, recorded: str | None) -> str:
        """Why a call no profile claims is not replayed."""
        recorded_call = self.recorded_call(call, recorded)
        if recorded_call is not None and any(p.shell_command(recorded_call) for p in all_profiles()):
            return SHELL_NOT_CLAIMED
        return "not one of the file tools"

    def replay(self, call: ToolCall) -> Replay:
        recorded = self.transcript.recorded(call)
        plan = self.plan(call, recorded)
        if plan is None:
            return Replay(call, recorded, None, None, self.not_replayed(call, recorded))
        workspace = self.workspace.with_profile(plan.profile, plan.settings)
        result = workspace.call(plan.tool, plan.arguments)
        return Replay(call, recorded, plan, result, result.unreplayable)
