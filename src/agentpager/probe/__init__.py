"""The probe's parts: what it takes to run a real agent once against a mock of its model API on 127.0.0.1.

``find`` and ``install`` locate or install a version (npm, into the cache dir); ``confinement`` runs
it in namespaces of its own. What the probe needs of an agent is its ``Program`` (``Agent.program()``);
the API dialects are ``anthropic`` (Claude Code's Messages), ``responses`` (Codex's OpenAI Responses)
and ``gemini``. The run itself, which reads the agents' profiles and logs, lies above the agents.
No Textual here. Exports load lazily, so importing this package costs nothing until a name is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "AgentNotInstalled",
    "Cancelled",
    "Installed",
    "Program",
    "Unconfined",
    "find",
    "install",
    "install_hint",
]

if TYPE_CHECKING:
    from agentpager.probe.confinement import Unconfined
    from agentpager.probe.installation import AgentNotInstalled, Installed, find, install, install_hint
    from agentpager.probe.processes import Cancelled
    from agentpager.probe.program import Program

_EXPORTS = {
    "AgentNotInstalled": "agentpager.probe.installation",
    "Cancelled": "agentpager.probe.processes",
    "Installed": "agentpager.probe.installation",
    "find": "agentpager.probe.installation",
    "install": "agentpager.probe.installation",
    "install_hint": "agentpager.probe.installation",
    "Program": "agentpager.probe.program",
    "Unconfined": "agentpager.probe.confinement",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentpager.probe' has no attribute '{name}'")
    return getattr(importlib.import_module(module), name)
