"""The sessions index: its rows for new, grown, rewritten and deleted logs; a damaged or foreign
database; two processes writing at once; search (hostile text too), its filters, and ``--read``."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG

from agentpager.sessions_index.calls import output_tokens
from agentpager.sessions_index.listing import list_sessions
from agentpager.sessions_index.search import (
    Filters,
    ReadSummary,
    SearchError,
    parse_query,
    read_counts,
    read_summary,
    reads_of,
    search,
    since_time,
)
from agentpager.sessions_index.store import IndexStore, default_path
from agentpager.sessions_index.updating import update_calls

CWD = "/home/me/shop"


def line(kind: str, n: int, **fields: object) -> dict:
    return {
        "type": kind,
        "cwd": CWD,
        "sessionId": "s",
        "version": "2.1.84",
        "timestamp": f"2026-01-0{n}T10:00:00Z",
    } | fields


def prompt(text: str, n: int = 1) -> dict:
    return line("user", n, message={"role": "user", "content": text})


def call(call_id: str, tool: str, arguments: dict, context: int, n: int = 1) -> dict:
    usage = {"input_tokens": 0, "cache_read_input_tokens": context, "output_tokens": 10}
    content = [{"type": "tool_use", "id": call_id, "name": tool, "input": arguments}]
    return line(
        "assistant",
        n,
        message={"id": f"m{call_id}", "role": "assistant", "model": "claude-x", "content": content, "usage": usage},
    )


def result(call_id: str, text: str, error: bool = False, n: int = 1) -> dict:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}
    return line("user", n, message={"role": "user", "content": [block]})


def write_log(home: Path, name: str, records: list[dict], mode: str = "w") -> Path:
    directory = home / ".claude" / "projects" / CWD.replace("/", "-")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.jsonl"
    with path.open(mode) as file:
        file.write("".join(json.dumps(record) + "\n" for record in records))
    return path


SESSION = [
    prompt("Find the <script>alert(1)</script> bug, NEAR(the parser)"),
    call("a", "Read", {"file_path": f"{CWD}/src/app.py", "offset": 10, "limit": 5}, 1000),
    result("a", "    10→def parse():\n    11→    return 'needle'"),
    call("b", "Read", {"file_path": f"{CWD}/src/app.py"}, 1100),
    result("b", "no such file", error=True),
    call("c", "Grep", {"pattern": "needle", "path": "src"}, 1300),
    result("c", "src/app.py"),
    call("d", "Bash", {"command": 'echo "quoted" *'}, 1400),
]


def rows(
    store: IndexStore, columns: str = "number, tool, arguments, status, size, tokens, file, first_line, last_line"
) -> list[tuple]:
    return store.run(lambda db: db.execute(f"SELECT {columns} FROM calls ORDER BY session, number").fetchall())


def indexed(home: Path, store: IndexStore | None = None) -> IndexStore:
    store = store or IndexStore()
    list_sessions(str(home), store)
    for _ in update_calls(str(home), store, workers=0):
        pass
    return store


def test_the_rows_of_a_new_session(tmp_path: Path) -> None:
    write_log(tmp_path, "s", SESSION)
    store = indexed(tmp_path)
    assert rows(store) == [
        (0, "Read", '{"file_path": "src/app.py", "offset": 10, "limit": 5}', "ok", 46, 90, f"{CWD}/src/app.py", 10, 14),
        (1, "Read", '{"file_path": "src/app.py"}', "error", 12, 190, f"{CWD}/src/app.py", 1, None),
        (2, "Grep", '{"pattern": "needle", "path": "src"}', "ok", 10, 90, None, None, None),
        (3, "Bash", '{"command": "echo \\"quoted\\" *"}', "no result", None, None, None, None, None),
    ]
    assert rows(store, "line, result_line, result_block, turn, timestamp") == [  # turn: the model turn
        (2, 3, 0, 1, "2026-01-01T10:00:00Z"),
        (4, 5, 0, 2, "2026-01-01T10:00:00Z"),
        (6, 7, 0, 3, "2026-01-01T10:00:00Z"),
        (8, None, None, 4, "2026-01-01T10:00:00Z"),
    ]
    assert store.run(lambda db: db.execute("SELECT session, line FROM prompts").fetchall()) == [(1, 1)]


def test_output_tokens_share_the_context_growth_by_size() -> None:
    turns = [(1000, 10, 0), (1300, 5, 2), (1200, 5, 3), (0, 0, 4), (2000, 0, 5)]
    answered = [(0, 30), (1, 10), (2, 5), (3, 7), (4, 1)]
    # 1000 -> 1300: 290 tokens for two outputs (30 and 10 characters); 1300 -> 1200 shrank (a
    # compaction): nothing; the turn without usage leaves the outputs around it unknown.
    assert output_tokens(answered, turns) == {0: 217, 1: 72}


def test_a_grown_log_is_read_on_and_the_waiting_call_answered(tmp_path: Path) -> None:
    path = write_log(tmp_path, "s", SESSION)
    store = indexed(tmp_path)
    write_log(
        tmp_path, "s", [result("d", "quoted", n=2), call("e", "Read", {"file_path": "/etc/hosts"}, 1500, n=3)], "a"
    )
    indexed(tmp_path, store)
    assert rows(store)[3:] == [
        (3, "Bash", '{"command": "echo \\"quoted\\" *"}', "ok", 6, 90, None, None, None),
        (4, "Read", '{"file_path": "/etc/hosts"}', "no result", None, None, "/etc/hosts", 1, None),
    ]
    (info,) = list_sessions(str(tmp_path), store)
    assert (info.calls, info.tokens, info.counted, info.ended) == (5, 1510, True, "2026-01-03T10:00:00Z")
    assert store.run(lambda db: db.execute("SELECT indexed_lines, indexed_size FROM sessions").fetchone()) == (
        10,
        path.stat().st_size,
    )


def test_a_rewritten_log_is_read_again_and_a_deleted_one_forgotten(tmp_path: Path) -> None:
    path = write_log(tmp_path, "s", SESSION)
    store = indexed(tmp_path)
    replaced = path.with_name("new")
    replaced.write_text(json.dumps(call("z", "Glob", {"pattern": "*.py"}, 50)) + "\n" + "x" * 5000 + "\n")
    os.replace(replaced, path)  # another inode, and what was read is no longer there
    indexed(tmp_path, store)
    assert rows(store, "number, tool, status") == [(0, "Glob", "no result")]
    path.unlink()
    assert list_sessions(str(tmp_path), store) == []
    assert rows(store) == [] and store.run(lambda db: db.execute("SELECT count(*) FROM prompts").fetchone()) == (0,)


def test_a_log_still_being_written_is_read_to_its_last_whole_line(tmp_path: Path) -> None:
    path = write_log(tmp_path, "s", SESSION[:3])
    with path.open("a") as file:
        file.write(json.dumps(call("b", "Read", {"file_path": "x"}, 1100))[:40])  # no newline yet
    store = indexed(tmp_path)
    assert rows(store, "number, tool") == [(0, "Read")]
    (info,) = list_sessions(str(tmp_path), store)
    assert (info.calls, info.counted) == (1, False)
    with path.open("a") as file:
        file.write(json.dumps(call("b", "Read", {"file_path": "x"}, 1100))[40:] + "\n")
    indexed(tmp_path, store)
    assert rows(store, "number, tool, file") == [(0, "Read", f"{CWD}/src/app.py"), (1, "Read", f"{CWD}/x")]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda path: path.write_bytes(b"not a database at all " * 500), id="garbage"),
        pytest.param(lambda path: path.write_bytes(b""), id="empty"),
        pytest.param(lambda path: _foreign(path), id="foreign"),
        pytest.param(lambda path: _torn(path), id="torn"),
    ],
)
def test_a_damaged_or_foreign_database_is_made_again(tmp_path: Path, damage) -> None:  # noqa: ANN001
    write_log(tmp_path, "s", SESSION)
    indexed(tmp_path).close()
    path = default_path()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    damage(path)
    store = indexed(tmp_path)
    assert [info.calls for info in list_sessions(str(tmp_path), store)] == [4]
    assert len(rows(store)) == 4
    assert store.run(lambda db: db.execute("PRAGMA integrity_check").fetchone()) == ("ok",)


def _foreign(path: Path) -> None:
    path.unlink()
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (body TEXT)")
    db.commit()
    db.close()


def _torn(path: Path) -> None:
    """Cut after its first page (the schema): its tables' pages are gone, SQLite finds it malformed."""
    with path.open("r+b") as file:
        file.truncate(4096)


