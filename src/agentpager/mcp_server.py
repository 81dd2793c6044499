"""The tools over MCP (stdio), answering exactly what Workspace.call answers.

Install with ``pip install 'agentpager[mcp]'``; run with ``agentpager mcp``.

The SDK's stdio transport drops a line it cannot read (a lone surrogate, a batch, a request with no
``method``, ``params`` that is not an object, deep nesting, a number of 5,000 digits) without an
answer or a log, and the client waits for ever. Here each line is read by ``read_message``: every
request with an id gets an answer (a JSON-RPC error when it cannot be served), a notification
that cannot be read is logged, and nothing a client sends stops the server.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any, BinaryIO

import anyio
import pydantic
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    JSONRPCMessage,
    TextContent,
    jsonrpc_message_adapter,
)
from mcp_types import Tool as MCPTool

from agentpager import __version__
from agentpager.workspace import Workspace

INSTRUCTIONS = (
    "File tools that read a workspace in windows; their outputs say how to read on "
    "(the next start_line, offset or byte range)."
)
MAX_LINE_BYTES = 16 << 20
"""A longer request is refused (its arguments are paths and numbers): it would be held whole."""
MAX_DEPTH = 64
"""Deeper nesting is refused: Python's JSON parser recurses (100,000 levels: RecursionError)."""
_logger = logging.getLogger("agentpager.mcp")


