"""Codex, OpenAI's coding agent (``@openai/codex``).

- ``profiles.py``: its shell tools by version (``shell.py``, their envelopes and cuts in ``output.py``)
  and the read_file it offered only internal test models (``read_file.py``).
- ``transcript.py``: its rollout logs (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) and what
  ``codex exec --json`` prints.
- ``probe.py``: how the probe installs it and runs it against the mock.
"""

from __future__ import annotations

from agentpager.agents.base import Agent, Sessions
from agentpager.tools.volatile import Volatile

AGENT = Agent(
    id="codex",
    title="Codex",
    short_title="codex",
    profiles_at="agentpager.agents.codex.profiles:PROFILES",
    transcript_at="agentpager.agents.codex.transcript:Codex",
    other_transcripts_at=("agentpager.agents.codex.transcript:CodexExec",),
    program_at="agentpager.agents.codex.probe:PROGRAM",
    # The older rollouts are directly in sessions/.
    sessions=Sessions(
        ".codex",
        "CODEX_HOME",
        ("sessions/*/*/*/rollout-*.jsonl", "sessions/rollout-*.jsonl", "sessions/rollout-*.json"),
    ),
    volatile=(
        Volatile("⟦chunk_id⟧", r"(?<=^Chunk ID: )[0-9a-f]+$", "a random id per output chunk", "Chunk ID: "),
        Volatile(
            "⟦wall_time⟧",
            r"(?<=^Wall time: )\d+(?:\.\d+)?(?= seconds$)",
            "how long the command took (0.60: to 0.1 s, 0 for none)",
            "Wall time: ",
        ),
        Volatile(
            "⟦duration⟧",
            r'(?<="duration_seconds":)\d+\.\d+(?=})',
            "how long the command took, in 0.60's JSON answers",
            '"duration_seconds":',
        ),
    ),
)
