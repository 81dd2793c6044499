"""How the tests wait: for what they expect, never for a set time (a loaded machine may take any time).

HANG only turns a hang into a failure instead of a run that never ends; nothing correct comes near it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

HANG = 600.0
"""Seconds after which what a test waits for is taken as never coming."""


def processes_with(argument: str) -> list[str]:
    """The pids of live processes with ``argument`` on their command line: the ones a test started,
    found by an argument of its own (the machine may run other tests' processes at the same time:
    another worker, another checkout's tests)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue  # it ended meanwhile
        if argument.encode() in command.split(b"\0"):  # a zombie's command line is empty
            found.append(pid)
    return found


def children_of(pids: list[str]) -> list[str]:
    """The pids of the live children of ``pids``, with their command lines."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            parent = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
        except (OSError, IndexError):
            continue  # not a process, or it ended meanwhile
        if parent in pids:
            found.append(pid)
    return found


def all_gone(argument: str) -> bool:
    """Whether every process with ``argument`` on its command line ends. SIGKILL is sent before the
    code under test returns, but a process ends only when the kernel next runs it: on a loaded
    machine, not at once."""
    deadline = time.monotonic() + HANG
    while processes_with(argument):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
