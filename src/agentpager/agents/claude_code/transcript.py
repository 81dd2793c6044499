"""Claude Code session JSONL (``~/.claude/projects/<project>/<session>.jsonl``) and ``claude -p
--output-format stream-json`` logs.

Each line is a record with ``type`` ``user``, ``assistant``, ``system``, ``summary`` and others;
``message`` holds an Anthropic message (an assistant message logged in several lines, one per
content block, each with the message's ``usage``); ``cwd``, ``version`` and ``timestamp`` are on
every line. A tool result's line has ``toolUseResult`` (``tool_use_result`` in stream-json), the
structured result: a Read answered ``{"type": "file_unchanged"}`` when the file had not changed
since an earlier read, a Task its subagent's ``agentId``. Subagents are lines with
``"isSidechain": true`` in older sessions, and ``<session>/subagents/agent-<id>.jsonl`` files
(``agent-<id>.jsonl`` beside the session before that) with the same lines in newer ones; in
stream-json a subagent's lines carry ``parent_tool_use_id``, the id of the Task call that started it.
A compaction is a ``{"type": "system", "subtype": "compact_boundary"}`` line, then a user message
holding the summary (``isCompactSummary`` in session files, unmarked in stream-json).
Checked against real sessions of versions 1.0.98 to 2.1.220 (see FIELD-NOTES); the subagent
layout as documented in sonnes/chitragupt ``docs/specs/004-subagents.md``; stream-json subagents and
compactions as tielec/ai-workflow-agent's ``.ai-workflow/issue-*/*/agent_log_raw.txt`` (2.0.x) log them.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Collection
from typing import Any

from agentpager.agents.claude_code import AGENT
from agentpager.engine.filesystem import ANYWHERE, Filesystem
from agentpager.logs.collector import Collector, EventKind, ModelTurn, ToolCall
from agentpager.logs.messages import block_result, read_blocks, usage_turn
from agentpager.logs.records import Location, Record

TASK_TOOLS = ("Task", "Agent")
_AGENT_ID = re.compile(r"agentId: ([\w-]+)")


class ClaudeCode(Collector):
    format = AGENT.id
    call_markers = (b'"type":"tool_use"', b'"type": "tool_use"')
    turn_markers = (b'"usage"',)
    prompt_markers = (b'"type":"user"', b'"type": "user"')
    task_tools = TASK_TOOLS

    def __init__(self) -> None:
        super().__init__()
        self._sidechain_starter: ToolCall | None = None
        self._summary = False
        """The record being read is a compaction's summary."""
        self._summary_next = False
        """A compaction was logged: the next user record is its summary."""
        self._run_session: str | None = None
        """The session id of the last stream-json run's first line."""

    @classmethod
    def recognises(cls, record: Record) -> bool:
        value = record.value
        return (
            isinstance(value, dict)
            and value.get("type") in ("user", "assistant", "system", "summary")
            and ("message" in value or "sessionId" in value or value.get("subtype") == "init")
        )

    @classmethod
    def skims(cls, record: Record) -> bool:
        """A user line whose head ends inside a tool_result's content. Claude Code writes one result
        per line (each with its one ``toolUseResult``); a tail that names a ``tool_use_id`` would
        mean more, and a sidechain line that does not say its agent is read whole (it places calls)."""
        value, skim = record.value, record.skim
        if skim is None or value.get("type") != "user" or len(skim.cut) < 4:
            return False
        if skim.cut[:2] != ("message", "content") or skim.cut[3] != "content" or '"tool_use_id"' in skim.tail:
            return False
        if value.get("isSidechain") and not value.get("agentId"):
            return False
        block = value["message"]["content"][skim.cut[2]]
        return isinstance(block, dict) and block.get("type") == "tool_result"

    def feed(self, record: Record) -> None:
        line = record.value
        if not isinstance(line, dict):
            return
        get, parsed = line.get, self.parsed
        kind = get("type")
        self.saw(get("timestamp"), get("version") or get("claude_code_version"), get("cwd"), branch=get("gitBranch"))
        if not parsed.session_id:
            parsed.session_id = str(get("sessionId") or get("session_id") or "")
        if kind == "system":
            subtype = get("subtype")
            if subtype == "init":
                self.saw(model=get("model"))
                self._new_run(get("session_id"), record)
            elif subtype == "compact_boundary":
                self._compaction(line, record)
            return
        if kind == "result":  # a stream-json run's last line: no result comes after it
            self.give_up_waiting()
            return
        if kind != "assistant" and kind != "user":
            return
        self._place(line)
        message = get("message")
        if not isinstance(message, dict):
            return
        if kind == "assistant":
            self.saw(model=message.get("model"))
            turn = usage_turn(message, record.where) or ModelTurn(
                record.where, model=str(message.get("model") or ""), key=str(message.get("id") or "")
            )
            turn.timestamp = self.timestamp
            self.model_turn(turn)
        structured = get("toolUseResult", get("tool_use_result"))
        unchanged = isinstance(structured, dict) and structured.get("type") == "file_unchanged"
        self.answered = []
        self._summary = bool(get("isCompactSummary")) or (self._summary_next and kind == "user")
        if self._summary:
            self._summary_next = False
        read_blocks(self, message, record.where, unchanged)
        self._summary = False
        if isinstance(structured, dict):
            self._note_subagent(structured)

    def _new_run(self, session: Any, record: Record) -> None:
        """A stream-json run's first line: a session other than the last run's starts an empty
        context (logs of several ``claude -p`` runs are often kept one after the other)."""
        if self._run_session is not None and session != self._run_session:
            self._place({})
            self.boundary(record.where, "", 0, new_session=True)
        self._run_session = session if isinstance(session, str) else ""

    def say(self, kind: EventKind, text: str, where: Location) -> None:
        """The user message that follows a compaction is its summary, not a prompt."""
        super().say("summary" if self._summary and kind == "prompt" else kind, text, where)

    def _compaction(self, line: dict[str, Any], record: Record) -> None:
        """``compact_boundary``: ``compactMetadata`` (session files) or ``compact_metadata`` (stream-json)."""
        metadata = line.get("compactMetadata", line.get("compact_metadata"))
        metadata = metadata if isinstance(metadata, dict) else {}
        self._place(line)
        tokens = metadata.get("preTokens", metadata.get("pre_tokens"))
        self.boundary(record.where, metadata.get("trigger"), tokens)
        self._summary_next = True

    def _place(self, line: dict[str, Any]) -> None:
        """Whose record this is. In stream-json a subagent's records name the Task call that started it
        (``parent_tool_use_id``); older session files mark them ``isSidechain`` (the subagent of the
        latest Task call still waiting); a subagent's own file says ``agentId`` (it is placed whole)."""
        parent = line.get("parent_tool_use_id")
        if isinstance(parent, str) and parent:
            started = self._waiting_by_id.get(parent, ())
            self.depth, self.starter, self.agent = 1, started[-1] if started else None, parent
            return
        if not line.get("isSidechain") or line.get("agentId"):
            self.depth, self.starter, self.agent = 0, None, ""
            return
        if self.depth == 0:
            waiting = [call for call in self.waiting() if call.tool in TASK_TOOLS]
            self._sidechain_starter = waiting[-1] if waiting else None
        starter = self._sidechain_starter
        self.depth, self.starter, self.agent = (
            1,
            starter,
            starter.call_id if starter and starter.call_id else "sidechain",
        )

    def _note_subagent(self, structured: dict[str, Any]) -> None:
        """The subagent a Task result names, for the subagent's own transcript to be found."""
        tasks = [call for call in self.answered if call.tool in TASK_TOOLS]
        if not tasks:
            return
        agent_id = structured.get("agentId")
        if not agent_id:
            found = _AGENT_ID.search(str(structured.get("content", "")))
            agent_id = found.group(1) if found else None
        if agent_id:
            self.parsed.subagent_ids[str(agent_id)] = tasks[-1]

    @classmethod
    def subagent_files(
        cls, path: str, agent_ids: Collection[str], filesystem: Filesystem = ANYWHERE
    ) -> list[tuple[str, str]]:
        """``<session>/subagents/agent-<id>.jsonl`` (2.x), else ``agent-<id>.jsonl`` beside the session
        for the ids its Task results name (1.x); compaction agents (``agent-acompact-*``) left out."""
        folder = os.path.join(os.path.splitext(path)[0], "subagents")
        try:
            names = filesystem.names(folder)
        except OSError:
            names = []
        found = {
            name[len("agent-") : -len(".jsonl")]: os.path.join(folder, name)
            for name in sorted(names)
            if fnmatch.fnmatchcase(name, "agent-*.jsonl")
        }
        for agent_id in agent_ids:
            beside = os.path.join(os.path.dirname(path), f"agent-{agent_id}.jsonl")
            if agent_id not in found and filesystem.is_file(beside):
                found[agent_id] = beside
        return [(agent_id, name) for agent_id, name in found.items() if not agent_id.startswith("acompact")]

    @staticmethod
    def result_text(value: Any, block: int) -> tuple[str, bool | None]:
        return block_result(value["message"], block)
