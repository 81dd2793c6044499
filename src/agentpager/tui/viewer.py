"""The viewer: a Line-API ScrollView over a file of any size, fetched 200 lines at a time.

Its virtual height is the line count (growing while the file is indexed in a thread); windows of
lines come through the same FileView and index the agent's tools read, into a small LRU.
TextArea and Log hold the whole file, which rules them out for gigabyte logs. Wrapping stays
O(window) too: the scroll position is still the top line, and only the lines on screen are folded.
"""

from __future__ import annotations

import bisect
import textwrap
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from rich.style import Style
from textual import on, work
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.markup import escape
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.worker import Worker, get_current_worker

from agentpager.fileview import Cancelled, FileView, ViewError
from agentpager.tui.failures import ReportsFailures
from agentpager.tui.lines import Shading, marker, one_row, paint, smart_case
from agentpager.tui.read_counts import ReadCounts, counted, summarized
from agentpager.tui.screens.key_prompt import KeyPrompt
from agentpager.tui.tree import CHECK_SECONDS
from agentpager.workspace import Workspace

if TYPE_CHECKING:
    from agentpager.fileview import Matcher

WINDOW_LINES = 200
DISPLAY_LIMIT = 2000
"""Characters of a line kept for display; the rest is marked as cut (the tools still see it)."""
SEARCH_REPORT_SECONDS = 0.2
NEXT_STEP = "Choose another file in the tree, or press o to find one by name."
START = [
    "Choose a file in the tree (↑ ↓ and Enter), or press o to find one by name.",
    "",
    "The panel then shows the call an agent makes for the lines you see, and its exact output.",
    "Press ? for every key.",
]
_MARKS = {"covered": "▌", "cut": "✂", "lost": "╎", "match": "▶", "": " "}


@dataclass(frozen=True)
class Window:
    """The lines the viewer shows: its top line and bottom line (1-based)."""

    top: int
    bottom: int


