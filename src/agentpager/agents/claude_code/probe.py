"""How the probe installs Claude Code and runs it against the mock (the Anthropic Messages API)."""

from __future__ import annotations

from pathlib import Path

from agentpager.agents.claude_code import AGENT
from agentpager.probe.anthropic import AnthropicMessages
from agentpager.probe.program import DUMMY_KEY, Launch, Program, npm_platform


def launch(home: Path, url: str, model: str | None, prompt: str) -> Launch:
    """``--allowedTools Bash``: in ``-p`` mode a Bash command otherwise waits for an approval nobody gives."""
    return Launch(
        ["-p", prompt, *(["--model", model] if model else []), "--allowedTools", "Bash"],
        {
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": DUMMY_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        },
    )


PROGRAM = Program(
    AGENT.id,
    AGENT.title,
    "@anthropic-ai/claude-code",
    "claude",
    None,
    AnthropicMessages,
    (
        # 2.1.x from about 2.1.100 on: a native binary in a per-platform package.
        f"node_modules/@anthropic-ai/claude-code-{npm_platform()}/claude",
        "node_modules/@anthropic-ai/claude-code/cli.js",
    ),
    launch,
)
