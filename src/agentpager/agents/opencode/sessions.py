"""Where OpenCode keeps its sessions, and each one exported as ``opencode export`` writes it.

OpenCode's data directory is ``$XDG_DATA_HOME/opencode`` (``~/.local/share/opencode``). From 1.2 on
its sessions are rows of a SQLite database there, ``opencode.db`` (``opencode-CHANNEL.db`` for builds
of other channels, ``$OPENCODE_DB`` when set): tables ``session`` (a row per session, with
``directory``, ``title``, ``version``, ``parent_id``, ``time_created``, ``time_updated``), ``message``
and ``part`` (``id``, ``session_id``, and the JSON ``data`` of the message or part without its ids).
Before 1.2 they were JSON files under ``storage/``: ``session/PROJECT/SESSION.json``,
``message/SESSION/MESSAGE.json``, ``part/MESSAGE/PART.json`` (each with its ids). As written by
OpenCode 1.18.33 (its bundle; upstream ``packages/opencode/src/storage/db.ts`` for the database's
path, ``storage/json-migration.ts`` and ``storage/storage.ts`` for the JSON files), and found so in a
real run's home (``tests/sessions/opencode``).

A transcript is one file, so a stored session is exported into agentpager's cache
(``opencode/SESSION.json``, its modification time the session's last update) and read from there;
a session that changed is exported again (``exported_sessions``, the agent's ``Sessions.find``).
The database is opened read-only.
"""

from __future__ import annotations

import glob
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentpager.engine.cache import cache_root, write_atomically


@dataclass(frozen=True)
class Stored:
    """One session in OpenCode's store."""

    source: str
    """The database, or the legacy ``storage`` directory, that holds it."""
    session_id: str
    directory: str
    title: str
    updated: int
    """Milliseconds since the epoch."""
    parent_id: str | None
    """The session that started this one (a subagent's), or None."""


def data_directory(home: str | None = None) -> str:
    """OpenCode's data directory under ``home`` (the user's: ``$XDG_DATA_HOME`` honoured)."""
    if home is None and os.environ.get("XDG_DATA_HOME"):
        return os.path.join(os.environ["XDG_DATA_HOME"], "opencode")
    return os.path.join(home or os.path.expanduser("~"), ".local", "share", "opencode")


def databases(home: str | None = None) -> list[str]:
    """The session databases: ``opencode*.db`` in the data directory, and ``$OPENCODE_DB``."""
    directory = data_directory(home)
    found = sorted(
        path for path in glob.glob(os.path.join(glob.escape(directory), "opencode*.db")) if os.path.isfile(path)
    )
    named = os.environ.get("OPENCODE_DB") if home is None else None
    if named and named != ":memory:":
        named = named if os.path.isabs(named) else os.path.join(directory, named)
        if named not in found and os.path.isfile(named):
            found.append(named)
    return found


def _connect(path: str) -> sqlite3.Connection:
    connection = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    connection.row_factory = sqlite3.Row
    return connection