def _index_again(home: str, cache: str, rounds: int) -> int:
    os.environ["AGENTPAGER_CACHE_DIR"] = cache
    for _ in range(rounds):
        store = IndexStore()
        list_sessions(home, store, workers=0)
        for _ in update_calls(home, store, workers=0):
            pass
        store.close()
    return 0


def test_processes_writing_at_once_leave_one_consistent_index(tmp_path: Path, isolated_cache: Path) -> None:
    home = tmp_path / "home"
    for n in range(30):
        write_log(home, f"s{n}", SESSION)
    context = multiprocessing.get_context("spawn")
    with context.Pool(3) as pool:
        results = [pool.apply_async(_index_again, (str(home), str(isolated_cache), 4)) for _ in range(3)]
        for n in range(30, 40):  # sessions appear while they write
            write_log(home, f"s{n}", SESSION)
        assert [found.get(timeout=300) for found in results] == [0, 0, 0]
    store = indexed(home)
    assert store.run(lambda db: db.execute("PRAGMA integrity_check").fetchone()) == ("ok",)
    assert store.run(lambda db: db.execute("SELECT count(*), sum(calls) FROM sessions").fetchone()) == (40, 160)
    assert store.run(lambda db: db.execute("SELECT count(*) FROM calls").fetchone()) == (160,)


