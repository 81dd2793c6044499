"""Trajectories of research agents: SWE-agent's ``.traj`` and OpenHands' event lists.

- SWE-agent: one object with ``trajectory``, a list of steps ``{thought, action, observation,
  response, execution_time, state, query}``, and ``info`` (``model_stats``, ``swe_agent_version``),
  as defined by SWE-agent/SWE-agent ``sweagent/types.py`` (``TrajectoryStep``, ``AgentInfo``). A
  step's action is a command line run in the agent's shell; its observation is what it printed.
- OpenHands: a JSON array of events; an action event ``{id, source, action, args}`` (``read``,
  ``run``, ``write``, ``edit``; ``message`` and ``think`` are conversation) is answered by an
  observation event ``{cause: <action id>, observation, content}``; older exports have no ids and
  pair in order. As serialised by All-Hands-AI/OpenHands ``openhands/events/serialization/``.
Neither records token usage per request: the context is estimated.
"""

from __future__ import annotations

from typing import Any

from agentpager.transcripts.formats.base import Collector, ModelTurn, ResultRef
from agentpager.transcripts.records import Record

_CONVERSATION_ACTIONS = ("message", "think", "system", "recall", "finish", "change_agent_state")


class SweAgent(Collector):
    format = "swe-agent"

    @classmethod
    def recognises(cls, record: Record) -> bool:
        value = record.value
        return (
            record.container == "trajectory"
            and isinstance(value, dict)
            and "action" in value
            and "observation" in value
        )

    def feed(self, record: Record) -> None:
        value = record.value
        if not isinstance(value, dict):
            return
        if not record.container and isinstance(value.get("info"), dict):
            self.saw(version=value["info"].get("swe_agent_version"))
            return
        if record.container != "trajectory":
            return
        if self.turn == 0:
            self.turn = 1
        self.model_turn(ModelTurn(record.where))
        self.say("thinking", str(value.get("thought") or ""), record.where)
        action = str(value.get("action") or "")
        call = self.call("", action.split(maxsplit=1)[0] if action.strip() else "?", {"command": action}, record.where)
        observation = str(value.get("observation") or "")
        self.result(call.call_id, ResultRef(record.where, -1, len(observation), None))

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        return str(value.get("observation") or ""), None


class OpenHands(Collector):
    format = "openhands"

    @classmethod
    def recognises(cls, record: Record) -> bool:
        value = record.value
        return (
            isinstance(value, dict)
            and ("action" in value or "observation" in value)
            and ("args" in value or "content" in value or "source" in value)
        )

    def feed(self, record: Record) -> None:
        value = record.value
        if not isinstance(value, dict):
            return
        self.saw(value.get("timestamp"))
        where = record.where
        args: dict[str, Any] = value["args"] if isinstance(value.get("args"), dict) else {}
        if "action" in value:
            action = str(value["action"])
            if action == "message":
                text = str(args.get("content") or value.get("message") or "")
                self.say("prompt" if value.get("source") == "user" else "text", text, where)
            elif action == "think":
                self.say("thinking", str(args.get("thought") or ""), where)
            elif action not in _CONVERSATION_ACTIONS:
                if value.get("source") != "user":
                    self.model_turn(ModelTurn(where))
                self.call(value.get("id"), action, args, where)
        elif "observation" in value and value.get("observation") not in ("null", "agent_state_changed"):
            if value.get("cause") is None and not self.waiting():
                return  # an observation of nothing the agent did (the start of the environment)
            text, is_error = self.result_text(value, -1)
            self.result(value.get("cause"), ResultRef(where, -1, len(text), is_error, timestamp=self.timestamp))

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        return str(value.get("content") or ""), value.get("observation") == "error" or None
