"""The workspace tree: a directory is read when expanded, and shown a page of 100 entries at a time.

Textual's DirectoryTree makes a node for every entry and stats on the UI thread (6 s for 100,000
entries here); this tree reads a directory with ``os.scandir`` in a thread and adds one page.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import on, work
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from agentpager.tools.paths import Root, is_within
from agentpager.tools.qq import MAX_FILES_PER_LIST, MAX_FILES_WARNING_THRESHOLD
from agentpager.tui.failures import ReportsFailures
from agentpager.tui.messages import DirectoryChosen, FileChosen

PAGE_SIZE = MAX_FILES_PER_LIST


@dataclass(frozen=True)
class Listing:
    """A directory's entries as the tree shows them: directories first, then files, by name."""

    directories: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    outside: frozenset[str] = frozenset()
    """Symlinks that lead out of the workspace."""
    error: str = ""

    @property
    def entries(self) -> list[tuple[str, bool]]:
        return [(name, True) for name in self.directories] + [(name, False) for name in self.files]


def read_directory(root: Root, path: str) -> Listing:
    """The entries of ``path`` (relative to the root); an unreadable directory says why."""
    directories: list[str] = []
    files: list[str] = []
    outside: set[str] = set()
    try:
        with os.scandir(os.path.join(root.path, path)) as entries:
            for entry in entries:
                try:
                    if entry.is_symlink() and not is_within(os.path.realpath(entry.path), root.real):
                        outside.add(entry.name)
                    (directories if entry.is_dir() else files).append(entry.name)
                except OSError:
                    files.append(entry.name)
    except PermissionError:
        return Listing(error="unreadable")
    except OSError as error:
        return Listing(error=error.strerror or str(error))
    return Listing(sorted(directories), sorted(files), frozenset(outside))


@dataclass
class DirectoryEntry:
    path: str
    listing: Listing | None = None
    offset: int = 0
    """The first entry of the page shown."""

    @property
    def file_offset(self) -> int:
        """Where the page's files start in ``list_files``' listing of this directory."""
        if self.listing is None:
            return 0
        return max(0, self.offset - len(self.listing.directories))


@dataclass(frozen=True)
class FileEntry:
    path: str


@dataclass(frozen=True)
class PageLink:
    directory: TreeNode[object]
    offset: int


def _child_path(parent: str, name: str) -> str:
    return name if parent == "." else f"{parent}/{name}"


class WorkspaceTree(ReportsFailures, Tree[object]):
    """Directories and files of the workspace, paged, with the count that makes list_files warn."""

    DEFAULT_CSS = """
    WorkspaceTree { width: 36; border-right: tall $panel; }
    """

    def __init__(self, root: Root, **kwargs: Any) -> None:
        super().__init__(Text(os.path.basename(root.path) or root.path, style="bold"), DirectoryEntry("."), **kwargs)
        self.workspace_root = root
        self.guide_depth = 2

    def on_mount(self) -> None:
        self.root.expand()

    @on(Tree.NodeExpanded)
    def _load_when_expanded(self, event: Tree.NodeExpanded[object]) -> None:
        entry = event.node.data
        if isinstance(entry, DirectoryEntry) and entry.listing is None:
            self._read(event.node, entry.path)

    @work(thread=True, group="tree", exit_on_error=False)
    def _read(self, node: TreeNode[object], path: str) -> None:
        listing = read_directory(self.workspace_root, path)
        self.app.call_from_thread(self._loaded, node, listing)

    def _loaded(self, node: TreeNode[object], listing: Listing) -> None:
        entry = node.data
        assert isinstance(entry, DirectoryEntry)
        entry.listing = listing
        self._label_directory(node)
        self.show_page(node, 0)

    def show_page(self, node: TreeNode[object], offset: int) -> None:
        """Show the page of ``node``'s entries that starts at ``offset``."""
        entry = node.data
        assert isinstance(entry, DirectoryEntry) and entry.listing is not None
        entry.offset = offset
        node.remove_children()
        entries = entry.listing.entries
        if offset:
            start = max(0, offset - PAGE_SIZE)
            node.add_leaf(self._page_label(start, len(entries), "◀ "), PageLink(node, start))
        for name, is_directory in entries[offset : offset + PAGE_SIZE]:
            path = _child_path(entry.path, name)
            outside = name in entry.listing.outside
            label = Text(name + ("/" if is_directory else ""), style="bold" if is_directory else "")
            if outside:
                label.append(" → outside the workspace", style="dim italic")
            if is_directory and not outside:
                node.add(label, DirectoryEntry(path))
            else:
                node.add_leaf(label, FileEntry(path))
        if offset + PAGE_SIZE < len(entries):
            node.add_leaf(self._page_label(offset + PAGE_SIZE, len(entries), ""), PageLink(node, offset + PAGE_SIZE))

    @staticmethod
    def _page_label(start: int, total: int, arrow: str) -> Text:
        end = min(start + PAGE_SIZE, total)
        return Text(f"{arrow}{start + 1:,}-{end:,} of {total:,}{'' if arrow else ' ▶'}", style="italic")

    def _label_directory(self, node: TreeNode[object]) -> None:
        entry = node.data
        assert isinstance(entry, DirectoryEntry) and entry.listing is not None
        if entry.path == ".":
            name = os.path.basename(self.workspace_root.path) or self.workspace_root.path
        else:
            name = os.path.basename(entry.path) + "/"
        label = Text(name, style="bold")
        if entry.listing.error:
            label.append(f"  ({entry.listing.error})", style="red")
        else:
            files = len(entry.listing.files) - len(entry.listing.outside & set(entry.listing.files))
            label.append(f"  {files:,} file{'s' * (files != 1)}", style="dim")
            if files > MAX_FILES_WARNING_THRESHOLD:
                label.append(" ⚠", style="bold yellow")
        node.set_label(label)

    @on(Tree.NodeSelected)
    def _chosen(self, event: Tree.NodeSelected[object]) -> None:
        event.stop()
        entry = event.node.data
        if isinstance(entry, FileEntry):
            self.post_message(FileChosen(entry.path))
        elif isinstance(entry, PageLink):
            self.show_page(entry.directory, entry.offset)
            directory = entry.directory.data
            assert isinstance(directory, DirectoryEntry)
            self.post_message(DirectoryChosen(directory.path, directory.file_offset))
        elif isinstance(entry, DirectoryEntry):
            self.post_message(DirectoryChosen(entry.path, entry.file_offset))
