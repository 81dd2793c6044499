"""The OpenAI Chat Completions API, streamed, as OpenCode's ``@ai-sdk/openai-compatible`` provider speaks it.

``POST {baseURL}/chat/completions`` with ``"stream": true`` and ``stream_options.include_usage``.
Each chunk is a ``chat.completion.chunk`` on one ``data:`` line, the stream ends with
``data: [DONE]``. A tool call comes as ``delta.tool_calls`` (the first chunk names the call and its
function, the next carries the arguments' JSON), then ``finish_reason: "tool_calls"`` and a chunk
with the usage and no choices. The result comes back as the next request's message
``{"role": "tool", "tool_call_id": ..., "content": ...}``: a string (the AI SDK's
``convertToOpenAICompatibleChatMessages`` writes an error's text the same way, so the wire does not
say whether the call failed). Side requests without tools (OpenCode's title generation) get a text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentpager.probe.mock import CALL_ID, Request, Response, Sections, ToolResult, sse

CHAT_CALL_ID = "call_" + CALL_ID.removeprefix("toolu_")
_USAGE = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
_CREATED = 1767225600


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-agentpager-probe",
        "object": "chat.completion.chunk",
        "created": _CREATED,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _stream(model: str, deltas: list[dict[str, Any]], finish: str) -> Response:
    usage = {**_chunk(model, {}), "choices": [], "usage": _USAGE}
    chunks: list[Any] = [_chunk(model, delta) for delta in deltas]
    return sse([(None, chunk) for chunk in [*chunks, _chunk(model, {}, finish), usage, "[DONE]"]])


def content_text(content: Any) -> str:
    """A tool message's content as one text: a string as it is, text parts joined, else its JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in content):
        return "".join(str(part.get("text", "")) for part in content)
    return json.dumps(content, ensure_ascii=False)


class OpenAIChat:
    """The ``Dialect`` of the OpenAI Chat Completions API."""

    def is_model_turn(self, request: Request) -> bool:
        return request.method == "POST" and request.path.split("?")[0].endswith("/chat/completions")

    def offers_tools(self, body: Any) -> bool:
        return isinstance(body, dict) and bool(body.get("tools"))

    def offered_tools(self, body: Any) -> list[Any]:
        """The functions offered, each as ``{"name", "description", "parameters"}``."""
        return [tool.get("function", tool) for tool in body.get("tools") or [] if isinstance(tool, dict)]

    def tool_result(self, body: Any) -> ToolResult | None:
        messages = body.get("messages") if isinstance(body, dict) else None
        for message in reversed(messages if isinstance(messages, list) else []):
            if (
                isinstance(message, dict)
                and message.get("role") == "tool"
                and message.get("tool_call_id") == CHAT_CALL_ID
            ):
                return ToolResult(content_text(message.get("content")), False)
        return None

    def tool_call(self, request: Request, tool: str, arguments: Mapping[str, Any], model: str) -> Response:
        call = {"index": 0, "id": CHAT_CALL_ID, "type": "function", "function": {"name": tool, "arguments": ""}}
        more = {"index": 0, "function": {"arguments": json.dumps(dict(arguments))}}
        return _stream(
            model,
            [{"role": "assistant", "content": None, "tool_calls": [call]}, {"tool_calls": [more]}],
            "tool_calls",
        )

    def final_text(self, request: Request, text: str, model: str) -> Response:
        body = request.json()
        if isinstance(body, dict) and not body.get("stream"):
            return Response.of_json(
                {
                    "id": "chatcmpl-agentpager-probe",
                    "object": "chat.completion",
                    "created": _CREATED,
                    "model": model,
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                    "usage": _USAGE,
                }
            )
        return _stream(model, [{"role": "assistant", "content": text}], "stop")

    def sections(self, body: Any) -> Sections:
        """The system prompt is the ``system`` messages that open ``messages`` (OpenCode 1.18.33 sends
        its prompt and environment as such); the tools as offered, each ``{"type": "function", ...}``."""
        body = body if isinstance(body, dict) else {}
        messages = body.get("messages")
        messages = [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
        opening = 0
        while opening < len(messages) and messages[opening].get("role") == "system":
            opening += 1
        system = [content_text(message.get("content")) for message in messages[:opening]]
        return Sections(
            "\n\n".join(system) if system else None,
            list(body.get("tools") or []),
            [(str(message.get("role")), message) for message in messages[opening:]],
        )

    def other(self, request: Request) -> Response:
        if request.path.split("?")[0].endswith("/models"):
            return Response.of_json({"object": "list", "data": []})
        return Response.of_json({})
