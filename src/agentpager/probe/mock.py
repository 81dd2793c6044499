"""A mock model API on 127.0.0.1: one tool call out, the agent's tool result recorded, then "done".

The server knows nothing of any API's shape: a ``Dialect`` (one per agent's API) says which
requests are model turns, how to stream a tool call and a final text, and where a request carries
the tool result. Everything else the agent asks for gets a small JSON answer, so nothing stalls.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

CALL_ID = "toolu_agentpager_probe_01"
"""The id of the one tool call the mock makes (each dialect adapts it to its API's id shape)."""
FINAL_TEXT = "Done."


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    """The path with its query string, as sent."""
    body: bytes

    def json(self) -> Any:
        """The body as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None


@dataclass(frozen=True)
class Response:
    body: bytes
    content_type: str = "application/json"
    status: int = 200

    @classmethod
    def of_json(cls, value: Any, status: int = 200) -> Response:
        return cls(json.dumps(value).encode(), "application/json", status)


def sse(events: Iterable[tuple[str | None, Any]]) -> Response:
    """A ``text/event-stream`` body: ``event: NAME`` (when named) and ``data: JSON``, a blank line after each."""
    chunks = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
        chunks.append(f"{head}data: {payload}\n\n")
    return Response("".join(chunks).encode(), "text/event-stream")


@dataclass(frozen=True)
class ToolResult:
    """What the agent sent back for the mock's tool call: the model's view of it."""

    text: str
    is_error: bool


class Dialect(Protocol):
    """One model API, as much of it as a single tool call needs."""

    def is_model_turn(self, request: Request) -> bool:
        """Whether the request asks the model for its next turn (the requests worth answering with a call)."""
        ...

    def offers_tools(self, body: Any) -> bool:
        """Whether a model turn offers tools (a main turn, not a side query such as a title)."""
        ...

    def offered_tools(self, body: Any) -> list[Any]:
        """The tool definitions the request offers the model."""
        ...

    def tool_result(self, body: Any) -> ToolResult | None:
        """The result of the mock's call, when this request carries it."""
        ...

    def tool_call(self, request: Request, tool: str, arguments: Mapping[str, Any], model: str) -> Response:
        """The reply that makes the model call ``tool`` with ``arguments``."""
        ...

    def final_text(self, request: Request, text: str, model: str) -> Response:
        """A reply with a final text and no tool call, so the agent stops."""
        ...

    def other(self, request: Request) -> Response:
        """An answer for any request that is not a model turn (token counts, model lists, GETs)."""
        ...

    def sections(self, body: Any) -> Sections:
        """A model request's parts: its system prompt, its tool definitions, its messages."""
        ...


@dataclass(frozen=True)
class Sections:
    """What a model request is made of, whatever the API's names for it."""

    system: Any
    """The system prompt (a text, or the API's blocks of it); None when there is none."""
    tools: list[Any]
    """The tool definitions offered."""
    messages: list[tuple[str, Any]]
    """Each message (or input item) with its role (or kind), in order."""


@dataclass
class Recording:
    """What the mock saw: every request, the tools offered, and the tool result with its request."""

    requests: list[Request] = field(default_factory=list)
    offered_tools: list[Any] = field(default_factory=list)
    result: ToolResult | None = None
    result_request: Request | None = None
    done: threading.Event = field(default_factory=threading.Event)


class MockServer:
    """A threaded HTTP server on 127.0.0.1 (a free port) that speaks ``dialect``.

    Use as a context manager; ``url`` is ``http://127.0.0.1:PORT``. The first model turn that offers
    tools is answered with the call of ``tool`` (streamed as ``model``, else as the model asked for;
    ``None``: no call at all); the request carrying its result is recorded and answered with a final
    text, as is every other model turn. ``port`` 0 is any free one.
    """

    def __init__(
        self, dialect: Dialect, tool: str | None, arguments: Mapping[str, Any], model: str, port: int = 0
    ) -> None:
        self.dialect = dialect
        self.tool = tool
        self.arguments = dict(arguments)
        self.model = model
        self.recording = Recording()
        self._called = False
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="agentpager-mock", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> MockServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, request: Request) -> Response:
        """The reply to one request (the HTTP handler's whole job, callable without a socket)."""
        with self._lock:
            self.recording.requests.append(request)
        if not self.dialect.is_model_turn(request):
            return self.dialect.other(request)
        body = request.json()
        result = self.dialect.tool_result(body)
        model = self.model or (body.get("model") if isinstance(body, dict) else None) or "model"
        with self._lock:
            if result is not None and self.recording.result is None:
                self.recording.result, self.recording.result_request = result, request
                self.recording.done.set()
                return self.dialect.final_text(request, FINAL_TEXT, model)
            if self._called or not self.dialect.offers_tools(body):
                return self.dialect.final_text(request, FINAL_TEXT, model)
            self._called = True
            self.recording.offered_tools = self.dialect.offered_tools(body)
            if self.tool is None:
                return self.dialect.final_text(request, FINAL_TEXT, model)
        return self.dialect.tool_call(request, self.tool, self.arguments, model)


def _handler_for(mock: MockServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            body = self._body()
            response = mock.answer(Request(self.command, self.path, body))
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
            self.end_headers()
            self.wfile.write(response.body)

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                chunks = []
                while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
                while self.rfile.readline().strip():  # trailers
                    pass
                return b"".join(chunks)
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _serve

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the agent's output is the report
            pass

    return Handler