class ToolServer(MCPServer):
    """An MCP server whose tools are one profile's, with the names, descriptions and JSON Schemas
    of ``agentpager schema``.

    Arguments go to Workspace.call as they come: the contract answers bad ones with its own texts,
    which MCPServer's ``@tool`` would replace with pydantic's validation errors.
    """

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(name="agentpager", version=__version__, instructions=INSTRUCTIONS)
        self.workspace = workspace

    async def list_tools(self) -> list[MCPTool]:
        return [
            MCPTool(name=tool["name"], description=tool["description"], input_schema=tool["input_schema"])
            for tool in self.workspace.tools()
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
        result = await anyio.to_thread.run_sync(self.workspace.call, name, arguments)
        return CallToolResult(content=[TextContent(type="text", text=result.text)], is_error=result.is_error)

    async def run_stdio_async(self) -> None:
        """Serve stdin and stdout, each line read by ``read_message`` (not the SDK's transport)."""
        with _standard_streams_claimed() as (wire_in, wire_out):
            await serve_lines(self, _lines(wire_in), _writer(wire_out))


def serve(workspace: Workspace) -> None:
    """Serve over stdin and stdout until the client goes away; logs go to stderr."""
    logging.basicConfig(level=logging.WARNING, format="agentpager mcp: %(levelname)s %(message)s")
    ToolServer(workspace).run("stdio")


# -- a line of the wire ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Refused:
    """A line that is not a message the server can take."""

    problem: str
    """What is wrong, for the log."""
    answer: str | None
    """The JSON-RPC error (or, for a batch, the array of them) to send back; None for a notification."""


def read_message(data: bytes) -> JSONRPCMessage | Refused | None:
    """One line of the wire (UTF-8, bad bytes replaced, as the SDK reads it) as a message, or why it
    cannot be one and the answer that says so; None for a blank line."""
    line = data[: MAX_LINE_BYTES + 1].decode("utf-8", "replace").rstrip("\r\n")
    if len(data) > MAX_LINE_BYTES:
        return _refused(_outline(line)[1], INVALID_REQUEST, f"longer than {MAX_LINE_BYTES:,} bytes")
    if not line.strip():
        return None
    deepest, raw_id = _outline(line)
    if deepest > MAX_DEPTH:
        return _refused(raw_id, PARSE_ERROR, f"nested deeper than {MAX_DEPTH} levels")
    try:
        value = json.loads(line)
    except RecursionError:
        return _refused(raw_id, PARSE_ERROR, f"nested deeper than {MAX_DEPTH} levels")
    except ValueError as error:  # not JSON, or an integer of more than 4,300 digits
        return _refused(raw_id, PARSE_ERROR, str(error).split(";")[0])
    if isinstance(value, list):
        return _batch(value)
    if not isinstance(value, dict):
        return _refused("null", INVALID_REQUEST, "not a JSON object")
    raw_id = _id_text(value["id"]) if "id" in value else None
    surrogate = next(_lone_surrogates(value), None)
    if surrogate is not None:
        code = INVALID_PARAMS if surrogate == "params" else INVALID_REQUEST
        return _refused(raw_id, code, f"a string in {surrogate} holds a lone surrogate")
    if "method" not in value and not {"result", "error"} & value.keys():
        return _refused(raw_id, INVALID_REQUEST, "no method")
    if value.get("params") is not None and not isinstance(value["params"], dict):
        return _refused(raw_id, INVALID_REQUEST, "params must be an object")
    try:
        return jsonrpc_message_adapter.validate_python(value, by_name=False)
    except pydantic.ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or "the message"
        return _refused(raw_id, INVALID_REQUEST, f"{where}: {first['msg']}")


_MESSAGES = {
    PARSE_ERROR: "Parse error",
    INVALID_REQUEST: "Invalid Request",
    INVALID_PARAMS: "Invalid params",
    INTERNAL_ERROR: "Internal error",
}


def _error(raw_id: str, code: int, reason: str) -> str:
    message = f"{_MESSAGES[code]}: {reason}"
    return f'{{"jsonrpc":"2.0","id":{raw_id},"error":{{"code":{code},"message":{json.dumps(message)}}}}}'


def _refused(raw_id: str | None, code: int, reason: str) -> Refused:
    """``raw_id``: the request's id as sent (JSON text), ``null`` when it cannot be told, None for a
    notification (no answer)."""
    return Refused(f"{_MESSAGES[code]}: {reason}", None if raw_id is None else _error(raw_id, code, reason))


def _batch(elements: list[Any]) -> Refused:
    """JSON-RPC batches are not part of MCP (2025-06-18 removed them): each request is answered so."""
    reason = "batches are not supported"
    ids = [_id_text(element["id"]) for element in elements if isinstance(element, dict) and "id" in element]
    answer = "[" + ",".join(_error(raw_id, INVALID_REQUEST, reason) for raw_id in ids) + "]" if ids else None
    return Refused(f"Invalid Request: {reason}", answer)


def _id_text(value: Any) -> str:
    """An id as JSON text: a string or an integer, else ``null`` (it cannot be echoed)."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return json.dumps(value)
    return "null"


_STRUCTURE = re.compile(r'"|[\[{]+|[\]}]+|[:,]')
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _outline(line: str) -> tuple[int, str | None]:
    """How deep the line's JSON nests, and its top-level ``id`` as sent (JSON text: ``null`` when it
    is not a string or an integer; None when there is none), without parsing it: a line Python cannot
    parse (too deep, a number too long) is still answered with its id. Linear in the line, a run of
    brackets at a time."""
    depth = deepest = 0
    raw_id: str | None = None
    key: str | None = None
    next_is_key = False
    value_start = position = 0
    while (found := _STRUCTURE.search(line, position)) is not None:
        token, position = found.group(), found.end()
        if token == '"':
            try:
                text, position = scanstring(line, position)
            except ValueError:
                break
            if depth == 1 and next_is_key:
                key, next_is_key = text, False
        elif token[0] in "[{":
            next_is_key = depth == 0 and token == "{"
            depth += len(token)
            deepest = max(deepest, depth)
        elif depth == 1 and token == ":":
            value_start = position
        elif depth == 1 and token == ",":
            raw_id = _raw_id(line, key, value_start, found.start(), raw_id)
            key, next_is_key = None, True
        elif token[0] in "]}":
            if depth - len(token) <= 0:  # the run closes the outermost value: its last member ends here
                raw_id = _raw_id(line, key, value_start, found.end() - 1, raw_id)
            depth = max(0, depth - len(token))
    return deepest, raw_id


def _raw_id(line: str, key: str | None, start: int, end: int, found: str | None) -> str | None:
    """The member that ends at ``end``, as an id, if its name is ``id``; else what was ``found``."""
    if key != "id":
        return found
    text = line[start:end].strip()
    return text if text.startswith('"') or _INTEGER.fullmatch(text) else "null"


def _lone_surrogates(value: Any, where: str = "the message") -> Iterator[str]:
    """Where a string or a name holds a lone surrogate (``params``, or the message): valid JSON
    (``"\\ud800"``) that no file name or text can hold."""
    pending = [(value, where)]
    while pending:
        item, place = pending.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                yield place
        elif isinstance(item, dict):
            for name, member in item.items():
                inner = "params" if place == "the message" and name == "params" else place
                pending += [(name, inner), (member, inner)]
        elif isinstance(item, list):
            pending += [(element, place) for element in item]


# -- the wire ---------------------------------------------------------------------------------------


async def serve_lines(server: MCPServer, lines: AsyncIterator[bytes], write: Callable[[str], Awaitable[None]]) -> None:
    """Run ``server`` on JSON-RPC lines: ``read_message`` reads each, ``write`` sends each answer."""
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage](0)

    async def read() -> None:
        async with to_server:
            async for line in lines:
                try:  # in a thread: a long line does not hold up the answers to others
                    message = await anyio.to_thread.run_sync(read_message, line)
                except Exception:  # a bug here must cost one answer, not the server
                    _logger.exception("could not read a message")
                    raw_id = _outline(line[:MAX_LINE_BYTES].decode("utf-8", "replace"))[1]
                    message = _refused(raw_id, INTERNAL_ERROR, "the message could not be read")
                if message is None:
                    continue
                if isinstance(message, Refused):
                    _logger.warning("refused a message: %s", message.problem)
                    if message.answer is not None:
                        await write(message.answer)
                else:
                    await to_server.send(SessionMessage(message))

    async def answer() -> None:
        async with from_server:
            async for sent in from_server:
                try:
                    text = sent.message.model_dump_json(by_alias=True, exclude_unset=True)
                except Exception:  # an answer that cannot be written as JSON still answers its request
                    _logger.exception("could not write an answer")
                    text = _error(_id_text(getattr(sent.message, "id", None)), INTERNAL_ERROR, "no answer")
                await write(text)

    lowlevel = server._lowlevel_server
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        tasks.start_soon(answer)
        async with to_client:
            await lowlevel.run(from_client, to_client, lowlevel.create_initialization_options())


@contextmanager
def _standard_streams_claimed() -> Iterator[tuple[int, int]]:
    """The wire's descriptors, while fd 0 reads the null device and fd 1 writes to stderr: a library
    that prints, or a child that reads stdin, cannot corrupt the stream (as the SDK's transport does)."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        sys.stdout.flush()
        os.dup2(null, 0)
        os.dup2(2, 1)
        yield wire_in, wire_out
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        for fd in (null, wire_in, wire_out):
            os.close(fd)


async def _lines(fd: int) -> AsyncIterator[bytes]:
    """The lines read from ``fd``; one longer than MAX_LINE_BYTES is cut just past it (the rest skipped)."""
    stream: BinaryIO = os.fdopen(fd, "rb", closefd=False)
    while line := await anyio.to_thread.run_sync(stream.readline, MAX_LINE_BYTES + 1):
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while (rest := await anyio.to_thread.run_sync(stream.readline, 1 << 20)) and not rest.endswith(b"\n"):
                pass
        yield line


def _writer(fd: int) -> Callable[[str], Awaitable[None]]:
    """Writes one answer a line to ``fd``, whole: answers from the server and refusals never interleave."""
    lock = anyio.Lock()

    def write_all(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]

    async def write(text: str) -> None:
        async with lock:
            await anyio.to_thread.run_sync(write_all, (text + "\n").encode("utf-8", "replace"))

    return write
