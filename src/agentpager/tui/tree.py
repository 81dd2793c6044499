"""The workspace tree: a directory is read when expanded, and shown a page of 100 entries at a time.

Textual's DirectoryTree makes a node for every entry and stats on the UI thread (6 s for 100,000
entries here); this tree reads a directory in a thread, through the function ``list_files`` uses,
and adds one page.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import on, work
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from agentpager.tui.failures import ReportsFailures
from agentpager.workspace import (
    LISTING_PAGE_SIZE,
    LISTING_WARNING_THRESHOLD,
    DirectoryEntries,
    Workspace,
    printable,
)

PAGE_SIZE = LISTING_PAGE_SIZE


@dataclass(frozen=True)
class Listing:
    """A directory's entries as the tree shows them: directories, then files, then the rest, by name.

    ``files`` are exactly the files ``list_files`` lists there, in its order.
    """

    directories: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)
    """FIFOs, sockets, broken symlinks, symlinks that lead outside the workspace."""
    outside: frozenset[str] = frozenset()
    """Symlinks that lead out of the workspace."""
    error: str = ""

    @classmethod
    def of(cls, entries: DirectoryEntries) -> Listing:
        return cls(
            sorted(entries.directories + entries.linked_directories),
            sorted(entries.files),
            sorted(entries.others),
            entries.outside,
            entries.error,
        )

    @property
    def entries(self) -> list[tuple[str, bool]]:
        return [(name, True) for name in self.directories] + [(name, False) for name in self.files + self.others]


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

    class FileChosen(Message):
        def __init__(self, path: str) -> None:
            super().__init__()
            self.path = path

    class DirectoryChosen(Message):
        def __init__(self, path: str, file_offset: int) -> None:
            super().__init__()
            self.path = path
            self.file_offset = file_offset

    def __init__(self, workspace: Workspace, **kwargs: Any) -> None:
        root = workspace.root.path
        super().__init__(Text(os.path.basename(root) or root, style="bold"), DirectoryEntry("."), **kwargs)
        self.workspace = workspace
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
        listing = Listing.of(self.workspace.read_directory(path))
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
            label = Text(printable(name) + ("/" if is_directory else ""), style="bold" if is_directory else "")
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
            name = os.path.basename(self.workspace.root.path) or self.workspace.root.path
        else:
            name = printable(os.path.basename(entry.path)) + "/"
        label = Text(name, style="bold")
        if entry.listing.error:
            label.append(f"  ({entry.listing.error})", style="red")
        else:
            files = len(entry.listing.files)
            label.append(f"  {files:,} file{'s' * (files != 1)}", style="dim")
            if files > LISTING_WARNING_THRESHOLD:
                label.append(" ⚠", style="bold yellow")
        node.set_label(label)

    @on(Tree.NodeSelected)
    def _chosen(self, event: Tree.NodeSelected[object]) -> None:
        event.stop()
        entry = event.node.data
        if isinstance(entry, FileEntry):
            self.post_message(self.FileChosen(entry.path))
        elif isinstance(entry, PageLink):
            self.show_page(entry.directory, entry.offset)
            directory = entry.directory.data
            assert isinstance(directory, DirectoryEntry)
            self.post_message(self.DirectoryChosen(directory.path, directory.file_offset))
        elif isinstance(entry, DirectoryEntry):
            self.post_message(self.DirectoryChosen(entry.path, entry.file_offset))
