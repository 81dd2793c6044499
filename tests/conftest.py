from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import examples  # noqa: F401 - registers Hypothesis' profiles
import pytest
from hypothesis import settings

from agentpager import ToolResult, Workspace
from agentpager.engine import content
from agentpager.engine.documents import ConversionError, ConversionLimits

settings.load_profile("ci")  # unless --hypothesis-profile names another


@pytest.hookimpl(trylast=True)  # after -m has deselected: the shares are of what runs
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests first: those marked ``slow``, then the TUI's (each starts a Textual app), then
    the many short ones, so that a parallel run ends on short tests and never waits on a long one
    running alone at its end. xdist's ``worksteal`` gives each worker one contiguous share of this
    list, then moves tests from the end of a worker's queue to an idle one: each share starts with
    its part of the long tests."""

    def rank(item: pytest.Item) -> int:
        if item.get_closest_marker("slow"):
            return 0
        return 1 if item.path.parent.name == "tui" else 2

    long = sorted((item for item in items if rank(item) < 2), key=rank)
    short = [item for item in items if rank(item) == 2]  # in the order collected: modules stay whole
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    order: list[pytest.Item] = []
    for worker in range(workers):
        share = len(items) * (worker + 1) // workers - len(order)
        dealt = long[worker::workers]
        order += dealt + short[: max(share - len(dealt), 0)]
        del short[: max(share - len(dealt), 0)]
    items[:] = order + short


@pytest.fixture(scope="session")
def isolated_dirs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where each test's cache and config dirs are made: one folder of this test process, where a
    new directory costs one ``mkdir`` (``tmp_path_factory.mktemp`` lists the whole base temp dir to
    number it, a few thousand entries late in a run, twice for every test)."""
    return tmp_path_factory.mktemp("isolated")


