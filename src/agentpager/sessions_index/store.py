"""The index's database: ``sessions.db`` in the cache dir, SQLite from the standard library.

One row per session (its summary, the file's version it was made from, and how far its calls were
read), one row per call, one per prompt. WAL mode, so a reader (a second TUI, a CLI) never waits
for the writer; writes take the database's write lock at their start (``BEGIN IMMEDIATE``) and wait
for another process's write to end (``BUSY_SECONDS``), in short transactions. A file that is not
this index (corrupt, another program's, an older schema) is removed and made again: it only holds
what the sessions themselves say.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any, TypeVar

from agentpager.engine.cache import cache_root, write_atomically
from agentpager.sessions import SessionInfo
from agentpager.sessions_index.lines import SessionRow, listing_bytes

FILE_NAME = "sessions.db"
APPLICATION_ID = 0x61705358
"""``PRAGMA application_id`` of the index ("apSX"): a database without it is not ours."""
SCHEMA_VERSION = 7
"""2: agents named by their ids (``gemini-cli``, was ``gemini``); 3: a call's turn is its model turn
(it was the prompt's), the resume state keeps each agent's turns; 4: the listings kept whole; 5: each
kept listing in a file of its own, with the digest of the files' versions it lists; 6: a home filed
under a digest of its directories (``home_key``); 7: no change, but calls read by worker processes
that shared the line index's buffers (a few sessions in a thousand read with another file's lines)
are read again. An index of another version is made again."""
LISTINGS = "sessions-listings"
"""The directory beside the database that holds the kept listings (a 19 MB value read from the
database took 0.1 s, the same bytes read from a file 6 ms)."""
BUSY_SECONDS = 10.0
"""How long a write waits for another process's write (SQLite's busy timeout), per try."""
TRIES = 3
ID_BATCH = 500
"""Paths asked in one query (SQLite allows 999 parameters before 3.32)."""

SUMMARY_FIELDS = [field.name for field in fields(SessionInfo)]
SUMMARY = ", ".join(SUMMARY_FIELDS)
"""The summary's columns, in SessionInfo's order (``path`` first)."""
_SUMMARY_COLUMNS = ", ".join(
    f"{name} {'INTEGER' if name in ('calls', 'tokens', 'size', 'subagents', 'counted') else 'TEXT'}"
    for name in SUMMARY_FIELDS
)
_SCHEMA = f"""
CREATE TABLE sessions(
    id INTEGER PRIMARY KEY,
    home TEXT NOT NULL,
    dev INTEGER NOT NULL, inode INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    {_SUMMARY_COLUMNS},
    indexed_stamp TEXT,
    indexed_size INTEGER NOT NULL DEFAULT 0,
    indexed_lines INTEGER NOT NULL DEFAULT 0,
    indexed_mark BLOB,
    resume TEXT,
    UNIQUE(path)
);
CREATE INDEX sessions_stamps ON sessions(home, path, dev, inode, size, mtime_ns);
CREATE TABLE calls(
    session INTEGER NOT NULL,
    number INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    status TEXT NOT NULL,
    size INTEGER,
    tokens INTEGER,
    file TEXT,
    first_line INTEGER,
    last_line INTEGER,
    line INTEGER NOT NULL,
    result_line INTEGER,
    result_block INTEGER,
    timestamp TEXT NOT NULL,
    PRIMARY KEY(session, number)
) WITHOUT ROWID;
CREATE INDEX calls_by_file ON calls(file, first_line) WHERE file IS NOT NULL;
CREATE INDEX calls_by_tool ON calls(tool, session);
CREATE TABLE lines(
    session INTEGER PRIMARY KEY,
    json BLOB NOT NULL,
    text BLOB NOT NULL
);
CREATE TABLE listings(
    home TEXT NOT NULL,
    kind TEXT NOT NULL,
    file TEXT NOT NULL,
    size INTEGER NOT NULL,
    uncounted INTEGER NOT NULL,
    version BLOB,
    PRIMARY KEY(home, kind)
);
CREATE TABLE prompts(
    session INTEGER NOT NULL,
    line INTEGER NOT NULL,
    PRIMARY KEY(session, line)
) WITHOUT ROWID;
PRAGMA application_id = {APPLICATION_ID};
PRAGMA user_version = {SCHEMA_VERSION};
"""
CALL_COLUMNS = (
    "session, number, turn, tool, arguments, status, size, tokens, file, first_line, last_line, line, "
    "result_line, result_block, timestamp"
)
_DAMAGED = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
T = TypeVar("T")
Version = tuple[int, int, int, int]
"""A version of a session's file: its device, inode, size and mtime (ns)."""


