"""OpenCode sessions as ``opencode export`` writes them, read into calls, conversation and model turns.

An export is one JSON object: ``info`` (the session: ``id``, ``version``, ``directory``, ``title``,
``time``), then ``messages``, each ``{"info": MESSAGE, "parts": [PART, ...]}``. A message's ``info`` has
``role`` (``user`` or ``assistant``), ``time.created`` (milliseconds), and for the assistant
``modelID``, ``path.cwd``, ``tokens``. Parts have a ``type``: ``text`` (``synthetic`` when OpenCode wrote
it), ``reasoning``, ``step-start``, ``step-finish`` (one model request: its ``tokens`` ``input``,
``output``, ``reasoning``, ``cache.read``, ``cache.write``), and ``tool``: ``callID``, ``tool``, and
``state`` (``status`` ``pending``, ``running``, ``completed`` with ``output``, or ``error`` with
``error``; ``input``: the arguments; ``metadata.sessionId`` for a subagent's session). As written by
OpenCode 1.18.33 (``packages/opencode/src/session/message-v2.ts``, ``cli/cmd/export.ts``); the store
(``sessions.py``) exports the sessions it keeps in the same shape.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

from agentpager.agents.opencode import AGENT
from agentpager.engine.filesystem import ANYWHERE, Filesystem
from agentpager.logs.collector import Collector, ModelTurn, ResultRef, ToolCall, number
from agentpager.logs.records import Location, Record


def iso(milliseconds: Any) -> str:
    """A time in milliseconds since the epoch as ISO 8601 (UTC); "" for anything else."""
    if not isinstance(milliseconds, int | float) or isinstance(milliseconds, bool):
        return ""
    try:
        moment = datetime.fromtimestamp(milliseconds / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return ""
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _is_message(value: Any) -> bool:
    info = value.get("info") if isinstance(value, dict) else None
    return isinstance(info, dict) and info.get("role") in ("user", "assistant") and isinstance(value.get("parts"), list)


def _result(state: dict[str, Any]) -> tuple[str, bool] | None:
    """A finished call's output and whether it failed; None while it runs."""
    status = state.get("status")
    if status == "completed":
        return str(state.get("output", "")), False
    if status == "error":
        return str(state.get("error", "")), True
    return None


class OpenCode(Collector):
    format = AGENT.id
    call_markers = (b'"type": "tool",', b'"type":"tool",')
    turn_markers = (b'"tokens"',)
    prompt_markers = (b'"role": "user"', b'"role":"user"')
    task_tools = ("task",)
    """OpenCode's tool that runs a subagent in a session of its own (``packages/opencode/src/tool/task.ts``)."""

    @classmethod
    def recognises(cls, record: Record) -> bool:
        value = record.value
        if record.container == "messages":
            return _is_message(value)
        info = value.get("info") if isinstance(value, dict) and not record.container else None
        return isinstance(info, dict) and str(info.get("id", "")).startswith("ses_") and "directory" in info

    def feed(self, record: Record) -> None:
        value = record.value
        if not isinstance(value, dict):
            return
        if record.container != "messages":
            info = value.get("info")
            if isinstance(info, dict):
                self._session(info)
            return
        if not _is_message(value):
            return
        info, where = value["info"], record.where
        times = _object(info.get("time"))
        self.saw(iso(times.get("created")), cwd=_object(info.get("path")).get("cwd"), model=info.get("modelID"))
        parts = [part for part in value["parts"] if isinstance(part, dict)]
        if info["role"] == "user":
            for part in parts:
                if part.get("type") == "text" and not part.get("synthetic"):
                    self.say("prompt", str(part.get("text", "")), where)
            return
        steps = [part for part in parts if part.get("type") == "step-finish"]
        for step in steps or [info]:
            self._turn(step.get("tokens"), info, where)
        for block, part in enumerate(value["parts"]):
            if isinstance(part, dict):
                self._part(part, block, where)
        self.saw(iso(times.get("completed")))

    def _session(self, info: dict[str, Any]) -> None:
        self.parsed.session_id = str(info.get("id", ""))
        times = _object(info.get("time"))
        self.saw(iso(times.get("created")), version=info.get("version"), cwd=info.get("directory"))
        self.saw(iso(times.get("updated")))

    def _turn(self, tokens: Any, info: dict[str, Any], where: Location) -> None:
        tokens = _object(tokens)
        cache = _object(tokens.get("cache"))
        turn = ModelTurn(
            where,
            model=str(info.get("modelID") or ""),
            input=number(tokens.get("input")),
            cache_read=number(cache.get("read")),
            cache_creation=number(cache.get("write")),
            output=number(tokens.get("output")) + number(tokens.get("reasoning")),
            timestamp=self.timestamp,
        )
        self.model_turn(turn)

    def _part(self, part: dict[str, Any], block: int, where: Location) -> None:
        kind = part.get("type")
        if kind == "text" and not part.get("synthetic"):
            self.say("text", str(part.get("text", "")), where)
        elif kind == "reasoning":
            self.say("thinking", str(part.get("text", "")), where)
        elif kind == "tool":
            state = _object(part.get("state"))
            call = self.call(part.get("callID"), part.get("tool"), state.get("input", {}), where)
            self._subagent(call, state)
            finished = _result(state)
            if finished is not None:
                text, is_error = finished
                self.result(call.call_id, ResultRef(where, block, len(text), is_error, timestamp=self.timestamp))

    def _subagent(self, call: ToolCall, state: dict[str, Any]) -> None:
        metadata = state.get("metadata")
        child = metadata.get("sessionId") if isinstance(metadata, dict) else None
        if isinstance(child, str) and child.startswith("ses_"):
            self.parsed.subagent_ids[child] = call

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        finished = _result(value["parts"][block]["state"])
        if finished is None:
            raise LookupError("the call has no result")
        return finished

    @classmethod
    def subagent_files(
        cls, path: str, agent_ids: Collection[str], filesystem: Filesystem = ANYWHERE
    ) -> list[tuple[str, str]]:
        """The exports of the subagents' sessions beside this one (``SESSION_ID.json``), as the store writes them."""
        directory = os.path.dirname(path)
        found = []
        for child in agent_ids:
            beside = os.path.join(directory, f"{child}.json")
            if filesystem.is_file(beside):
                found.append((child, beside))
        return found
