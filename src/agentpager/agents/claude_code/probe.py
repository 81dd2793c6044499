"""How the probe installs Claude Code and runs it against the mock (the Anthropic Messages API)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentpager.agents.claude_code import AGENT
from agentpager.probe.anthropic import AnthropicMessages
from agentpager.probe.program import DUMMY_KEY, Launch, Program, npm_platform

WRITING_TOOLS = "Write,Edit,NotebookEdit"


def launch(home: Path, url: str, model: str | None, prompt: str, tool: str, arguments: Mapping[str, Any]) -> Launch:
    """Its permission rules allow the one Bash command asked for (in ``-p`` mode a command otherwise
    waits for an approval nobody gives) and deny the tools that write; only the user settings (the
    temporary home's) are read, and no MCP server but those given (none): a workspace's
    ``.claude/settings*.json`` hooks and ``.mcp.json`` servers never load (Claude Code's
    ``--setting-sources`` and ``--strict-mcp-config``, in every version probed)."""
    allowed = ["--allowedTools", f"Bash({arguments['command']})"] if tool == "Bash" and "command" in arguments else []
    return Launch(
        [
            "-p",
            prompt,
            *(["--model", model] if model else []),
            "--setting-sources",
            "user",
            "--strict-mcp-config",
            "--disallowedTools",
            WRITING_TOOLS,
            *allowed,
        ],
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
    project_config=(".claude", ".mcp.json"),
)
