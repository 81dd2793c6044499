"""The agent file tools, one module per profile, exact to the contract in docs/TOOLS.md or to the real agent.

Each module listed here exports ``PROFILES``: its profiles, the default first (a module may add
variants such as an agent's older versions, named ``{name}@{version}``). The order is the order the
app lists them in, and the order in which they are asked to claim a recorded call (gemini-cli, which
claims only Gemini CLI's calls, before codex, whose ``read_file`` takes any call with its arguments).
"""

from __future__ import annotations

import functools
import importlib

from agentpager.tools.base import Profile

_MODULES = {
    "qq": "agentpager.tools.qq",
    "forge": "agentpager.tools.forge",
    "crush": "agentpager.tools.crush",
    "vault": "agentpager.tools.vault",
    "claude-code": "agentpager.tools.claude_code",
    "gemini-cli": "agentpager.tools.gemini_cli",
    "codex": "agentpager.tools.codex",
    "openhands": "agentpager.tools.openhands",
    "swe-agent": "agentpager.tools.swe_agent",
}


def _profiles_of(family: str) -> tuple[Profile, ...]:
    return tuple(importlib.import_module(_MODULES[family]).PROFILES)


@functools.cache
def all_profiles() -> tuple[Profile, ...]:
    """Every profile, variants included, in the registry's order."""
    return tuple(profile for family in _MODULES for profile in _profiles_of(family))


def profile_names() -> tuple[str, ...]:
    return tuple(profile.name for profile in all_profiles())


def get_profile(name: str) -> Profile:
    """The profile called ``name``; ValueError naming the known ones otherwise.

    Only the module that defines it is imported, so the command line stays fast.
    """
    family = name.split("@", 1)[0]
    if family in _MODULES:
        for profile in _profiles_of(family):
            if profile.name == name:
                return profile
    raise ValueError(f"Unknown profile '{name}'. Profiles: {', '.join(profile_names())}.")