@pytest.fixture
def shop(tmp_path: Path) -> tuple[IndexStore, str]:
    write_log(tmp_path, "s", SESSION)
    later = [prompt("carry on", n=5), call("x", "Read", {"file_path": f"{CWD}/src/app.py", "offset": 12}, 90, n=5)]
    write_log(tmp_path, "t", [*later, result("x", "    12→needle again", n=6)])
    return indexed(tmp_path), str(tmp_path)


def found(store: IndexStore, home: str, text: str, filters: Filters = Filters()) -> list[tuple]:
    return [
        (Path(hit.session.path).stem, hit.kind, hit.line, hit.call, hit.tool, hit.excerpt)
        for hit in search(store, home, text, filters)
    ]


def test_search_finds_prompts_arguments_and_outputs(shop: tuple[IndexStore, str]) -> None:
    store, home = shop
    assert found(store, home, "needle") == [
        ("t", "output", 3, 0, "Read", "12→needle again"),
        ("s", "output", 3, 0, "Read", "10→def parse(): 11→ return 'needle'"),
        ("s", "arguments", 6, 2, "Grep", '{"pattern": "needle", "path": "src"}'),
    ]
    assert found(store, home, "Needle") == [], "a capital letter makes case matter"
    assert found(store, home, "/home/me/shop") == [
        ("t", "arguments", 2, 0, "Read", '{"file_path": "/home/me/shop/src/app.py", "offset": 12}'),
        ("s", "arguments", 2, 0, "Read", '{"file_path": "/home/me/shop/src/app.py", "offset": 10, "limit": 5}'),
        ("s", "arguments", 4, 1, "Read", '{"file_path": "/home/me/shop/src/app.py"}'),
    ], "the cwd every line has is not a match; a path in the arguments is"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"', [("s", "arguments", 8, 3, "Bash", '{"command": "echo \\"quoted\\" *"}')]),
        ("*", [("s", "arguments", 8, 3, "Bash", '{"command": "echo \\"quoted\\" *"}')]),
        ("NEAR(", [("s", "prompt", 1, None, "", "Find the <script>alert(1)</script> bug, NEAR(the parser)")]),
        ('"quoted" *', [("s", "arguments", 8, 3, "Bash", 'echo "quoted" *')]),
        ("<script>", [("s", "prompt", 1, None, "", "Find the <script>alert(1)</script> bug, NEAR(the parser)")]),
        ("%", []),
        (
            "_",
            [
                ("t", "arguments", 2, 0, "Read", None),
                ("s", "arguments", 2, 0, "Read", None),
                ("s", "arguments", 4, 1, "Read", None),
            ],
        ),
        ("\\", []),
        ("(?i)a", []),
        ("'; DROP TABLE calls; --", []),
    ],
)
def test_hostile_text_is_looked_for_as_it_is(shop: tuple[IndexStore, str], text: str, expected: list) -> None:
    store, home = shop
    hits = found(store, home, text)
    assert [hit[:5] for hit in hits] == [want[:5] for want in expected]
    assert [hit[5] for hit, want in zip(hits, expected, strict=True) if want[5] is not None] == [
        want[5] for want in expected if want[5] is not None
    ]
    assert len(rows(store)) == 5


