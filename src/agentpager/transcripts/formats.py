"""Tool calls and their recorded results, from the four transcript formats.

- Claude Code session JSONL: ``assistant`` lines carry Anthropic ``tool_use`` blocks, ``user``
  lines the ``tool_result`` blocks; ``cwd`` on the lines gives the workspace.
- Codex rollout JSONL: ``response_item`` lines with ``function_call`` and
  ``function_call_output`` payloads (and custom or shell calls); ``session_meta`` gives the cwd.
- OpenAI chat messages (a JSON array or JSON Lines): assistant ``tool_calls`` answered by
  ``tool`` messages.
- Anthropic messages (a JSON array): ``tool_use`` blocks answered by ``tool_result`` blocks.

Results are paired with calls by id; when ids repeat (shared logs often replace them with one
placeholder) or are missing, by order.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agentpager.transcripts.records import BadRecord, Location, Record

FORMATS = ("claude-code", "codex", "openai", "anthropic")


@dataclass(frozen=True)
class ResultRef:
    """Where a call's recorded result is, and what is known of it without reading it again."""

    where: Location
    block: int
    """Index of the result block in the record's content, or -1 for the whole record."""
    chars: int
    is_error: bool | None


@dataclass
class ToolCall:
    index: int
    turn: int
    """The user turn it belongs to (1-based)."""
    call_id: str
    tool: str
    arguments: dict[str, Any] | str
    """The arguments, or their raw text when it is not a JSON object."""
    where: Location
    result: ResultRef | None = None


@dataclass
class Parsed:
    format: str
    calls: list[ToolCall] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    cwd: str | None = None
    version: str | None = None
    """The agent's version, when the transcript says (Claude Code writes it on every line)."""


