"""OpenCode, an open-source coding agent (``opencode-ai`` on npm).

- ``profiles.py``: its ``read`` (``read.py``), ``glob`` and ``grep`` (``search.py``), equal to the
  goldens recorded from 1.18.33 (``tests/goldens/opencode``).
- ``transcript.py``: its sessions as ``opencode export`` writes them; ``sessions.py``: where it keeps
  them (a SQLite database from 1.2, JSON files before), each exported into the cache dir to be read.
- ``probe.py``: how the probe installs it and runs it against the mock, offline and with no project
  config; ``chat.py``: the OpenAI Chat Completions API its provider speaks.
"""

from __future__ import annotations

from collections.abc import Iterator

from agentpager.agents.base import Agent, Sessions


def _find_sessions(home: str | None) -> Iterator[tuple[str, str]]:
    from agentpager.agents.opencode.sessions import exported_sessions

    return exported_sessions(home)


AGENT = Agent(
    id="opencode",
    title="OpenCode",
    short_title="opencd",
    profiles_at="agentpager.agents.opencode.profiles:PROFILES",
    transcript_at="agentpager.agents.opencode.transcript:OpenCode",
    program_at="agentpager.agents.opencode.probe:PROGRAM",
    # Its data directory ($XDG_DATA_HOME/opencode when that is set): sessions.py finds its stores there.
    sessions=Sessions(".local/share/opencode", None, find=_find_sessions),
)
