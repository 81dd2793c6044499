"""The agents agentpager knows, each one package (``agents/<id>/``, see ``base.Agent``), and their list.

Every list of agents is derived from ``AGENTS``: the profiles (``agentpager.profiles``), the transcript
formats and the order they are recognised in, where sessions are found, the command line's choices,
the config's settings, the session browser's names. Adding an agent is adding its package and its
line here (docs/AGENTS.md).
"""

from __future__ import annotations

from agentpager.agents import claude_code, codex, gemini_cli, opencode, openhands, swe_agent
from agentpager.agents.base import Agent

AGENTS: tuple[Agent, ...] = (
    claude_code.AGENT,
    codex.AGENT,
    gemini_cli.AGENT,
    opencode.AGENT,
    swe_agent.AGENT,
    openhands.AGENT,
)
"""In the order the app lists their profiles and their transcript formats are tried in (SWE-agent's before
OpenHands', whose events are the looser shape)."""


def find_agent(agent_id: str) -> Agent | None:
    return next((agent for agent in AGENTS if agent.id == agent_id), None)


def get_agent(agent_id: str) -> Agent:
    """The agent ``agent_id``; ValueError naming the known ones otherwise."""
    agent = find_agent(agent_id)
    if agent is None:
        raise ValueError(f"Unknown agent '{agent_id}'. Agents: {', '.join(agent.id for agent in AGENTS)}.")
    return agent


def probed_agents() -> tuple[Agent, ...]:
    """The agents the probe can run (``agentpager probe``)."""
    return tuple(agent for agent in AGENTS if agent.program_at is not None)
