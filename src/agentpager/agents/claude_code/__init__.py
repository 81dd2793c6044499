"""Claude Code, Anthropic's coding agent (``@anthropic-ai/claude-code``).

- ``profiles.py``: its Read (``read.py``) and Bash (``bash.py``) by version, equal to the real program's answers.
- ``transcript.py``: its session logs (``~/.claude/projects/<project>/<session>.jsonl``).
- ``probe.py``: how the probe installs it and runs it against the mock.
"""

from __future__ import annotations

import os

from agentpager.agents.base import Agent, Sessions, Setting
from agentpager.tools.volatile import Volatile

LINE_FORMATS = ("tab", "arrow")
"""How Read numbers lines: ``tab`` ``{n}\\t{line}`` (2.1.123 on), ``arrow`` ``{n:>6}→{line}`` (1.0.x to 2.1.84)."""


def _line_format(value: object) -> str:
    if value not in LINE_FORMATS:
        raise ValueError(value)
    return str(value)


def _reminder(value: object) -> str | None:
    if value is False or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(value)
    return value


AGENT = Agent(
    id="claude-code",
    title="Claude Code",
    short_title="claude",
    profiles_at="agentpager.agents.claude_code.profiles:PROFILES",
    transcript_at="agentpager.agents.claude_code.transcript:ClaudeCode",
    program_at="agentpager.agents.claude_code.probe:PROGRAM",
    sessions=Sessions(
        ".claude",
        "CLAUDE_CONFIG_DIR",
        ("projects/*/*.jsonl",),
        ignored="agent-*",
        project=lambda path: os.path.basename(os.path.dirname(path)),
    ),
    settings=(
        Setting(
            "line_format",
            "tab",
            '"tab" ({n}\\t{line}) or "arrow" ({n:>6}→{line})',
            'Claude Code\'s Read: "tab": {n}\\t{line} (2.1.123 on); "arrow": {n:>6}→{line} (1.0.x to 2.1.84)',
            _line_format,
        ),
        Setting(
            "reminder",
            False,
            "the reminder's text, or false for none",
            "Claude Code's Read: text appended to every result in a <system-reminder>, as some versions do",
            _reminder,
        ),
    ),
    volatile=(
        Volatile(
            "⟦tokens⟧",
            r"(?<=File content \()\d+(?= tokens\) exceeds maximum allowed tokens)",
            "counted by the API with Claude's tokenizer; the mock answers count_tokens with characters / 4",
            "File content (",
        ),
        Volatile(
            "⟦saved_to⟧",
            r"(?<=Full output saved to: )/\S+(?=\n)",
            "the file Claude Code 2.1 saved a large Bash output to: under its home, project and session directory",
            "Full output saved to: ",
        ),
        Volatile(
            "⟦tokens_left⟧",
            r"(?<=<total_tokens>)\d+(?= tokens left</total_tokens>)",
            "Claude Code's token budget countdown: a budget minus the tokens the API reported used so far "
            "(the mock reports 11), so only the model's server knows it.",
            "<total_tokens>",
        ),
    ),
)
