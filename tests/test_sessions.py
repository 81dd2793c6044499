"""The session browser's data: finding sessions, their summaries, the index that keeps them, and the
command line."""

from __future__ import annotations

import dataclasses
import fnmatch
import glob
import json
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from waiting import HANG

from agentpager.agents import AGENTS, get_agent
from agentpager.agents.base import Sessions
from agentpager.logs.records import RecordFile
from agentpager.sessions import EDGE_BYTES, find_sessions
from agentpager.sessions_index.listing import (
    files_of,
    first_sessions,
    home_key,
    list_sessions,
    refresh,
    session_files,
)
from agentpager.sessions_index.store import Files, IndexStore, listing_of
from agentpager.sessions_index.updating import update_calls


def read_calls(home: Path) -> dict[str, tuple]:
    """Bring the index's calls up to date; (calls, tokens, counted) of each session it read, by id."""
    return {
        info.session_id: (info.calls, info.tokens, info.counted) for batch in update_calls(str(home)) for info in batch
    }


def claude_session(
    home: Path,
    project: str,
    name: str,
    calls: int,
    started: str = "2026-01-01T10:00:00.000Z",
    output: str = '"type":"tool_use" is text',
) -> Path:
    directory = home / ".claude" / "projects" / project.replace("/", "-")
    directory.mkdir(parents=True, exist_ok=True)
    lines = [
        {
            "type": "user",
            "cwd": project,
            "sessionId": name,
            "version": "2.1.130",
            "gitBranch": "main",
            "timestamp": started,
            "message": {"role": "user", "content": "Fix the export\nplease"},
        },
    ]
    for n in range(calls):
        lines.append(
            {
                "type": "assistant",
                "cwd": project,
                "version": "2.1.130",
                "timestamp": "2026-01-01T10:05:00.000Z",
                "message": {
                    "id": f"m{n}",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {"file_path": "a"}}],
                    "usage": {"input_tokens": 10, "cache_read_input_tokens": 1000 + n, "output_tokens": 5},
                },
            }
        )
        lines.append(
            {
                "type": "user",
                "cwd": project,
                "timestamp": "2026-01-01T10:05:30.000Z",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": output}],
                },
            }
        )
    path = directory / f"{name}.jsonl"
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    return path


def codex_session(home: Path, cwd: str) -> Path:
    directory = home / ".codex" / "sessions" / "2026" / "02" / "03"
    directory.mkdir(parents=True)
    records = [
        {
            "timestamp": "2026-02-03T09:00:00Z",
            "type": "session_meta",
            "payload": {"id": "cx", "cwd": cwd, "cli_version": "0.60.1"},
        },
        {
            "timestamp": "2026-02-03T09:00:01Z",
            "type": "turn_context",
            "payload": {"cwd": cwd, "model": "gpt-5.1-codex"},
        },
        {
            "timestamp": "2026-02-03T09:00:02Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]},
        },
        {
            "timestamp": "2026-02-03T09:00:03Z",
            "type": "response_item",
            "payload": {"type": "function_call", "name": "shell_command", "call_id": "c", "arguments": "{}"},
        },
        {
            "timestamp": "2026-02-03T09:00:04Z",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c", "output": "x"},
        },
        {
            "timestamp": "2026-02-03T09:02:04Z",
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {
                    "total_token_usage": {"input_tokens": 1},
                    "last_token_usage": {"input_tokens": 500, "cached_input_tokens": 100, "output_tokens": 20},
                },
            },
        },
    ]
    path = directory / "rollout-2026-02-03T09-00-00-cx.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def gemini_session(home: Path, project: str) -> Path:
    chats = home / ".gemini" / "tmp" / "myproj" / "chats"
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text(project + "\n")
    document = {
        "sessionId": "g1",
        "projectHash": "h",
        "startTime": "2026-03-01T00:00:00Z",
        "lastUpdated": "2026-03-01T00:10:00Z",
        "messages": [{"id": "1", "timestamp": "2026-03-01T00:00:00Z", "type": "user", "content": "hi there"}],
    }
    path = chats / "session-2026-03-01T00-00-g1.json"
    path.write_text(json.dumps(document, indent=2))
    return path


