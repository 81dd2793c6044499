"""Swaps while a tool runs: a file, a directory or a document exchanged with a symlink or a FIFO.

A thread flips two names with ``renameat2(RENAME_EXCHANGE)`` as fast as it can while the tools are
called a few thousand times; nothing from outside the root may ever show, no call may block, and
every answer is one of the contract's. Before the tools opened each path once beneath the root,
about one call in seven read the outside file.
"""

from __future__ import annotations

import ctypes
import errno
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from samples import write_docx

from agentpager import Workspace
from agentpager.engine import beneath
from agentpager.engine.content import ContentStore
from agentpager.tools.paths import Root
from agentpager.tools.shell import ShellRun, emulate

CALLS = 2000
TIME_LIMIT = 30.0
"""Seconds a loop may run on a slow machine before it stops early (it has seen enough swaps by then)."""
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2

READS = [
    ("qq", "read_file", {}, "path"),
    ("forge", "fs_read", {}, "path"),
    ("crush", "file_read", {}, "filename"),
    ("vault", "read_file", {}, "path"),
    ("claude-code", "Read", {}, "file_path"),
    ("codex", "read_file", {}, "file_path"),
    ("openhands", "file_editor", {"command": "view"}, "path"),
    ("swe-agent", "open", {}, "path"),
]
"""Every profile's read tool: its name, the other arguments it needs, and the one that names the file."""


def _exchange_function() -> Callable[[Path, Path], int]:
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except AttributeError:
        pytest.skip("no renameat2 in this C library")

    def exchange(first: Path, second: Path) -> int:
        if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
            return 0
        return ctypes.get_errno()

    return exchange


@contextmanager
def swapping(first: Path, second: Path) -> Iterator[Counter[str]]:
    """Exchange two names over and over in a thread while the block runs; yields the swap count."""
    exchange = _exchange_function()
    code = exchange(first, second)
    if code in (errno.EINVAL, errno.ENOSYS, errno.EPERM):
        pytest.skip(f"this filesystem cannot exchange names: {os.strerror(code)}")
    assert code == 0, os.strerror(code)
    swaps: Counter[str] = Counter()
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            assert exchange(first, second) == 0
            swaps["swaps"] += 1

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    try:
        yield swaps
    finally:
        stop.set()
        flipper.join(5)


def calls_until_done(count: int) -> Iterator[int]:
    started = time.monotonic()
    for number in range(count):
        if time.monotonic() - started > TIME_LIMIT:
            return
        yield number


