"""Swaps while a tool runs: a file, a directory or a document exchanged with a symlink or a FIFO.

A thread flips two names with ``renameat2(RENAME_EXCHANGE)`` as fast as it can while the tools are
called a few thousand times; nothing from outside the root may ever show, no call may block, and
every answer is one of the contract's. Before the tools opened each path once beneath the root,
about one call in seven read the outside file.

What a race shows depends on how the machine schedules its threads, so the races assert safety on
every call and nothing about how often each answer came; each answer's existence is checked where
it is deterministic, with the names held still on either side of the swap. A race goes on past its
usual length until it has seen both sides (so that it is never vacuous), and a call that blocks is
found by where its thread waits in the kernel, not by a time limit.
"""

from __future__ import annotations

import ctypes
import errno
import itertools
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

pytestmark = pytest.mark.slow  # each race runs up to TIME_LIMIT

CALLS = 2000
TIME_LIMIT = 10.0
"""Seconds a race may run on a slow machine before it stops early (it has seen enough swaps by then)."""
MORE_CALLS = 50
"""How many times ``CALLS`` a race may go on for while it has not yet seen both sides of the swap."""
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
        flipper.join()  # it checks `stop` between exchanges: the names are still once it has ended
        if swaps["swaps"] % 2 == 0:  # the first exchange above was not counted
            assert exchange(first, second) == 0


@contextmanager
def exchanged_once(first: Path, second: Path) -> Iterator[None]:
    """The two names exchanged for the block, then put back: one side of the swap, held still."""
    exchange = _exchange_function()
    assert exchange(first, second) == 0
    try:
        yield
    finally:
        assert exchange(first, second) == 0


def race_calls(count: int, both_sides_seen: Callable[[], bool]) -> Iterator[int]:
    """Call numbers for a race: ``count`` of them, fewer when TIME_LIMIT has passed (a slow machine
    has seen enough swaps by then), and more, up to MORE_CALLS times ``count``, while
    ``both_sides_seen()`` is false. How many calls that takes depends on the scheduler, never whether
    the race ends with both sides seen."""
    started = time.monotonic()
    for number in itertools.count():
        usual_length_done = number >= count or time.monotonic() - started > TIME_LIMIT
        if usual_length_done and (both_sides_seen() or number >= count * MORE_CALLS):
            return
        yield number


def waits_for_a_fifo_writer(thread: threading.Thread) -> bool:
    """Whether ``thread`` sleeps in the kernel's FIFO open, waiting for a writer that never comes
    (Linux: ``wait_for_partner`` in fs/pipe.c, shown by /proc/self/task/TID/wchan)."""
    try:
        return Path(f"/proc/self/task/{thread.native_id}/wchan").read_text() == "wait_for_partner"
    except OSError:
        return False


STUCK = 600.0
"""Seconds after which a reader is called stuck, where the kernel does not say where threads wait
(far beyond what the race's calls take on a loaded machine: TIME_LIMIT bounds them)."""


class Calls(threading.Thread):
    """Tool calls in a thread of their own, so that one that blocks is found: ``ended()`` waits until
    they end (True) or until one waits for a writer in a FIFO's open (False); an error they raise is
    raised by ``ended()``, in the test's thread."""

    def __init__(self, calls: Callable[[], object]) -> None:
        super().__init__(daemon=True)
        self.calls = calls
        self.error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self.calls()
        except BaseException as error:
            self.error = error

    def ended(self) -> bool:
        started = time.monotonic()
        while self.is_alive():
            self.join(0.05)
            if waits_for_a_fifo_writer(self) or time.monotonic() - started > STUCK:
                return False
        if self.error is not None:
            raise self.error
        return True