def test_sessions_of_every_agent(tmp_path: Path, isolated_cache: Path) -> None:
    claude = claude_session(tmp_path, "/home/me/shop", "s1", 3)
    codex_session(tmp_path, "/home/me/shop")
    gemini_session(tmp_path, "/home/me/notes")
    sessions = list_sessions(str(tmp_path))
    assert [(s.agent, s.project, s.calls, s.tokens, s.version, s.model) for s in sessions] == [
        ("gemini-cli", "/home/me/notes", 0, None, "", ""),
        ("codex", "/home/me/shop", 1, 520, "0.60.1", "gpt-5.1-codex"),
        ("claude-code", "/home/me/shop", 3, 1017, "2.1.130", "claude-sonnet-4-5"),
    ]
    assert sessions[2].title == "Fix the export please" and sessions[2].path == str(claude)
    assert (sessions[2].cwd, sessions[2].branch) == ("/home/me/shop", "main")
    assert (sessions[1].started, sessions[1].ended) == ("2026-02-03T09:00:00Z", "2026-02-03T09:02:04Z")
    assert (sessions[0].started, sessions[0].ended) == ("2026-03-01T00:00:00Z", "2026-03-01T00:10:00Z")


def test_sessions_are_found_as_glob_finds_each_agents_patterns(tmp_path: Path, isolated_cache: Path) -> None:
    """The walk finds what ``glob`` finds with each agent's patterns, less its ``ignored`` names: hidden
    names and a subagent's own log left out, a file where a directory is expected passed over."""
    claude = tmp_path / ".claude" / "projects"
    for name in ("-p/s1.jsonl", "-p/agent-a1.jsonl", "-p/.hidden.jsonl", "-p/s1/subagents/agent-a1.jsonl", "x.jsonl"):
        (claude / name).parent.mkdir(parents=True, exist_ok=True)
        (claude / name).write_text("{}\n")
    codex = tmp_path / ".codex" / "sessions"
    for name in ("2026/01/02/rollout-a.jsonl", "rollout-b.json", "rollout-c.jsonl", "2026/01/notes.jsonl"):
        (codex / name).parent.mkdir(parents=True, exist_ok=True)
        (codex / name).write_text("{}\n")
    gemini_session(tmp_path, "/home/me/notes")
    expected = [
        (path, agent.id, agent.sessions.project(path))
        for agent in AGENTS
        if agent.sessions is not None and agent.sessions.find is None
        for pattern in agent.sessions.patterns
        for path in glob.glob(os.path.join(agent.sessions.directory_in(str(tmp_path)), pattern))
        if not (agent.sessions.ignored and fnmatch.fnmatch(os.path.basename(path), agent.sessions.ignored))
    ]
    found = [tuple(found) for found in find_sessions(str(tmp_path))]
    assert sorted(found) == sorted(expected)
    assert sorted(os.path.relpath(path, tmp_path) for path, _, _ in found) == [
        ".claude/projects/-p/s1.jsonl",
        ".codex/sessions/2026/01/02/rollout-a.jsonl",
        ".codex/sessions/rollout-b.json",
        ".codex/sessions/rollout-c.jsonl",
        ".gemini/tmp/myproj/chats/session-2026-03-01T00-00-g1.json",
    ]


