"""How many recorded reads of every session covered each line of the viewer's file: the gutter's
shades. Asked of the sessions index a window of lines at a time, in a worker, only for a file some
call read (an agent may read one file seven times and never see 70% of it: the unshaded lines)."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentpager.sessions_index.search import ReadSummary, read_counts, read_summary
from agentpager.sessions_index.store import IndexStore, default_path

WINDOW = 200
SHADES = ((4, "reads-3"), (2, "reads-2"), (1, "reads-1"))
"""(at least this many reads, the gutter's component class suffix)."""


@dataclass
class ReadCounts:
    """The counts of one file, by window; ``summary`` is None until asked (or no call read it)."""

    path: str
    home: str | None
    summary: ReadSummary | None = None
    windows: dict[int, list[int]] = field(default_factory=dict)
    asked: set[int] = field(default_factory=set)

    def shade(self, line: int) -> str | None:
        """The gutter's shade for ``line``: None when no call read it, or when its window is not
        counted yet (``wanted`` says which)."""
        counts = self.windows.get((line - 1) // WINDOW)
        if counts is None:
            return None
        count = counts[(line - 1) % WINDOW]
        return next((name for least, name in SHADES if count >= least), None)

    def wanted(self, line: int) -> int | None:
        """The window to count for ``line``, when it is neither counted nor asked for yet."""
        index = (line - 1) // WINDOW
        if self.summary is None or not self.summary.calls or index in self.windows or index in self.asked:
            return None
        self.asked.add(index)
        return index

    def note(self, line_count: int) -> str:
        """The viewer's note: how many reads, and how much of the file they saw."""
        summary = self.summary
        if summary is None or not summary.calls or not line_count:
            return ""
        sessions = "" if summary.sessions == 1 else f" in {summary.sessions:,} sessions"
        return f"read {summary.calls:,}×{sessions}, {summary.lines * 100 // line_count}% of lines"


def summarized(path: str, home: str | None, line_count: int) -> ReadSummary | None:
    """The file's summary from the index; None when there is no index yet (it is not made for this)."""
    if not default_path().exists():
        return None
    store = IndexStore()
    try:
        return read_summary(store, home, path, line_count)
    finally:
        store.close()


def counted(path: str, home: str | None, index: int, line_count: int) -> list[int]:
    """The counts of window ``index`` (its lines past ``line_count`` left out)."""
    store = IndexStore()
    try:
        first = index * WINDOW + 1
        return read_counts(store, home, path, first, max(first, min(first + WINDOW - 1, line_count)))
    finally:
        store.close()
