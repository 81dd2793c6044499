"""Replaying a transcript's file reads against the workspace as it is now.

Which profiles may replay a call is explicit: a transcript in an agent's format (its id) is replayed
by that agent's profiles alone; a log of model messages, which any program may write, by any profile,
the contract's first. The first of them that claims a call (one of its tools, with arguments that
tool has) replays it, with the settings it reads off the recorded output (and the agent's version at
that call) and with absolute paths under the cwd the agent had at that call made relative, so they
land in the workspace replayed against. The profile also says whether the replayed output is the
recorded one (``Profile.same_output``: apart from what changes from run to run, such as a shell
answer's timing). A shell call is replayed the same way, its command emulated over the workspace
(``agentpager.tools.shell``): a read-only command gives what the real programs print; any other
command is not run, and the call is listed as not replayable with the emulator's reason. Anything
no profile claims (edits, plans) is not replayable.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agentpager.agents import find_agent
from agentpager.logs import records
from agentpager.logs.records import Location, too_long
from agentpager.profiles import all_profiles, get_profile
from agentpager.tools.base import Profile, RecordedCall
from agentpager.transcripts import Transcript
from agentpager.transcripts.context import AgentContext
from agentpager.transcripts.formats import ModelTurn, ToolCall
from agentpager.wording import byte_size
from agentpager.workspace import ToolResult, Workspace

SHELL_NOT_CLAIMED = "a shell call with arguments its agent's shell tools do not take"
STATUSES = ("same", "differs", "uncertain", "unchanged", "not replayable")
UNRECEIVED = "the log does not hold enough of this result, such as the images of one made of blocks"
"""Why what the model received is not known, unless the agent's log says otherwise."""


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
    received: str | None = None
    """What the model received: ``recorded`` (what the log kept) with what the agent's harness adds
    on the way to the model, by its profiles' rules for the call's version and model; None when the
    log does not hold enough to tell."""
    unreceived: str = ""
    """Why ``received`` is None while a result is recorded."""

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


def replaying_profiles(format: str) -> tuple[Profile, ...]:
    """The profiles that may replay the calls of a transcript in ``format``: its agent's, or (a log of
    model messages) every profile."""
    agent = find_agent(format)
    return all_profiles() if agent is None else agent.profiles()


def plan_of(recorded: RecordedCall, profiles: Iterable[Profile]) -> Plan | None:
    """How a recorded call replays: the first of ``profiles`` that claims it."""
    for profile in profiles:
        claim = profile.claim(recorded)
        if claim is not None:
            return Plan(claim.profile or profile.name, claim.tool, claim.arguments, claim.settings)
    return None


class Replayer:
    """Replays calls against ``root`` (default: the current directory), or in ``workspace`` (an
    app's: its caches and indexes are shared with what the app shows).

    The root never comes from the transcript: a log that says ``"cwd": "/"`` must not turn a
    replay into a read of the whole machine. A recorded cwd only maps absolute paths into the root.
    """

    def __init__(self, transcript: Transcript, root: str | None = None, workspace: Workspace | None = None) -> None:
        self.transcript = transcript
        self.root = workspace.root.path if workspace is not None else root or "."
        self.workspace = workspace if workspace is not None else Workspace(self.root)
        agent = find_agent(transcript.format)
        self.agent_profiles = agent is not None
        """Whether the transcript is an agent's own log (whose harness may add to what it logged)."""
        self._contexts: dict[tuple[int, str], AgentContext] = {}
        """Each (file, agent)'s turns, to find the one that made a call."""

    @functools.cached_property
    def profiles(self) -> tuple[Profile, ...]:
        """Found at the first replay, not when a screen is made: they import their agent's tools."""
        return replaying_profiles(self.transcript.format)

    def model_turn(self, call: ToolCall) -> ModelTurn | None:
        """The model request that made ``call`` (its model, the usage it reported), where the log says."""
        if not call.turn:
            return None
        index, agent = self.transcript.context_of(call)
        context = self._contexts.get((call.source, agent))
        if context is None:
            context = self._contexts[call.source, agent] = AgentContext(index, agent)
        return context.turn(call.turn)

    def recorded_call(self, call: ToolCall, recorded: str | None) -> RecordedCall | None:
        if not isinstance(call.arguments, dict):
            return None
        transcript = self.transcript
        turn = self.model_turn(call)
        return RecordedCall(
            call.tool,
            call.arguments,
            recorded,
            transcript.format,
            version=call.version or transcript.parsed.version,
            cwd=call.cwd or transcript.cwd,
            model=(turn.model if turn is not None else "") or transcript.parsed.model,
            used_tokens=None if turn is None or turn.estimated else turn.context + turn.output,
        )

    def plan(self, call: ToolCall, recorded: str | None) -> Plan | None:
        recorded_call = self.recorded_call(call, recorded)
        return None if recorded_call is None else plan_of(recorded_call, self.profiles)

    def not_replayed(self, call: ToolCall, recorded: str | None) -> str:
        """Why a call no profile claims is not replayed."""
        recorded_call = self.recorded_call(call, recorded)
        if recorded_call is not None and any(p.shell_command(recorded_call) for p in self.profiles):
            return SHELL_NOT_CLAIMED
        return "not one of the file tools"

    def received(self, call: ToolCall, recorded: str | None) -> str | None:
        """What the model received for ``call``, by the rules of the transcript's agent (a log of
        model messages holds what the model received); None when the log does not hold it."""
        if self.transcript.index_of(call.source).collector_type.not_sent_as_logged:
            return None
        recorded_call = self.recorded_call(call, recorded)
        if recorded is None or recorded_call is None:
            return recorded
        return self.profiles[0].received(recorded_call) if self.agent_profiles else recorded

    def unreceived(self, call: ToolCall) -> str:
        """Why what the model received for a recorded result is not known."""
        return self.transcript.index_of(call.source).collector_type.not_sent_as_logged or UNRECEIVED

    def replay(self, call: ToolCall) -> Replay:
        recorded = self.transcript.recorded(call)
        received = self.received(call, recorded)
        unreceived = self.unreceived(call) if received is None and recorded is not None else ""
        plan = self.plan(call, recorded)
        if plan is None:
            return Replay(call, recorded, None, None, self.not_replayed(call, recorded), received, unreceived)
        workspace = self.workspace.with_profile(plan.profile, plan.settings)
        result = workspace.call(plan.tool, plan.arguments)
        if call.result is not None and too_long(call.result.where):
            return Replay(
                call,
                None,
                plan,
                result,
                f"its recorded output is in a record not read whole ({_size(call.result.where)})",
                received,
                unreceived,
            )
        return Replay(call, recorded, plan, result, result.unreplayable, received, unreceived)


def _size(where: Location) -> str:
    size = byte_size(where.size) if where.size else f"{where.length:,} characters"
    return f"{size}, more than {records.MAX_RECORD_BYTES >> 20} MiB"