def test_an_agent_that_keeps_no_file_per_session_finds_them_itself(
    tmp_path: Path, isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Sessions.find`` is asked with the home and gives the files (and projects) listed; its patterns are not used."""
    claude_session(tmp_path, "/home/me/shop", "globbed", 1)
    written = claude_session(tmp_path / "store", "/p", "written", 2)
    asked: list[str | None] = []

    def find(home: str | None) -> list[tuple[str, str]]:
        asked.append(home)
        return [(str(written), "/from/the/store")]

    claude_code = get_agent("claude-code")
    store = Sessions(".claude", None, ("projects/*/*.jsonl",), find=find)
    monkeypatch.setattr("agentpager.sessions.AGENTS", (dataclasses.replace(claude_code, sessions=store),))
    assert [(s.path, s.agent, s.calls) for s in list_sessions(str(tmp_path))] == [(str(written), "claude-code", 2)]
    assert [found.project_hint for found in find_sessions(str(tmp_path))] == ["/from/the/store"]
    assert asked == [str(tmp_path)] * 2


def test_an_unchanged_file_is_not_read_again(tmp_path: Path, isolated_cache: Path) -> None:
    path = claude_session(tmp_path, "/p", "s1", 2)
    assert list_sessions(str(tmp_path))[0].calls == 2
    store = IndexStore()
    store.run(lambda db: db.execute("UPDATE sessions SET title = 'from the index'"), write=True)
    assert list_sessions(str(tmp_path), store)[0].title == "from the index", "an unchanged file is not read"
    grown = claude_session(tmp_path / "donor", "/p", "other", 3).read_text().split("\n", 1)[1]
    with path.open("a") as file:
        file.write(grown)
    sessions = {s.session_id: s for s in list_sessions(str(tmp_path), store)}
    assert (sessions["s1"].calls, sessions["s1"].title) == (5, "Fix the export please")


def test_the_first_look_reads_the_ends_and_the_calls_come_after(tmp_path: Path, isolated_cache: Path) -> None:
    path = claude_session(tmp_path, "/home/me/shop", "big", 40, output="x" * 10_000)
    assert path.stat().st_size > 2 * EDGE_BYTES
    (first,) = list_sessions(str(tmp_path))
    assert (first.calls, first.tokens, first.counted, first.title) == (None, 1054, False, "Fix the export please")
    assert read_calls(tmp_path) == {"big": (40, 1054, True)}
    assert list_sessions(str(tmp_path))[0].calls == 40, "the index keeps the count"
    assert read_calls(tmp_path) == {}, "nothing left to read"


def test_usage_further_back_than_the_end_is_found_when_read(tmp_path: Path, isolated_cache: Path) -> None:
    path = claude_session(tmp_path, "/p", "s", 3)
    with path.open("a") as file:  # the session ends with results longer than what the first look reads
        line = json.dumps({"type": "user", "message": {"role": "user", "content": "y" * EDGE_BYTES}})
        file.write(f"{line}\n{line}\n")
    (first,) = list_sessions(str(tmp_path))
    assert (first.calls, first.tokens, first.counted) == (None, None, False)
    assert read_calls(tmp_path) == {"s": (3, 1017, True)}


def test_a_session_that_grew_is_read_on_from_where_it_ended(
    tmp_path: Path, isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = claude_session(tmp_path, "/p", "s", 40, output="x" * 10_000)
    list_sessions(str(tmp_path))
    assert read_calls(tmp_path) == {"s": (40, 1054, True)}
    grown = claude_session(tmp_path / "donor", "/q", "other", 2).read_text().split("\n", 1)[1]
    with path.open("a") as file:
        file.write(grown)
    firsts = []
    records = RecordFile.records

    def spied(self: RecordFile, first_line: int = 1):  # noqa: ANN202 - RecordFile.records, noting where it starts
        firsts.append(first_line)
        return records(self, first_line)

    monkeypatch.setattr(RecordFile, "records", spied)
    (info,) = list_sessions(str(tmp_path))
    assert (info.calls, info.counted) == (None, False)
    assert read_calls(tmp_path) == {"s": (42, 1016, True)}
    assert firsts == [82], "lines 1-81 were read before"


def test_a_kept_listing_is_made_again_when_a_session_changes(tmp_path: Path, isolated_cache: Path) -> None:
    home, store = str(tmp_path), IndexStore()
    key = home_key(home)

    def listed() -> tuple[list[str], int]:
        refresh(home, store)
        data, uncounted = store.listing(key, "json")
        made = listing_of(store.db, key, "json")  # from the sessions' lines, not the kept listing
        assert (data, uncounted) == made
        return [f"{line['session_id']} {line['calls']}" for line in map(json.loads, data.splitlines())], uncounted

    claude_session(tmp_path, "/p", "old", 1, started="2026-01-01T09:00:00.000Z")
    grown = claude_session(tmp_path, "/p", "big", 40, output="x" * 10_000)
    kept = lambda: store.run(lambda db: db.execute("SELECT count(*) FROM listings").fetchone()[0])  # noqa: E731
    assert kept() == 0
    assert listed() == (["big None", "old 1"], 1)
    assert kept() == 1
    read_calls(tmp_path)
    assert listed() == (["big 40", "old 1"], 0)
    with grown.open("a") as file:
        file.write(claude_session(tmp_path / "donor", "/q", "other", 2).read_text().split("\n", 1)[1])
    assert listed() == (["big None", "old 1"], 1)
    grown.unlink()
    assert listed() == (["old 1"], 0)


def test_a_kept_listing_is_found_by_the_versions_of_the_files(tmp_path: Path, isolated_cache: Path) -> None:
    home, store = str(tmp_path), IndexStore()
    key = home_key(home)
    old = claude_session(tmp_path, "/p", "old", 1, started="2026-01-01T09:00:00.000Z")
    claude_session(tmp_path, "/q", "new", 2)

    def files() -> Files:
        return files_of(session_files(home))

    assert store.kept_listing(key, "json", files()) is None
    refresh(home, store)
    listed = store.listing(key, "json")
    assert listed == listing_of(store.db, key, "json") and store.kept_listing(key, "json", files()) is None
    assert store.listing(key, "json", files=files()) == listed, "kept already, now for these versions"
    assert store.kept_listing(key, "json", files()) == listed
    assert store.kept_listing(key, "text", files()) is None, "each kind is kept on its own"
    os.utime(old, ns=(1, 1))
    assert store.kept_listing(key, "json", files()) is None, "a file changed since"
    os.utime(old, ns=(old.stat().st_atime_ns, old.stat().st_mtime_ns + 1))
    stale = files()
    assert store.listing(key, "json", files=stale) == listed  # the index is behind these files
    assert store.kept_listing(key, "json", stale) is None, "not kept for versions the index does not have"
    refresh(home, store)
    assert store.listing(key, "json", files=stale) == listed and store.kept_listing(key, "json", stale) == listed
    (kept,) = (store.path.parent / "sessions-listings").iterdir()
    kept.write_bytes(kept.read_bytes()[:-1])
    assert store.kept_listing(key, "json", stale) is None, "a file not as it was written"
    kept.unlink()
    assert store.kept_listing(key, "json", stale) is None


def test_the_first_rows_are_the_first_projects_sessions(tmp_path: Path, isolated_cache: Path) -> None:
    for project, name, day in [("/a", "a1", 5), ("/b", "b1", 4), ("/a", "a2", 3), ("/c", "c1", 2), ("/b", "b2", 1)]:
        claude_session(tmp_path, project, name, 1, started=f"2026-01-0{day}T10:00:00.000Z")
    store = IndexStore()
    assert first_sessions(str(tmp_path), 24, store) == ([], 0, 0), "nothing listed yet"
    every = list_sessions(str(tmp_path), store)
    assert [info.session_id for info in every] == ["a1", "b1", "a2", "c1", "b2"]
    summaries = {info.session_id: vars(info) for info in every}

    def first(rows: int) -> tuple[list[str], int, int]:
        sessions, count, projects = first_sessions(str(tmp_path), rows, store)
        assert [vars(info) for info in sessions] == [summaries[info.session_id] for info in sessions]
        return [info.session_id for info in sessions], count, projects

    assert first(1) == (["a1", "a2"], 5, 3), "a project comes whole, under its heading"
    assert first(3) == (["a1", "a2"], 5, 3)
    assert first(4) == (["a1", "a2", "b1", "b2"], 5, 3)
    assert first(24) == (["a1", "a2", "b1", "b2", "c1"], 5, 3)


def test_a_long_document_is_summed_up_from_its_head(tmp_path: Path, isolated_cache: Path) -> None:
    path = gemini_session(tmp_path, "/home/me/notes")
    document = json.loads(path.read_text())
    document["messages"].append(
        {
            "id": "2",
            "timestamp": "2026-03-01T00:01:00Z",
            "type": "gemini",
            "content": "z" * 2 * EDGE_BYTES,
            "toolCalls": [{"id": "c", "name": "ls", "args": {}, "result": [{"functionResponse": {"response": {}}}]}],
        }
    )
    path.write_text(json.dumps(document, indent=2))
    (first,) = list_sessions(str(tmp_path))
    assert (first.calls, first.counted, first.title, first.session_id) == (None, False, "hi there", "g1")
    assert read_calls(tmp_path) == {"g1": (1, None, True)}
    assert list_sessions(str(tmp_path))[0].project == "/home/me/notes"


def test_codex_home_is_honoured(tmp_path: Path, isolated_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex_session(tmp_path / "elsewhere", "/x")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "elsewhere" / ".codex"))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert [s.agent for s in list_sessions()] == ["codex"]


def test_sessions_command(tmp_path: Path) -> None:
    claude_session(tmp_path, "/home/me/shop", "s1", 1)
    env = os.environ | {"AGENTPAGER_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "sessions", "--home", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=HANG,
        env=env,
    )
    assert done.stdout.splitlines() == [
        "/home/me/shop  (1 session)",
        "  2026-01-01 10:00    5m30s  claude-code 2.1.130  claude-sonnet-4-5            1 call    1,015 tokens  Fix the export please",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "sessions", "--home", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=HANG,
        env=env,
    )
    (record,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert (record["calls"], record["duration_seconds"], record["agent"]) == (1, 330.0, "claude-code")


def test_a_first_listing_is_kept_for_the_next(tmp_path: Path, isolated_cache: Path) -> None:
    claude_session(tmp_path, "/home/me/shop", "s1", 1)
    command = [sys.executable, "-m", "agentpager", "sessions", "--home", str(tmp_path), "--json"]
    first = subprocess.run(command, capture_output=True, timeout=HANG, check=True).stdout  # every session new
    files = files_of(session_files(str(tmp_path)))
    assert IndexStore().kept_listing(home_key(str(tmp_path)), "json", files) == (first, 0)


def test_sessions_command_before_and_after_counting(tmp_path: Path) -> None:
    claude_session(tmp_path, "/home/me/shop", "s1", 40, output="x" * 10_000)
    env = os.environ | {"AGENTPAGER_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "agentpager", "sessions", "--home", str(tmp_path)]
    done = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=HANG, env=env)
    (record,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert (record["calls"], record["counted"]) == (None, False)
    assert done.stderr == (
        "agentpager: 1 session not counted yet (only their ends were read): their calls show as … (null in --json);"
        " --full reads them, and the index keeps the count\n"
    )
    done = subprocess.run([*command, "--full"], capture_output=True, text=True, timeout=HANG, env=env)
    assert done.stdout.splitlines()[1].split()[6:8] == ["40", "calls"] and done.stderr == ""
    done = subprocess.run(command, capture_output=True, text=True, timeout=HANG, env=env)
    assert done.stdout.splitlines()[1].split()[6:8] == ["40", "calls"], "from the index"


def test_replay_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    session = claude_session(tmp_path, str(tmp_path), "s1", 2000)
    done = subprocess.run(
        f"{sys.executable} -m agentpager replay {session} --root {tmp_path} | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert done.stdout.startswith("    0  turn 1    Read") and "Traceback" not in done.stderr
    assert "BrokenPipe" not in done.stderr


def test_records_nested_too_deep_do_not_stop_the_listing(tmp_path: Path, isolated_cache: Path) -> None:
    """A session whose first, last or a long line nests 1,000 deep is listed from its other records."""
    deep = '{"type":"user","message":' + "[" * 1000 + "]" * 1000 + "}\n"
    long_deep = '{"type":"user","message":{"x":"' + "y" * 70_000 + '","z":' + "[" * 100_000 + "]" * 100_000 + "}}\n"
    small = claude_session(tmp_path, "/home/me/shop", "small", 2)
    small.write_text(deep + small.read_text() + deep)
    big = claude_session(tmp_path, "/home/me/shop", "big", 40, output="x" * 10_000)
    big.write_text(deep + long_deep + big.read_text() + long_deep + deep)
    list_sessions(str(tmp_path))
    read_calls(tmp_path)
    sessions = {info.session_id: info for info in list_sessions(str(tmp_path))}
    assert (sessions["small"].calls, sessions["small"].title, sessions["small"].problem) == (
        2,
        "Fix the export please",
        "",
    )
    assert (sessions["big"].calls, sessions["big"].tokens, sessions["big"].problem) == (40, 1054, "")


def test_a_fifo_where_a_session_or_its_project_root_would_be_never_blocks(tmp_path: Path) -> None:
    """``agentpager sessions`` waited for ever for a writer to the FIFO."""
    claude = tmp_path / ".claude" / "projects" / "p"
    claude.mkdir(parents=True)
    os.mkfifo(claude / "x.jsonl")
    gemini = gemini_session(tmp_path, "/home/me/notes")
    (gemini.parent.parent / ".project_root").unlink()
    os.mkfifo(gemini.parent.parent / ".project_root")
    env = os.environ | {"AGENTPAGER_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "sessions", "--home", str(tmp_path), "--json", "--full"],
        capture_output=True,
        text=True,
        timeout=HANG,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    records = {record["agent"]: record for record in map(json.loads, done.stdout.splitlines())}
    assert records["claude-code"]["problem"] == f"[Errno 22] not a regular file: '{claude / 'x.jsonl'}'"
    assert (records["gemini-cli"]["project"], records["gemini-cli"]["problem"]) == ("myproj", "")


def test_the_usage_before_a_long_line_is_found_without_reading_it(tmp_path: Path, isolated_cache: Path) -> None:
    """A session's last usage before a 20 MB line (an output): its ends do not hold it, and reading
    its calls into the index finds it without holding the long line whole (it is skimmed)."""
    import tracemalloc

    path = claude_session(tmp_path, "/home/me/shop", "s1", 1)
    output = {"type": "tool_result", "tool_use_id": "gone", "content": "y" * 20_000_000}
    long_line = json.dumps({"type": "user", "message": {"role": "user", "content": [output]}})
    path.write_text(path.read_text() + long_line + "\n")
    (listed,) = list_sessions(str(tmp_path))
    assert (listed.calls, listed.tokens, listed.counted) == (None, None, False)
    tracemalloc.start()
    try:
        assert read_calls(tmp_path) == {"s1": (1, 1015, True)}
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000


def test_odd_times_names_and_lone_surrogates_do_not_stop_the_listing(tmp_path: Path, isolated_cache: Path) -> None:
    """A session that starts at a time with an offset from UTC and ends at one without has no
    duration (subtracting them raised TypeError); a lone surrogate (valid JSON, ``"\\ud800"``) in a
    prompt, a branch, a cwd or a call's arguments is kept as U+FFFD (SQLite cannot encode it); a file
    whose name is not UTF-8 is left out. Each ended the whole listing."""
    claude_session(tmp_path, "/home/me/shop", "mixed", 1, started="2026-01-01T10:00:00")
    odd = claude_session(tmp_path, "/home/me/shop", "odd", 1)
    odd.write_text(
        odd.read_text()
        .replace("Fix the export", "Fix \\ud800 the export")
        .replace('"gitBranch":"main"', '"gitBranch":"ma\\udfffin"')
        .replace('"cwd":"/home/me/shop"', '"cwd":"/home/me/sh\\ud83dop"', 1)
        .replace('"file_path":"a"', '"file_path":"\\udc80a"')
    )
    os.link(odd, os.fsencode(odd.parent) + b"/\xff\xfe.jsonl")
    for _ in range(2):  # the first listing, then the index's
        listed = list_sessions(str(tmp_path))
        sessions = {info.session_id: info for info in listed}
        assert sorted(info.session_id for info in listed) == ["mixed", "odd"], "the file named in bytes left out"
        assert (sessions["odd"].title, sessions["odd"].branch) == ("Fix \ufffd the export please", "ma\ufffdin")
        assert sessions["mixed"].started == "2026-01-01T10:00:00"
    assert read_calls(tmp_path)["odd"] == (1, 1015, True)
    for options in ([], ["--json"], ["--search", "export"], ["--full"]):
        done = subprocess.run(
            [sys.executable, "-m", "agentpager", "sessions", *options],
            capture_output=True,
            timeout=HANG,
            env={**os.environ, "HOME": str(tmp_path), "AGENTPAGER_CACHE_DIR": str(isolated_cache)},
        )
        assert done.returncode == 0 and done.stdout.count(b" the export please") == 2, (options, done.stderr)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    before=st.lists(st.integers(0, 40_000), max_size=3),
    prompt=st.integers(0, 40_000),
    outputs=st.lists(st.integers(0, 30_000), min_size=1, max_size=6),
    after=st.lists(st.integers(0, 40_000), max_size=3),
    model_late=st.booleans(),
    last_line_ended=st.booleans(),
)
def test_the_ends_are_read_a_little_at_a_time_with_the_same_summary(
    before: list[int], prompt: int, outputs: list[int], after: list[int], model_late: bool, last_line_ended: bool
) -> None:
    """A session's ends are read FIRST_EDGE bytes at a time, growing while what is sought may lie
    beyond: the summary is the one the whole EDGE_BYTES gives, wherever the first prompt, the last
    turn's usage and the model are."""
    import tempfile

    from agentpager.sessions import Found, summarize

    def result(number: int, size: int) -> dict:
        content = [{"type": "tool_result", "tool_use_id": f"t{number}", "content": "o" * size}]
        return {"type": "user", "message": {"role": "user", "content": content}}

    records: list[dict] = [{"type": "summary", "summary": "s" * size} for size in before]
    first = {"role": "user", "content": "Fix it " + "é" * prompt}
    records.append({"type": "user", "cwd": "/p", "sessionId": "s", "timestamp": "2026-01-01", "message": first})
    records.append(result(0, 2 * EDGE_BYTES))  # the file is more than its two ends
    for n, size in enumerate(outputs, start=1):
        call = {"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {}}
        usage = {"input_tokens": n, "output_tokens": 5}
        message = {"id": f"m{n}", "role": "assistant", "content": [call], "usage": usage}
        if not model_late or n == 1:
            message["model"] = "claude-sonnet-4-5"
        records.append({"type": "assistant", "timestamp": "2026-01-01T10:05Z", "message": message})
        records.append(result(n, size))
    records += [{"type": "system", "version": "2.1.130", "content": "x" * size} for size in after]
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "s.jsonl")
        text = "\n".join(json.dumps(record) for record in records)
        path.write_text(text + "\n" if last_line_ended else text, encoding="utf-8")
        found, size = Found(str(path), "claude-code", "/p"), path.stat().st_size
        summaries = []
        for first_edge in (EDGE_BYTES, 100, 4096):
            with mock.patch("agentpager.sessions.FIRST_EDGE", first_edge):
                summaries.append(summarize(found, size))
        with mock.patch("agentpager.sessions.LOOKED_CHARS", 1 << 30):  # no string cut before parsing
            summaries.append(summarize(found, size))
    assert summaries[1] == summaries[0]
    assert summaries[2] == summaries[0]
    assert summaries[3] == summaries[0]
