"""The TUI reads nothing outside the workspace root: not through a symlink in the tree, nor as a
transcript, nor as the files beside a transcript (its subagents'). Linux's inotify watches the
outside directories: any open or read there is an event."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from pilot_helpers import settle
from test_transcript_screen import session

from agentpager import Workspace
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.screens.transcript import CallList, TranscriptScreen
from agentpager.tui.tree import DirectoryEntry, WorkspaceTree

_IN_ACCESS, _IN_OPEN = 0x1, 0x20


class Watch:
    """The names opened or read in some directories since the watch began (``inotify(7)``)."""

    def __init__(self, directories: list[Path]) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            pytest.skip(f"no inotify here: {os.strerror(ctypes.get_errno())}")
        self.directories = {}
        for directory in directories:
            handle = libc.inotify_add_watch(self.fd, os.fsencode(directory), _IN_ACCESS | _IN_OPEN)
            assert handle >= 0, os.strerror(ctypes.get_errno())
            self.directories[handle] = directory

    def touched(self) -> list[str]:
        names = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return names
            at = 0
            while at < len(data):
                handle, _, _, length = struct.unpack_from("iIII", data, at)
                name = data[at + 16 : at + 16 + length].rstrip(b"\0").decode()
                names.append(str(self.directories[handle] / name) if name else str(self.directories[handle]))
                at += 16 + length

    def close(self) -> None:
        os.close(self.fd)


@contextmanager
def watching(*directories: Path) -> Iterator[Watch]:
    watch = Watch(list(directories))
    try:
        yield watch
    finally:
        watch.close()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the workspace holding a transcript and a subagent's transcript."""
    place = tmp_path / "outside"
    place.mkdir()
    session(place)
    (place / "subagents").mkdir()
    shutil.copy(place / "session.jsonl", place / "subagents" / "agent-x1.jsonl")
    return place


@pytest.fixture
def workspace_root(tmp_path: Path, outside: Path) -> Path:
    """A workspace whose tree holds symlinks to outside: a transcript, a directory, and the
    subagents' folder of a transcript that is inside."""
    root = tmp_path / "root"
    root.mkdir()
    session(root)
    (root / "link.jsonl").symlink_to(outside / "session.jsonl")
    (root / "out").symlink_to(outside)
    (root / "session").mkdir()
    (root / "session" / "subagents").symlink_to(outside / "subagents")
    return root


async def test_a_symlink_to_outside_is_not_read_as_a_transcript(workspace_root: Path, outside: Path) -> None:
    app = AgentPagerApp(Workspace(workspace_root))
    with watching(outside, outside / "subagents") as watch:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            tree = app.query_one(WorkspaceTree)
            tree.post_message(WorkspaceTree.FileChosen("link.jsonl"))
            await settle(pilot)
            assert app.offered_transcript is None, "not sniffed through the symlink"
            app._read_transcript("link.jsonl")  # as if offered: refused
            await settle(pilot)
            assert not isinstance(app.screen, TranscriptScreen)
            assert any("outside the workspace" in str(note.message) for note in app._notifications)
            tree.post_message(WorkspaceTree.FileChosen("session.jsonl"))
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            assert isinstance(app.screen, TranscriptScreen)
            assert len(app.screen.query_one(CallList).calls) == 3, "without the subagent outside"
            assert app.screen.transcript.subagents == []
            tree.action_refresh_tree()
            await settle(pilot)
        touched = watch.touched()
        assert touched == [], touched


async def test_the_transcript_replays_with_the_apps_workspace(workspace_root: Path) -> None:
    workspace = Workspace(workspace_root)
    app = AgentPagerApp(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app._read_transcript("session.jsonl")
        await settle(pilot)
        assert app.replayer is not None and app.replayer.workspace is workspace, "its caches are the app's"


def test_a_directory_swapped_for_a_symlink_to_outside_has_no_stamp(workspace_root: Path, outside: Path) -> None:
    """The tree checks the directories it shows by their stamp: looked up beneath the root."""
    workspace = Workspace(workspace_root)
    (workspace_root / "sub").mkdir()
    assert workspace.directory_stamp("sub") is not None
    (workspace_root / "sub").rmdir()
    (workspace_root / "sub").symlink_to(outside)
    assert workspace.directory_stamp("sub") is None
    assert workspace.directory_stamp("out") is None
    assert workspace.directory_stamp("session") is not None


async def test_the_tree_reads_a_directory_replaced_by_a_symlink_to_outside_as_outside(
    workspace_root: Path, outside: Path
) -> None:
    (workspace_root / "sub").mkdir()
    (workspace_root / "sub" / "a.txt").write_text("a\n")
    app = AgentPagerApp(Workspace(workspace_root))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = app.query_one(WorkspaceTree)
        next(node for node in tree.root.children if getattr(node.data, "path", "") == "sub").expand()
        await settle(pilot)
        shutil.rmtree(workspace_root / "sub")
        (workspace_root / "sub").symlink_to(outside)
        with watching(outside) as watch:
            tree.action_refresh_tree()
            await settle(pilot)
            touched = watch.touched()
        assert touched == [], touched
        entry = tree.root.data
        assert isinstance(entry, DirectoryEntry) and entry.listing is not None
        assert "sub" in entry.listing.outside and "sub" not in entry.listing.directories


def test_the_filesystem_beneath_a_root_refuses_what_leads_out(workspace_root: Path, outside: Path) -> None:
    filesystem = Workspace(workspace_root).filesystem
    with watching(outside, outside / "subagents") as watch:
        for attempt in (
            lambda: filesystem.open("link.jsonl"),
            lambda: filesystem.open(str(outside / "session.jsonl")),
            lambda: filesystem.open("../outside/session.jsonl"),
            lambda: filesystem.names("out"),
            lambda: filesystem.names("session/subagents"),
        ):
            with pytest.raises(OSError) as refused:
                attempt()
            assert refused.value.errno == errno.EACCES and refused.value.strerror == "outside the workspace"
        assert not filesystem.is_file("link.jsonl")
        touched = watch.touched()
        assert touched == [], touched
    os.close(filesystem.open("session.jsonl"))
    assert filesystem.names("session") == ["subagents"] and filesystem.is_file("session.jsonl")