def test_an_empty_search_is_refused(shop: tuple[IndexStore, str]) -> None:
    with pytest.raises(SearchError):
        found(*shop, "")


def test_search_filters(shop: tuple[IndexStore, str]) -> None:
    store, home = shop
    assert [hit[:5] for hit in found(store, home, "needle", Filters(tool="Grep"))] == [("s", "arguments", 6, 2, "Grep")]
    assert found(store, home, "needle", Filters(agent="codex")) == []
    assert [hit[0] for hit in found(store, home, "needle", Filters(since="2026-01-04T00:00:00"))] == ["t"]
    assert found(store, home, "carry on", Filters(tool="Read")) == [], "prompts are not calls of a tool"


def test_since_takes_dates_times_and_spans() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    assert since_time("7d", now) == "2026-03-03T12:00:00"
    assert since_time("90m", now) == "2026-03-10T10:30:00"
    assert since_time("2026-01-02T10:00Z", now) == "2026-01-02T10:00:00"
    with pytest.raises(SearchError, match=r"^--since yesterday: not a date \(2026-01-02\), a time"):
        since_time("yesterday", now)
    with pytest.raises(SearchError, match=r"^since:5x: not a date"):  # the browser's search names its word
        parse_query("parser since:5x")
    with pytest.raises(SearchError, match=r"^agent:claude: no such agent \(claude-code, codex, "):
        parse_query("parser agent:claude")


def test_a_browser_query_sets_filters() -> None:
    query = parse_query("tool:Read the  parser agent:codex since:2026-01-02T00:00Z")
    assert (query.text, query.read, query.filters) == (
        "the  parser",
        None,
        Filters("codex", "Read", "2026-01-02T00:00:00"),
    )
    assert parse_query("read:/tmp/a.py").read == "/tmp/a.py"
    assert parse_query(" since:7d tool:Read ").text == "", "filters alone list the sessions"
    with pytest.raises(SearchError, match="^Search for some text, read:PATH .* or filters alone"):
        parse_query("   ")


def test_the_calls_that_read_a_file_and_a_line(shop: tuple[IndexStore, str]) -> None:
    store, home = shop
    reads = [
        (Path(r.session.path).stem, r.call, r.tool, r.first_line, r.last_line, r.line)
        for r in reads_of(store, home, f"{CWD}/src/app.py")
    ]
    assert reads == [("t", 0, "Read", 12, None, 2), ("s", 0, "Read", 10, 14, 2), ("s", 1, "Read", 1, None, 4)]
    assert [(r.call, Path(r.session.path).stem) for r in reads_of(store, home, f"{CWD}/src/app.py", line=11)] == [
        (0, "s"),
        (1, "s"),
    ]
    assert read_counts(store, home, f"{CWD}/src/app.py", 9, 16) == [1, 2, 2, 3, 3, 3, 2, 2]
    assert read_summary(store, home, f"{CWD}/src/app.py", 100) == ReadSummary(calls=3, sessions=2, lines=100)
    assert read_summary(store, home, "/elsewhere.py", 100) == ReadSummary(0, 0, 0)


