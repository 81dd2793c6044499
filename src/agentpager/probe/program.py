"""What the probe must know of an agent's program: its npm package, how to start it against the mock, its API.

Each agent's package says it in its ``probe.py`` (``agentpager.agents.<id>.probe.PROGRAM``). The program
runs non-interactively in a fresh temporary home, pointed at the mock on 127.0.0.1 with a dummy key, its
telemetry, update checks and other side traffic turned off.
"""

from __future__ import annotations

import platform
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentpager.probe.mock import Dialect, Request, ToolResult

PROMPT = "Use the tool you are given."
DUMMY_KEY = "agentpager-offline-dummy-key"


@dataclass(frozen=True)
class Launch:
    """The arguments after the executable, and the environment variables the agent needs."""

    arguments: list[str]
    env: dict[str, str]


@dataclass(frozen=True)
class PromptTool:
    """A tool the agent runs on the user's prompt itself (Gemini CLI's ``@file`` references).

    ``prompt`` turns the tool's arguments into a prompt; ``result`` finds the tool's answer in the
    first model request.
    """

    prompt: Callable[[Mapping[str, Any]], str]
    result: Callable[[Request, str], ToolResult | None]


@dataclass(frozen=True)
class Program:
    """An agent's program as the probe installs and runs it."""

    agent: str
    """The agent's id (``claude-code``): installed versions are kept as ``<id>@<version>``."""
    title: str
    """Its name for people: ``Claude Code``."""
    package: str
    """The npm package."""
    executable: str
    """Its name on PATH."""
    default_model: str | None
    """The model the agent is told to use unless the caller names one (None: the agent's own default)."""
    dialect: Callable[[], Dialect]
    entry_points: tuple[str, ...]
    """Paths in an npm prefix, the first that exists wins; a ``.js`` file runs with node."""
    launch: Callable[[Path, str, str | None, str, str, Mapping[str, Any]], Launch]
    """``launch(home, mock_url, model, prompt, tool, arguments)``: writes any config into ``home``;
    the agent's own permissions allow the one call (``tool`` with ``arguments``) and no write."""
    prompt_tools: Mapping[str, PromptTool] = field(default_factory=dict)
    project_config: tuple[str, ...] = ()
    """Names of the files and directories the agent reads its config from in a project (the
    workspace and the directories above it): hidden from it when probed, so that a workspace's hooks,
    MCP servers or settings never run. Instructions (``CLAUDE.md``, ``AGENTS.md``) are not config."""
    outcome: Callable[[Path, ToolResult | None], ToolResult | None] | None = None
    """For an agent whose API does not say whether a call failed: ``outcome(home, sent)``, the result as
    the agent's own records in ``home`` have it once it exited: the text it sent (``sent``; its own
    when it ended the run without sending one) and whether the call failed. None: the API says."""


def npm_platform() -> str:
    """The platform as npm names its per-platform packages (``linux-x64``)."""
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}.get(platform.system(), "linux")
    machine = {"x86_64": "x64", "AMD64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), "x64")
    return f"{system}-{machine}"
