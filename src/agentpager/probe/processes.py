"""The child processes agentpager starts (an agent, npm): each in a session of its own, so stopping
one stops everything it started."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable


class Cancelled(RuntimeError):
    """The caller cancelled: the process and its children were stopped."""


def stop(process: subprocess.Popen[bytes]) -> None:
    """Kill the process's whole group (it was started with ``start_new_session=True``)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def stream_lines(
    process: subprocess.Popen[bytes],
    line: Callable[[str], None],
    cancel: threading.Event | None,
    timeout: float,
) -> None:
    """Hand each line the process writes to ``stdout`` to ``line`` until it exits.

    ``cancel`` set, or ``timeout`` seconds gone: the process group is stopped and Cancelled or
    TimeoutError is raised.
    """
    assert process.stdout is not None
    descriptor = process.stdout.fileno()
    deadline = time.monotonic() + timeout
    pending = b""
    while True:
        if cancel is not None and cancel.is_set():
            stop(process)
            raise Cancelled("cancelled")
        if time.monotonic() > deadline:
            stop(process)
            raise TimeoutError(f"still running after {timeout:.0f} s")
        ready, _, _ = select.select([descriptor], [], [], 0.1)
        if not ready:
            continue
        chunk = os.read(descriptor, 65536)
        if not chunk:
            break
        *complete, pending = (pending + chunk).split(b"\n")
        for text in complete:
            line(text.decode("utf-8", "replace").rstrip("\r"))
    if pending:
        line(pending.decode("utf-8", "replace"))
    process.wait()
