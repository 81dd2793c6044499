"""``codex exec --json`` logs: the events Codex prints while it runs a prompt non-interactively.

One event a line: ``thread.started`` (``thread_id``), ``turn.started``, ``item.started`` /
``item.updated`` / ``item.completed`` (an ``item`` with ``id`` and ``type``), ``turn.completed``
(``usage``: the tokens of the whole turn, summed over its requests), ``turn.failed`` and ``error``.
Items: ``command_execution`` (``command``, ``aggregated_output``, ``exit_code``, ``status``),
``file_change`` (``changes``: ``path`` and ``kind``), ``mcp_tool_call`` (``server``, ``tool``,
``arguments``, ``result``, ``error``), ``web_search`` (``query``), ``agent_message`` and
``reasoning`` (``text``), ``todo_list``, ``error``. As openai/codex writes them
(``codex-rs/exec/src/exec_events.rs``, ``event_processor_with_jsonl_output.rs``); checked against
the 13 logs tielec/ai-workflow-agent commits (``.ai-workflow/issue-119/*/*/agent_log_raw.txt``).

A command is the model's ``shell`` call, its argv joined with shell quoting: it is split back and
replayed as that call. The log keeps what the command printed and its exit code, not the answer
the model read: the recorded output is given in the JSON form of that answer (``{"output",
"metadata": {"exit_code"}}``), so a replay compares the printed text and the exit code. The
prompt is not logged, and no request's usage is (a turn's sum is): each command or message is
a request of its own, its context estimated.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from agentpager.transcripts.formats.base import Collector, ModelTurn, ResultRef, text_of_content
from agentpager.transcripts.records import Location, Record

_EVENTS = ("thread.started", "turn.started", "turn.completed", "turn.failed")
_ANSWERED = ("command_execution", "file_change", "mcp_tool_call", "web_search")


class CodexExec(Collector):
    format = "codex"

    @classmethod
    def recognises(cls, record: Record) -> bool:
        value = record.value
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            return False
        item = value.get("item")
        return value["type"] in _EVENTS or (value["type"].startswith("item.") and isinstance(item, dict))

    def feed(self, record: Record) -> None:
        value = record.value
        if not isinstance(value, dict):
            return
        kind = value.get("type")
        if kind == "thread.started":
            self.parsed.session_id = self.parsed.session_id or str(value.get("thread_id") or "")
            return
        item = value.get("item")
        if kind not in ("item.started", "item.completed") or not isinstance(item, dict):
            return
        item_id, item_type, where = str(item.get("id") or ""), item.get("type"), record.where
        if item_type in ("agent_message", "reasoning") and kind == "item.completed":
            self._request(where)
            self.say("text" if item_type == "agent_message" else "thinking", str(item.get("text") or ""), where)
        elif item_type in _ANSWERED:
            if item_id not in self._waiting_by_id:  # not started yet (or logged completed only)
                self._request(where)
                self.call(item_id, *_call_of(item), where)
            if kind == "item.completed":
                text, is_error = self.result_text(value, -1)
                self.result(item_id, ResultRef(where, -1, len(text), is_error))

    def _request(self, where: Location) -> None:
        self.model_turn(ModelTurn(where, model=self.parsed.model))

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        item = value["item"]
        kind, status = item.get("type"), item.get("status")
        if kind == "command_execution":
            code = item.get("exit_code")
            answer = {"output": str(item.get("aggregated_output") or ""), "metadata": {"exit_code": code}}
            return json.dumps(answer, ensure_ascii=False, separators=(",", ":")), code != 0
        if kind == "mcp_tool_call":
            error = item.get("error")
            if isinstance(error, dict):
                return str(error.get("message") or ""), True
            result = item.get("result")
            return text_of_content(result.get("content") if isinstance(result, dict) else result, "\n"), False
        return str(status or ""), status == "failed"


def _call_of(item: dict[str, Any]) -> tuple[str, Any]:
    """The tool and arguments of the call an item records."""
    kind = item.get("type")
    if kind == "command_execution":
        command = str(item.get("command") or "")
        try:
            return "shell", {"command": shlex.split(command)}
        except ValueError:  # not shell quoting after all
            return "shell", command
    if kind == "file_change":
        return "apply_patch", {"changes": item.get("changes")}
    if kind == "mcp_tool_call":
        return f"{item.get('server')}.{item.get('tool')}", item.get("arguments") or {}
    return "web_search", {"query": item.get("query")}
