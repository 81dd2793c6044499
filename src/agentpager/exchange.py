"""A tool call and its result in the JSON shapes the model APIs exchange (for copying and replay)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from agentpager.engine import jsontext

PAIR_FORMATS = ("openai", "anthropic")
_SURROGATE = re.compile("[\ud800-\udfff]")


def to_json(value: Any, indent: int | None = None) -> str:
    """``value`` as JSON that encodes as UTF-8: other characters as they are, and lone surrogates (a file
    name's undecodable bytes) as ``\\udcff`` escapes, which read back as the same value."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def call_json(name: str, arguments: Mapping[str, Any]) -> str:
    """The call as ``{"name": ..., "arguments": {...}}``."""
    return to_json({"name": name, "arguments": dict(arguments)}, indent=2)


def call_and_result(
    format: str, name: str, arguments: Mapping[str, Any], output: str, is_error: bool, call_id: str = "call_1"
) -> list[dict[str, Any]]:
    """The assistant message that makes the call and the message that answers it.

    ``openai``: an assistant ``tool_calls`` message and a ``tool`` message. ``anthropic``: an
    assistant ``tool_use`` block and a user ``tool_result`` block.
    """
    if format == "openai":
        return [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": to_json(dict(arguments))},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": output},
        ]
    if format == "anthropic":
        return [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": call_id, "name": name, "input": dict(arguments)}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call_id, "content": output, "is_error": is_error}],
            },
        ]
    raise ValueError(f"Unknown format '{format}'. Formats: {', '.join(PAIR_FORMATS)}.")


def read_call(text: str) -> tuple[str, dict[str, Any]]:
    """A tool call pasted as JSON: the shape ``call_json`` writes, an OpenAI ``tool_calls`` entry (or
    its ``function``), an Anthropic ``tool_use`` block, or either message pair ``call_and_result``
    writes (its first call). ValueError says what is wrong."""
    try:
        value = jsontext.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"Not JSON yet: {error.msg} (line {error.lineno}, column {error.colno}).") from None
    found = _find_call(value)
    if found is None:
        raise ValueError('Not a tool call: expected {"name": "...", "arguments": {...}}.')
    name, arguments = found
    if isinstance(arguments, str):  # OpenAI sends the arguments as a JSON string
        try:
            arguments = jsontext.loads(arguments)
        except json.JSONDecodeError as error:
            raise ValueError(f"The arguments string is not JSON: {error.msg}.") from None
    if not isinstance(arguments, dict):
        raise ValueError(f"The arguments must be an object, got {json.dumps(arguments)}.")
    return name, arguments


def _find_call(value: Any) -> tuple[str, Any] | None:
    if isinstance(value, list):
        return next((found for item in value if (found := _find_call(item)) is not None), None)
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("name"), str):
        for key in ("arguments", "input"):
            if key in value:
                return value["name"], value[key]
        return value["name"], {}
    for key in ("function", "tool_calls", "content"):
        if key in value and (found := _find_call(value[key])) is not None:
            return found
    return None
