"""The workspace tree: a directory is read when expanded, and its files shown a page at a time (the
profile's listing page: 100 files).

Textual's DirectoryTree makes a node for every entry and stats on the UI thread (6 s for 100,000
entries here); this tree reads a directory in a thread, through the function ``list_files`` uses,
and adds one page. Files are paged as ``list_files`` pages them (the same files: FIFOs, broken
symlinks and symlinks out of the workspace are listed after them), so a page's offset is one an
agent would send. Directories
it shows are checked every few seconds (and on ``r``) and read again when they changed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Literal

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode, UnknownNodeID

from agentpager.tui.failures import ReportsFailures
from agentpager.tui.lines import one_row
from agentpager.workspace import DirectoryEntries, Workspace

CHECK_SECONDS = 2.0
"""How often the directories on screen, and the file in the viewer, are checked for changes."""

Stamp = tuple[int, int]


@dataclass(frozen=True)
class Listing:
    """A directory's entries as the tree shows them: directories first, then files, then the rest, by name.

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
            sorted(entries.directories + entries.linked_directories),  # two sorted runs: one merge
            entries.files,
            entries.others,
            entries.outside,
            entries.error,
        )


@dataclass
class DirectoryEntry:
    path: str
    listing: Listing | None = None
    file_offset: int = 0
    """The first file of the page shown (an offset ``list_files`` takes)."""
    directory_offset: int = 0
    """The first subdirectory of the page shown."""
    stamp: Stamp | None = None
    """The directory's stamp when it was read."""


@dataclass(frozen=True)
class FileEntry:
    path: str
    outside: bool = False
    """A symlink that leads out of the workspace (it is not followed, whatever it leads to)."""


@dataclass(frozen=True)
class PageLink:
    directory: TreeNode[object]
    kind: Literal["files", "directories"]
    offset: int


def _child_path(parent: str, name: str) -> str:
    return name if parent == "." else f"{parent}/{name}"


