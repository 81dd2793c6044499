"""The sessions of a home, from the index: a file is summed up again (``sessions.summarize``, from
its two ends) only when its device, inode, size or mtime changed, and forgotten when it is gone.

Many files to sum up (the first listing) are shared between worker processes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from agentpager.sessions import Found, SessionInfo, find_sessions, session_directories, summarize
from agentpager.sessions_index.lines import SessionRow, session_row
from agentpager.sessions_index.pool import worker_count, worker_pool
from agentpager.sessions_index.store import Files, IndexStore, Version

PARALLEL_FROM = 256
"""Fewer sessions to sum up than this are summed up in this process."""
CHUNK = 64
WRITE_BATCH = 2000
"""Summaries written in one transaction (another process's writes may come between two)."""


def home_key(home: str | None) -> str:
    """What the index files a home's sessions under: a digest of the directories its agents keep
    them in (their paths, 256 bytes in each row and in an index, were a tenth of a first listing's
    writes)."""
    from _blake2 import blake2b  # hashlib's, without the OpenSSL hashlib loads first (3 ms)

    return blake2b("\0".join(session_directories(home)).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def indexed_sessions(home: str | None = None, store: IndexStore | None = None) -> list[SessionInfo]:
    """The sessions of ``home`` as the index last listed them, newest first, without looking at their
    files (what a browser shows first, while ``list_sessions`` looks)."""
    return (store or IndexStore()).sessions(home_key(home))


def first_sessions(home: str | None, rows: int, store: IndexStore) -> tuple[list[SessionInfo], int, int]:
    """The sessions of ``home`` a browser shows in its first ``rows`` rows, as the index last listed
    them (``IndexStore.first_sessions``), with how many sessions and projects there are."""
    return store.first_sessions(home_key(home), rows)


def list_sessions(
    home: str | None = None,
    store: IndexStore | None = None,
    workers: int | None = None,
    saved: Callable[[int, int], None] | None = None,
) -> list[SessionInfo]:
    """Every session of ``home`` (default: the user's), newest first. ``workers``: processes that sum
    up a first listing (default: one per processor; 0: this process); ``saved``: as ``refresh``'s."""
    store = store or IndexStore()
    refresh(home, store, workers, saved=saved)
    return store.sessions(home_key(home))


def session_files(home: str | None) -> list[tuple[Found, Version]]:
    """Every session file of ``home`` (``find_sessions``) with its version; one gone meanwhile is left
    out (a version is a fifth of the memory of a stat: 20,000 stats take 16 MB)."""
    found = []
    for item in find_sessions(home):
        try:
            st = os.stat(item.path)
        except OSError:
            continue
        found.append((item, (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)))
    return found


def files_of(found: list[tuple[Found, Version]]) -> Files:
    """The versions of these files (``Files``)."""
    return Files([(item.path, version) for item, version in found])


def refresh(
    home: str | None,
    store: IndexStore,
    workers: int | None = None,
    found: list[tuple[Found, Version]] | None = None,
    saved: Callable[[int, int], None] | None = None,
) -> None:
    """Sum up again the sessions of ``home`` whose files changed, sum up the new ones, forget those
    gone. Summaries are written a batch at a time while the others are
    summed up. ``found``: the home's files with their versions, when the caller has them. ``saved``:
    told, once each batch is written while others are to come, how many sessions are summed up so
    far and of how many (a browser shows the index's sessions as they come)."""
    key = home_key(home)
    found = session_files(home) if found is None else found
    known = store.stamps(key)
    changed = [(item, version) for item, version in found if known.get(item.path) != version]
    seen = {item.path for item, _ in found}
    gone = [path for path in known if path not in seen]
    if gone:
        store.forget(gone)
    if changed:
        store.close()  # not carried into forked workers
        batch: list[tuple[SessionRow, Version]] = []
        written = 0
        for summary in summarize_all(changed, worker_count() if workers is None else workers):
            batch.append(summary)
            if len(batch) == WRITE_BATCH:
                store.save_summaries(key, batch)
                written += len(batch)
                if saved is not None:
                    saved(written, len(changed))
                batch = []
        store.save_summaries(key, batch)


def summarize_all(changed: list[tuple[Found, Version]], workers: int) -> Iterator[tuple[SessionRow, Version]]:
    """Each session's summary, with the version of its file it was made from, in order."""
    if not workers or len(changed) < PARALLEL_FROM:
        summaries = summary_rows([(item, version[2]) for item, version in changed])
        yield from zip(summaries, (version for _, version in changed), strict=True)
        return
    chunks = [changed[start : start + CHUNK] for start in range(0, len(changed), CHUNK)]
    with worker_pool(workers) as pool:
        results = pool.map(summary_rows, [[(item, version[2]) for item, version in chunk] for chunk in chunks])
        for chunk, infos in zip(chunks, results, strict=True):
            yield from zip(infos, (version for _, version in chunk), strict=True)


def summary_rows(items: list[tuple[Found, int]]) -> list[SessionRow]:
    """Each session's summary as the index keeps it."""
    return [session_row(info) for info in summarized(items)]


def summarized(items: list[tuple[Found, int]]) -> list[SessionInfo]:
    """Each session's summary; one that cannot be read is listed with its problem."""
    infos = []
    for item, size in items:
        try:
            infos.append(summarize(item, size))
        except (OSError, ValueError) as error:
            infos.append(SessionInfo(item.path, item.agent, item.project_hint, size=size, problem=str(error)))
    return infos
