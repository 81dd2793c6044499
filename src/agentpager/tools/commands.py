"""An agent's shell tool, answered: the command emulated over the workspace, never run.

The profiles of agents that read files with shell commands (Codex, Claude Code's ``Bash``) answer a
read-only command with what the real programs print (``agentpager.tools.shell``) in the agent's own
envelope. Any other command is not run: the answer says so in the agent's words, and the result is
marked ``unreplayable`` and ``uncertain``.
"""

from __future__ import annotations

from agentpager.tools.base import Call
from agentpager.tools.shell import NotReplayable, ShellRun, emulate

RECORDED_CWD = "recorded_cwd"
"""The setting that holds the directory a transcript's agent ran in (its absolute paths map into the root)."""


def not_run(reason: str) -> str:
    """What the agent is told about a command that was not run."""
    return (
        "agentpager did not run this command: it never runs commands, and answers only read-only ones "
        f"(cat, head, tail, sed -n, nl, wc, grep, rg, ls, find, git ls-files and pipes of them) from the workspace "
        f"({reason})."
    )


def refuse(call: Call, reason: str) -> str:
    """Mark ``call`` as not carried out for ``reason`` (returned)."""
    call.unreplayable = reason
    call.uncertain = f"agentpager does not run commands ({reason})"
    return reason


def run_command(
    call: Call, command: str | list[str], ripgrep: str, workdir: str | None = None, merged: bool = False
) -> ShellRun:
    """The emulated run of ``command`` by an agent that runs ``ripgrep`` (its version); NotRun when it
    is not emulated (``call`` says why)."""
    result = emulate(call.root, call.store, command, workdir, merged, call.settings.get(RECORDED_CWD), ripgrep)
    if isinstance(result, NotReplayable):
        raise NotRun(refuse(call, result.reason))
    call.uncertain = call.uncertain or result.uncertain
    return result


class NotRun(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
