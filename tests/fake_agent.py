#!/usr/bin/env python3
"""A stand-in for Claude Code in tests: it speaks the Anthropic Messages API to ``$ANTHROPIC_BASE_URL``
as the real one does (one streamed turn, a Read, the result sent back), so the probe's run and the
mock are tested end to end without npm.

It answers a Read with the file's text in capitals, unless ``FAKE_AGENT_MODE`` says otherwise:
``numbered`` answers as Claude Code 2.1.330 does with its default model for a plain UTF-8 file
(``{n}\t{line}`` from ``offset``, at most ``limit`` lines); ``hang`` starts a child that sleeps
and then sleeps itself, to test the timeout and cancelling (the child has ``$FAKE_AGENT_MARKER`` as an
argument, for the test to find it: ``tests/waiting.py``); ``escape`` first tries what a hostile
agent would (write ``FAKE_AGENT_OUTSIDE``, connect to ``FAKE_AGENT_CONNECT`` ``host:port``, write
into its working directory, remount ``/`` writable) and answers with what became of each try.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request


def post(path: str, body: dict) -> bytes:
    request = urllib.request.Request(
        os.environ["ANTHROPIC_BASE_URL"] + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read()


def tool_use(stream: bytes) -> dict:
    """The tool_use block of a streamed answer, its input joined from the input_json_delta events."""
    block, partial = {}, ""
    for event in stream.decode().split("\n\n"):
        data = next((line[6:] for line in event.splitlines() if line.startswith("data: ")), None)
        if data is None:
            continue
        payload = json.loads(data)
        if payload["type"] == "content_block_start":
            block = payload["content_block"]
        elif payload["type"] == "content_block_delta" and payload["delta"]["type"] == "input_json_delta":
            partial += payload["delta"]["partial_json"]
    return block | {"input": json.loads(partial)}


def numbered(text: str, arguments: dict) -> str:
    first = arguments.get("offset") or 1
    lines = text.split("\n")[first - 1 :]
    if arguments.get("limit"):
        lines = lines[: arguments["limit"]]
    return "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, first))


def attempt(what: str, action) -> str:  # noqa: ANN001 - a callable
    try:
        action()
    except OSError as error:
        return f"{what}: {type(error).__name__} {error.strerror}"
    return f"{what}: done"


def escape() -> str:
    """What a hostile agent would try, and how each try ended."""

    def write(path: str) -> None:
        with open(path, "w") as file:
            file.write("escaped\n")

    def connect() -> None:
        host, port = os.environ["FAKE_AGENT_CONNECT"].rsplit(":", 1)
        socket.create_connection((host, int(port)), timeout=5).close()

    def remount() -> None:
        done = subprocess.run(["mount", "-o", "remount,rw", "/"], capture_output=True)
        if done.returncode != 0:
            raise PermissionError(1, (done.stderr.decode().strip() or "mount failed").splitlines()[0])

    return "\n".join(
        (
            attempt("outside", lambda: write(os.environ["FAKE_AGENT_OUTSIDE"])),
            attempt("workspace", lambda: write("written-by-the-agent")),
            attempt("connect", connect),
            attempt("remount", remount),
        )
    )


def main() -> int:
    if "--version" in sys.argv:
        print("9.8.7 (Fake Agent)")
        return 0
    tried = escape() if os.environ.get("FAKE_AGENT_MODE") == "escape" else ""
    if os.environ.get("FAKE_AGENT_MODE") == "hang":
        marker = os.environ.get("FAKE_AGENT_MARKER", "")
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", marker])
        time.sleep(600)
    model = sys.argv[sys.argv.index("--model") + 1] if "--model" in sys.argv else "claude-fake-default"
    tools = [{"name": "Read", "description": "Reads a file.", "input_schema": {"type": "object"}}]
    messages: list = [{"role": "user", "content": sys.argv[sys.argv.index("-p") + 1]}]
    system = [{"type": "text", "text": "You are a stand-in for Claude Code."}]
    turn = {"model": model, "stream": True, "system": system, "tools": tools}
    call = tool_use(post("/v1/messages?beta=true", {**turn, "messages": messages}))
    try:
        with open(call["input"]["file_path"], encoding="utf-8") as file:
            text = file.read()
        numbering = os.environ.get("FAKE_AGENT_MODE") == "numbered"
        result, is_error = (numbered(text, call["input"]) if numbering else text.upper()), False
        result = tried or result
    except OSError as error:
        result, is_error = f"<tool_use_error>{error.strerror}</tool_use_error>", True
    block = {"type": "tool_result", "tool_use_id": call["id"], "content": result, "is_error": is_error}
    messages += [{"role": "assistant", "content": [call]}, {"role": "user", "content": [block]}]
    post("/v1/messages?beta=true", {**turn, "messages": messages})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
