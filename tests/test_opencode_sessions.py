"""OpenCode's sessions: found in its store, exported, read into calls, and replayed by the profile.

``tests/sessions/opencode/opencode.db`` is the store OpenCode 1.18.33 wrote in a probe's home (three
runs of ``opencode run`` against the mock, the last two continuing the session with ``-s``: a read
with an AGENTS.md, a grep, a read of a missing file; copied with ``VACUUM INTO``), and
``ses_debf1c3c0ffeugAOTceirdureT.json`` what ``opencode export`` printed for it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agentpager.agents.opencode.profiles import PROFILE
from agentpager.agents.opencode.sessions import Stored, export, exported, stored_sessions
from agentpager.agents.opencode.transcript import OpenCode, iso
from agentpager.logs.records import RecordFile
from agentpager.sessions_index.listing import list_sessions
from agentpager.sessions_index.search import Filters, reads_of, search
from agentpager.sessions_index.store import IndexStore
from agentpager.sessions_index.updating import update_calls
from agentpager.tools.base import RecordedCall
from agentpager.transcripts import open_transcript
from agentpager.transcripts.formats import feed
from agentpager.transcripts.replay import Replayer

FIXTURES = Path(__file__).parent / "sessions" / "opencode"
SESSION = "ses_debf1c3c0ffeugAOTceirdureT"
EXPORT = FIXTURES / f"{SESSION}.json"
DIRECTORY = "/tmp/oc/fixture/ws"
"""Where the session ran (its ``directory``)."""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    data = tmp_path / "home" / ".local" / "share" / "opencode"
    data.mkdir(parents=True)
    shutil.copy(FIXTURES / "opencode.db", data / "opencode.db")
    return tmp_path / "home"


def collected(path: Path) -> OpenCode:
    collector = OpenCode()
    for record in RecordFile(str(path)).records():
        feed(collector, record)
    return collector


def test_the_store_lists_the_session_and_exports_it_as_opencode_does(home: Path) -> None:
    (stored,) = stored_sessions(str(home))
    assert (stored.session_id, stored.directory, stored.title, stored.parent_id) == (SESSION, DIRECTORY, "Done.", None)
    real = json.loads(EXPORT.read_text())
    mine = export(stored)
    assert mine["messages"] == real["messages"]
    assert {key: real["info"][key] for key in mine["info"]} == mine["info"]


def test_an_export_is_written_again_only_when_the_session_changed(home: Path, tmp_path: Path) -> None:
    (stored,) = stored_sessions(str(home))
    path = exported(stored, tmp_path / "cache")
    assert path.name == f"{SESSION}.json" and path.stat().st_mtime_ns == stored.updated * 1_000_000
    inode = path.stat().st_ino
    assert exported(stored, tmp_path / "cache").stat().st_ino == inode
    later = Stored(stored.source, stored.session_id, stored.directory, stored.title, stored.updated + 1, None)
    assert exported(later, tmp_path / "cache").stat().st_ino != inode


def test_sessions_from_before_1_2_are_read_from_their_json_files(tmp_path: Path) -> None:
    """The ``storage/`` layout (session, message and part files, each with its ids), built from the
    real export: the same session comes back."""
    real = json.loads(EXPORT.read_text())
    storage = tmp_path / ".local" / "share" / "opencode" / "storage"
    (storage / "session" / "global").mkdir(parents=True)
    (storage / "session" / "global" / f"{SESSION}.json").write_text(json.dumps(real["info"]))
    for message in real["messages"]:
        info = message["info"]
        (storage / "message" / SESSION).mkdir(parents=True, exist_ok=True)
        (storage / "message" / SESSION / f"{info['id']}.json").write_text(json.dumps(info))
        for part in message["parts"]:
            (storage / "part" / info["id"]).mkdir(parents=True, exist_ok=True)
            (storage / "part" / info["id"] / f"{part['id']}.json").write_text(json.dumps(part))
    (stored,) = stored_sessions(str(tmp_path))
    assert stored.source == str(storage) and stored.directory == DIRECTORY
    assert export(stored) == real


def test_the_export_reads_into_calls_conversation_and_turns() -> None:
    collector = collected(EXPORT)
    parsed = collector.parsed
    assert (parsed.session_id, parsed.version, parsed.cwd) == (SESSION, "1.18.33", DIRECTORY)
    assert [(call.tool, call.arguments) for call in parsed.calls] == [
        ("read", {"filePath": "guide/code.py"}),
        ("grep", {"pattern": "tabs", "include": "*.md"}),
        ("read", {"filePath": "guide/missing.py"}),
    ]
    assert [call.result.is_error for call in parsed.calls if call.result] == [False, False, True]
    prompts = [event.text for event in parsed.events if event.kind == "prompt"]
    assert prompts == ['"Read guide/code.py."', '"Find tabs."', '"Read guide/missing.py."']
    assert len(parsed.turns) == 6 and parsed.turns[0].input == 10 and parsed.turns[0].output == 1
    assert parsed.started == iso(json.loads(EXPORT.read_text())["info"]["time"]["created"])
    last = parsed.calls[-1]
    assert last.result is not None
    value = RecordFile(str(EXPORT)).read_again(last.result.where)
    assert OpenCode.result_text(value, last.result.block) == (f"File not found: {DIRECTORY}/guide/missing.py", True)


def test_the_session_is_found_in_the_store_and_replayed_byte_for_byte(
    home: Path, tmp_path: Path, isolated_cache: Path
) -> None:
    """Listed from the store (exported into the cache dir), read as OpenCode's, and each call replayed
    by the ``opencode`` profile with the session's directory as its own."""
    (found,) = list_sessions(str(home))
    assert (found.agent, found.project, found.session_id, found.version, found.calls) == (
        "opencode",
        DIRECTORY,
        SESSION,
        "1.18.33",
        3,
    )
    assert found.path == str(isolated_cache / "opencode" / f"{SESSION}.json")
    assert json.loads(Path(found.path).read_text()) == export(next(stored_sessions(str(home))))
    workspace = tmp_path / "workspace"
    (workspace / "guide").mkdir(parents=True)
    (workspace / "guide" / "code.py").write_text("x = 1\n")
    (workspace / "guide" / "AGENTS.md").write_text("Use tabs.\n")
    transcript = open_transcript(found.path)
    replayer = Replayer(transcript, str(workspace))
    replays = [replayer.replay(call) for call in transcript.calls]
    assert transcript.format == "opencode"
    assert [(replay.plan and replay.plan.profile, replay.status) for replay in replays] == [("opencode", "same")] * 3