@pytest.fixture(autouse=True, params=["kernel", "walk"])
def resolver(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each race runs twice: with openat2 where the kernel has it, and with the component walk."""
    if request.param == "walk":
        monkeypatch.setattr(beneath, "_openat2_works", lambda: False)
    elif not beneath._openat2_works():
        pytest.skip("no openat2 here")
    return str(request.param)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "x.txt").write_text("SECRET from outside\n")
    return directory


@pytest.mark.parametrize("swapped", ["file", "directory"])
def test_a_file_or_directory_swapped_with_a_symlink_to_outside_is_never_read(
    root: Path, outside: Path, swapped: str
) -> None:
    if swapped == "file":
        (root / "x.txt").write_text("inside\n")
        (root / "swap").symlink_to(outside / "x.txt")
        name, argument = root / "x.txt", "x.txt"
    else:
        (root / "d").mkdir()
        (root / "d" / "x.txt").write_text("inside\n")
        (root / "swap").symlink_to(outside)
        name, argument = root / "d", "d/x.txt"
    answers: Counter[str] = Counter()
    with swapping(name, root / "swap") as swaps:
        workspaces = {profile: Workspace(root, profile) for profile, *_ in READS}
        for number in calls_until_done(CALLS):
            profile, tool, others, key = READS[number % len(READS)]
            text = workspaces[profile].call(tool, {**others, key: argument}).text
            assert "SECRET" not in text and str(outside) not in text
            assert "Could not read" not in text and "Invalid argument" not in text
            answers["inside" if "inside" in text else "outside" if "outside the workspace" in text else text] += 1
    assert swaps["swaps"] > 0 and answers["inside"] > 0, (swaps, answers)
    assert set(answers) <= {"inside", "outside", "The file kept changing while it was being read; try again."}


def test_a_listed_directory_swapped_with_a_symlink_to_outside_shows_no_outside_name(root: Path, outside: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "in.txt").write_text("inside\n")
    (root / "sub" / "deeper").mkdir()
    (root / "sub" / "deeper" / "in.txt").write_text("inside\n")
    (outside / "deeper").mkdir()
    (outside / "deeper" / "out.leak").write_text("SECRET\n")
    (outside / "out.leak").write_text("SECRET\n")
    (root / "swap").symlink_to(outside)
    workspace = Workspace(root)
    calls = [
        ("list_files", {"path": "sub"}),
        ("list_files", {"recursive": True}),
        ("list_files", {"path": "sub", "recursive": True, "limit": 100}),
        ("count_files", {"recursive": True}),
        ("count_files", {"path": "sub"}),
    ]
    answers: Counter[str] = Counter()
    with swapping(root / "sub", root / "swap"):
        for number in calls_until_done(CALLS):
            tool, arguments = calls[number % len(calls)]
            text = workspace.call(tool, arguments).text
            assert "leak" not in text and "x.txt" not in text
            answers["listed" if "in.txt" in text or ".txt: " in text else text] += 1
    assert answers["listed"] > 0, answers


@pytest.mark.parametrize("name", ["a.docx", "f.txt"])
def test_a_file_swapped_with_a_fifo_never_blocks_nor_shows_its_real_path(root: Path, name: str) -> None:
    """A document is looked into as a zip, a text file read: neither may open the FIFO and block."""
    if name.endswith(".docx"):
        write_docx(root / name, ["Converted paragraph"], first_entry="padding")  # found by the zip test
    else:
        (root / name).write_text("Converted paragraph\n")
    os.mkfifo(root / "swap")
    workspace = Workspace(root)
    workspace.call("read_file", {"path": name})  # convert it once: the loop then reads the cache
    answers: Counter[str] = Counter()
    done = threading.Event()

    def read_all() -> None:
        for _ in calls_until_done(CALLS // 2):
            text = workspace.call("read_file", {"path": name}).text
            answers["read" if "Converted paragraph" in text else text] += 1
        done.set()

    with swapping(root / name, root / "swap"):
        threading.Thread(target=read_all, daemon=True).start()
        assert done.wait(TIME_LIMIT + 30), f"a call blocked after {sum(answers.values())} calls"
    assert answers["read"] > 0, answers
    assert set(answers) <= {"read", f"Error: '{name}' is not a regular file."}, answers


def test_no_read_tool_blocks_on_a_file_swapped_with_a_fifo(root: Path) -> None:
    (root / "f.txt").write_text("Converted paragraph\n")
    os.mkfifo(root / "swap")
    workspaces = {profile: Workspace(root, profile) for profile, *_ in READS}
    answers: Counter[str] = Counter()
    done = threading.Event()

    def read_all() -> None:
        for number in calls_until_done(CALLS // 2):
            profile, tool, others, key = READS[number % len(READS)]
            text = workspaces[profile].call(tool, {**others, key: "f.txt"}).text
            assert "Could not read" not in text and "Invalid argument" not in text, text
            answers["read" if "Converted paragraph" in text else "refused"] += 1
        done.set()

    with swapping(root / "f.txt", root / "swap"):
        threading.Thread(target=read_all, daemon=True).start()
        assert done.wait(TIME_LIMIT + 30), f"a call blocked after {sum(answers.values())} calls"
    assert answers["read"] > 0 and answers["refused"] > 0, answers


@pytest.mark.parametrize(
    ("command", "swapped"),
    [("cat x.txt", "x.txt"), ("sed -n 1p d/x.txt", "d"), ("ls d", "d"), ("wc -c x.txt", "x.txt")],
)
def test_shell_reads_never_show_what_a_swap_puts_outside(
    root: Path, outside: Path, tmp_path: Path, command: str, swapped: str
) -> None:
    (root / "x.txt").write_text("inside\n")
    (root / "d").mkdir()
    (root / "d" / "x.txt").write_text("inside\n")
    (outside / "only-outside.txt").write_text("SECRET\n")
    (root / "swap").symlink_to(outside / "x.txt" if swapped == "x.txt" else outside)
    store = ContentStore(tmp_path / "cache")
    answers: Counter[str] = Counter()
    with swapping(root / swapped, root / "swap"):
        for _ in calls_until_done(CALLS // 2):
            result = emulate(Root.of(root), store, command)
            text = str(result.stdout) if isinstance(result, ShellRun) else str(result)
            assert "SECRET" not in text and "only-outside" not in text and "20 " not in text, text
            answers["inside" if isinstance(result, ShellRun) and result.exit_code == 0 else "refused"] += 1
    assert answers["inside"] > 0, answers
