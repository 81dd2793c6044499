"""Codex CLI rollouts, in the three shapes they have had.

- Rollout JSONL (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``, from about September 2025):
  ``{"timestamp", "type", "payload"}`` lines; ``session_meta`` (id, cwd, ``cli_version``, and
  ``git`` with its ``branch`` when the cwd is a repository),
  ``turn_context`` (cwd and model of each turn: the cwd can change), ``response_item`` (the model's
  items: ``message``, ``reasoning``, ``function_call``/``function_call_output``, ``custom_tool_call``
  and its output, ``local_shell_call``), ``event_msg`` (``token_count`` with ``last_token_usage``
  and ``model_context_window``). Checked against pinouchon/rtchess
  ``dev_history/exported-session.jsonl`` (Codex 0.60.1).
- Legacy JSONL (May to September 2025): a bare first line ``{id, timestamp, instructions, git}``,
  ``{"record_type": "state"}`` lines, and bare items with no envelope.
- The TypeScript CLI's ``rollout-*.json`` (to mid 2025): one object ``{"session": {timestamp, id,
  instructions}, "items": [...]}`` of the same bare items.
The legacy and TypeScript shapes as described in Sinity/polylogue ``docs/providers/openai-codex.md``
and the fixtures of the projects that read them (no public rollout of those versions was found).
"""

from __future__ import annotations

from typing import Any

from agentpager.agents.codex import AGENT
from agentpager.logs.collector import Collector, ModelTurn, ResultRef, number, text_of_content
from agentpager.logs.records import Record
from agentpager.logs.skim import is_cut

_ENVELOPES = ("session_meta", "response_item", "turn_context", "event_msg", "compacted")
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")
_CONTEXT_TAGS = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions")


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
