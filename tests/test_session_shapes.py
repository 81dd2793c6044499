"""Sessions as they really were, on excerpts of real public logs (``tests/sessions/``, from
tielec/ai-workflow-agent, MIT): a compaction, a Task's subagent, model turns, a ``codex exec --json`` log.

- ``claude-stream-compaction.jsonl``: commit 4edfa0b5, ``.ai-workflow/issue-48/04_implementation/
  revise/agent_log_raw.txt`` lines 1 and 148-160 (Claude Code 2.0.21 stream-json).
- ``claude-stream-subagent.jsonl``: commit 35b287a7, ``.ai-workflow/issue-194/07_documentation/
  review/agent_log_raw.txt`` lines 1, 5, 9, 12, 18 and 19 (the Task call, one of its subagent's
  calls and its result, the Task's result, the main agent going on).
- ``codex-exec-review.jsonl``: commit 412bb6a5, ``.ai-workflow/issue-119/00_planning/review/
  agent_log_raw.txt``, whole.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agentpager.transcripts import open_transcript
from agentpager.transcripts.context import AgentContext
from agentpager.transcripts.replay import Replayer

SESSIONS = Path(__file__).parent / "sessions"
COMPACTION = SESSIONS / "claude-stream-compaction.jsonl"
SUBAGENT = SESSIONS / "claude-stream-subagent.jsonl"
CODEX_EXEC = SESSIONS / "codex-exec-review.jsonl"
TASK = "toolu_012eGFj5zkugZkBW6Zfbq9VN"


def agentpager(*arguments: str) -> str:
    command = [sys.executable, "-m", "agentpager", *arguments]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def test_a_compaction_starts_the_context_again_and_is_marked() -> None:
    transcript = open_transcript(str(COMPACTION))
    (boundary,) = transcript.boundaries
    assert (boundary.trigger, boundary.tokens_before, boundary.agent) == ("auto", 155_791, "")
    assert [(c.tool, c.prompt, c.turn) for c in transcript.calls] == [
        ("Edit", 1, 1),
        ("Edit", 1, 2),
        ("Edit", 1, 3),
        ("Bash", 1, 4),
    ], "the summary is not a prompt; turns count the model's requests"
    summary = [event for event in transcript.events if event.kind == "summary"]
    assert len(summary) == 1 and summary[0].text.startswith("This session is being continued from a previous")
    assert transcript.index.compacted_calls() == {3: 0}, "the call list marks the first call after it"
    assert agentpager("replay", str(COMPACTION), "--context") == (
        " turn  time          input  cache read  cache write   output    context     window   fill  tool outputs  over\n"
        "    1                    0     151,564        1,855       25    153,419    200,000    77%             0\n"
        "    2                    0     153,419          809       24    154,228    200,000    77%           400\n"
        "    3                    0     154,228          908        1    155,136    200,000    78%           847\n"
        "       compaction (auto) at 155,791 tokens: the context starts again from a summary\n"
        "    4                    3      12,202       17,451        1     29,656    200,000    15%             0\n"
        "    5                    6      29,653          163        1     29,822    200,000    15%             0\n"
        "tool outputs: their share of the growth the usage records\n"
        "\n"
        "costliest tool outputs (tokens):\n"
        '      447  #1     Edit           {"file_path": "/tmp/jenkins-c3e02eaf/workspace/AI_Workflow/…\n'
        '      400  #0     Edit           {"file_path": "/tmp/jenkins-c3e02eaf/workspace/AI_Workflow/…\n'
        '        0  #3     Bash           {"command": "grep -r \\"as Error\\" /tmp/jenkins-c3e02eaf/wor…\n'
    ), "turn 4 is the call list's turn 4; its outputs' share starts again after the compaction"


def test_one_meaning_of_turn_in_the_list_and_the_chart() -> None:
    listed = agentpager("replay", str(COMPACTION)).splitlines()
    assert [line.split()[:4] for line in listed] == [
        ["0", "turn", "1", "Edit"],
        ["1", "turn", "2", "Edit"],
        ["2", "turn", "3", "Edit"],
        ["3", "turn", "4", "Bash"],
    ]
    transcript = open_transcript(str(COMPACTION))
    assert [turn.number for turn in AgentContext(transcript.index).fills()] == [1, 2, 3, 4, 5]


def test_a_task_subagent_is_under_its_call_with_a_context_of_its_own() -> None:
    transcript = open_transcript(str(SUBAGENT))
    assert [(c.index, c.tool, c.depth, c.parent, c.agent, c.turn) for c in transcript.calls] == [
        (0, "Task", 0, None, "", 1),
        (1, "Read", 1, 0, TASK, 1),
    ], "the subagent's first request is its own turn 1"
    main = [(turn.number, turn.context, turn.outputs) for turn in AgentContext(transcript.index).fills()]
    assert main == [(1, 35_181, 0), (2, 40_547, 4_921)], "the subagent's reads are not in the main context"
    own = [(turn.number, turn.context, turn.outputs) for turn in AgentContext(transcript.index, TASK).fills()]
    assert own == [(1, 11_730, 0)]
    assert transcript.tokens(transcript.calls[0]) == (4_921, False), "the Task's result, from the usage recorded"
    records = [json.loads(line) for line in agentpager("replay", str(SUBAGENT), "--json").splitlines()]
    assert [(r["index"], r["tool"], r["agent"], r["parent"]) for r in records] == [
        (0, "Task", "", None),
        (1, "Read", TASK, 0),
    ]


def test_replay_context_gives_a_subagent_its_own_turns() -> None:
    """``replay --context`` printed the main agent's turns alone: a real run's four Task subagents'
    215 of its 251 turns were left out without a word."""
    report = agentpager("replay", str(SUBAGENT), "--context")
    main, *subagents = report.split("\nthe subagent of ")
    assert main.endswith('    4,921  #0     Task           {"description": "Verify documentation updates", "prompt": "…\n')
    assert subagents == [
        "call #0, in its own context:\n"
        " turn  time          input  cache read  cache write   output    context     window   fill  tool outputs  over\n"
        "    1                    3           0       11,727        3     11,730    200,000     6%             0\n"
        "tool outputs: their share of the growth the usage records\n"
        "\n"
        "costliest tool outputs (tokens):\n"
    ], "the subagent's turn, as its message records it, under the Task call that started it"


def test_a_codex_exec_log_opens_and_replays_like_a_rollout(tmp_path: Path) -> None:
    transcript = open_transcript(str(CODEX_EXEC))
    assert (transcript.format, transcript.parsed.session_id, transcript.problems) == (
        "codex",
        "019a475e-08c2-7a12-9da8-d29f3ce46025",
        [],
    )
    planning = ".ai-workflow/issue-119/00_planning/output/planning.md"
    assert [(c.tool, c.arguments) for c in transcript.calls] == [
        ("shell", {"command": ["bash", "-lc", f"cat @{planning}"]}),
        ("shell", {"command": ["bash", "-lc", "ls"]}),
        ("shell", {"command": ["bash", "-lc", "ls -a"]}),
        ("shell", {"command": ["bash", "-lc", f"cat {planning}"]}),
        ("shell", {"command": ["bash", "-lc", f"nl -ba {planning}"]}),
    ]
    first = transcript.calls[0]
    assert transcript.recorded(first) == (
        f'{{"output":"cat: @{planning}: No such file or directory\\n","metadata":{{"exit_code":1,"duration_seconds":0.0}}}}'
    )
    assert first.result is not None and first.result.is_error
    # The file the agent read, as its own cat printed it, in an otherwise empty workspace.
    cat = json.loads(transcript.recorded(transcript.calls[3]) or "")["output"]
    (tmp_path / planning).parent.mkdir(parents=True)
    (tmp_path / planning).write_text(cat)
    replayer = Replayer(transcript, str(tmp_path))
    statuses = [replayer.replay(call).status for call in transcript.calls]
    assert statuses == ["same", "differs", "differs", "same", "same"], "ls lists another directory"
    assert [turn.estimated for turn in transcript.turns] == [True] * 6, "no request's usage is logged"


def test_a_codex_exec_log_does_not_say_what_the_model_received() -> None:
    """``codex exec --json`` prints a command's whole output, for its client; the model got it cut
    (a real log's ``grep -R`` of 1.16 MB was given as what the model received)."""
    records = [json.loads(line) for line in agentpager("replay", str(CODEX_EXEC), "--json").splitlines()]
    assert [(record["tool"], record["received"]) for record in records] == [("shell", None)] * 5
    assert all(record["recorded"].startswith('{"output":') for record in records), "what the log kept, as before"


def test_runs_logged_one_after_the_other_are_sessions_of_their_own(tmp_path: Path) -> None:
    """Two real stream-json runs in one log (as CI jobs keep them): the second's context starts empty."""
    log = tmp_path / "runs.jsonl"
    log.write_bytes(SUBAGENT.read_bytes() + COMPACTION.read_bytes())
    transcript = open_transcript(str(log))
    assert [(b.new_session, b.trigger) for b in transcript.boundaries] == [(True, ""), (False, "auto")]
    assert agentpager("replay", str(log), "--context").splitlines()[1:10] == [
        "    1                    6      34,697          478       25     35,181    200,000    18%             0",
        "    2                    4      35,175        5,368        1     40,547    200,000    20%         4,921",
        "       a new session: the context starts again empty",
        "    3                    0     151,564        1,855       25    153,419    200,000    77%             0",
        "    4                    0     153,419          809       24    154,228    200,000    77%           400",
        "    5                    0     154,228          908        1    155,136    200,000    78%           847",
        "       compaction (auto) at 155,791 tokens: the context starts again from a summary",
        "    6                    3      12,202       17,451        1     29,656    200,000    15%             0",
        "    7                    6      29,653          163        1     29,822    200,000    15%             0",
    ]
