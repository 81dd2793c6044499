"""The real agents on call: each runs once against a mock of its model API on 127.0.0.1.

``probe(agent, tool, arguments, root)`` returns the exact tool result the agent sends its model;
``find`` and ``install`` locate or install a version (npm, into the cache dir); ``compare`` (in
``volatile``) sets a profile's answer against the agent's. No Textual here.
Exports load lazily, so importing this package costs nothing until a name is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "AGENT_NAMES",
    "AgentNotInstalled",
    "Cancelled",
    "Installed",
    "ProbeError",
    "ProbeResult",
    "find",
    "install",
    "install_hint",
    "probe",
]

if TYPE_CHECKING:
    from agentpager.agents.catalog import AGENT_NAMES
    from agentpager.agents.installation import AgentNotInstalled, Installed, find, install, install_hint
    from agentpager.agents.processes import Cancelled
    from agentpager.agents.runner import ProbeError, ProbeResult, probe

_EXPORTS = {
    "AGENT_NAMES": "agentpager.agents.catalog",
    "AgentNotInstalled": "agentpager.agents.installation",
    "Cancelled": "agentpager.agents.processes",
    "Installed": "agentpager.agents.installation",
    "find": "agentpager.agents.installation",
    "install": "agentpager.agents.installation",
    "install_hint": "agentpager.agents.installation",
    "ProbeError": "agentpager.agents.runner",
    "ProbeResult": "agentpager.agents.runner",
    "probe": "agentpager.agents.runner",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentpager.agents' has no attribute '{name}'")
    return getattr(importlib.import_module(module), name)
