"""Gemini CLI chats: ``~/.gemini/tmp/<project>/chats/session-*.json`` and, from late 2025, ``.jsonl``.

A ``.json`` chat is one object ``{sessionId, projectHash, startTime, lastUpdated, messages}``; a
``.jsonl`` chat is that object's members on the first line, then one message per line, with
``{"$set": {...}}`` updates and ``{"$rewindTo": id}`` records. A message has ``type`` (``user``,
``gemini``, ``info``, ``error``, ``warning``) and ``content``; a ``gemini`` message has
``toolCalls`` (``id``, ``name``, ``args``, ``result``: the ``functionResponse`` parts the model
receives, ``status``), ``thoughts`` (``subject``, ``description``), ``tokens`` (``input``,
``output``, ``cached``, ``thoughts``, ``tool``, ``total``) and ``model``. As written by
google-gemini/gemini-cli ``packages/core/src/services/chatRecordingService.ts`` and
``chatRecordingTypes.ts``.
"""

from __future__ import annotations

import json
from typing import Any

from agentpager.agents.gemini_cli import AGENT, project_root
from agentpager.engine.filesystem import ANYWHERE, Filesystem
from agentpager.logs.collector import Collector, ModelTurn, ResultRef, number
from agentpager.logs.records import Record


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _response_text(result: Any) -> tuple[str, bool | None]:
    """What the model receives for a tool call: its functionResponse's output (or error)."""
    parts = result if isinstance(result, list) else [result]
    texts, is_error = [], None
    for part in parts:
        if not isinstance(part, dict):
            continue
        response = (part.get("functionResponse") or {}).get("response")
        if isinstance(response, dict):
            if "error" in response:
                is_error = True
                texts.append(str(response["error"]))
            elif "output" in response:
                texts.append(
                    response["output"] if isinstance(response["output"], str) else json.dumps(response["output"])
                )
            else:
                texts.append(json.dumps(response, ensure_ascii=False))
        elif "text" in part:
            texts.append(str(part["text"]))
    return "\n".join(texts), is_error


class GeminiCli(Collector):
    format = AGENT.id
    call_markers = (b'"functionResponse"',)
    turn_markers = (b'"tokens"', b'"model"')
    prompt_markers = (b'"type":"user"', b'"type": "user"')

    @classmethod
    def recognises(cls, record: Record) -> bool:
        value = record.value
        if not isinstance(value, dict):
            return False
        if "projectHash" in value:
            return True
        return record.container == "messages" and value.get("type") in ("user", "gemini")

    def feed(self, record: Record) -> None:
        value = record.value
        if not isinstance(value, dict):
            return
        # A .json chat's members come one record each (``{"startTime": ...}``), a .jsonl's together.
        if "sessionId" in value:
            self.parsed.session_id = self.parsed.session_id or str(value.get("sessionId") or "")
        if "startTime" in value:
            self.saw(value.get("startTime"))
        if "lastUpdated" in value:
            self.saw(value.get("lastUpdated"))
        if "id" not in value or "type" not in value:
            return  # metadata, $set and $rewindTo records
        self.saw(value.get("timestamp"), model=value.get("model"))
        kind, where = value.get("type"), record.where
        if kind == "user":
            self.say("prompt", _text(value.get("content")), where)
            return
        if kind != "gemini":
            return
        for thought in value.get("thoughts") or ():
            if isinstance(thought, dict):
                self.say("thinking", f"{thought.get('subject', '')}\n{thought.get('description', '')}".strip(), where)
        tokens = value.get("tokens")
        if not isinstance(tokens, dict):
            tokens = {}  # no usage recorded: the turn is estimated
        cached = number(tokens.get("cached"))
        self.model_turn(
            ModelTurn(
                where,
                model=str(value.get("model") or ""),
                input=max(number(tokens.get("input")) - cached, 0),
                cache_read=cached,
                output=number(tokens.get("output")) + number(tokens.get("thoughts")),
                timestamp=self.timestamp,
            )
        )
        self.say("text", _text(value.get("content")), where)
        for block, tool_call in enumerate(value.get("toolCalls") or ()):
            if not isinstance(tool_call, dict):
                continue
            self.call(tool_call.get("id"), tool_call.get("name"), tool_call.get("args", {}), where)
            if "result" in tool_call:
                text, is_error = _response_text(tool_call.get("result"))
                if tool_call.get("status") == "error":
                    is_error = True
                self.result(tool_call.get("id"), ResultRef(where, block, len(text), is_error, timestamp=self.timestamp))

    @classmethod
    def cwd_beside(cls, path: str, filesystem: Filesystem = ANYWHERE) -> str | None:
        return project_root(path, filesystem) or None

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        tool_call = value["toolCalls"][block]
        text, is_error = _response_text(tool_call.get("result"))
        return text, True if tool_call.get("status") == "error" else is_error
