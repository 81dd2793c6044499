"""The real agents agentpager can run: their npm package, how to start one against the mock, and its API.

Each agent runs non-interactively in a fresh temporary home, pointed at the mock on 127.0.0.1 with
a dummy key, its telemetry, update checks and other side traffic turned off.
"""

from __future__ import annotations

import json
import platform
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentpager.agents.anthropic import AnthropicMessages
from agentpager.agents.gemini import GeminiAPI, parts_text
from agentpager.agents.mock import Dialect, Request, ToolResult
from agentpager.agents.responses import OpenAIResponses
from agentpager.agents.volatile import Volatile

PROMPT = "Use the tool you are given."
CODEX_MODEL = "gpt-5.5"
"""A model in Codex's catalog that is offered ``exec_command`` as a function (its newest models get a
JavaScript code-mode ``exec`` tool instead)."""
GEMINI_MODEL = "gemini-2.5-pro"
"""The CLI's DEFAULT_GEMINI_MODEL (its own default, auto-gemini-2.5, routes through a classifier first)."""
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
class Agent:
    name: str
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
    launch: Callable[[Path, str, str | None, str], Launch]
    """``launch(home, mock_url, model, prompt)``: writes any config into ``home``."""
    prompt_tools: Mapping[str, PromptTool] = field(default_factory=dict)
    volatile: tuple[Volatile, ...] = ()
    """The parts of its answers that change from run to run (not counted when answers are compared)."""


def _platform() -> str:
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}.get(platform.system(), "linux")
    machine = {"x86_64": "x64", "AMD64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), "x64")
    return f"{system}-{machine}"


def _claude_code(home: Path, url: str, model: str | None, prompt: str) -> Launch:
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


def _codex(home: Path, url: str, model: str | None, prompt: str) -> Launch:
    """A custom model provider in ``$CODEX_HOME/config.toml`` speaking the Responses API to the mock."""
    codex_home = home / ".codex"
    codex_home.mkdir(exist_ok=True)
    (codex_home / "config.toml").write_text(
        f'model = "{model or CODEX_MODEL}"\n'
        'model_provider = "agentpager_mock"\n'
        "check_for_update_on_startup = false\n"
        "[analytics]\nenabled = false\n"
        "[feedback]\nenabled = false\n"
        "[model_providers.agentpager_mock]\n"
        'name = "agentpager mock"\n'
        f'base_url = "{url}/v1"\n'
        'env_key = "AGENTPAGER_MOCK_KEY"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
    )
    return Launch(
        [
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "-m",
            model or CODEX_MODEL,
            prompt,
        ],
        {"CODEX_HOME": str(codex_home), "AGENTPAGER_MOCK_KEY": DUMMY_KEY},
    )


def _gemini_cli(home: Path, url: str, model: str | None, prompt: str) -> Launch:
    """API-key auth chosen in ``~/.gemini/settings.json`` (the base URL alone selects a gateway it refuses)."""
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "ide": {"enabled": False},
    }
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    return Launch(
        ["-p", prompt, "-m", model or GEMINI_MODEL],
        {
            "GEMINI_API_KEY": DUMMY_KEY,
            "GOOGLE_GEMINI_BASE_URL": url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_CLI_NO_RELAUNCH": "true",
        },
    )


def _at_references(arguments: Mapping[str, Any]) -> str:
    include = arguments.get("include") or arguments.get("paths") or []
    if isinstance(include, str):
        include = [include]
    return " ".join(f"@{path}" for path in include)


REFERENCED_FILES = "\n--- Content from referenced files ---"


def _referenced_files(request: Request, prompt: str) -> ToolResult | None:
    """What the CLI added to the first user message for the ``@`` references: the parts from its
    "--- Content from referenced files ---" on (empty when it read none). The prompt itself may
    come back rewritten (``@dir`` as ``@dir/**``), so it is not what is looked for."""
    body = request.json()
    contents = body.get("contents") if isinstance(body, dict) else None
    if not contents:
        return None
    parts = [part for content in contents if content.get("role") == "user" for part in content.get("parts") or []]
    starts = [n for n, part in enumerate(parts) if part.get("text") == REFERENCED_FILES]
    return ToolResult(parts_text(parts[starts[0] :]) if starts else "", False)


AGENTS: dict[str, Agent] = {
    agent.name: agent
    for agent in (
        Agent(
            "claude-code",
            "Claude Code",
            "@anthropic-ai/claude-code",
            "claude",
            None,
            AnthropicMessages,
            (
                # 2.1.x from about 2.1.100 on: a native binary in a per-platform package.
                f"node_modules/@anthropic-ai/claude-code-{_platform()}/claude",
                "node_modules/@anthropic-ai/claude-code/cli.js",
            ),
            _claude_code,
            volatile=(
                Volatile(
                    "⟦tokens⟧",
                    r"(?<=File content \()\d+(?= tokens\) exceeds maximum allowed tokens)",
                    "counted by the API with Claude's tokenizer; the mock answers count_tokens with characters / 4",
                ),
                Volatile(
                    "⟦saved_to⟧",
                    r"(?<=Full output saved to: )/\S+(?=\n)",
                    "the file Claude Code 2.1 saved a large Bash output to: under its home, project and session "
                    "directory",
                ),
                Volatile(
                    "⟦tokens_left⟧",
                    r"(?<=<total_tokens>)\d+(?= tokens left</total_tokens>)",
                    "Claude Code's token budget countdown: a budget minus the tokens the API reported used so far "
                    "(the mock reports 11), so only the model's server knows it.",
                ),
            ),
        ),
        Agent(
            "codex",
            "Codex",
            "@openai/codex",
            "codex",
            CODEX_MODEL,
            OpenAIResponses,
            ("node_modules/@openai/codex/bin/codex.js",),
            _codex,
            volatile=(
                Volatile("⟦chunk_id⟧", r"(?<=^Chunk ID: )[0-9a-f]+$", "a random id per output chunk"),
                Volatile(
                    "⟦wall_time⟧",
                    r"(?<=^Wall time: )\d+(?:\.\d+)?(?= seconds$)",
                    "how long the command took (0.60: to 0.1 s, 0 for none)",
                ),
                Volatile(
                    "⟦duration⟧",
                    r'(?<="duration_seconds":)\d+\.\d+(?=})',
                    "how long the command took, in 0.60's JSON answers",
                ),
            ),
        ),
        Agent(
            "gemini-cli",
            "Gemini CLI",
            "@google/gemini-cli",
            "gemini",
            GEMINI_MODEL,
            GeminiAPI,
            ("node_modules/@google/gemini-cli/bundle/gemini.js",),
            _gemini_cli,
            {"read_many_files": PromptTool(_at_references, _referenced_files)},
        ),
    )
}
AGENT_NAMES = tuple(AGENTS)


def get_agent(name: str) -> Agent:
    agent = AGENTS.get(name)
    if agent is None:
        raise ValueError(f"Unknown agent '{name}'. Agents: {', '.join(AGENT_NAMES)}.")
    return agent
