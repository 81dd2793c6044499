"""The Anthropic Messages API, streamed, as Claude Code speaks it (``POST /v1/messages?beta=true``).

The event sequence follows the API's streaming reference: ``message_start``, one content block
(``content_block_start``, ``content_block_delta``, ``content_block_stop``), ``message_delta`` with
the stop reason, ``message_stop``. A tool call's input arrives as ``input_json_delta`` text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agentpager.probe.mock import CALL_ID, Request, Response, Sections, ToolResult, sse

_USAGE = {"input_tokens": 10, "output_tokens": 1}


def _message_start(model: str) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_agentpager_probe",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": _USAGE,
        },
    }


def _stream(model: str, block: dict[str, Any], delta: dict[str, Any], stop_reason: str) -> Response:
    return sse(
        [
            ("message_start", _message_start(model)),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def _message(model: str, content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    return {
        "id": "msg_agentpager_probe",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _USAGE,
    }


def tool_result_text(content: Any, beside: Sequence[Any] = ()) -> str:
    """A ``tool_result``'s content as one text: a string as it is; blocks as their JSON.

    A single text block is unwrapped (the model reads the same text). Blocks the agent sends beside
    the result in the same message (Claude Code 2.0 and 2.1.84 put a PDF there as a ``document``)
    are part of the answer: then the result is the JSON list of the content's blocks and those.
    """
    if beside:
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        return json.dumps(blocks + list(beside), ensure_ascii=False)
    if isinstance(content, str):
        return content
    if isinstance(content, list) and len(content) == 1 and content[0].get("type") == "text":
        return str(content[0].get("text", ""))
    return json.dumps(content, ensure_ascii=False)


CHARS_PER_TOKEN = 4


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict):
        return [text for key, item in value.items() if key in ("text", "content") for text in _texts(item)]
    return []


def estimated_tokens(body: Any) -> int:
    """A stand-in for the API's token count: the messages' characters over four.

    Only Anthropic's servers count with Claude's tokenizer. Claude Code asks them before it returns a
    large Read, so a count that grows with the content keeps its limit working against the mock.
    """
    messages = body.get("messages") if isinstance(body, dict) else None
    return max(1, -(-sum(len(text) for text in _texts(messages)) // CHARS_PER_TOKEN))


class AnthropicMessages:
    """The ``Dialect`` of the Anthropic Messages API."""

    def is_model_turn(self, request: Request) -> bool:
        return request.method == "POST" and request.path.split("?")[0].endswith("/v1/messages")

    def offers_tools(self, body: Any) -> bool:
        return isinstance(body, dict) and bool(body.get("tools"))

    def offered_tools(self, body: Any) -> list[Any]:
        return list(body.get("tools") or [])

    def tool_result(self, body: Any) -> ToolResult | None:
        messages = body.get("messages") if isinstance(body, dict) else None
        for message in reversed(messages or []):
            content = message.get("content")
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            for index, block in enumerate(content):
                if block.get("type") == "tool_result" and block.get("tool_use_id") == CALL_ID:
                    # cache_control marks where the prompt cache ends: request plumbing, not content.
                    beside = [{k: v for k, v in b.items() if k != "cache_control"} for b in content[index + 1 :]]
                    text = tool_result_text(block.get("content", ""), beside)
                    return ToolResult(text, bool(block.get("is_error")))
        return None

    def tool_call(self, request: Request, tool: str, arguments: Mapping[str, Any], model: str) -> Response:
        body = request.json()
        if isinstance(body, dict) and not body.get("stream"):
            use = {"type": "tool_use", "id": CALL_ID, "name": tool, "input": dict(arguments)}
            return Response.of_json(_message(model, [use], "tool_use"))
        block = {"type": "tool_use", "id": CALL_ID, "name": tool, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)}
        return _stream(model, block, delta, "tool_use")

    def final_text(self, request: Request, text: str, model: str) -> Response:
        body = request.json()
        if isinstance(body, dict) and not body.get("stream"):
            return Response.of_json(_message(model, [{"type": "text", "text": text}], "end_turn"))
        return _stream(model, {"type": "text", "text": ""}, {"type": "text_delta", "text": text}, "end_turn")

    def sections(self, body: Any) -> Sections:
        body = body if isinstance(body, dict) else {}
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        return Sections(body.get("system"), list(body.get("tools") or []), [(str(m.get("role")), m) for m in messages])

    def other(self, request: Request) -> Response:
        path = request.path.split("?")[0]
        if path.endswith("/count_tokens"):
            return Response.of_json({"input_tokens": estimated_tokens(request.json())})
        if path.endswith("/v1/models"):
            return Response.of_json({"data": [], "has_more": False, "first_id": None, "last_id": None})
        return Response.of_json({})
