"""agentpager: exactly what an LLM agent's file tools return, as an API, a CLI, an MCP server and a TUI.

Names are exported lazily so that ``import agentpager`` stays cheap for the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["ToolResult", "Workspace", "count_tokens"]

if TYPE_CHECKING:
    from agentpager.engine.tokens import count_tokens
    from agentpager.workspace import ToolResult, Workspace


def __getattr__(name: str) -> Any:
    if name in ("Workspace", "ToolResult"):
        from agentpager import workspace

        return getattr(workspace, name)
    if name == "count_tokens":
        from agentpager.engine.tokens import count_tokens

        return count_tokens
    raise AttributeError(f"module 'agentpager' has no attribute {name!r}")
