"""How the probe installs Codex and runs it against the mock (a custom provider speaking the OpenAI Responses API)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentpager.agents.codex import AGENT
from agentpager.probe.program import DUMMY_KEY, Launch, Program
from agentpager.probe.responses import OpenAIResponses

MODEL = "gpt-5.5"
"""A model in Codex's catalog that is offered ``exec_command`` as a function (its newest models get a
JavaScript code-mode ``exec`` tool instead)."""


def launch(home: Path, url: str, model: str | None, prompt: str, tool: str, arguments: Mapping[str, Any]) -> Launch:
    """A custom model provider in ``$CODEX_HOME/config.toml`` speaking the Responses API to the mock;
    commands run in Codex's read-only sandbox (``-s read-only``: no write, no network). A workspace's
    ``.codex/config.toml`` loads only for a project the user config trusts (none here:
    codex-rs/core/src/config_loader/mod.rs, ``load_project_layers``), and its ``.codex/`` is hidden."""
    codex_home = home / ".codex"
    codex_home.mkdir(exist_ok=True)
    (codex_home / "config.toml").write_text(
        f'model = "{model or MODEL}"\n'
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
            "--sandbox",
            "read-only",
            "-m",
            model or MODEL,
            prompt,
        ],
        {"CODEX_HOME": str(codex_home), "AGENTPAGER_MOCK_KEY": DUMMY_KEY},
    )


PROGRAM = Program(
    AGENT.id,
    AGENT.title,
    "@openai/codex",
    "codex",
    MODEL,
    OpenAIResponses,
    ("node_modules/@openai/codex/bin/codex.js",),
    launch,
    project_config=(".codex",),
)
