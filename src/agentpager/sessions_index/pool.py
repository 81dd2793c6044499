"""Worker processes for the index's long reads: each summarizes or reads a share of the sessions.

A process that runs no thread forks its workers (cheapest); one that does (the TUI) starts them
from a fork server, since forking a process with threads can copy a lock while it is held.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a pool is made: a listing of unchanged sessions makes none
    from concurrent.futures import ProcessPoolExecutor


def worker_count() -> int:
    """The processors this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def background_workers() -> int:
    """Processes that read sessions behind an interface: every processor but the one it runs on (at
    least one: the reading then never holds the interface's interpreter)."""
    return max(1, worker_count() - 1)


@contextlib.contextmanager
def worker_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if threading.active_count() == 1 else "forkserver"
    if method == "forkserver":
        _start_forkserver()
    executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method))
    try:
        yield executor
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def _start_forkserver() -> None:
    """Start multiprocessing's resource tracker and fork server with the real stderr: they pass
    ``sys.stderr.fileno()`` to their child, and Textual's capture of stderr answers -1 ("bad value(s)
    in fds_to_keep": the session browser listed nothing)."""
    from multiprocessing import forkserver, resource_tracker

    captured, sys.stderr = sys.stderr, sys.__stderr__ or sys.stderr
    try:
        resource_tracker.ensure_running()
        forkserver.ensure_running()
    finally:
        sys.stderr = captured
