"""The tools over MCP (stdio), answering exactly what Workspace.call answers.

Install with ``pip install 'agentpager[mcp]'``; run with ``agentpager mcp``.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent
from mcp_types import Tool as MCPTool

from agentpager.workspace import Workspace

INSTRUCTIONS = (
    "File tools that read a workspace in windows; their outputs say how to read on "
    "(the next start_line, offset or byte range)."
)


class ToolServer(MCPServer):
    """An MCP server whose tools are one profile's, with the names, descriptions and JSON Schemas
    of ``agentpager schema``.

    Arguments go to Workspace.call as they come: the contract answers bad ones with its own texts,
    which MCPServer's ``@tool`` would replace with pydantic's validation errors.
    """

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(name="agentpager", instructions=INSTRUCTIONS)
        self.workspace = workspace

    async def list_tools(self) -> list[MCPTool]:
        return [
            MCPTool(name=tool["name"], description=tool["description"], input_schema=tool["input_schema"])
            for tool in self.workspace.tools()
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
        result = await anyio.to_thread.run_sync(self.workspace.call, name, arguments)
        return CallToolResult(content=[TextContent(type="text", text=result.text)], is_error=result.is_error)


def serve(workspace: Workspace) -> None:
    """Serve over stdin and stdout until the client goes away; logs go to stderr."""
    logging.basicConfig(level=logging.WARNING, format="agentpager mcp: %(levelname)s %(message)s")
    ToolServer(workspace).run("stdio")