class WorkspaceTree(ReportsFailures, Tree[object]):
    """Directories and files of the workspace, paged, with the count that makes list_files warn and
    the paths the panel's profile refuses."""

    @dataclass
    class FileChosen(Message):
        path: str

    @dataclass
    class DirectoryChosen(Message):
        """A directory was chosen (``file_offset`` None: the call an agent makes first), or a page of
        its files (``file_offset``: where the page starts, as ``list_files`` counts)."""

        path: str
        file_offset: int | None

    BINDINGS = [
        Binding(
            "r", "refresh_tree", "Refresh", show=False, id="refresh_tree", tooltip="Read the tree's directories again"
        )
    ]
    DEFAULT_CSS = """
    WorkspaceTree { width: 36; border-right: tall $panel; }
    """

    def __init__(self, workspace: Workspace, **kwargs: Any) -> None:
        root = workspace.root
        super().__init__(Text(os.path.basename(root.path) or root.path, style="bold"), DirectoryEntry("."), **kwargs)
        self.workspace = workspace
        self.guide_depth = 2

    def on_mount(self) -> None:
        self.root.expand()
        self.set_interval(CHECK_SECONDS, self._check_for_changes)

    def use_workspace(self, workspace: Workspace) -> None:
        """Mark what another profile refuses."""
        self.workspace = workspace
        for node in self._under(self.root):
            self._relabel(node)

    def _under(self, node: TreeNode[object]) -> list[TreeNode[object]]:
        """``node`` and every node under it."""
        found = [node]
        for child in node.children:
            found += self._under(child)
        return found

    # -- reading ----------------------------------------------------------------------------------

    @on(Tree.NodeExpanded)
    def _load_when_expanded(self, event: Tree.NodeExpanded[object]) -> None:
        entry = event.node.data
        if isinstance(entry, DirectoryEntry) and entry.listing is None:
            self._read(event.node, entry.path)

    @work(thread=True, group="tree", exit_on_error=False, description="reading a directory")
    def _read(self, node: TreeNode[object], path: str) -> None:
        stamp = self.workspace.directory_stamp(path)
        listing = Listing.of(self.workspace.read_directory(path))
        self.app.call_from_thread(self._loaded, node, listing, stamp)

    def _loaded(self, node: TreeNode[object], listing: Listing, stamp: Stamp | None) -> None:
        try:
            self.get_node_by_id(node.id)
        except UnknownNodeID:
            return  # its parent's page was rebuilt meanwhile
        entry = node.data
        assert isinstance(entry, DirectoryEntry)
        first_read = entry.listing is None
        entry.listing, entry.stamp = listing, stamp
        if not first_read:  # keep the pages shown where they still exist
            entry.file_offset = min(entry.file_offset, _last_page(len(listing.files), self.workspace.listing_page_size))
            entry.directory_offset = min(
                entry.directory_offset, _last_page(len(listing.directories), self.workspace.listing_page_size)
            )
        self._relabel(node)
        self.show_page(node)

    def _shown_directories(self) -> list[tuple[TreeNode[object], str, Stamp | None]]:
        """Each open directory that was read: its node, path, and stamp when read."""
        return [
            (node, node.data.path, node.data.stamp)
            for node in self._under(self.root)
            if isinstance(node.data, DirectoryEntry) and node.data.listing is not None and node.is_expanded
        ]

    def _check_for_changes(self) -> None:
        if directories := self._shown_directories():
            self._reread(directories, False)

    def action_refresh_tree(self) -> None:
        """Read every directory shown again."""
        self._reread(self._shown_directories(), True)

    @work(
        thread=True,
        group="tree-check",
        exclusive=True,
        exit_on_error=False,
        description="checking the directories shown",
    )
    def _reread(self, directories: list[tuple[TreeNode[object], str, Stamp | None]], always: bool) -> None:
        for node, path, known in directories:
            stamp = self.workspace.directory_stamp(path)
            if always or stamp != known:
                self.app.call_from_thread(self._loaded, node, Listing.of(self.workspace.read_directory(path)), stamp)

    # -- pages ------------------------------------------------------------------------------------

    def show_page(self, node: TreeNode[object]) -> None:
        """Show ``node``'s page of subdirectories and page of files (their offsets are in its entry),
        keeping the subdirectories that were open open."""
        entry = node.data
        assert isinstance(entry, DirectoryEntry) and entry.listing is not None
        listing = entry.listing
        cursor_path = self._path_under_cursor(node)
        open_before = {
            child.data.path: child.data
            for child in node.children
            if isinstance(child.data, DirectoryEntry) and child.is_expanded
        }
        node.remove_children()
        page = self.workspace.listing_page_size
        start = entry.directory_offset
        self._add_links(node, "directories", start, len(listing.directories), before=True)
        reopen = []
        for name in listing.directories[start : start + page]:
            path = _child_path(entry.path, name)
            child = node.add("", open_before.get(path) or DirectoryEntry(path))
            if path in open_before:
                reopen.append(child)
            self._relabel(child)
        self._add_links(node, "directories", start, len(listing.directories), before=False)
        start = entry.file_offset
        self._add_links(node, "files", start, len(listing.files), before=True)
        for name in listing.files[start : start + page]:
            child = node.add_leaf("", FileEntry(_child_path(entry.path, name)))
            self._relabel(child)
        self._add_links(node, "files", start, len(listing.files), before=False)
        for name in listing.others:
            child = node.add_leaf("", FileEntry(_child_path(entry.path, name), outside=name in listing.outside))
            self._relabel(child)
        for child in reopen:
            child.expand()
            if isinstance(child.data, DirectoryEntry) and child.data.listing is not None:
                self.show_page(child)
        if cursor_path is not None:
            found = next(
                (child for child in self._under(node) if getattr(child.data, "path", None) == cursor_path), None
            )
            if found is not None:
                self.call_after_refresh(self.move_cursor, found)

    def _path_under_cursor(self, node: TreeNode[object]) -> str | None:
        """The path to keep the cursor on once ``node``'s page is rebuilt (a page link: the first
        entry of the page it leads to)."""
        cursor = self.cursor_node
        if cursor is None:
            return None
        data = cursor.data
        if isinstance(data, PageLink) and data.directory is node:
            entry = node.data
            assert isinstance(entry, DirectoryEntry) and entry.listing is not None
            names = entry.listing.files if data.kind == "files" else entry.listing.directories
            return _child_path(entry.path, names[data.offset]) if data.offset < len(names) else None
        return getattr(data, "path", None)

    def _add_links(
        self, node: TreeNode[object], kind: Literal["files", "directories"], start: int, total: int, before: bool
    ) -> None:
        """The link to the previous page (``before``) or the next one, when there is one; its arrow
        first, so that a narrow tree cuts the numbers rather than the arrow."""
        page = self.workspace.listing_page_size
        if before and start:
            offset = max(0, start - page)
            label = f"◀ {kind} {offset + 1:,}-{min(offset + page, total):,} of {total:,}"
        elif not before and start + page < total:
            offset = start + page
            label = f"▶ {kind} {offset + 1:,}-{min(offset + page, total):,} of {total:,}"
        else:
            return
        node.add_leaf(Text(label, style="italic"), PageLink(node, kind, offset))

    # -- labels -----------------------------------------------------------------------------------

    def _relabel(self, node: TreeNode[object]) -> None:
        entry = node.data
        if isinstance(entry, DirectoryEntry):
            label = self._directory_label(entry)
        elif isinstance(entry, FileEntry):
            label = Text(one_row(os.path.basename(entry.path)))
            if entry.outside:
                label.append(" → outside the workspace", style="dim italic")
        else:
            return
        if entry.path != "." and self.workspace.refuses(entry.path):
            label.append(" ⊘ refused", style="dim red")
        node.set_label(label)

    def _directory_label(self, entry: DirectoryEntry) -> Text:
        root = self.workspace.root
        name = (
            os.path.basename(root.path) or root.path
            if entry.path == "."
            else one_row(os.path.basename(entry.path)) + "/"
        )
        label = Text(name, style="bold")
        listing = entry.listing
        if listing is None:
            return label
        if listing.error:
            label.append(f"  ({listing.error})", style="red")
        else:
            label.append(_count_of(listing), style="dim")
            warns_over = self.workspace.listing_warning_threshold
            if warns_over is not None and len(listing.files) > warns_over:  # first: a narrow tree cuts the label's end
                label = Text.assemble(("⚠ ", "bold yellow"), label)
        return label

    def render_label(self, node: TreeNode[object], base_style: Style, style: Style) -> Text:
        """The label cut to the tree's width: a directory's count shows whole or not at all (cut, "12
        files" read "12" or "1"), and a name cut ends in "…"."""
        label = super().render_label(node, base_style, style)
        room = self.scrollable_content_region.width - _depth(node) * self.guide_depth
        if label.cell_len <= room or room <= 1:
            return label
        entry = node.data
        if isinstance(entry, DirectoryEntry) and entry.listing is not None and not entry.listing.error:
            count = _count_of(entry.listing)
            at = label.plain.rfind(count)
            if at >= 0:
                label = label[:at] + label[at + len(count) :]
        label.truncate(room, overflow="ellipsis")
        return label

    # -- choosing ---------------------------------------------------------------------------------

    @on(Tree.NodeSelected)
    def _chosen(self, event: Tree.NodeSelected[object]) -> None:
        event.stop()
        entry = event.node.data
        if isinstance(entry, FileEntry):
            self.post_message(self.FileChosen(entry.path))
        elif isinstance(entry, PageLink):
            directory = entry.directory.data
            assert isinstance(directory, DirectoryEntry)
            if entry.kind == "files":
                directory.file_offset = entry.offset
            else:
                directory.directory_offset = entry.offset
            self.show_page(entry.directory)
            self.post_message(self.DirectoryChosen(directory.path, directory.file_offset))
        elif isinstance(entry, DirectoryEntry):
            self.post_message(self.DirectoryChosen(entry.path, None))


def _count_of(listing: Listing) -> str:
    files = len(listing.files)
    return f" {files:,} file{'s' * (files != 1)}"


def _depth(node: TreeNode[object]) -> int:
    """How many directories above ``node`` the tree shows (each indents it by ``guide_depth``)."""
    depth = 0
    while (parent := node.parent) is not None:
        node, depth = parent, depth + 1
    return depth


def _last_page(total: int, page: int) -> int:
    return max(0, (total - 1) // page * page)
