"""Profiles ``claude-code`` (2.1.332, which answers as 2.1.330 did), ``claude-code@2.1.84`` and
``claude-code@2.0`` (2.0.21): Claude Code's ``Read`` (``read.py``) and ``Bash`` (``bash.py``), equal to
what the real programs sent their model (``tests/goldens/claude-code``); ``ClaudeCode.received``
turns what their session logs kept into that.

Settings (``Workspace(settings=...)``): ``model`` (newest version: the models that get the token
countdown; default its default model, claude-opus-5-5), ``tokens_left`` (the countdown's number,
default 15,000,000), ``line_format`` / ``reminder`` (Read), which a transcript's own output overrides
on replay, and ``recorded_cwd`` (Bash: the directory the agent ran in).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from agentpager.agents.claude_code import AGENT
from agentpager.agents.claude_code.bash import (
    BASH_2_0,
    BASH_2_1,
    BashBehaviour,
    bash_tool,
    countdown_shown_by,
    moved_reminders,
)
from agentpager.agents.claude_code.read import (
    IMAGE_EXTENSIONS,
    NEWEST,
    TOKEN_BUDGET,
    V2_0,
    V2_1_84,
    Behaviour,
    countdown,
    error_form,
    gets_countdown,
    read_as,
    settings_shown_by,
)
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import (
    Claim,
    Coverage,
    Opener,
    Profile,
    RealAgent,
    RecordedCall,
    ShellCommand,
    Shown,
    Tool,
    lines_covered,
)
from agentpager.tools.commands import RECORDED_CWD
from agentpager.tools.js.strings import js_trim

__all__ = ["PROFILE", "PROFILES", "settings_shown_by", "version_profile"]


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


MEDIA_EXTENSIONS = frozenset((*IMAGE_EXTENSIONS, "pdf"))
"""Files whose Read answers with content blocks (an image, a PDF's document; a notebook's cells when
the countdown is added): the session log keeps only their text, not what the model received."""


@dataclass(frozen=True)
class ClaudeCode(Profile):
    behaviour: Behaviour = NEWEST

    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        arguments: dict[str, Any] = {"file_path": path}
        if shown is not None:
            arguments |= {"offset": shown.top, "limit": shown.bottom - shown.top + 1}
        return "Read", arguments

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        first = max(arguments["offset"] or 1, 1)
        limit = arguments["limit"]
        return lines_covered(arguments["file_path"], first, None if limit is None else first + limit - 1, open_text)

    def shell_command(self, recorded: RecordedCall) -> ShellCommand | None:
        command = recorded.arguments.get("command")
        if recorded.agent != AGENT.id or recorded.tool != "Bash" or not isinstance(command, str):
            return None
        return ShellCommand(command)

    def claim(self, recorded: RecordedCall) -> Claim | None:
        """A Read or a Bash call, replayed by the profile of the transcript's version (this one when it
        says none), with the line format, reminder and countdown its own output shows."""
        if recorded.tool == "Bash" and recorded.agent != AGENT.id:
            return None
        claim = super().claim(recorded)
        if claim is None:
            return None
        profile = version_profile(recorded.version).name if recorded.version else ""
        if claim.tool == "Bash":
            settings = countdown_shown_by(recorded.output) | ({RECORDED_CWD: recorded.cwd} if recorded.cwd else {})
        else:
            settings = settings_shown_by(recorded.output)
        return Claim(claim.tool, claim.arguments, settings, "" if profile == self.name else profile)

    def received(self, recorded: RecordedCall) -> str | None:
        """The logged result as the model received it. The countdown models (``read.COUNTDOWN_MODELS``;
        2.1.330 and later) got it trimmed, then a ``# Environment update`` after a Bash command that
        moved the shell, then the countdown (from the budget less the tokens the request that made
        the call reported used; the budget when the log has no usage). Every other model got what
        was logged. Not known: a result made of blocks (an image, a PDF; a notebook with the
        countdown: the log keeps its text only), and 2.0's read of part of a file (the model got a
        note of the file's changes, with its lines, that the log does not keep)."""
        logged = recorded.output
        behaviour = (version_profile(recorded.version) if recorded.version else self).behaviour
        path = recorded.arguments.get("file_path") if recorded.tool == "Read" else None
        extension = _extension(path) if isinstance(path, str) else ""
        countdown_model = gets_countdown(behaviour, recorded.model or behaviour.default_model)
        partial = recorded.tool == "Read" and any(recorded.arguments.get(n) is not None for n in ("offset", "limit"))
        if logged is None or extension in MEDIA_EXTENSIONS or (extension == "ipynb" and countdown_model):
            return None
        if partial and behaviour.notes_changes_after_partial_reads:
            return None  # the "was modified" note 2.0 adds turns on the whole file as it was then
        if not countdown_model:
            return logged
        command = recorded.arguments.get("command")
        moved = (
            moved_reminders(command, recorded.cwd)
            if recorded.tool == "Bash" and isinstance(command, str) and recorded.cwd
            else ()
        )
        left = countdown(TOKEN_BUDGET - (recorded.used_tokens or 0))
        return js_trim(logged) + "".join("\n\n" + reminder for reminder in (*moved, left))


def _extension(path: str) -> str:
    return os.path.splitext(path)[1].lower().lstrip(".")


def _profile(name: str, behaviour: Behaviour, bash: BashBehaviour, description: str) -> ClaudeCode:
    params = [
        Param("file_path", "string", "The path to the file to read.", is_path=True),
        Param("offset", "integer", "The line number to start reading from (default 1).", None, minimum=0),
        Param("limit", "integer", "The number of lines to read (default: all).", None, minimum=1),
    ]
    return ClaudeCode(
        behaviour=behaviour,
        name=name,
        description=description,
        error_form=error_form,
        guarded=False,
        real_agent=RealAgent(AGENT.id, behaviour.version),
        volatile=AGENT.volatile,
        ground_truth=f"the real Claude Code {behaviour.version}, recorded in tests/goldens/claude-code",
        tools=(
            Tool(
                ToolSpec(
                    "Read",
                    "Reads a file from the local filesystem. Results are returned with line numbers "
                    "starting at 1. You can optionally give a line offset and a limit (useful for long "
                    "files); by default the whole file is read.",
                    tuple(params),
                ),
                read_as(behaviour),
            ),
            bash_tool(behaviour, bash),
        ),
    )


PROFILE = _profile(
    "claude-code",
    NEWEST,
    BASH_2_1,
    "Claude Code's Read (2.1.332): {n}\\t lines, the empty-file warning, the 256 KB limit; Bash.",
)
PROFILE_2_1_84 = _profile(
    "claude-code@2.1.84", V2_1_84, BASH_2_1, "Claude Code 2.1.84's Read: arrows, the malware reminder; Bash."
)
PROFILE_2_0 = _profile(
    "claude-code@2.0",
    V2_0,
    BASH_2_0,
    "Claude Code 2.0.21's Read: arrows, its reminder, partial reads reported as changes; Bash, its two streams apart.",
)
PROFILES = (PROFILE, PROFILE_2_1_84, PROFILE_2_0)

_BY_VERSION = ((_version_key("2.1.0"), PROFILE_2_0), (_version_key("2.1.123"), PROFILE_2_1_84))
"""A version below each bound is read as that profile: before 2.1, 2.0's; the arrow format until
about 2.1.123, 2.1.84's; anything later, the newest."""


def version_profile(version: str) -> ClaudeCode:
    """The profile that reads as Claude Code ``version`` did (the newest for versions after it)."""
    key = _version_key(version)
    return next((profile for bound, profile in _BY_VERSION if key < bound), PROFILE)
