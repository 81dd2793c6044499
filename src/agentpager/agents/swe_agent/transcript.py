"""SWE-agent's trajectories (``.traj``): one object with ``trajectory``, a list of steps ``{thought,
action, observation, response, execution_time, state, query}``, and ``info`` (``model_stats``,
``swe_agent_version``), as defined by SWE-agent/SWE-agent ``sweagent/types.py`` (``TrajectoryStep``,
``AgentInfo``). A step's action is a command line run in the agent's shell; its observation is what it
printed. No token usage is recorded per request: the context is estimated.
"""

from __future__ import annotations

from typing import Any

from agentpager.agents.swe_agent import AGENT
from agentpager.logs.collector import Collector, ModelTurn, ResultRef
from agentpager.logs.records import Record


class SweAgent(Collector):
    format = AGENT.id

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
        if self.prompt == 0:
            self.prompt = 1
        state = value.get("state")
        if isinstance(state, dict):
            self.saw(cwd=state.get("working_dir"))
        self.model_turn(ModelTurn(record.where))
        self.say("thinking", str(value.get("thought") or ""), record.where)
        # The action is a command line in the agent's shell, as the swe-agent profile claims it.
        call = self.call("", "bash", {"command": str(value.get("action") or "")}, record.where)
        observation = str(value.get("observation") or "")
        self.result(call.call_id, ResultRef(record.where, -1, len(observation), None))

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        return str(value.get("observation") or ""), None
