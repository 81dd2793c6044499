"""How the probe installs Gemini CLI and runs it against the mock (the Gemini API), ``@path`` references included."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentpager.agents.gemini_cli import AGENT
from agentpager.probe.gemini import GeminiAPI, parts_text
from agentpager.probe.mock import Request, ToolResult
from agentpager.probe.program import DUMMY_KEY, Launch, Program, PromptTool

MODEL = "gemini-2.5-pro"
"""The CLI's DEFAULT_GEMINI_MODEL (its own default, auto-gemini-2.5, routes through a classifier first)."""
REFERENCED_FILES = "\n--- Content from referenced files ---"


def launch(home: Path, url: str, model: str | None, prompt: str, tool: str, arguments: Mapping[str, Any]) -> Launch:
    """API-key auth chosen in ``~/.gemini/settings.json`` (the base URL alone selects a gateway it refuses).

    The workspace is not trusted (``GEMINI_CLI_TRUST_WORKSPACE=false``), so its ``.gemini/settings.json``
    (MCP servers, hooks, tools) is never merged and its ``.env`` gives no variable but auth ones;
    ``advanced.ignoreLocalEnv`` skips that ``.env`` too. Folder trust is off in the user settings, so
    ``-p`` does not stop at the untrusted folder (packages/core/src/utils/trust.ts ``checkPathTrust``,
    packages/cli/src/config/settings.ts ``mergeSettings``, ``loadEnvironment``). No YOLO: its
    read-only tools need no approval.
    """
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "advanced": {"ignoreLocalEnv": True},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "ide": {"enabled": False},
    }
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    return Launch(
        ["-p", prompt, "-m", model or MODEL],
        {
            "GEMINI_API_KEY": DUMMY_KEY,
            "GOOGLE_GEMINI_BASE_URL": url,
            "GEMINI_CLI_TRUST_WORKSPACE": "false",
            "GEMINI_CLI_NO_RELAUNCH": "true",
        },
    )


def _at_references(arguments: Mapping[str, Any]) -> str:
    include = arguments.get("include") or arguments.get("paths") or []
    if isinstance(include, str):
        include = [include]
    return " ".join(f"@{path}" for path in include)


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


PROGRAM = Program(
    AGENT.id,
    AGENT.title,
    "@google/gemini-cli",
    "gemini",
    MODEL,
    GeminiAPI,
    ("node_modules/@google/gemini-cli/bundle/gemini.js",),
    launch,
    {"read_many_files": PromptTool(_at_references, _referenced_files)},
    project_config=(".gemini",),
)
