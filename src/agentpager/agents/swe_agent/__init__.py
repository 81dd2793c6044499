"""SWE-agent (Princeton's research agent; its tools are shell scripts).

- ``profiles.py``: its windowed file viewer, checked against the tools' own scripts.
- ``transcript.py``: its ``.traj`` trajectories.
agentpager cannot run it: there is no probe.
"""

from __future__ import annotations

from agentpager.agents.base import Agent

AGENT = Agent(
    id="swe-agent",
    title="SWE-agent",
    short_title="swe",
    profiles_at="agentpager.agents.swe_agent.profiles:PROFILES",
    transcript_at="agentpager.agents.swe_agent.transcript:SweAgent",
)
