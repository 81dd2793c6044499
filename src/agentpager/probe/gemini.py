"""The Gemini API as the Gemini CLI speaks it: ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``.

Each streamed chunk is a ``GenerateContentResponse`` on one ``data:`` line (no event names); a tool
call is a ``functionCall`` part and its result comes back as a ``functionResponse`` part of the
next request's last ``user`` content. Side queries the CLI makes with ``:generateContent`` (its
next-speaker and routing checks ask for JSON) get a JSON text that says the user speaks next.
The CLI sends its requests there when ``GOOGLE_GEMINI_BASE_URL`` is set (google-gemini/gemini-cli,
packages/core/src/core/contentGenerator.ts); ``@path`` references are read into the first user
message under "--- Content from referenced files ---" (packages/cli/src/ui/hooks/atCommandProcessor.ts).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentpager.probe.mock import CALL_ID, Request, Response, Sections, ToolResult, sse

GEMINI_CALL_ID = CALL_ID.removeprefix("toolu_")
_USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}
_SIDE_ANSWER = json.dumps(
    {
        "next_speaker": "user",
        "reasoning": "The task is done.",
        "model_choice": "flash",
        "complexity_reasoning": "simple",
    }
)


def _chunk(model: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": _USAGE,
        "modelVersion": model,
    }


def _answer(request: Request, model: str, parts: list[dict[str, Any]]) -> Response:
    if ":streamGenerateContent" in request.path:
        return sse([(None, _chunk(model, parts))])
    return Response.of_json(_chunk(model, parts))


def function_response_text(parts: list[dict[str, Any]]) -> str:
    """What the model reads of a tool's answer: its ``output`` (or ``error``) text when that is all
    there is, else the parts (the ``functionResponse`` and any sent with it) as JSON."""
    if len(parts) == 1:
        response = parts[0].get("functionResponse", {}).get("response")
        if isinstance(response, dict) and len(response) == 1:
            (value,) = response.values()
            if set(response) <= {"output", "error"} and isinstance(value, str):
                return value
    return json.dumps(parts, ensure_ascii=False)


def parts_text(parts: list[dict[str, Any]]) -> str:
    """Parts as the model reads them: their texts joined, or the parts as JSON when one is not text."""
    if all(set(part) == {"text"} for part in parts):
        return "".join(part["text"] for part in parts)
    return json.dumps(parts, ensure_ascii=False)


class GeminiAPI:
    """The ``Dialect`` of the Gemini API (``generativelanguage``, v1beta)."""

    def is_model_turn(self, request: Request) -> bool:
        return request.method == "POST" and (
            ":streamGenerateContent" in request.path or ":generateContent" in request.path
        )

    def offers_tools(self, body: Any) -> bool:
        return isinstance(body, dict) and any(t.get("functionDeclarations") for t in body.get("tools") or [])

    def offered_tools(self, body: Any) -> list[Any]:
        return [d for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []]

    def tool_result(self, body: Any) -> ToolResult | None:
        contents = body.get("contents") if isinstance(body, dict) else None
        for content in reversed(contents or []):
            parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
            answers = [p for p in parts if p.get("functionResponse", {}).get("id") == GEMINI_CALL_ID]
            if content.get("role") == "user" and answers:
                # The tool's answer is the functionResponse and any parts sent with it (an image, a file).
                start = parts.index(answers[0])
                rest = parts[start:]
                response = answers[0]["functionResponse"].get("response")
                is_error = isinstance(response, dict) and "error" in response
                return ToolResult(function_response_text(rest), is_error)
        return None

    def tool_call(self, request: Request, tool: str, arguments: Mapping[str, Any], model: str) -> Response:
        call = {"functionCall": {"id": GEMINI_CALL_ID, "name": tool, "args": dict(arguments)}}
        return _answer(request, model, [call])

    def final_text(self, request: Request, text: str, model: str) -> Response:
        if ":streamGenerateContent" not in request.path:
            text = _SIDE_ANSWER
        return _answer(request, model, [{"text": text}])

    def sections(self, body: Any) -> Sections:
        body = body if isinstance(body, dict) else {}
        contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
        return Sections(
            body.get("systemInstruction"), self.offered_tools(body), [(str(c.get("role")), c) for c in contents]
        )

    def other(self, request: Request) -> Response:
        path = request.path.split("?")[0]
        if path.endswith(":countTokens"):
            return Response.of_json({"totalTokens": 10})
        if path.endswith("/models"):
            return Response.of_json({"models": []})
        return Response.of_json({})