@pytest.fixture(autouse=True)
def isolated_cache(isolated_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test converts documents into its own cache and ignores the user's guard settings."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=isolated_dirs))
    monkeypatch.setenv("AGENTPAGER_CACHE_DIR", str(cache))
    monkeypatch.delenv("QQ_MAX_TOOL_OUTPUT", raising=False)
    monkeypatch.delenv("QQ_CHARS_PER_TOKEN", raising=False)
    return cache


@pytest.fixture(autouse=True)
def isolated_config(isolated_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test has its own (empty) config dir: the user's settings and themes never leak in."""
    config_dir = Path(tempfile.mkdtemp(prefix="config-", dir=isolated_dirs))
    monkeypatch.setenv("AGENTPAGER_CONFIG_DIR", str(config_dir))
    return config_dir


@pytest.fixture(scope="session")
def converted_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where this run keeps the documents converted so far, by content: one folder for all the
    workers of a parallel run (their base temp dirs share a parent that is this run's own)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "converted"
    folder.mkdir(exist_ok=True)
    return folder


_LIMIT_REASONS = ("too large to convert", "took longer than")
"""A failure that says a limit was passed: it depends on the machine, never kept."""


@pytest.fixture(autouse=True)
def converted_once(converted_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each document is converted once per run, in its child process, and tests that read the same
    bytes again get that child's Markdown (or its reason for failing): markitdown's imports cost
    each child more than a second of CPU. A conversion under other limits than the defaults, or
    already cancelled, always runs, as does every direct call of ``documents.convert_document``
    (what test_documents.py tests); a test that replaces ``content.convert_document`` replaces this."""
    convert = content.convert_document

    def once(
        fd: int, document_type: str, cancel: threading.Event | None = None, limits: ConversionLimits | None = None
    ) -> str:
        cancelled = cancel is not None and cancel.is_set()
        if cancelled or (limits or ConversionLimits.from_env()) != ConversionLimits():
            return convert(fd, document_type, cancel, limits)
        digest = hashlib.sha256(document_type.encode() + b"\0")
        offset = 0
        while chunk := os.pread(fd, 1 << 20, offset):
            digest.update(chunk)
            offset += len(chunk)
        kept = converted_dir / digest.hexdigest()
        if kept.with_suffix(".md").exists():
            return kept.with_suffix(".md").read_bytes().decode("utf-8")
        if kept.with_suffix(".failed").exists():
            raise ConversionError(kept.with_suffix(".failed").read_bytes().decode("utf-8"))
        try:
            text = convert(fd, document_type, cancel, limits)
        except ConversionError as error:
            if not any(reason in error.reason for reason in _LIMIT_REASONS):
                keep(kept.with_suffix(".failed"), error.reason)
            raise
        keep(kept.with_suffix(".md"), text)
        return text

    def keep(path: Path, text: str) -> None:
        """Written whole or not at all, for the other workers."""
        partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")  # not mkstemp: tests replace it
        partial.write_bytes(text.encode("utf-8"))
        partial.replace(path)

    monkeypatch.setattr(content, "convert_document", once)


@pytest.fixture(scope="session")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo workspace with a 3 MB log, built once per test process (the TUI's snapshot shows its
    name, ``shop``). Tests only read it."""
    from agentpager.demo import build_demo

    root = tmp_path_factory.mktemp("demo") / "shop"
    build_demo(root, 3_000_000)
    return root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "proj"
    workspace.mkdir()
    return workspace


Caller = Callable[..., ToolResult]


@pytest.fixture
def call(root: Path) -> Caller:
    """``call(tool, profile="qq", **arguments)`` against the ``root`` workspace."""
    workspaces: dict[str, Workspace] = {}

    def run(tool: str, profile: str = "qq", **arguments: object) -> ToolResult:
        if profile not in workspaces:
            workspaces[profile] = Workspace(root, profile)
        return workspaces[profile].call(tool, arguments)

    return run


@pytest.fixture
def public_root() -> Iterator[Path]:
    """A workspace every user can traverse (pytest's own temp dirs are private to their owner)."""
    base = Path(tempfile.mkdtemp(prefix="agentpager-public-"))
    base.chmod(0o755)
    yield base
    for path in (base, *base.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(base)


class _CapabilityHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapabilitySets(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


_CAPABILITY_VERSION_3 = 0x20080522
_PERMISSION_OVERRIDES = (1 << 1) | (1 << 2)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH


def drop_permission_overrides() -> None:
    """Give up the capabilities that let root ignore permission bits, keeping its uid.

    The process can then read only what its owner bits allow: a file with mode 0 is unreadable,
    while the package it imports (owned by the same user) stays readable wherever it was cloned,
    even under a directory only its owner can enter (``mktemp -d``).
    """
    libc = ctypes.CDLL(None, use_errno=True)
    header = _CapabilityHeader(_CAPABILITY_VERSION_3, 0)
    sets = (_CapabilitySets * 2)()
    if libc.capget(ctypes.byref(header), sets) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    for entry in sets:
        entry.effective &= ~_PERMISSION_OVERRIDES
        entry.permitted &= ~_PERMISSION_OVERRIDES
        entry.inheritable &= ~_PERMISSION_OVERRIDES
    if libc.capset(ctypes.byref(header), sets) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


@pytest.fixture
def unprivileged() -> Callable[[Callable[[], str]], str]:
    """Run a function that returns text as a user who cannot read what it has no permission for.

    Root reads everything, so as root the function runs in a forked child that has given up the
    capabilities that override permissions. An exception in the child is raised here with its
    traceback, never swallowed.
    """

    def run(function: Callable[[], str]) -> str:
        if os.geteuid() != 0:
            return function()
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: drop privileges, answer through the pipe, never return to pytest
            status = 1
            try:
                os.close(reader)
                drop_permission_overrides()
                answer = b"answer\0" + function().encode()
                status = 0
            except BaseException:
                answer = b"error\0" + traceback.format_exc().encode()
            finally:
                os.write(writer, answer)
                os._exit(status)
        os.close(writer)
        with os.fdopen(reader, "rb") as pipe:
            kind, _, text = pipe.read().partition(b"\0")
        os.waitpid(pid, 0)
        if kind != b"answer":
            raise AssertionError("the unprivileged child failed:\n" + text.decode(errors="replace"))
        return text.decode()

    return run