def release(fifo: Path) -> None:
    """Let a blocked open of ``fifo`` for reading return: a writer comes and goes."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass  # no reader waits


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
    workspaces = {profile: Workspace(root, profile) for profile, *_ in READS}

    def read(number: int) -> str:
        """Call the READS tool ``number`` picks, check that nothing from outside shows, and say what it answered."""
        profile, tool, arguments = READS[number % len(READS)]
        text = workspaces[profile].call(tool, arguments(argument)).text
        assert "SECRET" not in text
        if profile != "gemini-cli":  # Gemini CLI names where a path leads when it refuses it
            assert str(outside) not in text
        assert "Could not read" not in text and "Invalid argument" not in text
        if "inside" in text:
            return "inside"
        if any(words in text for words in OUTSIDE_ANSWERS):
            return "outside"
        if tool == "read_many_files" and text in ("", REFERENCES_START + NOTHING_READ):
            return "skipped"  # found outside, or gone outside once found: left out
        if any(words in text for words in CHANGING_ANSWERS):
            return "changing"  # each profile wraps the message its own way
        return f"{tool}: {text}"

    every_tool = range(len(READS))
    assert [read(number) for number in every_tool] == ["inside"] * len(READS)
    with exchanged_once(name, root / "swap"):
        refused = ["skipped" if tool == "read_many_files" else "outside" for _, tool, _ in READS]
        assert [read(number) for number in every_tool] == refused
    answers: Counter[str] = Counter()
    with swapping(name, root / "swap") as swaps:
        for number in race_calls(CALLS, lambda: answers["inside"] > 0 and answers["outside"] > 0):
            answers[read(number)] += 1
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
        for number in race_calls(CALLS, lambda: "list_files listed" in answers):
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
    answers: Counter[str] = Counter()

    def read() -> None:
        text = workspace.call("read_file", {"path": name}).text
        answers["read" if "Converted paragraph" in text else text] += 1

    read()  # convert it once: the race then reads the cache
    with exchanged_once(root / name, root / "swap"):
        ended = Calls(read).ended()
        if not ended:
            release(root / name)
    assert ended, "the call blocked on the FIFO"
    assert answers == {"read": 1, f"Error: '{name}' is not a regular file.": 1}, answers

    def read_all() -> None:
        for _ in race_calls(CALLS // 2, lambda: answers["read"] > 1):
            read()

    with swapping(root / name, root / "swap"):
        ended = Calls(read_all).ended()
    if not ended:
        release(root / "swap")
    assert ended, f"a call blocked after {sum(answers.values())} calls"
    assert answers["read"] > 1, answers
    assert set(answers) <= {"read", f"Error: '{name}' is not a regular file."}, answers


def test_no_read_tool_blocks_on_a_file_swapped_with_a_fifo(root: Path) -> None:
    (root / "f.txt").write_text("Converted paragraph\n")
    os.mkfifo(root / "swap")
    workspaces = {profile: Workspace(root, profile) for profile, *_ in READS}
    answers: Counter[str] = Counter()

    def read(number: int) -> str:
        profile, tool, arguments = READS[number % len(READS)]
        text = workspaces[profile].call(tool, arguments("f.txt")).text
        assert "Could not read" not in text and "Invalid argument" not in text, text
        return "read" if "Converted paragraph" in text else "refused"

    every_tool = range(len(READS))
    assert [read(number) for number in every_tool] == ["read"] * len(READS)
    refused: list[str] = []
    with exchanged_once(root / "f.txt", root / "swap"):
        ended = Calls(lambda: refused.extend(read(number) for number in every_tool)).ended()
        if not ended:
            release(root / "f.txt")
    assert ended, f"{READS[len(refused)][:2]} blocked on the FIFO"
    assert refused == ["refused"] * len(READS)

    def read_all() -> None:
        for number in race_calls(CALLS // 2, lambda: answers["read"] > 0 and answers["refused"] > 0):
            answers[read(number)] += 1

    with swapping(root / "f.txt", root / "swap"):
        ended = Calls(read_all).ended()
    if not ended:
        release(root / "swap")
    assert ended, f"a call blocked after {sum(answers.values())} calls"
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

    def run() -> str:
        result = emulate(Root.of(root), store, command)
        text = str(result.stdout) if isinstance(result, ShellRun) else str(result)
        assert "SECRET" not in text and "only-outside" not in text and "20 " not in text, text
        return "inside" if isinstance(result, ShellRun) and result.exit_code == 0 else "refused"

    assert run() == "inside"
    with exchanged_once(root / swapped, root / "swap"):
        assert run() == "refused"
    answers: Counter[str] = Counter()
    with swapping(root / swapped, root / "swap"):
        for _ in race_calls(CALLS // 2, lambda: answers["inside"] > 0):
            answers[run()] += 1
    assert answers["inside"] > 0, answers