def text_of_content(content: Any, separator: str) -> str:
    """A tool result's text: a string, or the text parts of a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return separator.join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") in ("text", "input_text", "output_text")
        )
    if content is None:
        return ""
    return json.dumps(content, ensure_ascii=False)


def _arguments(raw: Any) -> dict[str, Any] | str:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return raw
        return parsed if isinstance(parsed, dict) else raw
    return json.dumps(raw, ensure_ascii=False)


class _Collector:
    """Pairs results with calls: by id when ids are unique, else in order."""

    format = ""

    def __init__(self) -> None:
        self.parsed = Parsed(self.format)
        self.turn = 0
        self._waiting: list[ToolCall] = []

    def call(self, call_id: Any, tool: Any, arguments: Any, where: Location) -> None:
        call = ToolCall(
            len(self.parsed.calls),
            max(self.turn, 1),
            str(call_id or ""),
            str(tool or "?"),
            _arguments(arguments),
            where,
        )
        self.parsed.calls.append(call)
        self._waiting.append(call)

    def result(self, call_id: Any, reference: ResultRef) -> None:
        if not self._waiting:
            self.parsed.problems.append(f"{reference.where.describe()}: a result for no call, skipped")
            return
        same_id = [call for call in self._waiting if call.call_id and call.call_id == str(call_id or "")]
        waiting_ids = Counter(call.call_id for call in self._waiting)
        call = same_id[0] if len(same_id) == 1 and waiting_ids[same_id[0].call_id] == 1 else self._waiting[0]
        call.result = reference
        self._waiting.remove(call)

    def feed(self, record: Record) -> None:
        raise NotImplementedError

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        raise NotImplementedError


def _anthropic_blocks(collector: _Collector, message: Any, where: Location) -> None:
    """tool_use and tool_result blocks of one Anthropic message (also Claude Code's)."""
    if not isinstance(message, dict):
        return
    content = message.get("content")
    if message.get("role") == "user" and (
        isinstance(content, str) or any(isinstance(b, dict) and b.get("type") == "text" for b in content or ())
    ):
        collector.turn += 1
    if not isinstance(content, list):
        return
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use":
            collector.call(block.get("id"), block.get("name"), block.get("input", {}), where)
        elif block.get("type") == "tool_result":
            text = text_of_content(block.get("content"), "\n")
            reference = ResultRef(where, index, len(text), bool(block.get("is_error", False)))
            collector.result(block.get("tool_use_id"), reference)


def _anthropic_result(message: Any, block: int) -> tuple[str, bool | None]:
    found = message["content"][block]
    return text_of_content(found.get("content"), "\n"), bool(found.get("is_error", False))


class ClaudeCode(_Collector):
    format = "claude-code"

    def feed(self, record: Record) -> None:
        line = record.value
        if not isinstance(line, dict):
            return
        if self.parsed.cwd is None and isinstance(line.get("cwd"), str):
            self.parsed.cwd = line["cwd"]
        version = line.get("version", line.get("claude_code_version"))
        if self.parsed.version is None and isinstance(version, str):
            self.parsed.version = version
        if line.get("type") in ("assistant", "user"):
            _anthropic_blocks(self, line.get("message"), record.where)

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        return _anthropic_result(value["message"], block)


class Codex(_Collector):
    format = "codex"

    def feed(self, record: Record) -> None:
        line = record.value
        if not isinstance(line, dict):
            return
        payload = line.get("payload")
        item: dict[str, Any] = payload if isinstance(payload, dict) else line
        kind = item.get("type")
        if line.get("type") == "session_meta" or kind == "session_meta":
            self.parsed.cwd = self.parsed.cwd or item.get("cwd")
        elif kind == "message" and item.get("role") == "user":
            self.turn += 1
        elif kind == "function_call":
            self.call(item.get("call_id"), item.get("name"), item.get("arguments"), record.where)
        elif kind == "custom_tool_call":
            self.call(item.get("call_id"), item.get("name"), {"input": item.get("input")}, record.where)
        elif kind == "local_shell_call":
            self.call(item.get("call_id"), "local_shell", item.get("action", {}), record.where)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            text, is_error = self.result_text(line, -1)
            self.result(item.get("call_id"), ResultRef(record.where, -1, len(text), is_error))

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        item = value.get("payload") if isinstance(value.get("payload"), dict) else value
        output = item.get("output")
        if isinstance(output, dict):  # newer versions: {"content": ..., "success": ...}
            success = output.get("success")
            return text_of_content(output.get("content", output.get("output")), ""), (
                None if success is None else not success
            )
        return text_of_content(output, ""), None


class Messages(_Collector):
    """Chat messages: OpenAI ``tool_calls`` and ``tool`` messages, or Anthropic content blocks."""

    format = "anthropic"

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
        for tool_call in message.get("tool_calls") or ():
            function = tool_call.get("function", {}) if isinstance(tool_call, dict) else {}
            self.call(tool_call.get("id"), function.get("name"), function.get("arguments"), record.where)
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            self.turn += 1
        elif isinstance(message.get("content"), list):
            _anthropic_blocks(self, message, record.where)

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        if block >= 0:
            return _anthropic_result(value, block)
        return text_of_content(value.get("content"), ""), None


def detect(first: Iterable[Any]) -> type[_Collector] | None:
    """The format of a transcript, from its first records."""
    for value in first:
        if not isinstance(value, dict):
            continue
        if value.get("type") in ("session_meta", "response_item", "turn_context", "event_msg") or "payload" in value:
            return Codex
        if value.get("type") in ("user", "assistant", "system", "summary") and (
            "message" in value or "sessionId" in value or value.get("subtype") == "init"
        ):
            return ClaudeCode
        if "role" in value:
            return Messages
    return None


COLLECTORS = {"claude-code": ClaudeCode, "codex": Codex, "openai": Messages, "anthropic": Messages}


def parse(records: Iterable[Record | BadRecord], lookahead: int = 20) -> Parsed | None:
    """The calls of a transcript; None when its format is not recognised."""
    iterator = iter(records)
    seen: list[Record | BadRecord] = []
    for item in iterator:
        seen.append(item)
        if len([r for r in seen if isinstance(r, Record)]) >= lookahead:
            break
    collector_type = detect(r.value for r in seen if isinstance(r, Record))
    if collector_type is None:
        return None
    collector = collector_type()
    for item in itertools.chain(seen, iterator):
        if isinstance(item, BadRecord):
            collector.parsed.problems.append(f"{item.where.describe()}: {item.problem}, skipped")
            continue
        try:
            collector.feed(item)
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as error:
            collector.parsed.problems.append(f"{item.where.describe()}: unexpected shape ({error!r}), skipped")
    return collector.parsed
