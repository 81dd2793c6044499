"""The viewer: a Line-API ScrollView over a file of any size, fetched 200 lines at a time.

Its virtual height is the line count (growing while the file is indexed in a thread); windows of
lines come through the same FileView and index the agent's tools read, into a small LRU.
TextArea and Log hold the whole file, which rules them out for gigabyte logs.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.worker import Worker, get_current_worker

from agentpager.fileview import Cancelled, FileView, ViewError
from agentpager.tui.failures import ReportsFailures
from agentpager.workspace import Workspace, printable

WINDOW_LINES = 200
DISPLAY_LIMIT = 2000
"""Characters of a line kept for display; the rest is marked as cut (the tools still see it)."""
TAB_SIZE = 4

_CONTROL_PICTURES = {code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)}
_CONTROL_PICTURES |= {0x7F: "\u2421", 0x2028: "\u2424", 0x2029: "\u2424", 0x85: "\u2424"}
_PICTURE = re.compile("[\u2400-\u241f\u2421\u2424]")


def visible(text: str) -> str:
    """Text as shown: tabs expanded, control characters but the newline as their control pictures."""
    return text.expandtabs(TAB_SIZE).translate(_CONTROL_PICTURES)


@dataclass(frozen=True)
class Window:
    """The lines the viewer shows: its top line and bottom line (1-based)."""

    top: int
    bottom: int


class FileViewer(ReportsFailures, ScrollView, can_focus=True, inherit_bindings=False):
    """Shows one file as the agent's tools see its lines."""

    BINDINGS = [
        Binding("up,k", "scroll_lines(-1)", "Up", show=False),
        Binding("down,j", "scroll_lines(1)", "Down", show=False),
        Binding("left", "scroll_columns(-4)", "Left", show=False),
        Binding("right", "scroll_columns(4)", "Right", show=False),
        Binding("pageup", "scroll_pages(-1)", "Page up", show=False),
        Binding("pagedown,space", "scroll_pages(1)", "Page down", show=False),
        Binding("home,g", "go_top", "Top", show=False),
        Binding("end,G", "go_bottom", "Bottom", show=False),
        Binding("colon", "app.goto_line", "Go to line", id="goto_line"),
        Binding("slash", "app.search", "Search", id="search"),
        Binding("n", "next_match(1)", "Next", show=False, id="next_match"),
        Binding("N", "next_match(-1)", "Previous", show=False, id="previous_match"),
        Binding("f", "toggle_follow", "Follow", id="follow"),
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
        .viewer--cut { color: $error; }
        .viewer--match { background: $warning 40%; }
        .viewer--message { color: $text-muted; }
    }
    """
    COMPONENT_CLASSES = {"viewer--gutter", "viewer--control", "viewer--cut", "viewer--match", "viewer--message"}

    following = reactive(False)
    status = reactive("", layout=False)

    class WindowChanged(Message):
        """The lines on screen changed (scrolled, resized, or more of the file is known)."""

        def __init__(self, viewer: FileViewer, window: Window) -> None:
            super().__init__()
            self.viewer = viewer
            self.window = window

    class Opened(Message):
        def __init__(self, view: FileView) -> None:
            super().__init__()
            self.view = view

    class Failed(Message):
        def __init__(self, path: str, message: list[str]) -> None:
            super().__init__()
            self.path = path
            self.message = message

    class _Indexed(Message):
        def __init__(self, view: FileView, lines: int, complete: bool, fraction: float) -> None:
            super().__init__()
            self.view, self.lines, self.complete, self.fraction = view, lines, complete, fraction

    class _Searched(Message):
        def __init__(self, pattern: str, matches: list[int], complete: bool) -> None:
            super().__init__()
            self.pattern, self.matches, self.complete = pattern, matches, complete

    def __init__(self, workspace: Workspace, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.workspace = workspace
        self.view: FileView | None = None
        self.path = ""
        self.line_count = 0
        self.indexed = False
        self._message: list[str] = ["Choose a file in the tree, or press : to go to a line."]
        self._windows: LRUCache[int, list[tuple[str, bool]]] = LRUCache(16)
        self._strips: LRUCache[int, Strip] = LRUCache(512)
        self._widest = 0
        self._pattern: re.Pattern[str] | None = None
        self._matches: list[int] = []
        self._match = -1
        self._search_note = ""
        self._follow_timer: Timer | None = None
        self._last_window: Window | None = None
        self._wanted_top: int | None = None
        self.border_title = "agentpager"

    # -- opening ----------------------------------------------------------------------------------

    def open_file(self, path: str, line: int | None = None) -> None:
        """Show ``path`` (relative to the root), from ``line`` when given; documents are converted in
        a child process."""
        self.workers.cancel_group(self, "file")
        self.following = False
        self.path = path
        self.view = None
        self._reset_lines([f"Opening {path}…"])
        self._wanted_top = line
        self.border_title = printable(path)
        self.status = "opening…"
        self._open(path)

    @work(thread=True, group="file", exclusive=True, exit_on_error=False)
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
            self.post_message(self.Failed(path, lines))
            return
        except Cancelled:
            self.post_message(self.Failed(path, ["Conversion cancelled."]))
            return
        except OSError as error:  # the file went away or changed while it was opened
            self.post_message(self.Failed(path, [f"Could not open {path}: {error.strerror or error}"]))
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
                self.post_message(self._Indexed(view, lines, False, scanned / max(size, 1)))

        try:
            total = view.count_lines(progress, worker.cancelled_event)
        except Cancelled:
            return
        except OSError as error:
            self.post_message(self.Failed(view.name, [f"The file changed or could not be read: {error}"]))
            return
        self.post_message(self._Indexed(view, total, True, 1.0))

    @on(Opened)
    def _opened(self, event: Opened) -> None:
        self.view = event.view
        self.path = event.view.name
        self._reset_lines([])
        self.border_title = printable(event.view.name) + (
            " (converted to Markdown)" if event.view.kind == "document" else ""
        )
        try:
            lines = event.view.available_lines()
        except OSError:  # it changed since it was opened: the indexing worker says so
            lines = 0
        self._set_line_count(lines, False)
        self.status = "indexing…"
        self.focus()

    @on(Failed)
    def _failed(self, event: Failed) -> None:
        if event.path != self.path:
            return
        self.view = None
        self._wanted_top = None
        self._reset_lines(event.message)
        self.status = ""
        self._announce()

    @on(_Indexed)
    def _indexed(self, event: _Indexed) -> None:
        if event.view is not self.view:
            return
        self._set_line_count(event.lines, event.complete)
        self.status = "" if event.complete else f"indexing {event.fraction:.0%}"
        if self.following:
            self.action_go_bottom()

    def _reset_lines(self, message: list[str]) -> None:
        self._message = message
        self._windows.clear()
        self._strips.clear()
        self._widest = max((len(line) for line in message), default=0)
        self._matches, self._match, self._pattern, self._search_note = [], -1, None, ""
        self.line_count = 0
        self.indexed = False
        self._scroll(0, 0)
        self._update_virtual_size()
        self.refresh()

    def _set_line_count(self, lines: int, complete: bool) -> None:
        if lines != self.line_count:
            self._windows.clear()  # the last window may have grown
            self._strips.clear()
        self.line_count = lines
        self.indexed = complete
        self._update_virtual_size()
        if self._wanted_top is not None and (lines >= self._wanted_top or complete):
            self.call_after_refresh(self.go_to_line, self._wanted_top)
        self.refresh()
        self._announce()

    def _set_status(self, status: str) -> None:
        if self.view is None:
            self.status = status

    def _update_virtual_size(self) -> None:
        height = self.line_count if self.view else len(self._message)
        self.virtual_size = Size(self._gutter_width() + self._widest + 1, height)

    def watch_status(self) -> None:
        parts = []
        if self.view is not None:
            parts.append(f"{self.line_count:,} lines" if self.indexed else f"{self.line_count:,}+ lines")
        parts += [part for part in (self.status, self._search_note, "following" if self.following else "") if part]
        self.border_subtitle = " · ".join(parts)

    # -- lines ------------------------------------------------------------------------------------

    def _gutter_width(self) -> int:
        return len(f"{max(self.line_count, 1):,}") + 2 if self.view else 0

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

    def render_lines(self, crop: Region) -> list[Strip]:
        # Styles are looked up once a frame: per line, rich_style alone cost more than the text.
        self._styles = {name: self.get_component_rich_style(name) for name in self.COMPONENT_CLASSES}
        self._styles["base"] = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        number = scroll_y + y + 1
        width = self.scrollable_content_region.width
        strip = self._strips.get(number)
        if strip is None:
            strip = self._strips[number] = self._render_number(number).apply_style(self._styles["base"])
        return strip.crop_extend(scroll_x, scroll_x + width, self._styles["base"])

    def _render_number(self, number: int) -> Strip:
        styles = self._styles
        if self.view is None:
            if number > len(self._message):
                return Strip.blank(0)
            return Strip([Segment(self._message[number - 1], styles["viewer--message"])])
        if number > self.line_count:
            return Strip.blank(0)
        text, cut = self.line(number)
        gutter = self._gutter_width()
        line = Text(visible(text), no_wrap=True, end="")
        line.highlight_regex(_PICTURE, styles["viewer--control"])
        if self._pattern is not None:
            line.highlight_regex(self._pattern, styles["viewer--match"])
        if cut:
            line.append(" …cut for display", styles["viewer--cut"])
        segments = [Segment(f"{number:>{gutter - 2},}  ", styles["viewer--gutter"])]
        segments += list(line.render(self.app.console))
        return Strip(segments)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    # -- where we are -----------------------------------------------------------------------------

    @property
    def window(self) -> Window:
        top = int(self.scroll_y) + 1
        height = self.scrollable_content_region.height
        return Window(top, max(top, min(top + height - 1, self.line_count)))

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._announce()

    def on_resize(self) -> None:
        self._announce()

    def _announce(self) -> None:
        if self.view is None:
            return
        window = self.window
        if window != self._last_window:
            self._last_window = window
            self.post_message(self.WindowChanged(self, window))

    def go_to_line(self, number: int) -> None:
        """Make line ``number`` the top line (as far as the end of the file allows).

        A line not counted yet becomes the top line as soon as the count reaches it.
        """
        self._wanted_top = number if number > self.line_count and not self.indexed else None
        self._scroll(y=max(0, min(number, max(self.line_count, 1)) - 1))

    # -- keys -------------------------------------------------------------------------------------

    def _scroll(self, x: float | None = None, y: float | None = None) -> None:
        """Scroll at once, without animation (10M lines animate for a second), even before the
        scrollbars caught up with a new line count (Textual refuses to scroll until then)."""
        self.scroll_to(x, y, animate=False, immediate=True, force=True)

    def action_scroll_lines(self, lines: int) -> None:
        self._scroll(y=self.scroll_y + lines)

    def action_scroll_columns(self, columns: int) -> None:
        self._scroll(x=self.scroll_x + columns)

    def action_scroll_pages(self, pages: int) -> None:
        self._scroll(y=self.scroll_y + pages * self.scrollable_content_region.height)

    def action_go_top(self) -> None:
        self._scroll(0, 0)

    def action_go_bottom(self) -> None:
        self._scroll(y=self.max_scroll_y)

    def action_cancel(self) -> None:
        """Escape: stop converting, indexing or searching."""
        self.workers.cancel_group(self, "file")
        self.workers.cancel_group(self, "search")
        if self.view is None and self.status:
            self.status = ""

    # -- search -----------------------------------------------------------------------------------

    def search(self, pattern: str) -> str | None:
        """Search the whole file for a regex; returns why it cannot, or None when it started."""
        if self.view is None:
            return "Open a file to search it."
        try:
            compiled = re.compile(pattern, re.MULTILINE)
        except re.error as error:
            return f"Invalid regex: {error}"
        self._pattern = compiled
        self._strips.clear()
        self._matches, self._match = [], -1
        self._search_note = f"searching /{pattern}/…"
        self.watch_status()
        self._search(self.view, compiled)
        return None

    @work(thread=True, group="search", exclusive=True, exit_on_error=False)
    def _search(self, view: FileView, pattern: re.Pattern[str]) -> None:
        worker = get_current_worker()
        matches: list[int] = []
        try:
            for number in view.search(pattern, cancel=worker.cancelled_event):
                matches.append(number)
        except Cancelled:
            self.post_message(self._Searched(pattern.pattern, matches, False))
            return
        except OSError:
            pass  # the file changed under the search: what was found so far stands
        self.post_message(self._Searched(pattern.pattern, matches, True))

    @on(_Searched)
    def _searched(self, event: _Searched) -> None:
        if self._pattern is None or self._pattern.pattern != event.pattern:
            return
        self._matches = event.matches
        self._strips.clear()
        if not event.matches:
            self._search_note = f"/{event.pattern}/: no match" + ("" if event.complete else " (stopped)")
            self.watch_status()
            self.refresh()
            return
        top = self.window.top
        self._match = next((i for i, line in enumerate(event.matches) if line >= top), 0)
        self._show_match(event.complete)

    def _show_match(self, complete: bool = True) -> None:
        line = self._matches[self._match]
        self.go_to_line(line)
        more = "" if complete else "+"
        self._search_note = f"match {self._match + 1:,}/{len(self._matches):,}{more} at line {line:,}"
        self.watch_status()
        self.refresh()

    def action_next_match(self, step: int) -> None:
        if not self._matches:
            self.notify("No search results: press / to search.", severity="warning")
            return
        self._match = (self._match + step) % len(self._matches)
        self._show_match()

    @property
    def match_count(self) -> int:
        return len(self._matches)

    # -- following a growing file ------------------------------------------------------------------

    def action_toggle_follow(self) -> None:
        if self.view is None:
            return
        self.following = not self.following

    def watch_following(self, following: bool) -> None:
        if self._follow_timer is not None:
            self._follow_timer.stop()
            self._follow_timer = None
        if following:
            self._follow_timer = self.set_interval(0.5, self._poll)
            self.action_go_bottom()
        self.watch_status()

    def _poll(self) -> None:
        if self.view is not None:
            self._recount(self.view)

    @work(thread=True, group="file", exclusive=True, exit_on_error=False)
    def _recount(self, view: FileView) -> None:
        self._index(view, get_current_worker())
