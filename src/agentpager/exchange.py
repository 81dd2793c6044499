"""A tool call and its result in the JSON shapes the model APIs exchange (for copying and replay)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

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
