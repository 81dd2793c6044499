"""Anthropic messages: ``tool_use`` blocks answered by ``tool_result`` blocks; also OpenAI chat messages.

Claude Code's session lines carry the same messages, so its collector uses the block reading here.
"""

from __future__ import annotations

from typing import Any

from agentpager.logs.collector import Collector, ModelTurn, ResultRef, number, text_of_content
from agentpager.logs.records import Location, Record
from agentpager.logs.skim import is_cut


def read_blocks(collector: Collector, message: Any, where: Location, unchanged: bool = False) -> None:
    """The conversation, tool_use and tool_result blocks of one Anthropic message."""
    if not isinstance(message, dict):
        return
    content = message.get("content")
    role = message.get("role")
    if isinstance(content, str):
        collector.say("prompt" if role == "user" else "text", content, where)
        return
    if not isinstance(content, list):
        return
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            collector.say("prompt" if role == "user" else "text", str(block.get("text", "")), where)
        elif kind == "thinking":
            collector.say("thinking", str(block.get("thinking", "")), where)
        elif kind == "tool_use":
            collector.call(block.get("id"), block.get("name"), block.get("input", {}), where)
        elif kind == "tool_result":
            if is_cut(block.get("content")):  # a long output, skimmed: counted when it is read
                chars, is_error = None, block.get("is_error")
            else:
                chars, is_error = len(text_of_content(block.get("content"), "\n")), block.get("is_error", False)
            reference = ResultRef(
                where, index, chars, None if is_error is None else bool(is_error), unchanged, collector.timestamp
            )
            collector.result(block.get("tool_use_id"), reference)


def usage_turn(message: dict[str, Any], where: Location) -> ModelTurn | None:
    """The model turn an assistant message's ``usage`` records (Anthropic's fields)."""
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    return ModelTurn(
        where,
        model=str(message.get("model") or ""),
        input=number(usage.get("input_tokens")),
        cache_read=number(usage.get("cache_read_input_tokens")),
        cache_creation=number(usage.get("cache_creation_input_tokens")),
        output=number(usage.get("output_tokens")),
        key=str(message.get("id") or ""),
    )


def block_result(message: Any, block: int) -> tuple[str, bool | None]:
    found = message["content"][block]
    return text_of_content(found.get("content"), "\n"), bool(found.get("is_error", False))


class Messages(Collector):
    """Chat messages: OpenAI ``tool_calls`` and ``tool`` messages, or Anthropic content blocks."""

    format = "anthropic"

    @classmethod
    def recognises(cls, record: Record) -> bool:
        return isinstance(record.value, dict) and "role" in record.value and not record.container

    def feed(self, record: Record) -> None:
        message = record.value
        if not isinstance(message, dict):
            return
        if message.get("tool_calls") or message.get("role") == "tool":
            self.parsed.format = "openai"
        if message.get("role") == "tool":
            text, is_error = self.result_text(message, -1)
            self.result(message.get("tool_call_id"), ResultRef(record.where, -1, len(text), is_error))
            return
        if message.get("role") == "assistant" and (turn := usage_turn(message, record.where)):
            self.model_turn(turn)
        elif message.get("role") == "assistant":
            self.model_turn(ModelTurn(record.where, model=str(message.get("model") or "")))
        if isinstance(message.get("content"), (str, list)):
            read_blocks(self, message, record.where)
        for tool_call in message.get("tool_calls") or ():
            function = tool_call.get("function", {}) if isinstance(tool_call, dict) else {}
            self.call(tool_call.get("id"), function.get("name"), function.get("arguments"), record.where)

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        if block >= 0:
            return block_result(value, block)
        return text_of_content(value.get("content"), ""), None