class NotOurs(sqlite3.DatabaseError):
    """The database file is another program's, or an older schema of this index."""


def default_path() -> Path:
    return cache_root() / FILE_NAME


def _code(error: sqlite3.Error) -> int | None:
    """The error's primary SQLite result code (an extended code names its primary in its low byte)."""
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _damaged(error: sqlite3.DatabaseError) -> bool:
    return isinstance(error, NotOurs) or _code(error) in _DAMAGED


def _busy(error: sqlite3.Error) -> bool:
    return _code(error) in _BUSY


class IndexStore:
    """The index's database, opened (and made, or made again) on first use; one per thread."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        self._db: sqlite3.Connection | None = None

    # -- opening -------------------------------------------------------------------------------

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for attempt in range(TRIES):
            db = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
            try:
                self._prepare(db)
                return db
            except sqlite3.DatabaseError as error:
                db.close()
                if _damaged(error) and attempt < TRIES - 1:
                    self._remove()
                elif not (_busy(error) and attempt < TRIES - 1):
                    raise
        raise AssertionError("unreachable")

    def _prepare(self, db: sqlite3.Connection) -> None:
        """WAL mode, and the schema made when the file is new; NotOurs when it is not this index.
        Written without syncing (a sixth of a first listing's writes): a crash of the machine can at
        worst damage it, and a damaged index is made again (``run``)."""
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=OFF")
        if _header(db) == (APPLICATION_ID, SCHEMA_VERSION):
            return
        db.execute("BEGIN IMMEDIATE")  # looked at again under the write lock: another process may be making it
        try:
            header = _header(db)
            if header == (0, 0) and not db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
            elif header != (APPLICATION_ID, SCHEMA_VERSION):
                application, version = header
                raise NotOurs(f"{self.path}: not this index (application {application:#x}, schema {version})")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _remove(self) -> None:
        """Remove the database (and its WAL) so that it is made again: under a lock, and only when it
        is still the bad one (another process may have made it again meanwhile)."""
        with _locked(self.path.with_name(self.path.name + ".lock")):
            try:
                db = sqlite3.connect(self.path, timeout=BUSY_SECONDS)
                try:
                    good = _header(db) == (APPLICATION_ID, SCHEMA_VERSION)
                    good = good and db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
                finally:
                    db.close()
            except sqlite3.DatabaseError:
                good = False
            if not good:
                for suffix in ("", "-wal", "-shm"):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(f"{self.path}{suffix}")

    # -- reading and writing --------------------------------------------------------------------

    def run(self, work: Callable[[sqlite3.Connection], T], write: bool = False) -> T:
        """``work(db)``, in one transaction when it writes; tried again while another process holds
        the write lock, and on a database found damaged, once it is made again."""
        for attempt in range(TRIES):
            db = self.db
            try:
                if not write:
                    return work(db)
                db.execute("BEGIN IMMEDIATE")
                try:
                    done = work(db)
                    db.execute("COMMIT")
                    return done
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
            except sqlite3.DatabaseError as error:
                if attempt == TRIES - 1:
                    raise
                if _damaged(error):
                    self.close()
                    self._remove()
                elif _busy(error):
                    time.sleep(0.05 * (attempt + 1))
                else:
                    raise
        raise AssertionError("unreachable")

    def stamps(self, home: str) -> dict[str, tuple[int, int, int, int]]:
        """The version of each session file of ``home`` the index has: path -> (dev, inode, size, mtime_ns)."""

        return self.run(lambda db: _stamps(db, home))

    def sessions(self, home: str) -> list[SessionInfo]:
        """The summaries of ``home``'s sessions, newest first."""

        def read(db: sqlite3.Connection) -> list[SessionInfo]:
            cursor = db.execute(f"SELECT {SUMMARY} FROM sessions WHERE home = ? ORDER BY {newest_first()}", (home,))
            return [info_of(row) for row in cursor]

        return self.run(read)

    def first_sessions(self, home: str, rows: int) -> tuple[list[SessionInfo], int, int]:
        """The sessions a listing of ``home`` shows first (by project, the project of the newest
        session first): those of the first projects, as many as fill ``rows`` rows with their
        headings; and how many sessions and projects there are. Only their order is read of the
        others: a fifth of ``sessions``' time for 20,000."""

        def read(db: sqlite3.Connection) -> tuple[list[SessionInfo], int, int]:
            cursor = db.execute(f"SELECT id, project FROM sessions WHERE home = ? ORDER BY {newest_first()}", (home,))
            by_project: dict[str, list[int]] = {}
            count = 0
            for session, project in cursor:
                by_project.setdefault(project, []).append(session)
                count += 1
            chosen: list[int] = []
            shown = 0
            for sessions in by_project.values():
                if shown >= rows:
                    break
                chosen += sessions
                shown += 1 + len(sessions)  # its heading and its sessions
            summaries: dict[int, SessionInfo] = {}
            for start in range(0, len(chosen), ID_BATCH):
                batch = chosen[start : start + ID_BATCH]
                cursor = db.execute(f"SELECT id, {SUMMARY} FROM sessions WHERE id IN ({', '.join('?' * len(batch))})", batch)
                summaries.update((row[0], info_of(row[1:])) for row in cursor)
            return [summaries[session] for session in chosen], count, len(by_project)

        return self.run(read)

    def listing(self, home: str, column: str, files: Files | None = None) -> tuple[bytes, int]:
        """What a listing of ``home``'s sessions writes (``listing_bytes``: their ``json`` lines, or
        their ``text`` lines under their projects' headings), and how many sessions are not counted
        yet. Kept once made (a first listing too: the next one then reads it), in a file of the
        LISTINGS directory named by the ``listings`` table, until a session is added, changed or removed (``save_lines``
        and ``forget``, which every such write goes through, empty the table; triggers on the
        sessions table cost a fourth of a first listing's writes): listing 20,000 unchanged sessions
        then reads one file instead of sorting them. ``files``: the home's session files as the
        caller found them; the listing is kept with their digest (``kept_listing``) when the index
        still has those versions of them."""

        def made(db: sqlite3.Connection) -> tuple[bytes, int]:
            current = files is None or _stamps(db, home) == files.stamps()  # the index has these versions
            version = None if files is None or not current else files.digest
            found = self._kept(db, home, column)  # made by another process meanwhile, or from other versions
            if found is not None:
                if version is not None:
                    db.execute("UPDATE listings SET version = ? WHERE home = ? AND kind = ?", (version, home, column))
                return found[:2]
            data, uncounted = listing_of(db, home, column)
            if current:
                name = f"{os.getpid()}-{time.time_ns()}-{column}"
                write_atomically(self.listings / name, [data])
                row = (home, column, name, len(data), uncounted, version)
                db.execute("INSERT INTO listings VALUES (?, ?, ?, ?, ?, ?)", row)
                self._remove_unkept(db)
            return data, uncounted  # not kept when another process changed the index meanwhile

        found = self.run(lambda db: self._kept(db, home, column))
        if found is not None and (files is None or found[2] == files.digest):
            return found[:2]
        try:
            return self.run(made, write=True)
        except (sqlite3.OperationalError, OSError) as error:
            if isinstance(error, sqlite3.OperationalError) and _code(error) != sqlite3.SQLITE_READONLY:
                raise
            return self.run(lambda db: listing_of(db, home, column))  # listed, not kept

    def kept_listing(self, home: str, column: str, files: Files) -> tuple[bytes, int] | None:
        """``listing``'s value when it was kept from these versions of the home's files."""
        found = self.run(lambda db: self._kept(db, home, column, files.digest))
        return None if found is None else found[:2]

    @property
    def listings(self) -> Path:
        return self.path.with_name(LISTINGS)

    def _kept(
        self, db: sqlite3.Connection, home: str, column: str, version: bytes | None = None
    ) -> tuple[bytes, int, bytes | None] | None:
        """The listing kept (from files of this ``version`` when given), with how many sessions it
        has not counted and the version of the files it was kept for; None when there is none, or
        its file is gone or not what was written (another process may have removed it since)."""
        row = db.execute(
            "SELECT file, size, uncounted, version FROM listings WHERE home = ? AND kind = ?", (home, column)
        ).fetchone()
        if row is None or (version is not None and row[3] != version):
            return None
        name, size, uncounted, kept_version = row
        try:  # not engine.textfile's regular_descriptor: a listing does not import the line index it brings
            descriptor = os.open(self.listings / name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return None
            data = os.read(descriptor, size + 1)
        except OSError:
            return None
        finally:
            os.close(descriptor)
        return (data, uncounted, kept_version) if len(data) == size else None

    def _remove_unkept(self, db: sqlite3.Connection) -> None:
        """Remove the files of listings no longer kept (under the write lock: no other process is
        naming one)."""
        kept = {row[0] for row in db.execute("SELECT file FROM listings")}
        with contextlib.suppress(OSError), os.scandir(self.listings) as entries:
            for entry in entries:
                if entry.name not in kept:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)

    def save_summaries(self, home: str, summaries: Sequence[tuple[SessionRow, Version]]) -> None:
        """Store these summaries of ``home``'s sessions, made from these versions of their files, with
        their listing lines (what was read of their calls is kept: the next call read compares)."""
        columns = ", ".join(SUMMARY_FIELDS)
        marks = ", ".join("?" * len(SUMMARY_FIELDS))
        updates = ", ".join(f"{name} = excluded.{name}" for name in SUMMARY_FIELDS)

        def write(db: sqlite3.Connection) -> None:
            write_rows(
                db,
                f"INSERT INTO sessions (home, dev, inode, mtime_ns, {columns}) VALUES (?, ?, ?, ?, {marks}) "
                f"ON CONFLICT(path) DO UPDATE SET home = excluded.home, dev = excluded.dev, "
                f"inode = excluded.inode, mtime_ns = excluded.mtime_ns, {updates}",
                [(home, dev, inode, mtime_ns, *row.values) for row, (dev, inode, _, mtime_ns) in summaries],
            )
            ids = ids_of(db, [row.path for row, _ in summaries])
            save_lines(db, [(ids[row.path], row) for row, _ in summaries])

        if summaries:
            self.run(write, write=True)

    def forget(self, paths: Sequence[str]) -> None:
        """Remove the sessions of these files, and their calls."""

        def write(db: sqlite3.Connection) -> None:
            for path in paths:
                found = db.execute("SELECT id FROM sessions WHERE path = ?", (path,)).fetchone()
                if found is not None:
                    clear_calls(db, found[0])
                    db.execute("DELETE FROM lines WHERE session = ?", found)
                    db.execute("DELETE FROM sessions WHERE id = ?", found)
            db.execute("DELETE FROM listings")

        self.run(write, write=True)


class Files:
    """A home's session files as found, each one's path and version, and a digest of them all in the
    order found: a listing kept is found by it (looking for 20,000 files in the index took a fifth of
    a listing of unchanged sessions)."""

    def __init__(self, versions: list[tuple[str, Version]]) -> None:
        import marshal
        from _blake2 import blake2b  # hashlib's, without the OpenSSL hashlib loads first (3 ms)

        self.versions = versions
        # marshal's version 2 keeps no references: a third of the time of its latest for 20,000 files
        self.digest = blake2b(marshal.dumps(versions, 2), digest_size=16).digest()

    def stamps(self) -> dict[str, Version]:
        """Each file's version by path, as ``IndexStore.stamps`` gives the index's."""
        return dict(self.versions)


def _stamps(db: sqlite3.Connection, home: str) -> dict[str, tuple[int, int, int, int]]:
    cursor = db.execute("SELECT path, dev, inode, size, mtime_ns FROM sessions WHERE home = ?", (home,))
    return {row[0]: row[1:] for row in cursor}


def listing_of(db: sqlite3.Connection, home: str, column: str) -> tuple[bytes, int]:
    """``listing``'s value made from the sessions' lines (kept as UTF-8 bytes: as text, 20,000 lines
    took 100 MB, one emoji making a string four bytes a character)."""
    cursor = db.execute(
        f"SELECT s.project, l.{'json' if column == 'json' else 'text'} FROM sessions s "
        f"JOIN lines l ON l.session = s.id WHERE s.home = ? ORDER BY {newest_first('s.')}",
        (home,),
    )
    data = listing_bytes(cursor, headings=column != "json")
    (uncounted,) = db.execute("SELECT count(*) FROM sessions WHERE home = ? AND NOT counted", (home,)).fetchone()
    return data, uncounted


def newest_first(table: str = "") -> str:
    """The order sessions are listed in (``table``: the alias of the sessions table, with its dot)."""
    return f"coalesce(nullif({table}ended, ''), {table}started) DESC, {table}started DESC, {table}path"


_SURROGATES = dict.fromkeys(range(0xD800, 0xE000), 0xFFFD)


def write_rows(db: sqlite3.Connection, statement: str, rows: Sequence[Sequence[Any]]) -> None:
    """``executemany``; rows holding a string SQLite cannot encode (a lone surrogate: valid JSON in
    a crafted log) are written with U+FFFD in its place. Each statement given writes a row the same
    however often it runs (an upsert or an update), so rows written before the failure are
    written again harmlessly."""
    try:
        db.executemany(statement, rows)
    except UnicodeEncodeError:
        db.executemany(
            statement, [[v.translate(_SURROGATES) if isinstance(v, str) else v for v in row] for row in rows]
        )


def ids_of(db: sqlite3.Connection, paths: Sequence[str]) -> dict[str, int]:
    """The ids of the sessions of these files, by path (asked ID_BATCH at a time: one query per
    session took a fifth of a first listing's writes)."""
    ids: dict[str, int] = {}
    for start in range(0, len(paths), ID_BATCH):
        batch = paths[start : start + ID_BATCH]
        cursor = db.execute(f"SELECT path, id FROM sessions WHERE path IN ({', '.join('?' * len(batch))})", batch)
        ids.update(cursor.fetchall())
    return ids


def save_lines(db: sqlite3.Connection, sessions: Sequence[tuple[int, SessionRow]]) -> None:
    """Keep what a listing writes for each session (UTF-8: it is written as it is); the listings
    kept are made again when next asked."""
    if sessions:
        db.execute("DELETE FROM listings")
    db.executemany(
        "INSERT OR REPLACE INTO lines (session, json, text) VALUES (?, ?, ?)",
        [(session, row.json, row.text) for session, row in sessions],
    )


def clear_calls(db: sqlite3.Connection, session: int) -> None:
    db.execute("DELETE FROM calls WHERE session = ?", (session,))
    db.execute("DELETE FROM prompts WHERE session = ?", (session,))


def info_of(values: Sequence[Any]) -> SessionInfo:
    """The summary whose SUMMARY columns are ``values``."""
    info = SessionInfo(*values)
    info.counted = bool(info.counted)
    return info


def _header(db: sqlite3.Connection) -> tuple[int, int]:
    """The database's application id and schema version."""
    return db.execute("PRAGMA application_id").fetchone()[0], db.execute("PRAGMA user_version").fetchone()[0]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (made if need be), held in the block."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)
