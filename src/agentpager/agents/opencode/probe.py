"""How the probe installs OpenCode and runs it against the mock, offline, with no project config.

``opencode run --pure -m agentpager/MODEL PROMPT`` in the workspace, with a fresh temporary home and
``OPENCODE_CONFIG_CONTENT`` naming one provider, ``agentpager``: ``@ai-sdk/openai-compatible`` (bundled
in the binary, never installed) with ``baseURL`` the mock. Followed from OpenCode 1.18.33's code (the
JavaScript its Bun binary embeds: its flags, the config loader and the config directories, the
models.dev client, the npm installer, ``session/instruction.ts``, ``file/ripgrep.ts``), and measured
with every proxy variable pointing at a closed port and a logging proxy in its place:

- models.dev: it fetches ``https://models.opencode.ai/api.json`` at start and every hour;
  ``OPENCODE_DISABLE_MODELS_FETCH=1`` stops that (the provider's model is in the config).
- npm: it installs ``@opencode-ai/plugin`` into every config directory (``~/.config/opencode``) in the
  background, unless that directory has ``node_modules`` and a ``package-lock.json`` that lists it;
  both are written into the temporary home.
- ripgrep: ``rg`` on PATH, else ``~/.cache/opencode/bin/rg``, else a download of 15.1.0 from GitHub
  (offline, grep and glob then fail).
- updates, sharing, LSP servers (which it would download), formatters, snapshots: off in the config
  and ``OPENCODE_DISABLE_AUTOUPDATE``, ``OPENCODE_DISABLE_LSP_DOWNLOAD``.

Project config never applies: ``OPENCODE_DISABLE_PROJECT_CONFIG=1`` skips the workspace's
``opencode.json``/``opencode.jsonc``, its ``.opencode/`` directories (agents, commands, plugins, custom
tools, which are code it would run) and the ``AGENTS.md``/``CLAUDE.md``/``CONTEXT.md`` it would put in
the system prompt; ``--pure`` loads no external plugin, ``OPENCODE_DISABLE_EXTERNAL_SKILLS`` no skill
from ``.claude/`` or ``.agents/``; ``mcp`` is empty. What stays is the read tool's own behaviour: an
``AGENTS.md`` (or ``CLAUDE.md``, ``CONTEXT.md``) in a directory between the file read and the
workspace root is appended to the result as a ``<system-reminder>`` (it is text, not config). The
probe's confinement also covers those config files and directories in the workspace and above it
(``project_config``), so they could not load even if the variable stopped working.

In ``run`` mode a permission that would be asked (``external_directory``, a path outside the
workspace) is refused at once: the call fails and the run stops without sending the result to the
model. The session store has it, as it has whether any call failed (the Chat Completions wire does
not say): ``outcome`` reads both from the temporary home's session store.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentpager.agents.opencode import AGENT
from agentpager.agents.opencode.chat import CHAT_CALL_ID, OpenAIChat
from agentpager.agents.opencode.sessions import export, stored_sessions
from agentpager.probe.mock import ToolResult
from agentpager.probe.program import DUMMY_KEY, Launch, Program, npm_platform

PACKAGE = "opencode-ai"
EXECUTABLE = "opencode"
PROVIDER = "agentpager"
DEFAULT_MODEL = "agentpager-mock"
"""The model the probe's provider offers. OpenCode chooses its system prompt (and, for ``gpt-5``
and ``claude`` ids, some tools) by the model id; this one gets its default prompt and tools, and
the file tools answer the same whatever the model."""
PLUGIN_PACKAGE = "@opencode-ai/plugin"


_PLATFORM = npm_platform().replace("win32", "windows")
"""The platform as OpenCode names its per-platform packages (``opencode-linux-x64``, ``opencode-windows-x64``)."""
ENTRY_POINTS = (
    # The package's postinstall copies the platform's binary here (npm may skip it: then the next).
    "node_modules/opencode-ai/bin/opencode.exe",
    f"node_modules/opencode-{_PLATFORM}/bin/opencode",
    f"node_modules/opencode-{_PLATFORM}-baseline/bin/opencode",
)
"""Paths in an npm prefix: the native binary (a Bun executable, about 180 MB)."""


def config(url: str, model: str) -> dict[str, object]:
    """The whole configuration: the mock as the only provider, everything that reaches out off."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "model": f"{PROVIDER}/{model}",
        "small_model": f"{PROVIDER}/{model}",
        "provider": {
            PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "agentpager mock",
                "options": {"baseURL": f"{url}/v1", "apiKey": DUMMY_KEY},
                "models": {model: {"name": model, "tool_call": True}},
            }
        },
        "autoupdate": False,
        "share": "disabled",
        "snapshot": False,
        "lsp": False,
        "formatter": False,
        "mcp": {},
        "plugin": [],
        "permission": {"edit": "deny", "bash": "deny"},
    }


def launch(home: Path, url: str, model: str | None, prompt: str, tool: str, arguments: Mapping[str, Any]) -> Launch:
    """The arguments after the executable and the environment; writes the plugin's lock into ``home``.
    Its permission rules deny the tools that write (``edit``: edit, write, apply_patch) and ``bash``,
    so the model is not offered them; the probe sends only ``read``, ``glob`` and ``grep`` calls."""
    model = model or DEFAULT_MODEL
    settings = home / ".config" / "opencode"
    (settings / "node_modules").mkdir(parents=True, exist_ok=True)
    lock = {"lockfileVersion": 3, "packages": {"": {"dependencies": {PLUGIN_PACKAGE: "*"}}}}
    (settings / "package-lock.json").write_text(json.dumps(lock))
    env = {
        "OPENCODE_CONFIG_CONTENT": json.dumps(config(url, model)),
        "OPENCODE_DISABLE_PROJECT_CONFIG": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
        "OPENCODE_DISABLE_SHARE": "1",
    }
    return Launch(["run", "--pure", "-m", f"{PROVIDER}/{model}", prompt], env)


def outcome(home: Path, sent: ToolResult | None) -> ToolResult | None:
    """The result as the session store in ``home`` has it: the text the model received (``sent``), or
    the store's own when none was sent, and whether the call failed (a tool part in ``error`` state)."""
    for stored in stored_sessions(str(home)):
        for message in export(stored)["messages"]:
            for part in message["parts"]:
                state = part.get("state")
                if part.get("callID") != CHAT_CALL_ID or not isinstance(state, dict):
                    continue
                failed = state.get("status") == "error"
                text = sent.text if sent is not None else str(state.get("error" if failed else "output", ""))
                return ToolResult(text, failed)
    return sent


PROGRAM = Program(
    AGENT.id,
    AGENT.title,
    PACKAGE,
    EXECUTABLE,
    DEFAULT_MODEL,
    OpenAIChat,
    ENTRY_POINTS,
    launch,
    project_config=(".opencode", "opencode.json", "opencode.jsonc"),
    outcome=outcome,
)
