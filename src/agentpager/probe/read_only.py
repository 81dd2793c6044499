"""Which calls the probe may send a real agent: only those its profile answers as a read.

The profile that stands for the agent's version answers the call first, as replay would pick it (the
first of the agent's profiles that claims it). A tool the profiles do not have (an edit, a write, a
fetch), or a command the shell emulator does not answer (it runs nothing: a build, a redirection, a
program it does not know), is refused: the agent never sees it. Every caller goes through ``check``
(``probe`` calls it first): the command line, the terminal UI, the golden recorder. MCP never reaches
the probe.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from agentpager.probe.program import Program


class Refused(ValueError):
    """The call is not one agentpager answers as a read: it is not sent to the agent."""


def check(
    program: Program, version: str, tool: str, arguments: Mapping[str, Any], root: str | os.PathLike[str]
) -> None:
    """Raise Refused unless the agent's profile answers ``tool`` with ``arguments`` in ``root`` as a read."""
    from agentpager.agents import get_agent
    from agentpager.tools.base import RecordedCall
    from agentpager.workspace import Workspace

    agent = get_agent(program.agent)
    recorded = RecordedCall(tool, dict(arguments), None, agent.id, version, cwd=os.path.abspath(root))
    for profile in agent.profiles():
        claim = profile.claim(recorded)
        if claim is None:
            continue
        workspace = Workspace(root, claim.profile or profile.name, settings=claim.settings)
        result = workspace.call(claim.tool, claim.arguments)
        if result.unreplayable:
            raise Refused(
                f"agentpager does not send {program.title} this call: it sends only calls it answers as "
                f"reads, and it does not answer this one ({result.unreplayable})."
            )
        return
    tools = sorted({tool.spec.name for profile in agent.profiles() for tool in profile.tools})
    raise Refused(
        f"agentpager does not send {program.title} this call: it sends only reads it answers itself, "
        f"with {', '.join(tools)} and the arguments those take; {tool} with these arguments is not one."
    )
