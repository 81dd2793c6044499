"""The MCP server: the same tools, schemas and outputs as Workspace.call, in-process and over stdio."""

from __future__ import annotations

import json
import select
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402
from samples import png_bytes  # noqa: E402
from waiting import HANG  # noqa: E402

import agentpager  # noqa: E402
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
        timeout=HANG,
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


INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
)
LIST = '{"jsonrpc":"2.0","id":99,"method":"tools/list"}'
DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE = [
    (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"\\ud800"}}}',
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: a string in params holds a lone '
        'surrogate"}}',
    ),
    (
        '[{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x"}]',
        '[{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request: batches are not supported"}}]',
    ),
    (
        '{"jsonrpc":"2.0","id":3}',
        '{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request: no method"}}',
    ),
    (
        '{"jsonrpc":"2.0","id":"four","method":"tools/list","params":"x"}',
        '{"jsonrpc":"2.0","id":"four","error":{"code":-32600,"message":"Invalid Request: params must be an object"}}',
    ),
    (
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":{"path":'
        + DEEP
        + "}}}",
        '{"jsonrpc":"2.0","id":5,"error":{"code":-32700,"message":"Parse error: nested deeper than 64 levels"}}',
    ),
    (
        '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt","start_line":'
        + "9" * 5000
        + '}},"id":6}',
        '{"jsonrpc":"2.0","id":6,"error":{"code":-32700,"message":"Parse error: Exceeds the limit (4300 digits) for '
        'integer string conversion: value has 5000 digits"}}',
    ),
    (
        '{"jsonrpc":"2.0","id":' + "7" * 5000 + ',"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":' + "7" * 5000 + ',"error":{"code":-32700,"message":"Parse error: Exceeds the limit '
        '(4300 digits) for integer string conversion: value has 5000 digits"}}',
    ),
    (
        '{"jsonrpc":"2.0","id":8,',
        '{"jsonrpc":"2.0","id":8,"error":{"code":-32700,"message":"Parse error: Expecting property name enclosed in '
        'double quotes: line 1 column 25 (char 24)"}}',
    ),
    ('{"jsonrpc":"2.0","method":"tools/list","params":"x"}', None),  # a notification: logged, not answered
    (
        '{"jsonrpc":"1.0","id":9.5,"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: jsonrpc: Input should be '
        "'2.0'\"}}",
    ),
]


def check_answers(answers: list[str]) -> None:
    """The answer to each hostile line, in order, and the server's to initialize and the tools
    list (written as they are ready, so anywhere among the others): the server went on."""
    results = {json.loads(answer)["id"]: json.loads(answer)["result"] for answer in answers if '"result":' in answer}
    assert [answer for answer in answers if '"result":' not in answer] == [a for _, a in HOSTILE if a is not None]
    assert results.keys() == {0, 99}
    assert results[0]["serverInfo"] == {"name": "agentpager", "version": agentpager.__version__}
    assert [tool["name"] for tool in results[99]["tools"]] == ["read_file", "list_files", "count_files"]


async def test_every_request_with_an_id_is_answered_in_process(tree: Path) -> None:
    """Lines the SDK's transport dropped without a word (the client waited for ever), as the server
    reads them: each request gets its JSON-RPC error, echoing its id as sent."""
    from agentpager.mcp_server import serve_lines

    expected = sum(answer is not None for _, answer in HOSTILE) + 2
    answers: list[str] = []
    all_in = anyio.Event()

    async def lines():  # noqa: ANN202 - stays open until the answers are in, as a client does
        for line in [INITIALIZE, *(line for line, _ in HOSTILE), LIST]:
            yield (line + "\n").encode()
        with anyio.fail_after(60):
            await all_in.wait()

    async def write(text: str) -> None:
        answers.append(text)
        if len(answers) == expected:
            all_in.set()

    await serve_lines(ToolServer(Workspace(tree)), lines(), write)
    check_answers(answers)


def test_every_request_with_an_id_is_answered_over_stdio(tree: Path) -> None:
    """The same over a real pipe (stdin stays open until the answers are in: at its end the SDK
    cancels the requests in flight)."""
    expected = sum(answer is not None for _, answer in HOSTILE) + 2
    server = subprocess.Popen(
        [sys.executable, "-m", "agentpager", "mcp", "--root", str(tree)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,  # unbuffered: answers read ahead into a buffer would be unseen by select (a flake)
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write("".join(line + "\n" for line in [INITIALIZE, *(line for line, _ in HOSTILE), LIST]).encode())
        server.stdin.flush()
        answers = []
        deadline = time.monotonic() + 300  # only against a hang
        while len(answers) < expected and select.select([server.stdout], [], [], deadline - time.monotonic())[0]:
            answers.append(server.stdout.readline().decode().rstrip("\n"))
        server.stdin.close()
        assert server.wait(timeout=120) == 0
    finally:
        server.kill()
    check_answers(answers)
    assert server.stderr is not None
    logged = server.stderr.read().decode().splitlines()
    assert logged[0] == (
        "agentpager mcp: WARNING refused a message: Invalid params: a string in params holds a lone surrogate"
    )
    assert len(logged) == len(HOSTILE)


def test_a_line_past_the_limit_is_refused_with_its_id(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentpager import mcp_server

    monkeypatch.setattr(mcp_server, "MAX_LINE_BYTES", 40)
    refused = mcp_server.read_message(b'{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"x":"' + b"a" * 99)
    assert refused == mcp_server.Refused(
        "Invalid Request: longer than 40 bytes",
        '{"jsonrpc":"2.0","id":12,"error":{"code":-32600,"message":"Invalid Request: longer than 40 bytes"}}',
    )
    assert mcp_server.read_message(b"  \r\n") is None
