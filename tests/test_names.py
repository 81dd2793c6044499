"""File names that are not UTF-8, and arguments with lone surrogates: every output is printable UTF-8.

A name's undecodable bytes show as U+FFFD wherever a name reaches an output (listings, display paths,
echoed arguments); the Python API takes the name as Python gives it (surrogate escapes) and reads it.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG

from agentpager import Workspace

BAD = b"\xff\xfe_bad.txt"
SHOWN = "\ufffd\ufffd_bad.txt"


@pytest.fixture
def named(root: Path) -> Path:
    (root / "a.txt").write_text("a\n")
    with open(os.path.join(os.fsencode(root), BAD), "w") as file:
        file.write("bad\n")
    return root


def test_api_outputs_show_undecodable_bytes_as_replacement_characters(named: Path) -> None:
    workspace = Workspace(named)
    assert workspace.call("list_files").text == f"a.txt\n{SHOWN}"
    assert workspace.call("count_files", {"pattern": "*bad*"}).text.endswith(
        "Total files in directory: 1\n\nBy extension:\n  .txt: 1"
    )
    read = workspace.call("read_file", {"path": os.fsdecode(BAD)})
    assert read.text.startswith(f"[File: {SHOWN} | Lines 1-1 of 1]\n") and "\nbad\n" in read.text
    assert workspace.call("read_file", {"path": "\ud800.txt"}).text == "Error: File '\ufffd.txt' does not exist."
    unknown = Workspace(named).call("read_file", {"\udcff": 1}).text
    assert unknown == "Error: Unknown argument '\ufffd'. Valid arguments: path, start_line, num_lines."
    forge = json.loads(Workspace(named, "forge").call("fs_read", {"path": os.fsdecode(BAD)}).text)
    assert forge["path"] == SHOWN


def run_cli(root: Path, *arguments: str) -> bytes:
    return subprocess.run(
        [sys.executable, "-m", "agentpager", "call", "--root", str(root), *arguments],
        capture_output=True,
        check=False,
    ).stdout


def test_the_command_line_writes_valid_utf8(named: Path) -> None:
    assert run_cli(named, "list_files") == f"a.txt\n{SHOWN}".encode()
    read = run_cli(named, "read_file", '{"path": "\\udcff\\udcfe_bad.txt"}')
    assert read.decode("utf-8").startswith(f"[File: {SHOWN} | Lines 1-1 of 1]\n")


class StdioServer:
    """``agentpager mcp`` in a child process, spoken to line by line."""

    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "agentpager", "mcp", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,  # unbuffered: a second answer read ahead into a buffer would be unseen by select
        )

    def send(self, message: dict | bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def answer(self, timeout: float = HANG) -> dict:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        assert ready, "no answer: " + self.stop()
        line = self.process.stdout.readline()
        assert line, "the server stopped: " + self.stop()
        return json.loads(line.decode("utf-8"))  # strict: a surrogate would not decode

    def call(self, number: int, tool: str, arguments: dict) -> dict:
        self.send(
            {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
        )
        return self.answer()

    def stop(self) -> str:
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(HANG)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode("utf-8", "replace")[-2000:]


def test_the_mcp_server_answers_a_bad_name_and_outlives_bad_requests(named: Path) -> None:
    pytest.importorskip("mcp")
    server = StdioServer(named)
    try:
        server.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        )
        assert server.answer()["id"] == 1
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = server.call(2, "list_files", {})
        assert listed["result"]["content"][0]["text"] == f"a.txt\n{SHOWN}"
        # Lines the SDK cannot parse: each with an id is answered with an error (a line with no id
        # to be read, nothing), and the server goes on.
        server.send(
            b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"\\udcff"}}}\n'
        )
        assert server.answer() == {
            "jsonrpc": "2.0",
            "id": 3,
            "error": {"code": -32602, "message": "Invalid params: a string in params holds a lone surrogate"},
        }
        server.send(b"\xff\xfe not JSON at all\n")
        server.send(b'{"jsonrpc": "2.0", "id": 4, "method": \n')
        parse_error = server.answer()
        assert (parse_error["id"], parse_error["error"]["code"]) == (4, -32700)
        missing = server.call(5, "read_file", {"path": SHOWN})
        assert missing["id"] == 5
        assert missing["result"]["content"][0]["text"] == f"Error: File '{SHOWN}' does not exist."
        assert server.call(6, "nope", {"x": 5})["result"]["isError"] is True
        server.send({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
        assert [tool["name"] for tool in server.answer()["result"]["tools"]] == [
            "read_file",
            "list_files",
            "count_files",
        ]
    finally:
        server.stop()