def _json_object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _json(text: Any) -> dict[str, Any]:
    """The object a column or file holds, else {} (not JSON, not an object, or nested too deep)."""
    from agentpager.engine import jsontext  # imported where OpenCode keeps sessions: finding none needs none

    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        value = jsontext.loads(text) if isinstance(text, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _stored_in_database(path: str) -> Iterator[Stored]:
    try:
        with _connect(path) as db:
            rows = db.execute("SELECT * FROM session").fetchall()
    except sqlite3.Error:
        return
    for row in rows:
        columns = row.keys()
        yield Stored(
            path,
            str(row["id"]),
            str(row["directory"] or ""),
            str(row["title"] or ""),
            int(row["time_updated"] or 0),
            row["parent_id"] if "parent_id" in columns else None,
        )


def _stored_in_files(storage: str) -> Iterator[Stored]:
    for path in glob.iglob(os.path.join(glob.escape(storage), "session", "*", "ses_*.json")):
        info = _read_json(path)
        times = _json_object(info.get("time"))
        yield Stored(
            storage,
            str(info.get("id") or Path(path).stem),
            str(info.get("directory") or ""),
            str(info.get("title") or ""),
            int(times.get("updated") or 0),
            info.get("parentID"),
        )


def _read_json(path: str) -> dict[str, Any]:
    try:
        from agentpager.engine.textfile import open_regular  # imported when OpenCode keeps files

        with open_regular(path) as file:  # a FIFO is refused, not waited on
            return _json(file.read())
    except OSError:
        return {}


def stored_sessions(home: str | None = None) -> Iterator[Stored]:
    """Every session in every store under ``home``."""
    for path in databases(home):
        yield from _stored_in_database(path)
    storage = os.path.join(data_directory(home), "storage")
    if os.path.isdir(os.path.join(storage, "session")):
        yield from _stored_in_files(storage)


def _session_info(row: sqlite3.Row) -> dict[str, Any]:
    """A ``session`` row as the ``info`` of an export."""
    columns = row.keys()
    info: dict[str, Any] = {"id": row["id"]}
    for column, key in (("slug", "slug"), ("project_id", "projectID"), ("parent_id", "parentID")):
        if column in columns and row[column] is not None:
            info[key] = row[column]
    info |= {"directory": row["directory"], "title": row["title"], "version": row["version"]}
    info["time"] = {"created": row["time_created"], "updated": row["time_updated"]}
    return info


def _database_export(path: str, session_id: str) -> dict[str, Any]:
    with _connect(path) as db:
        session = db.execute("SELECT * FROM session WHERE id = ?", (session_id,)).fetchone()
        if session is None:
            raise LookupError(f"no session {session_id} in {path}")
        messages = db.execute(
            "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", (session_id,)
        ).fetchall()
        parts: dict[str, list[dict[str, Any]]] = {}
        for row in db.execute(
            "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id", (session_id,)
        ):
            ids = {"id": row["id"], "sessionID": session_id, "messageID": row["message_id"]}
            parts.setdefault(row["message_id"], []).append(_json(row["data"]) | ids)
    return {
        "info": _session_info(session),
        "messages": [
            {"info": _json(row["data"]) | {"id": row["id"], "sessionID": session_id}, "parts": parts.get(row["id"], [])}
            for row in messages
        ],
    }


def _files_export(storage: str, session_id: str) -> dict[str, Any]:
    found = glob.glob(os.path.join(glob.escape(storage), "session", "*", glob.escape(session_id) + ".json"))
    if not found:
        raise LookupError(f"no session {session_id} in {storage}")
    messages = []
    message_files = sorted(glob.glob(os.path.join(glob.escape(storage), "message", glob.escape(session_id), "*.json")))
    for path in message_files:
        info = _read_json(path)
        message_id = str(info.get("id") or Path(path).stem)
        part_files = sorted(glob.glob(os.path.join(glob.escape(storage), "part", glob.escape(message_id), "*.json")))
        messages.append({"info": info, "parts": [_read_json(part) for part in part_files]})
    return {"info": _read_json(found[0]), "messages": messages}


def export(stored: Stored) -> dict[str, Any]:
    """The session as ``opencode export`` gives it: ``{"info", "messages": [{"info", "parts"}]}``."""
    if os.path.isdir(stored.source):
        return _files_export(stored.source, stored.session_id)
    return _database_export(stored.source, stored.session_id)


def exported(stored: Stored, directory: Path) -> Path:
    """The session's export in ``directory`` (``SESSION.json``), written again when the session changed."""
    path = directory / f"{stored.session_id}.json"
    stamp = stored.updated * 1_000_000
    try:
        if path.stat().st_mtime_ns == stamp:
            return path
    except OSError:
        pass
    text = json.dumps(export(stored), indent=2, ensure_ascii=False)
    # A lone surrogate (OpenCode cuts a line inside a UTF-16 pair; its store keeps the JSON escape) is
    # written as that escape again: as raw bytes it would read back as three U+FFFD.
    write_atomically(path, [text.encode("utf-8", "backslashreplace")])
    os.utime(path, ns=(stamp, stamp))
    return path


def exported_sessions(home: str | None = None) -> Iterator[tuple[str, str]]:
    """Every session under ``home`` that no other started, as its export in the cache dir
    (``opencode/SESSION.json``) and its directory. A subagent's session is exported too, for its
    parent's transcript to find beside it (``OpenCode.subagent_files``)."""
    for stored in stored_sessions(home):
        try:
            path = exported(stored, cache_root() / "opencode")
        except (OSError, LookupError, ValueError, sqlite3.Error):
            continue
        if stored.parent_id is None:
            yield str(path), stored.directory