def test_the_session_is_indexed_and_searched_like_any_other(home: Path, isolated_cache: Path) -> None:
    """The export found in the store is indexed: its calls (the files its reads covered, by the
    ``opencode`` profile), found by a search of its prompts, arguments and outputs and by the file read."""
    store = IndexStore()
    list_sessions(str(home), store)
    assert [(info.session_id, info.calls) for batch in update_calls(str(home), store, 0) for info in batch] == [
        (SESSION, 3)
    ]
    hits = [(hit.kind, hit.call, hit.tool, hit.excerpt) for hit in search(store, str(home), "missing.py")]
    assert hits == [
        ("prompt", None, "", '"Read guide/missing.py."'),
        ("arguments", 2, "read", '{"filePath": "guide/missing.py"}'),
        ("output", 2, "read", f"…ile not found: {DIRECTORY}/guide/missing.py"),
    ]
    assert [hit.call for hit in search(store, str(home), "tabs", Filters(agent="opencode", tool="grep"))] == [1, 1]
    assert list(search(store, str(home), "tabs", Filters(agent="codex"))) == []
    reads = reads_of(store, str(home), f"{DIRECTORY}/guide/code.py", line=7)
    assert [(read.session.session_id, read.call, read.tool, read.first_line, read.last_line) for read in reads] == [
        (SESSION, 0, "read", 1, 2000)
    ]


def test_a_lone_surrogate_in_the_store_reads_back_as_itself(home: Path, tmp_path: Path) -> None:
    """OpenCode cuts a long line inside a UTF-16 pair and keeps the lone half as a JSON escape."""
    import sqlite3

    database = home / ".local" / "share" / "opencode" / "opencode.db"
    with sqlite3.connect(database) as db:
        db.execute("UPDATE part SET data = replace(data, 'x = 1', 'x = \\ud83d') WHERE data LIKE '%x = 1%'")
    (stored,) = stored_sessions(str(home))
    transcript = open_transcript(str(exported(stored, tmp_path / "cache")))
    first = transcript.calls[0]
    assert "x = \ud83d" in str(transcript.recorded(first)) and "\ufffd" not in str(transcript.recorded(first))


def test_other_agents_calls_are_not_claimed() -> None:
    assert PROFILE.claim(RecordedCall("read", {"filePath": "a"}, None, "claude-code")) is None
    assert PROFILE.claim(RecordedCall("read", {"filePath": "a"}, None, "opencode")) is not None
    assert os.path.isfile(FIXTURES / "opencode.db")


def test_a_fifo_or_a_record_nested_too_deep_in_the_store_never_stops_the_listing(tmp_path: Path) -> None:
    """A FIFO where a database or a session file would be was opened and waited on for ever; a
    session file nested 100,000 deep raised RecursionError. Now the FIFOs are passed over and the
    deep file reads as an empty session (each listed, with the problem that it holds no record)."""
    import subprocess
    import sys

    data = tmp_path / ".local" / "share" / "opencode"
    sessions = data / "storage" / "session" / "global"
    sessions.mkdir(parents=True)
    os.mkfifo(data / "opencode-dev.db")
    os.mkfifo(sessions / "ses_fifo.json")
    (sessions / "ses_deep.json").write_text('{"a":' + "[" * 100_000 + "]" * 100_000 + "}")
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "sessions", "--home", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ | {"AGENTPAGER_CACHE_DIR": str(tmp_path / "cache")},
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr
    found = sorted(Path(json.loads(line)["path"]).name for line in done.stdout.splitlines())
    assert found == ["ses_deep.json", "ses_fifo.json"]
