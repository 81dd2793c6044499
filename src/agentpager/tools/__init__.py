"""The agent file tools, one module per profile, exact to the contract in docs/TOOLS.md."""

from __future__ import annotations

import importlib

from agentpager.tools.base import Profile

_PROFILE_MODULES = {
    "qq": "agentpager.tools.qq",
    "forge": "agentpager.tools.forge",
    "crush": "agentpager.tools.crush",
    "vault": "agentpager.tools.vault",
    "claude-code": "agentpager.tools.claude_code",
    "codex": "agentpager.tools.codex",
}

PROFILE_NAMES = tuple(_PROFILE_MODULES)


def get_profile(name: str) -> Profile:
    """The profile called ``name``; ValueError naming the known ones otherwise."""
    module = _PROFILE_MODULES.get(name)
    if module is None:
        raise ValueError(f"Unknown profile '{name}'. Profiles: {', '.join(PROFILE_NAMES)}.")
    return importlib.import_module(module).PROFILE
