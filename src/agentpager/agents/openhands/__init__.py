"""OpenHands (All-Hands-AI's agent; its tools are the Python package openhands-tools).

- ``profiles.py``: its file editor's ``view``, checked against the file editor's own code.
- ``transcript.py``: its event lists (trajectories).
agentpager cannot run it: there is no probe.
"""

from __future__ import annotations

from agentpager.agents.base import Agent

AGENT = Agent(
    id="openhands",
    title="OpenHands",
    short_title="openhd",
    profiles_at="agentpager.agents.openhands.profiles:PROFILES",
    transcript_at="agentpager.agents.openhands.transcript:OpenHands",
)
