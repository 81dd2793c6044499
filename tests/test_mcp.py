"""The MCP server: the same tools, schemas and outputs as Workspace.call, in-process and over stdio."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402
from samples import png_bytes  # noqa: E402

from agentpager import Workspace  # noqa: E402
from agentpager.mcp_server import ToolServer  # noqa: E402
from agentpager.profiles import profile_names  # noqa: E402

CALLS = {
    "read_file": [
        {"path": "a.txt"},
        {"path": "a.txt", "start_line": "2"},
        {"path": "nope"},
        {"path": "img.png"},
        {"path": "a.txt", "offset": 3, "length": 2},
        {"file_path": "a.txt", "offset": 2},
        {"file_path": "a.txt", "start_line": 2, "end_line": 2},
        {"file_path": "img.png"},
        {},
    ],
    "list_directory": [{"dir_path": "."}, {"dir_path": ".", "ignore": ["*.png"]}, {"dir_path": "nope"}],
    "read_many_files": [{"include": ["a.txt", "sub"]}, {"include": "a.txt"}],
    "list_files": [{}, {"limit": 1}, {"pattern": "(", "use_regex": True}],
    "count_files": [{"recursive": True}],
    "fs_read": [{"path": "a.txt", "start_byte": 1, "end_byte": 4}, {"path": "a.txt", "start_byte": -1}],
    "file_read": [{"filename": "a.txt"}, {"filename": "a.txt", "start_line": 2, "end_line": 1}],
    "Read": [{"file_path": "a.txt"}, {"file_path": "a.txt", "offset": 2, "limit": 1}, {"file_path": "sub"}],
    "file_editor": [
        {"command": "view", "path": "a.txt", "view_range": [2, -1]},
        {"command": "view", "path": "sub"},
        {"command": "create", "path": "b.txt"},
    ],
    "open": [{"path": "a.txt", "line_number": 2}, {"path": "nope"}],
    "goto": [{"line_number": 3}, {"line_number": 9}],
    "scroll_up": [{}],
    "scroll_down": [{}],
    "Bash": [{"command": "cat a.txt"}, {"command": "cat nope"}, {"command": "npm test"}],
    "exec_command": [{"cmd": "sed -n '1,2p' a.txt"}, {"cmd": "make"}, {"cmd": "cat a.txt", "tty": True}],
    "shell_command": [{"command": "cat a.txt", "workdir": "sub"}, {"command": "nl -ba a.txt"}],
    "shell": [{"command": ["cat", "a.txt"]}, {"command": "cat a.txt"}],
    "read": [{"filePath": "a.txt", "offset": 2, "limit": 1}, {"filePath": "sub"}, {"filePath": "nope"}],
    "glob": [{"pattern": "*.txt"}, {"pattern": "*", "path": "a.txt"}],
    "grep": [{"pattern": "a", "include": "*.txt"}, {"pattern": "("}],
}


@pytest.fixture
def tree(root: Path) -> Path:
    (root / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (root / "img.png").write_bytes(png_bytes())
    (root / "sub").mkdir()
    return root


@pytest.mark.parametrize("profile", profile_names())
async def test_every_tool_answers_as_workspace_call(tree: Path, profile: str) -> None:
    workspace = Workspace(tree, profile)
    reference = Workspace(tree, profile)  # makes the same calls, so that state kept between calls matches
    schema = subprocess.run(
        [sys.executable, "-m", "agentpager", "schema", "--profile", profile, "--format", "mcp"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    async with Client(ToolServer(workspace)) as client:
        listed = (await client.list_tools()).tools
        assert [{"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in listed] == (
            json.loads(schema)
        )
        for tool in workspace.tools():
            for arguments in CALLS[tool["name"]]:
                expected = reference.call(tool["name"], arguments)
                answer = await client.call_tool(tool["name"], arguments)
                assert [block.text for block in answer.content] == [expected.text], (tool["name"], arguments)
                assert answer.is_error == expected.is_error


async def test_unknown_tool_is_an_error_result(tree: Path) -> None:
    async with Client(ToolServer(Workspace(tree))) as client:
        answer = await client.call_tool("rm_rf", {})
    assert answer.is_error
    assert answer.content[0].text == "Error: Unknown tool 'rm_rf'. Tools: read_file, list_files, count_files."


async def test_the_stdio_server_as_a_subprocess(tree: Path) -> None:
    server = StdioServerParameters(command=sys.executable, args=["-m", "agentpager", "mcp", "--root", str(tree)])
    async with Client(server) as client:
        answer = await client.call_tool("read_file", {"path": "a.txt", "start_line": 2})
        names = [tool.name for tool in (await client.list_tools()).tools]
    assert names == ["read_file", "list_files", "count_files"]
    assert answer.content[0].text == Workspace(tree).call("read_file", {"path": "a.txt", "start_line": 2}).text
    assert not answer.is_error
