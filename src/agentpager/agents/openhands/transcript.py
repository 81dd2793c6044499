"""OpenHands' trajectories: a JSON array of events.

An action event ``{id, source, action, args}`` (``read``, ``run``, ``write``, ``edit``; ``message`` and
``think`` are conversation) is answered by an observation event ``{cause: <action id>, observation,
content}``; older exports have no ids and pair in order. As serialised by All-Hands-AI/OpenHands
``openhands/events/serialization/``. Token usage is recorded only where an action carries its
``llm_metrics``; otherwise the context is estimated.
"""

from __future__ import annotations

from typing import Any

from agentpager.agents.openhands import AGENT
from agentpager.logs.collector import Collector, ModelTurn, ResultRef, number
from agentpager.logs.records import Location, Record

_CONVERSATION_ACTIONS = ("message", "think", "system", "recall", "finish", "change_agent_state")


class OpenHands(Collector):
    format = AGENT.id

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
                    self.model_turn(_usage(value, where))
                call_id, tool, arguments = _function_call(value, action, args)
                self.call(call_id, tool, arguments, where)
        elif "observation" in value and value.get("observation") not in ("null", "agent_state_changed"):
            if value.get("cause") is None and not self.waiting():
                return  # an observation of nothing the agent did (the start of the environment)
            text, is_error = self.result_text(value, -1)
            metadata = value.get("tool_call_metadata")
            call_id = metadata.get("tool_call_id") if isinstance(metadata, dict) else None
            reference = ResultRef(where, -1, len(text), is_error, timestamp=self.timestamp)
            self.result(call_id or value.get("cause"), reference)

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        return str(value.get("content") or ""), value.get("observation") == "error" or None


def _function_call(event: dict[str, Any], action: str, args: dict[str, Any]) -> tuple[Any, str, Any]:
    """The call as the model made it (``tool_call_metadata``: its function and arguments), else the
    action with its arguments."""
    metadata = event.get("tool_call_metadata")
    if not isinstance(metadata, dict) or not metadata.get("function_name"):
        return event.get("id"), action, args
    call_id = metadata.get("tool_call_id")
    arguments: Any = args
    choices = (metadata.get("model_response") or {}).get("choices") or ()
    for choice in choices:
        for tool_call in ((choice or {}).get("message") or {}).get("tool_calls") or ():
            if isinstance(tool_call, dict) and tool_call.get("id") == call_id:
                arguments = (tool_call.get("function") or {}).get("arguments", args)
    return call_id or event.get("id"), str(metadata["function_name"]), arguments


def _usage(event: dict[str, Any], where: Location) -> ModelTurn:
    """The model request behind an action: its last ``llm_metrics.token_usages`` entry, when logged."""
    metrics = event.get("llm_metrics")
    usages = metrics.get("token_usages") if isinstance(metrics, dict) else None
    if not usages or not isinstance(usages[-1], dict):
        return ModelTurn(where)
    usage = usages[-1]
    cached = number(usage.get("cache_read_tokens"))
    return ModelTurn(
        where,
        model=str(usage.get("model") or ""),
        input=max(number(usage.get("prompt_tokens")) - cached, 0),
        cache_read=cached,
        cache_creation=number(usage.get("cache_write_tokens")),
        output=number(usage.get("completion_tokens")),
        window=number(usage.get("context_window")) or None,
    )
