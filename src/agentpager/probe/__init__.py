"""The probe: a real agent run once against a mock of its model API on 127.0.0.1.

``probe(program, tool, arguments, root)`` returns the exact tool result the agent sends its model
(only for a call agentpager answers as a read, with the agent confined: ``read_only``, ``confinement``);
``find`` and ``install`` locate or install a version (npm, into the cache dir). What the probe needs
of an agent is its ``Program`` (``Agent.program()``); the API dialects are ``anthropic`` (Claude
Code's Messages), ``responses`` (Codex's OpenAI Responses) and ``gemini``. No Textual here.
Exports load lazily, so importing this package costs nothing until a name is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "AgentNotInstalled",
    "Cancelled",
    "Installed",
    "ProbeError",
    "ProbeResult",
    "Program",
    "Refused",
    "Unconfined",
    "find",
    "install",
    "install_hint",
    "probe",
]

if TYPE_CHECKING:
    from agentpager.probe.confinement import Unconfined
    from agentpager.probe.installation import AgentNotInstalled, Installed, find, install, install_hint
    from agentpager.probe.processes import Cancelled
    from agentpager.probe.program import Program
    from agentpager.probe.read_only import Refused
    from agentpager.probe.runner import ProbeError, ProbeResult, probe

_EXPORTS = {
    "AgentNotInstalled": "agentpager.probe.installation",
    "Cancelled": "agentpager.probe.processes",
    "Installed": "agentpager.probe.installation",
    "find": "agentpager.probe.installation",
    "install": "agentpager.probe.installation",
    "install_hint": "agentpager.probe.installation",
    "ProbeError": "agentpager.probe.runner",
    "ProbeResult": "agentpager.probe.runner",
    "Program": "agentpager.probe.program",
    "Refused": "agentpager.probe.read_only",
    "Unconfined": "agentpager.probe.confinement",
    "probe": "agentpager.probe.runner",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentpager.probe' has no attribute '{name}'")
    return getattr(importlib.import_module(module), name)