def sessions_command(home: Path, *arguments: str, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentpager", "sessions", "--home", str(home), *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ | {"AGENTPAGER_CACHE_DIR": str(cache)},
    )


def test_the_search_and_read_commands(tmp_path: Path) -> None:
    home = tmp_path / "home"
    log = write_log(home, "s", SESSION)
    done = sessions_command(home, "--search", "needle", cache=tmp_path / "cache")
    assert done.stdout.splitlines() == [
        f"2026-01-01 10:00  claude-code {log}:3  output    #0 Read           10→def parse(): 11→ return 'needle'",
        f"2026-01-01 10:00  claude-code {log}:6  arguments #2 Grep           " + '{"pattern": "needle", "path": "src"}',
    ]
    done = sessions_command(home, "--search", "NEAR(", "--json", cache=tmp_path / "cache")
    assert [json.loads(row) for row in done.stdout.splitlines()] == [
        {
            "path": str(log),
            "line": 1,
            "kind": "prompt",
            "call": None,
            "tool": None,
            "excerpt": "Find the <script>alert(1)</script> bug, NEAR(the parser)",
            "session_id": "s",
            "agent": "claude-code",
            "project": CWD,
            "started": "2026-01-01T10:00:00Z",
        }
    ]
    done = sessions_command(home, "--read", f"{CWD}/src/app.py", "--tool", "Read", cache=tmp_path / "cache")
    assert done.stdout.splitlines() == [
        f"2026-01-01 10:00  claude-code {log}:2  #0 Read  lines 10-14",
        f"2026-01-01 10:00  claude-code {log}:4  #1 Read  lines 1-end",
    ]
    done = sessions_command(home, "--tool", "Grep", "--json", cache=tmp_path / "cache")
    assert [json.loads(row)["session_id"] for row in done.stdout.splitlines()] == ["s"]
    done = sessions_command(home, "--tool", "Edit", cache=tmp_path / "cache")
    assert (done.stdout, done.stderr, done.returncode) == ("", "agentpager: no session matches.\n", 0)
    for nothing in (["--search", "haystack"], ["--read", "/nowhere.py"], ["--since", "2099-01-01"]):
        done = sessions_command(home, *nothing, cache=tmp_path / "cache")
        assert (done.stdout, done.stderr) == ("", "agentpager: no session matches.\n"), nothing
        done = sessions_command(home, *nothing, "--json", cache=tmp_path / "cache")
        assert (done.stdout, done.stderr) == ("", ""), nothing
    done = sessions_command(home, "--since", "soon", cache=tmp_path / "cache")
    assert done.returncode == 2 and "--since soon: not a date" in done.stderr
    done = sessions_command(home, "--agent", "claude", cache=tmp_path / "cache")
    assert done.returncode == 2 and "argument --agent: invalid choice: 'claude' (choose from 'claude-code'" in done.stderr


UNDER_TEXTUAL = """
import io, sys, threading
from agentpager.sessions_index.pool import worker_pool

class Captured(io.TextIOBase):  # as Textual captures stderr while an app runs
    def fileno(self) -> int:
        return -1

    def write(self, text: str) -> int:
        return len(text)

if __name__ == "__main__":
    running = threading.Event()
    thread = threading.Thread(target=running.wait)  # a thread: the pool starts from a fork server
    thread.start()
    sys.stderr = Captured()
    try:
        with worker_pool(1) as pool:
            print(pool.submit(abs, -3).result())
    finally:
        running.set()
"""


def test_a_worker_pool_starts_while_stderr_has_no_descriptor(tmp_path: Path) -> None:
    """The session browser listed nothing: multiprocessing passed Textual's stderr descriptor (-1)
    to the fork server's helpers ("bad value(s) in fds_to_keep")."""
    script = tmp_path / "under_textual.py"
    script.write_text(UNDER_TEXTUAL)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=HANG)
    assert (done.returncode, done.stdout) == (0, "3\n"), done.stderr
