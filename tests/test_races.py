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
from typing import Any

import pytest
from samples import write_docx

from agentpager import Workspace
from agentpager.agents.gemini_cli.profiles import NOTHING_READ, REFERENCES_START
from agentpager.engine import beneath
from agentpager.engine.content import ContentStore
from agentpager.tools.paths import Root
from agentpager.tools.shell import ShellRun, emulate

CALLS = 2000
TIME_LIMIT = 30.0
"""Seconds a loop may run on a slow machine before it stops early (it has seen enough swaps by then)."""
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2

READS: list[tuple[str, str, Callable[[str], dict[str, Any]]]] = [
    ("qq", "read_file", lambda path: {"path": path}),
    ("forge", "fs_read", lambda path: {"path": path}),
    ("crush", "file_read", lambda path: {"filename": path}),
    ("vault", "read_file", lambda path: {"path": path}),
    ("claude-code", "Read", lambda path: {"file_path": path}),
    ("codex@read_file", "read_file", lambda path: {"file_path": path}),
    ("codex", "exec_command", lambda path: {"cmd": f"cat {path}"}),
    ("claude-code@2.0", "Bash", lambda path: {"command": f"sed -n 1p {path}"}),
    ("openhands", "file_editor", lambda path: {"command": "view", "path": path}),
    ("swe-agent", "open", lambda path: {"path": path}),
    ("gemini-cli", "read_file", lambda path: {"file_path": path}),
    ("gemini-cli", "read_many_files", lambda path: {"include": [path]}),
    ("opencode", "read", lambda path: {"filePath": path}),
]
"""Every profile's tools that read a file: the profile, the tool, and its arguments for a path."""
OUTSIDE_ANSWERS = (
    "outside the workspace",
    "Path not in workspace",
    "is ignored by configured ignore patterns",
    "The user rejected permission to use this specific tool call.",
)
"""How the profiles refuse a path that leads outside: the contract's words, Gemini CLI's (which also
ignores a symlink that leads out of the project), OpenCode's (a permission its run mode refuses)."""


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
    """Exchange two names over and over in a thread while the block runs; yields the swap count. The
    names are back where they were when the block ends."""
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
        if swaps["swaps"] % 2 == 0:  # the first exchange above was not counted
            assert exchange(first, second) == 0


def calls_until_done(count: int) -> Iterator[int]:
    started = time.monotonic()
    for number in range(count):
        if time.monotonic() - started > TIME_LIMIT:
            return
        yield number


CHANGING_ANSWERS = (
    "The file kept changing while it was being read; try again.",
    "(the files kept changing while they were read).",  # the shell tools' answer
)
"""What a read may answer when the file is swapped for something else under it, over and over."""


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
            profile, tool, arguments = READS[number % len(READS)]
            text = workspaces[profile].call(tool, arguments(argument)).text
            assert "SECRET" not in text
            if profile != "gemini-cli":  # Gemini CLI names where a path leads when it refuses it
                assert str(outside) not in text
            assert "Could not read" not in text and "Invalid argument" not in text
            if "inside" in text:
                answers["inside"] += 1
            elif any(words in text for words in OUTSIDE_ANSWERS):
                answers["outside"] += 1
            elif tool == "read_many_files" and text in ("", REFERENCES_START + NOTHING_READ):
                answers["skipped"] += 1  # found outside, or gone outside once found: left out
            elif any(words in text for words in CHANGING_ANSWERS):
                answers["changing"] += 1  # each profile wraps the message its own way
            else:
                answers[f"{tool}: {text}"] += 1
    assert swaps["swaps"] > 0 and answers["inside"] > 0 and answers["outside"] > 0, (swaps, answers)
    assert set(answers) <= {"inside", "outside", "skipped", "changing"}, answers


def test_a_listed_directory_swapped_with_a_symlink_to_outside_shows_no_outside_name(root: Path, outside: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "in.txt").write_text("inside\n")
    (root / "sub" / "deeper").mkdir()
    (root / "sub" / "deeper" / "in.txt").write_text("inside\n")
    (outside / "deeper").mkdir()
    (outside / "deeper" / "out.leak").write_text("SECRET\n")
    (outside / "out.leak").write_text("SECRET\n")
    (root / "swap").symlink_to(outside)
    workspaces = {profile: Workspace(root, profile) for profile in ("qq", "gemini-cli")}
    calls = [
        ("qq", "list_files", {"path": "sub"}),
        ("qq", "list_files", {"recursive": True}),
        ("qq", "list_files", {"path": "sub", "recursive": True, "limit": 100}),
        ("qq", "count_files", {"recursive": True}),
        ("qq", "count_files", {"path": "sub"}),
        ("gemini-cli", "list_directory", {"dir_path": "sub"}),
        ("gemini-cli", "list_directory", {"dir_path": "sub/deeper"}),
        ("gemini-cli", "read_many_files", {"include": ["sub"]}),
        ("gemini-cli", "read_many_files", {"include": ["."]}),
    ]
    def listed(text: str) -> bool:
        return "in.txt" in text or ".txt: " in text

    answers: Counter[str] = Counter()
    with swapping(root / "sub", root / "swap"):
        for number in calls_until_done(CALLS):
            profile, tool, arguments = calls[number % len(calls)]
            text = workspaces[profile].call(tool, arguments).text
            assert "leak" not in text and "x.txt" not in text and "SECRET" not in text
            answers[f"{tool} listed" if listed(text) else "refused"] += 1
    # How often a call lists while the names flip depends on the machine's speed (a read_many_files
    # walk outlasts a swap on a slow one); so the race asks only that something listed, and each
    # call shows that it does list once the swapping has stopped: none of its refusals was its own.
    assert "list_files listed" in answers, answers
    assert not (root / "sub").is_symlink()
    for profile, tool, arguments in calls:
        if arguments.get("include") != ["."]:  # `@.` names no path: Gemini CLI reads nothing for it
            assert listed(workspaces[profile].call(tool, arguments).text), (tool, arguments)


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
            profile, tool, arguments = READS[number % len(READS)]
            text = workspaces[profile].call(tool, arguments("f.txt")).text
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
