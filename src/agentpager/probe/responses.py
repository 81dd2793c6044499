"""The OpenAI Responses API, streamed, as the Codex CLI speaks it (``POST {base_url}/responses``).

Events as the API's streaming reference lists them: ``response.created``, the function call item
(``response.output_item.added``, ``response.function_call_arguments.delta`` and ``.done``,
``response.output_item.done``), then ``response.completed`` with the usage. Codex takes the item
from ``response.output_item.done`` and ends the turn at ``response.completed``; a stream that closes
before it is an error (openai/codex, codex-rs/codex-api/src/sse/responses.rs, ``process_sse``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentpager.probe.mock import CALL_ID, Request, Response, Sections, ToolResult, sse

RESPONSE_ID = "resp_agentpager_probe"
ITEM_ID = "fc_agentpager_probe"
RESPONSES_CALL_ID = "call_" + CALL_ID.removeprefix("toolu_")
_USAGE = {
    "input_tokens": 10,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 1,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 11,
}


def _response(model: str, status: str, output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": RESPONSE_ID,
        "object": "response",
        "created_at": 1767225600,
        "status": status,
        "model": model,
        "output": output,
        **({"usage": _USAGE} if status == "completed" else {}),
    }


def _stream(model: str, item: dict[str, Any], deltas: list[tuple[str, dict[str, Any]]]) -> Response:
    started = {**item, "status": "in_progress"} | ({"arguments": ""} if "arguments" in item else {})
    started = started | ({"content": []} if "content" in item else {})
    return sse(
        [
            (
                "response.created",
                {"type": "response.created", "sequence_number": 0, "response": _response(model, "in_progress", [])},
            ),
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": started},
            ),
            *[(name, {"type": name, "sequence_number": 2 + n, **data}) for n, (name, data) in enumerate(deltas)],
            (
                "response.output_item.done",
                {
                    "type": "response.output_item.done",
                    "sequence_number": 2 + len(deltas),
                    "output_index": 0,
                    "item": item,
                },
            ),
            (
                "response.completed",
                {
                    "type": "response.completed",
                    "sequence_number": 3 + len(deltas),
                    "response": _response(model, "completed", [item]),
                },
            ),
        ]
    )


def output_text(output: Any) -> str:
    """A ``function_call_output``'s output as one text: a string as it is; content items as their JSON.

    A list holding one ``input_text`` item is unwrapped: the model reads the same text.
    """
    if isinstance(output, str):
        return output
    if isinstance(output, list) and len(output) == 1 and output[0].get("type") == "input_text":
        return str(output[0].get("text", ""))
    return json.dumps(output, ensure_ascii=False)


def _content(item: dict[str, Any]) -> list[dict[str, Any]]:
    content = item.get("content")
    if isinstance(content, str):
        return [{"text": content}]
    return [part for part in content or [] if isinstance(part, dict)] if isinstance(content, list) else []


class OpenAIResponses:
    """The ``Dialect`` of the OpenAI Responses API."""

    def is_model_turn(self, request: Request) -> bool:
        return request.method == "POST" and request.path.split("?")[0].endswith("/responses")

    def offers_tools(self, body: Any) -> bool:
        return isinstance(body, dict) and bool(body.get("tools"))

    def offered_tools(self, body: Any) -> list[Any]:
        return list(body.get("tools") or [])

    def tool_result(self, body: Any) -> ToolResult | None:
        items = body.get("input") if isinstance(body, dict) else None
        for item in reversed(items if isinstance(items, list) else []):
            if item.get("call_id") == RESPONSES_CALL_ID and str(item.get("type", "")).endswith("_output"):
                output = item.get("output", "")
                if isinstance(output, dict):  # {"content": ..., "success": ...} in some versions
                    return ToolResult(output_text(output.get("content", "")), output.get("success") is False)
                return ToolResult(output_text(output), False)
        return None

    def tool_call(self, request: Request, tool: str, arguments: Mapping[str, Any], model: str) -> Response:
        text = json.dumps(arguments)
        item = {
            "type": "function_call",
            "id": ITEM_ID,
            "call_id": RESPONSES_CALL_ID,
            "name": tool,
            "arguments": text,
            "status": "completed",
        }
        where = {"item_id": ITEM_ID, "output_index": 0}
        return _stream(
            model,
            item,
            [
                ("response.function_call_arguments.delta", {**where, "delta": text}),
                ("response.function_call_arguments.done", {**where, "arguments": text}),
            ],
        )

    def final_text(self, request: Request, text: str, model: str) -> Response:
        item = {
            "type": "message",
            "id": "msg_agentpager_probe",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        where = {"item_id": "msg_agentpager_probe", "output_index": 0, "content_index": 0}
        return _stream(
            model,
            item,
            [
                ("response.output_text.delta", {**where, "delta": text}),
                ("response.output_text.done", {**where, "text": text}),
            ],
        )

    def sections(self, body: Any) -> Sections:
        """The system prompt is ``instructions`` and the ``developer`` (or ``system``) messages that
        open ``input``: Codex 0.169.0 sends its whole prompt as such messages."""
        body = body if isinstance(body, dict) else {}
        items = body.get("input")
        items = [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []
        opening = 0
        while opening < len(items) and items[opening].get("role") in ("developer", "system"):
            opening += 1
        system = [text for text in [body.get("instructions")] if isinstance(text, str) and text]
        system += [part.get("text", "") for item in items[:opening] for part in _content(item)]
        return Sections(
            "\n\n".join(system) if system else None,
            list(body.get("tools") or []),
            [(str(i.get("role") or i.get("type")), i) for i in items[opening:]],
        )

    def other(self, request: Request) -> Response:
        if request.path.split("?")[0].endswith("/models"):
            return Response.of_json({"object": "list", "data": [], "models": []})
        return Response.of_json({})
