"""Keeping the index's calls up to date: every session whose log changed since its calls were read
is read (``calls.read_session``), in worker processes when there is much to read, and its rows
written in short transactions (other processes write between them).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait

from agentpager.sessions import SessionInfo
from agentpager.sessions_index.calls import SessionRead, Task, read_sessions
from agentpager.sessions_index.lines import session_row
from agentpager.sessions_index.listing import home_key
from agentpager.sessions_index.pool import worker_count, worker_pool
from agentpager.sessions_index.store import (
    CALL_COLUMNS,
    SUMMARY,
    SUMMARY_FIELDS,
    IndexStore,
    clear_calls,
    info_of,
    newest_first,
    save_lines,
    write_rows,
)

PARALLEL_BYTES = 64 << 20
"""Less than this to read is read in this process."""
CHUNK_BYTES = 8 << 20
"""A worker's share at a time."""
WRITE_SECONDS = 0.25
"""Rows are written (and reported) at most this often."""
_STAMP = "dev || ':' || inode || ':' || size || ':' || mtime_ns"


def unread(store: IndexStore, home: str | None) -> list[tuple[Task, int, str]]:
    """The sessions of ``home`` whose calls are not read as far as the log goes, newest first, each
    with its size and the version of its file listed."""

    def read(db: sqlite3.Connection) -> list[tuple[Task, int, str]]:
        rows = db.execute(
            f"SELECT id, path, agent, indexed_size, indexed_lines, indexed_mark, resume, size, {_STAMP} "
            f"FROM sessions WHERE home = ? AND indexed_stamp IS NOT {_STAMP} "
            f"ORDER BY {newest_first()}",
            (home_key(home),),
        )
        return [(Task(*row[:7]), row[7], row[8]) for row in rows]

    return store.run(read)


def update_calls(
    home: str | None = None,
    store: IndexStore | None = None,
    workers: int | None = None,
    cancel: threading.Event | None = None,
) -> Iterator[list[SessionInfo]]:
    """Read the calls of every session of ``home`` not read as far as its log goes; the summaries the
    reads changed, a batch at a time (run ``list_sessions`` first: it finds new and changed files).
    ``workers``: processes that read them when there is much to read (default: one per processor;
    0: this process)."""
    store = store or IndexStore()
    tasks = unread(store, home)
    if not tasks:
        return
    stamps = {task.session: stamp for task, _, stamp in tasks}
    workers = worker_count() if workers is None else workers
    total = sum(size - task.indexed_size for task, size, _ in tasks)
    chunks = _chunks(tasks)
    if not workers or total < PARALLEL_BYTES or len(chunks) < 2:
        results: Iterable[list[SessionRead]] = (read_sessions(chunk) for chunk in chunks)
        yield from _written(store, results, stamps, cancel)
        return
    store.close()
    with worker_pool(workers) as pool:
        yield from _written(store, _as_done(pool, chunks, workers, cancel), stamps, cancel)


def _chunks(tasks: list[tuple[Task, int, str]]) -> list[list[Task]]:
    chunks: list[list[Task]] = [[]]
    size = 0
    for task, task_size, _ in tasks:
        if size >= CHUNK_BYTES:
            chunks.append([])
            size = 0
        chunks[-1].append(task)
        size += task_size - task.indexed_size
    return [chunk for chunk in chunks if chunk]


def _as_done(
    pool, chunks: list[list[Task]], workers: int, cancel: threading.Event | None
) -> Iterator[list[SessionRead]]:  # noqa: ANN001 - a ProcessPoolExecutor
    """The chunks' reads as they finish, a few chunks in flight at a time (so that memory holds few)."""
    waiting = iter(chunks)
    running: set[Future[list[SessionRead]]] = set()
    for chunk in waiting:
        running.add(pool.submit(read_sessions, chunk))
        if len(running) >= 2 * workers:
            break
    while running:
        done, running = wait(running, return_when=FIRST_COMPLETED)
        for future in done:
            yield future.result()
            if cancel is not None and cancel.is_set():
                return
            for chunk in waiting:
                running.add(pool.submit(read_sessions, chunk))
                break


def _written(
    store: IndexStore, results: Iterable[list[SessionRead]], stamps: dict[int, str], cancel: threading.Event | None
) -> Iterator[list[SessionInfo]]:
    pending: list[SessionRead] = []
    written = time.monotonic()
    for reads in results:
        pending.extend(reads)
        if time.monotonic() - written >= WRITE_SECONDS:
            yield save_reads(store, pending, stamps)
            pending, written = [], time.monotonic()
        if cancel is not None and cancel.is_set():
            break
    if pending:
        yield save_reads(store, pending, stamps)


def save_reads(store: IndexStore, reads: list[SessionRead], stamps: dict[int, str]) -> list[SessionInfo]:
    """Write the reads' rows; the summaries they changed."""
    marks = ", ".join("?" * len(CALL_COLUMNS.split(",")))

    def write(db: sqlite3.Connection) -> list[SessionInfo]:
        for read in reads:
            if read.fresh:
                clear_calls(db, read.session)
            write_rows(
                db, f"INSERT OR REPLACE INTO calls ({CALL_COLUMNS}) VALUES ({marks})", [(read.session, *row) for row in read.calls]
            )
            db.executemany(
                "UPDATE calls SET status = ?, size = ?, result_line = ?, result_block = ? WHERE session = ? AND number = ?",
                [(*answer[:4], read.session, answer[4]) for answer in read.answered],
            )
            db.executemany(
                "UPDATE calls SET tokens = ? WHERE session = ? AND number = ?",
                [(tokens, read.session, number) for tokens, number in read.tokens],
            )
            write_rows(db, "INSERT OR IGNORE INTO prompts VALUES (?, ?)", [(read.session, line) for line in read.prompts])
            facts = {name: value for name, value in read.facts.items() if name in SUMMARY_FIELDS}
            assignments = "".join(f"{name} = ?, " for name in facts)
            write_rows(
                db,
                f"UPDATE sessions SET {assignments}indexed_stamp = ?, indexed_size = ?, indexed_lines = ?, "
                "indexed_mark = ?, resume = ? WHERE id = ?",
                [
                    (
                        *facts.values(),
                        stamps.get(read.session),
                        read.indexed_size,
                        read.indexed_lines,
                        read.indexed_mark,
                        read.resume,
                        read.session,
                    )
                ],
            )
        cursor = db.execute(
            f"SELECT id, {SUMMARY} FROM sessions WHERE id IN ({', '.join('?' * len(reads))})",
            [read.session for read in reads],
        )
        changed = [(row[0], info_of(row[1:])) for row in cursor]
        save_lines(db, [(session, session_row(info)) for session, info in changed])
        return [info for _, info in changed]

    return store.run(write, write=True) if reads else []
