"""Every profile: the contract's four (``agentpager.tools``), then each agent's (``agentpager.agents``).

A profile's name is its family's, ``{family}@{version}`` for an agent's older versions, and an
agent's family is its id. Only the module that defines a profile is imported to find it, so the
command line stays fast (a contract profile imports no agent at all).
"""

from __future__ import annotations

import functools
import importlib

from agentpager.tools import CONTRACT_PROFILES
from agentpager.tools.base import Profile


def _contract(family: str) -> tuple[Profile, ...]:
    return tuple(importlib.import_module(CONTRACT_PROFILES[family]).PROFILES)


@functools.cache
def all_profiles() -> tuple[Profile, ...]:
    """Every profile, variants included, in the order the app lists them."""
    from agentpager.agents import AGENTS

    return (
        *(profile for family in CONTRACT_PROFILES for profile in _contract(family)),
        *(profile for agent in AGENTS for profile in agent.profiles()),
    )


def profile_names() -> tuple[str, ...]:
    return tuple(profile.name for profile in all_profiles())


def get_profile(name: str) -> Profile:
    """The profile called ``name``; ValueError naming the known ones otherwise."""
    family = name.split("@", 1)[0]
    if family in CONTRACT_PROFILES:
        profiles = _contract(family)
    else:
        from agentpager.agents import find_agent

        agent = find_agent(family)
        profiles = () if agent is None else agent.profiles()
    found = next((profile for profile in profiles if profile.name == name), None)
    if found is None:
        raise ValueError(f"Unknown profile '{name}'. Profiles: {', '.join(profile_names())}.")
    return found
