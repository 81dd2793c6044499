"""Codex CLI rollouts, in the three shapes they have had, and the logs ``codex exec --json`` prints.

- Rollout JSONL (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``, from about September 2025):
  ``{"timestamp", "type", "payload"}`` lines; ``session_meta`` (id, cwd, ``cli_version``, and
  ``git`` with its ``branch`` when the cwd is a repository),
  ``turn_context`` (cwd and model of each turn: the cwd can change), ``response_item`` (the model's
  items: ``message``, ``reasoning``, ``function_call``/``function_call_output``, ``custom_tool_call``
  and its output, ``local_shell_call``), ``event_msg`` (``token_count`` with ``last_token_usage``
  and ``model_context_window``), ``compacted`` (the history replaced by the summary in its
  ``message``: openai/codex ``protocol/src/protocol.rs``, ``CompactedItem``). Checked against pinouchon/rtchess
  ``dev_history/exported-session.jsonl`` (Codex 0.60.1).
- Legacy JSONL (May to September 2025): a bare first line ``{id, timestamp, instructions, git}``,
  ``{"record_type": "state"}`` lines, and bare items with no envelope.
- The TypeScript CLI's ``rollout-*.json`` (to mid 2025): one object ``{"session": {timestamp, id,
  instructions}, "items": [...]}`` of the same bare items.
The legacy and TypeScript shapes as described in Sinity/polylogue ``docs/providers/openai-codex.md``
and the fixtures of the projects that read them (no public rollout of those versions was found).

``codex exec --json`` (``CodexExec``): the events Codex prints while it runs a prompt non-interactively.
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
"metadata": {"exit_code", "duration_seconds"}}``, the duration 0.0: it is not logged, and replay
sets it aside as it varies), so a replay compares the printed text and the exit code. The
prompt is not logged, and no request's usage is (a turn's sum is): each command or message is
a request of its own, its context estimated.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from agentpager.agents.codex import AGENT
from agentpager.logs.collector import Collector, ModelTurn, ResultRef, number, text_of_content
from agentpager.logs.records import Location, Record
from agentpager.logs.skim import is_cut

_ENVELOPES = ("session_meta", "response_item", "turn_context", "event_msg", "compacted")
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")
_CONTEXT_TAGS = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions")
_EXEC_EVENTS = ("thread.started", "turn.started", "turn.completed", "turn.failed")
_ANSWERED = ("command_execution", "file_change", "mcp_tool_call", "web_search")


class Codex(Collector):
    format = AGENT.id
    call_markers = tuple(
        marker
        for kind in (b"function_call", b"custom_tool_call", b"local_shell_call")
        for marker in (b'"type":"' + kind + b'"', b'"type": "' + kind + b'"')
    )
    turn_markers = (b'"token_count"', b'"turn_context"')
    prompt_markers = (b'"role":"user"', b'"role": "user"')

    def __init__(self) -> None:
        super().__init__()
        self._usage_seen: Any = None
        self._responding = False
        """Whether the last item was the model's (a message, reasoning or a call): one request."""
        self._unfilled: ModelTurn | None = None
        """The request being answered, while no ``token_count`` has given its usage."""
        self._usage_ahead = False
        """A ``token_count`` came before the items of its request (as Codex 0.60 logs them)."""

    @classmethod
    def recognises(cls, record: Record) -> bool:
        value = record.value
        if not isinstance(value, dict):
            return False
        if value.get("type") in _ENVELOPES or "record_type" in value:
            return True
        session = value.get("session")
        if isinstance(session, dict) and "instructions" in session:  # the TypeScript CLI's document
            return True
        return {"id", "timestamp", "instructions"} <= value.keys()  # the legacy first line

    @classmethod
    def skims(cls, record: Record) -> bool:
        """A tool output whose head ends inside its ``output``: the call it answers is named before it."""
        value, skim = record.value, record.skim
        if skim is None:
            return False
        item, cut = (value.get("payload"), skim.cut[1:]) if skim.cut[:1] == ("payload",) else (value, skim.cut)
        return isinstance(item, dict) and item.get("type") in _OUTPUTS and cut[:1] == ("output",)

    def feed(self, record: Record) -> None:
        line = record.value
        if not isinstance(line, dict):
            return
        self.saw(line.get("timestamp"))
        payload = line.get("payload")
        if line.get("type") in _ENVELOPES and isinstance(payload, dict):
            kind = line["type"]
            if kind == "session_meta":
                self._meta(payload)
            elif kind == "turn_context":
                self.saw(cwd=payload.get("cwd"), model=payload.get("model"))
            elif kind == "event_msg":
                self._event(payload, record)
            elif kind == "response_item":
                self._item(payload, record)
            elif kind == "compacted":  # the history so far replaced by a summary (``message``)
                self.boundary(record.where, "", 0)
                self.say("summary", str(payload.get("message") or ""), record.where)
                self._responding, self._unfilled, self._usage_ahead = False, None, False
        elif isinstance(line.get("session"), dict):  # the TypeScript CLI's header member
            self._meta(line["session"])
        elif "instructions" in line and "type" not in line:  # the legacy first line
            self._meta(line)
        elif "record_type" not in line:
            self._item(line, record)  # a bare item (legacy JSONL, TypeScript CLI)

    def _meta(self, meta: dict[str, Any]) -> None:
        git = meta.get("git")
        branch = git.get("branch") if isinstance(git, dict) else None
        self.saw(meta.get("timestamp"), meta.get("cli_version"), meta.get("cwd"), meta.get("model"), branch)
        self.parsed.session_id = self.parsed.session_id or str(meta.get("id") or "")

    def _event(self, event: dict[str, Any], record: Record) -> None:
        if event.get("type") != "token_count" or not isinstance(event.get("info"), dict):
            return
        info = event["info"]
        if info.get("total_token_usage") == self._usage_seen:
            return  # Codex logs the same count again after each item
        self._usage_seen = info.get("total_token_usage")
        last = info.get("last_token_usage") or {}
        cached = number(last.get("cached_input_tokens"))
        turn = ModelTurn(
            record.where,
            model=self.parsed.model,
            input=max(number(last.get("input_tokens")) - cached, 0),
            cache_read=cached,
            output=number(last.get("output_tokens")),
            window=number(info.get("model_context_window")) or None,
            timestamp=self.timestamp,
        )
        if turn.estimated:
            return  # no tokens counted: nothing recorded
        unfilled, self._unfilled = self._unfilled, None
        if unfilled is not None and self._responding:
            # The usage of the request whose items came just before: it takes that turn's place.
            turn.results_before, turn.events_before = unfilled.results_before, unfilled.events_before
            turn.timestamp = unfilled.timestamp
            self.parsed.turns[-1] = turn  # ``_unfilled`` is always the last turn
            return
        self.model_turn(turn)
        self._usage_ahead = not self._responding

    def _request(self, item: dict[str, Any], record: Record) -> None:
        """Note the model request an item is part of. A request starts at the model's first item after
        a prompt or a tool output; its ``token_count`` comes before its items (Codex 0.60: pinouchon/rtchess
        ``dev_history/exported-session.jsonl``) or after them, or not at all (it is estimated then)."""
        kind, role = item.get("type"), item.get("role")
        if kind in ("reasoning", *_CALLS) or (kind == "message" and role == "assistant"):
            if not self._responding and not self._usage_ahead:
                self._unfilled = ModelTurn(record.where, model=self.parsed.model, timestamp=self.timestamp)
                self.model_turn(self._unfilled)
            self._responding, self._usage_ahead = True, False
        elif kind in _OUTPUTS or (kind == "message" and role == "user"):
            self._responding = False
            self._unfilled = None

    def _item(self, item: dict[str, Any], record: Record) -> None:
        self._request(item, record)
        kind, where = item.get("type"), record.where
        if kind == "message":
            text = text_of_content(item.get("content"), "\n")
            if item.get("role") == "user":
                self.say("text" if text.lstrip().startswith(_CONTEXT_TAGS) else "prompt", text, where)
            elif item.get("role") == "assistant":
                self.say("text", text, where)
        elif kind == "reasoning":
            summary = item.get("summary") or ()
            self.say(
                "thinking", "\n".join(str(part.get("text", "")) for part in summary if isinstance(part, dict)), where
            )
        elif kind == "function_call":
            self.call(item.get("call_id"), item.get("name"), item.get("arguments"), where)
        elif kind == "custom_tool_call":
            self.call(item.get("call_id"), item.get("name"), {"input": item.get("input")}, where)
        elif kind == "local_shell_call":
            self.call(item.get("call_id") or item.get("id"), "local_shell", item.get("action", {}), where)
        elif kind in _OUTPUTS:
            if is_cut(item.get("output")):  # a long output, skimmed: counted when it is read
                chars, is_error = None, None
            else:
                text, is_error = self.result_text(record.value, -1)
                chars = len(text)
            self.result(item.get("call_id"), ResultRef(where, -1, chars, is_error, timestamp=self.timestamp))

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


class CodexExec(Collector):
    format = AGENT.id
    not_sent_as_logged = "this log keeps the whole output its client was shown; Codex sent its model a cut copy"
    sent_tokens_at_most = 10_000
    """Codex gives its model a cut copy of a command's output: 10 KiB of its head and tail in its
    versions of autumn 2025 (``format_exec_output_str``), 10,000 tokens or bytes from 0.60 (see the
    ``codex`` profiles)."""

    @classmethod
    def recognises(cls, record: Record) -> bool:
        value = record.value
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            return False
        item = value.get("item")
        return value["type"] in _EXEC_EVENTS or (value["type"].startswith("item.") and isinstance(item, dict))

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
            output = str(item.get("aggregated_output") or "")
            answer = {"output": output, "metadata": {"exit_code": code, "duration_seconds": 0.0}}
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