class FileViewer(ReportsFailures, ScrollView, can_focus=True, inherit_bindings=False):
    """Shows one file as the agent's tools see its lines."""

    @dataclass
    class WindowChanged(Message):
        """The lines on screen changed (scrolled, resized, or more of the file is known)."""

        viewer: FileViewer
        window: Window

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, FileViewer.WindowChanged) and message.viewer is self.viewer

    @dataclass
    class Opened(Message):
        view: FileView

    @dataclass
    class Failed(Message):
        """A file cannot be shown: ``lines`` say why and what to do."""

        path: str
        lines: list[str]

    @dataclass
    class Indexed(Message):
        """Progress of counting a file's lines: ``lines`` known so far, the ``fraction`` of bytes scanned."""

        view: FileView
        lines: int
        complete: bool
        fraction: float
        version: tuple[int, int] | None = None
        """The version of the file counted (``FileView.version``), once complete."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, FileViewer.Indexed) and message.view is self.view

    @dataclass
    class Searched(Message):
        """Matches of a search so far (the worker keeps appending to ``matches`` until ``complete``)."""

        pattern: Matcher
        matches: list[int]
        complete: bool
        problem: str = ""
        """Why the search stopped early (re, in its child, took too long), if it did."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, FileViewer.Searched) and message.matches is self.matches

    BINDINGS = [
        Binding("up,k", "scroll_lines(-1)", "Up", show=False),
        Binding("down,j", "scroll_lines(1)", "Down", show=False),
        Binding("left,h", "scroll_columns(-4)", "Left", show=False),
        Binding("right,l", "scroll_columns(4)", "Right", show=False),
        Binding("pageup,b", "scroll_pages(-1)", "Page up", show=False),
        Binding("pagedown,space", "scroll_pages(1)", "Page down", show=False),
        Binding("u", "scroll_half_pages(-1)", "Half a page up", show=False),
        Binding("d", "scroll_half_pages(1)", "Half a page down", show=False),
        Binding("home,g", "go_top", "Top", show=False),
        Binding("end,G", "go_bottom", "Bottom", show=False),
        Binding(
            "0",
            "start_of_line",
            "Start of line",
            show=False,
            id="start_of_line",
            tooltip="Scroll back to the start of the lines",
        ),
        Binding(
            "dollar_sign",
            "end_of_line",
            "End of line",
            show=False,
            id="end_of_line",
            tooltip="Scroll to the end of the longest line on screen",
        ),
        Binding("colon", "app.goto_line", "Line", id="goto_line", tooltip="Go to a line"),
        Binding(
            "slash",
            "app.search",
            "Search",
            id="search",
            tooltip="Search the file (in the session browser: every session)",
        ),
        Binding("n", "next_match(1)", "Next", show=False, id="next_match", tooltip="Next search match"),
        Binding("N", "next_match(-1)", "Previous", show=False, id="previous_match", tooltip="Previous search match"),
        Binding("w", "toggle_wrap", "Wrap", id="wrap", tooltip="Wrap long lines"),
        Binding("m", "set_mark", "Mark", show=False, id="set_mark", tooltip="Mark the top line (then a letter)"),
        Binding(
            "apostrophe",
            "go_to_mark",
            "Go to mark",
            show=False,
            id="go_to_mark",
            tooltip="Go to a mark (then its letter)",
        ),
        Binding(
            "v",
            "app.open_in_editor",
            "$EDITOR",
            show=False,
            id="open_in_editor",
            tooltip="Open the file at this line in $EDITOR",
        ),
        Binding("f", "toggle_follow", "Follow", show=False, id="follow", tooltip="Follow a growing file"),
        Binding(
            "R",
            "app.reads_here",
            "Reads",
            show=False,
            id="reads_here",
            tooltip="Every session's calls that read the line in focus",
        ),
        Binding("escape", "cancel", "Cancel", show=False),
    ]

    DEFAULT_CSS = """
    FileViewer {
        width: 1fr;
        border: round $panel;
        border-title-color: $text;
        border-subtitle-color: $text-muted;
        &:focus { border: round $accent; }
        .viewer--gutter { color: $text-muted; }
        .viewer--control { color: $warning; text-style: bold; }
        .viewer--cut { color: $error; text-style: bold; }
        .viewer--match { background: $warning 40%; }
        .viewer--current { background: $warning; color: $background; }
        .viewer--covered { background: $primary 18%; }
        .viewer--lost { background: $error 12%; color: $text-muted; }
        .viewer--mark-covered { color: $primary; }
        .viewer--mark-cut { color: $error; text-style: bold; }
        .viewer--mark-lost { color: $error; }
        .viewer--mark-match { color: $warning; text-style: bold; }
        .viewer--message { color: $text-muted; }
        .viewer--reads-1 { background: $primary 30%; }
        .viewer--reads-2 { background: $primary 50%; }
        .viewer--reads-3 { background: $primary 75%; color: $text; }
    }
    """
    COMPONENT_CLASSES = {
        "viewer--gutter",
        "viewer--control",
        "viewer--cut",
        "viewer--match",
        "viewer--current",
        "viewer--covered",
        "viewer--lost",
        "viewer--mark-covered",
        "viewer--mark-cut",
        "viewer--mark-lost",
        "viewer--mark-match",
        "viewer--message",
        "viewer--reads-1",
        "viewer--reads-2",
        "viewer--reads-3",
    }

    following = reactive(False)
    wrap = reactive(False)
    status = reactive("", layout=False)

    def __init__(self, workspace: Workspace, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.workspace = workspace
        self.view: FileView | None = None
        self.path = ""
        self.line_count = 0
        self.indexed = False
        self.shading: Shading | None = None
        """What the panel's call covers, when it reads this file."""
        self.marks: dict[str, tuple[str, int]] = {}
        """Marks set with ``m``: letter -> (path, top line)."""
        self.previous: tuple[str, int] | None = None
        """Where the last jump left from (``''`` goes back)."""
        self._counted: tuple[int, int] | None = None
        """The version of the file the line count was taken from (None while counting)."""
        self._message: list[str] = START
        self._windows: LRUCache[int, list[tuple[str, bool]]] = LRUCache(16)
        self._strips: LRUCache[int, Strip] = LRUCache(512)
        self._folded: LRUCache[tuple[int, int], list[Strip]] = LRUCache(512)
        self._gutters: LRUCache[int, Strip] = LRUCache(512)
        self._styles: dict[str, Style] = {}
        self._frame_rows: list[tuple[int, int]] = []
        """Wrapped: the (line, row of it) on each screen row of the frame being drawn."""
        self._widest = 0
        self._pattern: Matcher | None = None
        self._matches: list[int] = []
        self._match = -1
        self._search_from = 1
        self._search_note = ""
        self._follow_timer: Timer | None = None
        self._last_window: Window | None = None
        self._wanted_top: int | None = None
        self._focus_when_open = True
        self.border_title = "agentpager"
        self.reads_home: str | None = None
        """The home whose sessions' reads shade the gutter (the app's session browser's)."""
        self.reads: ReadCounts | None = None
        """How many recorded reads covered each line, when some call of a session read the file."""

    # -- opening ----------------------------------------------------------------------------------

    def open_file(self, path: str, line: int | None = None, focus: bool = True) -> None:
        """Show ``path`` (relative to the root), from ``line`` when given; documents are converted in
        a child process. ``focus``: take the focus once it is open (not when the tree previews it)."""
        self.workers.cancel_group(self, "file")
        self.following = False
        if self.path and self.view is not None:
            self.previous = (self.path, self.window.top)
        self.path = path
        self.view = None
        self.shading = None
        self._last_window = None  # the new file's first window is told even when it is the last one's
        self._counted = None
        self.reads = None
        self._focus_when_open = focus
        self._reset_lines([f"Opening {path}…"])
        self._wanted_top = line
        self.border_title = escape(one_row(path))
        self.status = "opening…"
        self._open(path)

    @work(thread=True, group="file", exclusive=True, exit_on_error=False, description="opening")
    def _open(self, path: str) -> None:
        worker = get_current_worker()
        started = time.monotonic()
        converting = threading.Event()

        def note_conversion() -> None:  # a document that takes long to convert says so
            while not converting.wait(0.5):
                self.app.call_from_thread(
                    self._set_status, f"converting to Markdown… {time.monotonic() - started:.0f} s (Escape cancels)"
                )

        threading.Thread(target=note_conversion, daemon=True).start()
        try:
            view = self.workspace.open_view(path, cancel=worker.cancelled_event)
        except ViewError as error:
            lines = [error.message]
            if error.mime:
                lines += ["", f"Detected type: {error.mime}", f"Size: {error.size:,} bytes"]
            lines += ["", "The panel shows what an agent's read gets for it.", NEXT_STEP]
            self.post_message(self.Failed(path, lines))
            return
        except Cancelled:
            self.post_message(self.Failed(path, ["Conversion cancelled.", "", "Choose the file again to convert it."]))
            return
        except OSError as error:  # the file went away or changed while it was opened
            self.post_message(self.Failed(path, [f"Could not open {path}: {error.strerror or error}", "", NEXT_STEP]))
            return
        finally:
            converting.set()
        self.post_message(self.Opened(view))
        self._index(view, worker)

    def _index(self, view: FileView, worker: Worker[None]) -> None:
        """Count the lines (in this worker thread), reporting as it goes."""
        last_report = 0.0

        def progress(scanned: int, size: int) -> None:
            nonlocal last_report
            now = time.monotonic()
            if now - last_report > 0.1:
                last_report = now
                lines = view.available_lines()
                self.post_message(self.Indexed(view, lines, False, scanned / max(size, 1)))

        try:
            version = view.version()  # taken first: a change during the count is seen by the next check
            total = view.count_lines(progress, worker.cancelled_event)
        except Cancelled:
            return
        except OSError as error:
            self.post_message(
                self.Failed(view.name, [f"The file changed or could not be read: {error}", "", NEXT_STEP])
            )
            return
        self.post_message(self.Indexed(view, total, True, 1.0, version))

    @on(Opened)
    def _opened(self, event: FileViewer.Opened) -> None:
        self.view = event.view
        self.path = event.view.name
        self._reset_lines([])
        self.border_title = escape(one_row(event.view.name)) + (
            " (converted to Markdown)" if event.view.kind == "document" else ""
        )
        try:
            lines = event.view.available_lines()
        except OSError:  # it changed since it was opened: the indexing worker says so
            lines = 0
        self._set_line_count(lines, False)
        self.status = "indexing…"
        if self._focus_when_open:
            self.focus()

    @on(Failed)
    def _failed(self, event: FileViewer.Failed) -> None:
        if event.path != self.path:
            return
        self.view = None
        self._wanted_top = None
        self._reset_lines(event.lines)
        self.status = ""
        self._announce()

    @on(Indexed)
    def _indexed(self, event: FileViewer.Indexed) -> None:
        if event.view is not self.view:
            return
        self._set_line_count(event.lines, event.complete)
        if event.complete and event.lines == 0:
            self._message = [
                f"{self.path} is empty: 0 lines.",
                "",
                "The panel shows what an agent's read gets.",
                NEXT_STEP,
            ]
            self._update_virtual_size()
        self.status = "" if event.complete else f"indexing {event.fraction:.0%}"
        if event.complete:
            self._counted = event.version
        if event.complete and self.reads is None:
            self.count_reads()
        if self.following:
            self.action_go_bottom()

    def _reset_lines(self, message: list[str]) -> None:
        self._message = message
        self._windows.clear()
        self._clear_strips()
        self._widest = max((len(line) for line in message), default=0)
        self._matches, self._match, self._pattern, self._search_note = [], -1, None, ""
        self.line_count = 0
        self.indexed = False
        self._scroll(0, 0)
        self._update_virtual_size()
        self.refresh()
        self._show_where()

    def _set_line_count(self, lines: int, complete: bool) -> None:
        if lines != self.line_count:
            self._windows.clear()  # the last window may have grown
            self._clear_strips()
        self.line_count = lines
        self.indexed = complete
        self._update_virtual_size()
        if self._wanted_top is not None and (lines >= self._wanted_top or complete):
            self.call_after_refresh(self.go_to_line, self._wanted_top)
        self.refresh()
        self._show_where()
        self._announce()

    def _set_status(self, status: str) -> None:
        if self.view is None:
            self.status = status

    def _update_virtual_size(self) -> None:
        if self.line_count == 0:
            self.virtual_size = Size(0, len(self._message_rows(self.scrollable_content_region.width)))
        elif self.wrap:  # the last line may have to be the top one: room below it for a screen
            self.virtual_size = Size(self.scrollable_content_region.width, self.line_count + self.size.height)
        else:
            self.virtual_size = Size(self._gutter_width() + self._widest + 1, self.line_count)

    def watch_status(self) -> None:
        self._show_where()

    def _show_where(self) -> None:
        """The border's subtitle: the lines the call covers (else those on screen) of how many, and
        what is going on."""
        parts = []
        if self.view is not None and self.line_count:
            shading = self.shading
            first, last = (shading.first_line, shading.last_line) if shading else (self.window.top, self.window.bottom)
            total = f"{self.line_count:,}" if self.indexed else f"{self.line_count:,}+"
            share = f" ({last * 100 // self.line_count}%)" if self.indexed else ""
            parts.append(f"{first:,}-{last:,} / {total}{share}")
            if shading is not None and shading.cut is not None:
                parts.append(f"✂ the guard cuts at line {shading.cut[0]:,}")
        wrapped = "wrapped" if self.wrap and self.view is not None else ""
        if self.reads is not None:
            parts.append(self.reads.note(self.line_count))
        parts += [
            part for part in (self.status, self._search_note, "following" if self.following else "", wrapped) if part
        ]
        self.border_subtitle = " · ".join(parts)

    # -- lines ------------------------------------------------------------------------------------

    def _message_rows(self, width: int) -> list[str]:
        """The message folded to the viewer's width (it says what to do next: all of it must show)."""
        return [row for line in self._message for row in (textwrap.wrap(one_row(line), max(width, 10)) or [""])]

    def _gutter_width(self) -> int:
        return len(f"{max(self.line_count, 1):,}") + 2 if self.line_count else 0

    def _page_height(self) -> int:
        return max(1, self.scrollable_content_region.height)

    def window_lines(self, number: int) -> list[tuple[str, bool]]:
        """The 200-line window holding line ``number``: (display prefix, cut) per line."""
        index = (number - 1) // WINDOW_LINES
        lines = self._windows.get(index)
        if lines is None:
            first = index * WINDOW_LINES + 1
            last = min(first + WINDOW_LINES - 1, self.line_count)
            try:
                lines = self.view.line_prefixes(first, last, DISPLAY_LIMIT)  # type: ignore[union-attr]
            except (OSError, IndexError):
                return []  # the file moved under us; the next index report redraws
            self._windows[index] = lines
            widest = max((len(text) for text, _ in lines), default=0)
            if widest > self._widest:
                self._widest = widest
                self._update_virtual_size()
        return lines

    def line(self, number: int) -> tuple[str, bool]:
        lines = self.window_lines(number)
        offset = (number - 1) % WINDOW_LINES
        return lines[offset] if offset < len(lines) else ("", False)

    def _clear_strips(self) -> None:
        self._strips.clear()
        self._folded.clear()
        self._gutters.clear()

    def _style(self, name: str) -> Style:
        """A component's style, looked up once until the styles change (per line, looking them up
        cost more than painting the text)."""
        if not self._styles:
            styles = {name: self.get_component_rich_style(name) for name in self.COMPONENT_CLASSES}
            base = styles["base"] = self.rich_style
            styles |= {f"fill-{name}": base + styles[f"viewer--{name}"] for name in ("covered", "lost")}
            self._styles = styles
        return self._styles[name]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = {}
        self._clear_strips()

    def _content(self, number: int) -> Strip:
        """Line ``number`` painted, whole (without its gutter)."""
        strip = self._strips.get(number)
        if strip is None:
            text, cut = self.line(number)
            current = self._match >= 0 and self._matches[self._match] == number
            line = paint(text, number, cut, self._style, self.shading, self._pattern, current)
            strip = Strip(list(line.render(self.app.console))).apply_style(self._style("base"))
            self._strips[number] = strip
        return strip

    def _fold(self, number: int, width: int) -> list[Strip]:
        """Line ``number`` folded into rows of ``width`` cells."""
        key = (number, width)
        rows = self._folded.get(key)
        if rows is None:
            strip = self._content(number)
            length = strip.cell_length
            rows = list(strip.divide([*range(width, length, width), length])) if length > width else [strip]
            self._folded[key] = rows
        return rows

    def _gutter(self, number: int) -> Strip:
        """Line ``number``'s gutter: the number, and a mark for coverage, the cut or the current match."""
        strip = self._gutters.get(number)
        if strip is None:
            strip = self._gutters[number] = self._paint_gutter(number)
        return strip

    def _paint_gutter(self, number: int) -> Strip:
        width = self._gutter_width()
        current = self._matches[self._match] if self._match >= 0 else None
        mark = marker(number, self.shading if self.shading and self.shading.path == self.path else None, current)
        number_style = self._style("viewer--gutter")
        if self.reads is not None:
            shade = self.reads.shade(number)
            if shade is not None:
                number_style += self._style(f"viewer--{shade}")
            elif (window := self.reads.wanted(number)) is not None:
                self._count_window(self.reads, window)
        segments = [Segment(f"{number:>{width - 2},}", number_style)]
        segments.append(Segment(_MARKS[mark], self._style(f"viewer--mark-{mark}") if mark else None))
        segments.append(Segment(" "))
        return Strip(segments, width).apply_style(self._style("base"))

    def _rows(self, top: int, height: int) -> list[tuple[int, int]]:
        """Wrapped: (line, row of it) for each screen row from line ``top`` down."""
        width = max(1, self.scrollable_content_region.width - self._gutter_width())
        rows: list[tuple[int, int]] = []
        number = top
        while len(rows) < height and number <= self.line_count:
            rows.extend((number, row) for row in range(len(self._fold(number, width))))
            number += 1
        return rows[:height]

    def render_lines(self, crop: Region) -> list[Strip]:
        if self.wrap and self.line_count:
            self._frame_rows = self._rows(int(self.scroll_y) + 1, self._page_height())
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self._style("base")
        if self.line_count == 0:
            rows = self._message_rows(width)
            if scroll_y + y >= len(rows):
                return Strip.blank(width, base)
            strip = Strip([Segment(rows[scroll_y + y], self._style("viewer--message"))]).apply_style(base)
            return strip.crop_extend(scroll_x, scroll_x + width, base)
        gutter_width = self._gutter_width()
        if self.wrap:
            if y >= len(self._frame_rows):
                return Strip.blank(width, base)
            number, row = self._frame_rows[y]
            folded = self._fold(number, max(1, width - gutter_width))[row]
            gutter = self._gutter(number) if row == 0 else Strip.blank(gutter_width, base)
            return Strip.join([gutter, folded.extend_cell_length(width - gutter_width, self._fill(number))])
        number = scroll_y + y + 1
        if number > self.line_count:
            return Strip.blank(width, base)
        content = self._content(number).crop_extend(scroll_x, scroll_x + width - gutter_width, self._fill(number))
        return Strip.join([self._gutter(number), content])

    def _fill(self, number: int) -> Style:
        """The style after the end of line ``number``: shaded through to the edge when the call covers
        (or the guard cut off) the line to its end, so what the call returns reads as one band."""
        shading = self.shading
        if shading is not None and (covered := shading.columns(number)) is not None and covered[1] is None:
            return self._style("fill-lost" if shading.lost_from(number) is not None else "fill-covered")
        return self._style("base")

    # -- every session's reads of this file --------------------------------------------------------

    def count_reads(self) -> None:
        """Shade the gutter by the reads of this file the sessions index holds (again, once it changed)."""
        if self.view is not None and self.indexed:
            self._count_reads(ReadCounts(self.workspace.root.path + "/" + self.path, self.reads_home))

    @work(thread=True, group="reads", exclusive=True, exit_on_error=False, description="counting reads")
    def _count_reads(self, reads: ReadCounts) -> None:
        reads.summary = summarized(reads.path, reads.home, self.line_count)
        if reads.summary is not None and reads.summary.calls:
            self.post_message(self._ReadsCounted(reads, None, []))

    @work(thread=True, group="read-windows", exit_on_error=False, description="counting reads of lines")
    def _count_window(self, reads: ReadCounts, index: int) -> None:
        self.post_message(self._ReadsCounted(reads, index, counted(reads.path, reads.home, index, self.line_count)))

    @dataclass
    class _ReadsCounted(Message):
        """Reads of the file counted: its summary (``index`` None), or the counts of a window of lines."""

        reads: ReadCounts
        index: int | None
        counts: list[int]

    @on(_ReadsCounted)
    def _reads_counted(self, event: _ReadsCounted) -> None:
        if not event.reads.path.endswith("/" + self.path):
            return  # another file was opened meanwhile
        self.reads = event.reads
        if event.index is not None:
            event.reads.windows[event.index] = event.counts
        self._gutters.clear()
        self.refresh()
        self._show_where()

    # -- what the call covers ---------------------------------------------------------------------

    def shade(self, shading: Shading | None) -> None:
        """Shade what the panel's call covers (None: nothing, or another file)."""
        if shading is not None and shading.path != self.path:
            shading = None
        if shading != self.shading:
            self.shading = shading
            self._clear_strips()
            self.refresh()
            self._show_where()

    # -- where we are -----------------------------------------------------------------------------

    @property
    def window(self) -> Window:
        top = int(self.scroll_y) + 1
        height = self._page_height()
        if self.wrap and self.line_count:
            rows = self._rows(top, height)
            return Window(top, rows[-1][0] if rows else top)
        return Window(top, max(top, min(top + height - 1, self.line_count)))

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._show_where()
        self._announce()

    def on_resize(self) -> None:
        self._update_virtual_size()
        self._show_where()
        self._announce()

    def _announce(self) -> None:
        if self.view is None:
            return
        window = self.window
        if window != self._last_window:
            self._last_window = window
            self.post_message(self.WindowChanged(self, window))

    def go_to_line(self, number: int, center: bool = False) -> None:
        """Make line ``number`` the top line (``center``: the middle one), as far as the end of the
        file allows. A line not counted yet is shown as soon as the count reaches it."""
        top = self._top_to_center(number) if center else number
        self._wanted_top = top if number > self.line_count and not self.indexed else None
        self._scroll(y=max(0, min(top, max(self.line_count, 1)) - 1))

    def jump_to_line(self, number: int, center: bool = False) -> None:
        """``go_to_line``, remembering where it left from (``''`` comes back)."""
        self._remember()
        self.go_to_line(number, center)

    def _remember(self) -> None:
        if self.view is not None:
            self.previous = (self.path, self.window.top)

    def _top_to_center(self, number: int) -> int:
        half = self._page_height() // 2
        if not self.wrap:
            return max(1, number - half)
        width = max(1, self.scrollable_content_region.width - self._gutter_width())
        top, rows = number, len(self._fold(number, width)) if number <= self.line_count else 1
        while top > 1 and rows + len(self._fold(top - 1, width)) <= half + 1:
            top -= 1
            rows += len(self._fold(top, width))
        return top

    @property
    def line_in_focus(self) -> int:
        """The line a person is looking at: the current match when it is on screen, else the top line."""
        window = self.window
        if self._match >= 0 and window.top <= self._matches[self._match] <= window.bottom:
            return self._matches[self._match]
        return window.top

    # -- keys -------------------------------------------------------------------------------------

    def _scroll(self, x: float | None = None, y: float | None = None) -> None:
        """Scroll at once, without animation (10M lines animate for a second), even before the
        scrollbars caught up with a new line count (Textual refuses to scroll until then)."""
        self.scroll_to(x, y, animate=False, immediate=True, force=True)

    def action_scroll_lines(self, lines: int) -> None:
        self._scroll(y=self.scroll_y + lines)

    def action_scroll_columns(self, columns: int) -> None:
        if not self.wrap:
            self._scroll(x=self.scroll_x + columns)

    def action_scroll_pages(self, pages: int) -> None:
        if self.wrap and pages > 0:  # the next page starts with the last line shown (it may be folded)
            window = self.window
            self._scroll(y=window.bottom - 1 if window.bottom > window.top else window.top)
            return
        self._scroll(y=self.scroll_y + pages * self._page_height())

    def action_scroll_half_pages(self, halves: int) -> None:
        self._scroll(y=self.scroll_y + halves * max(1, self._page_height() // 2))

    def action_go_top(self) -> None:
        self._remember()
        self._scroll(0, 0)

    def action_go_bottom(self) -> None:
        if not self.following:
            self._remember()
        if self.wrap and self.line_count:
            width = max(1, self.scrollable_content_region.width - self._gutter_width())
            top, rows = self.line_count, len(self._fold(self.line_count, width))
            while top > 1 and rows + len(self._fold(top - 1, width)) <= self._page_height():
                top -= 1
                rows += len(self._fold(top, width))
            self._scroll(y=top - 1)
            return
        self._scroll(y=self.max_scroll_y)

    def action_start_of_line(self) -> None:
        self._scroll(x=0)

    def action_end_of_line(self) -> None:
        """Scroll right until the end of the longest line on screen shows."""
        if self.wrap or not self.line_count:
            return
        window = self.window
        longest = max(self._content(number).cell_length for number in range(window.top, window.bottom + 1))
        self._scroll(x=max(0, longest + 1 - (self.scrollable_content_region.width - self._gutter_width())))

    def action_toggle_wrap(self) -> None:
        self.wrap = not self.wrap

    def watch_wrap(self) -> None:
        self._scroll(x=0)
        self._update_virtual_size()
        self.refresh()
        self._show_where()
        self._announce()

    def action_cancel(self) -> None:
        """Escape: stop converting, indexing or searching; with nothing to stop, clear the search."""
        running = [worker for worker in self.workers if worker.group in ("file", "search") and worker.is_running]
        self.workers.cancel_group(self, "file")
        self.workers.cancel_group(self, "search")
        if self.view is None and self.status:
            self.status = ""
        elif not running and self._pattern is not None:
            self._pattern, self._matches, self._match, self._search_note = None, [], -1, ""
            self._clear_strips()
            self.refresh()
            self._show_where()

    def go_to_fraction(self, fraction: float) -> None:
        """Make the line holding that fraction of the file's bytes the top line, as ``less`` reads ``50%``."""
        if self.view is not None:
            self._go_to_fraction(self.view, fraction)

    @work(thread=True, group="jump", exclusive=True, exit_on_error=False, description="jumping")
    def _go_to_fraction(self, view: FileView, fraction: float) -> None:
        line = view.line_at_fraction(fraction)
        self.app.call_from_thread(self.jump_to_line, line)

    # -- marks ------------------------------------------------------------------------------------

    async def action_set_mark(self) -> None:
        if self.view is None:
            return

        def chosen(letter: str | None) -> None:
            if letter:
                self.marks[letter] = (self.path, self.window.top)
                self.notify(
                    f"Mark {letter}: {one_row(self.path)} line {self.window.top:,}. Press ' {letter} to come back.",
                    markup=False,
                )

        await self.app.push_screen(KeyPrompt("Set a mark: press a letter"), chosen)

    async def action_go_to_mark(self) -> None:
        def chosen(letter: str | None) -> None:
            if letter:
                self.go_to_mark(letter)

        await self.app.push_screen(KeyPrompt("Go to a mark: press its letter (' goes back to where you were)"), chosen)

    def go_to_mark(self, letter: str) -> None:
        """Go to mark ``letter`` (``'``: back to where the last jump left from), in its file."""
        place = self.previous if letter == "'" else self.marks.get(letter)
        if place is None:
            self.notify(f"No mark {letter}: set one with m {letter}." if letter != "'" else "No jump to go back from.")
            return
        path, line = place
        self._remember()
        if path != self.path or self.view is None:
            self.open_file(path, line)
        else:
            self.go_to_line(line)

    # -- search -----------------------------------------------------------------------------------

    def search(self, pattern: str) -> str | None:
        """Search the whole file for a regex, smart case (case matters only with a capital letter);
        returns why it cannot, or None when it started. The first match at or below the top line
        is shown as soon as it is found."""
        if self.view is None:
            return "Open a file to search it."
        try:
            compiled = smart_case(pattern)
        except ViewError as error:
            return f"Invalid regex: {error.message}"
        self._pattern = compiled
        self._clear_strips()
        self._matches, self._match = [], -1
        self._search_from = self.window.top
        self._search_note = f"searching /{pattern}/…"
        self._show_where()
        self._search(self.view, compiled)
        return None

    @work(thread=True, group="search", exclusive=True, exit_on_error=False, description="searching")
    def _search(self, view: FileView, pattern: Matcher) -> None:
        """Matches in linear time (RE2), or by re in a child process that Escape kills."""
        worker = get_current_worker()
        matches: list[int] = []
        reported = time.monotonic()
        try:
            for number in view.search(pattern, cancel=worker.cancelled_event):
                matches.append(number)
                if time.monotonic() - reported > SEARCH_REPORT_SECONDS or len(matches) == 1:
                    reported = time.monotonic()
                    self.post_message(self.Searched(pattern, matches, False))
        except Cancelled:
            self.post_message(self.Searched(pattern, matches, False))
            return
        except ViewError as error:  # re, in its child, took too long or refused the pattern
            self.post_message(self.Searched(pattern, matches, False, error.message))
            return
        except OSError:
            pass  # the file changed under the search: what was found so far stands
        finally:
            pattern.close()
        self.post_message(self.Searched(pattern, matches, True))

    @on(Searched)
    def _searched(self, event: FileViewer.Searched) -> None:
        if event.pattern is not self._pattern:
            return
        self._matches = event.matches
        more = "" if event.complete else "+"
        if not event.matches:
            if event.complete or event.problem:
                self._search_note = f"/{event.pattern.pattern}/: " + (event.problem or "no match")
            self._show_where()
            return
        if self._match < 0:
            index = bisect.bisect_left(event.matches, self._search_from)
            if index < len(event.matches):
                self._match = index
            elif event.complete:
                self._match = 0  # none below the top line: wrap round to the first
            if self._match >= 0:
                self._show_match(more)
                return
        self._search_note = self._match_note(more)
        self._show_where()

    def _match_note(self, more: str = "") -> str:
        line = self._matches[self._match]
        return f"match {self._match + 1:,}/{len(self._matches):,}{more} at line {line:,}"

    def _show_match(self, more: str = "") -> None:
        self.jump_to_line(self._matches[self._match], center=True)
        self._search_note = self._match_note(more)
        self._clear_strips()
        self._show_where()
        self.refresh()

    def action_next_match(self, step: int) -> None:
        if not self._matches:
            self.notify("No search results: press / to search.", severity="warning")
            return
        window = self.window
        if self._match >= 0 and window.top <= self._matches[self._match] <= window.bottom:
            index = self._match + step
        else:  # the current match is out of sight: go on from the lines on screen, as less does
            index = bisect.bisect_left(self._matches, window.top) - (step < 0)
        self._match = index % len(self._matches)
        self._show_match()

    @property
    def match_count(self) -> int:
        return len(self._matches)

    # -- following a growing file, and noticing a changed one ---------------------------------------

    def on_mount(self) -> None:
        self.set_interval(CHECK_SECONDS, self._check_for_change)

    def action_toggle_follow(self) -> None:
        if self.view is None:
            return
        self.following = not self.following

    def watch_following(self, following: bool) -> None:
        if self._follow_timer is not None:
            self._follow_timer.stop()
            self._follow_timer = None
        if following:
            self._follow_timer = self.set_interval(0.5, self._check_for_change)
            self.action_go_bottom()
        self._show_where()

    def _check_for_change(self) -> None:
        """Count the lines again if the file changed since they were counted (an agent or an editor
        rewrote it, or it grew): checked as often as the tree checks its directories, and more
        often while following."""
        if self.view is not None and self._counted is not None:
            self._check(self.view, self._counted)

    @work(thread=True, group="file-check", exclusive=True, exit_on_error=False, description="checking the file")
    def _check(self, view: FileView, counted: tuple[int, int]) -> None:
        try:
            changed = view.version() != counted
        except OSError:
            changed = True  # gone or unreadable: counting again says so
        if changed:
            self.app.call_from_thread(self._changed, view)

    def _changed(self, view: FileView) -> None:
        if view is self.view and self._counted is not None:
            self.recount()

    def recount(self) -> None:
        """Count the lines again (the file changed, or an editor changed it); the panel then runs
        its call again, on the file as it is now, even if the window on screen stays the same."""
        if self.view is not None:
            self._windows.clear()
            self._clear_strips()
            self._counted = None
            self._last_window = None
            self._recount(self.view)

    @work(thread=True, group="file", exclusive=True, exit_on_error=False, description="counting the file again")
    def _recount(self, view: FileView) -> None:
        self._index(view, get_current_worker())
