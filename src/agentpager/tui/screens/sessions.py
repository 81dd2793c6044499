"""The session browser: every agent session on this machine, by project, newest first.

The list comes from a worker: first what a look at each session's ends says (or the cache), then,
in the same worker, the calls (and tokens) of the sessions not counted yet, each row updated as its
count arrives (``…`` until then). Enter opens the session's transcript, replayed against the app's
workspace root. The columns fit the terminal: at 80 columns the time, agent, calls, tokens and the
first prompt; from 120 the model and version too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Resize
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static
from textual.worker import get_current_worker

from agentpager.agents import AGENTS
from agentpager.sessions import SessionCache, SessionInfo, count_sessions, duration_of, list_sessions
from agentpager.tui.failures import ReportsFailures
from agentpager.tui.footer import FittedFooter
from agentpager.tui.rows import CURSOR_BINDINGS, row_styles
from agentpager.wording import plural

UPDATE_SECONDS = 0.25
"""Counts are posted to the list at most this often (a batch at a time)."""
AGENT_NAMES = {agent.id: agent.short_title for agent in AGENTS}
"""Each agent's name in the agent column."""


def _took(seconds: float | None) -> str:
    if seconds is None:
        return ""
    minutes, second = divmod(int(seconds), 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}h{minute:02d}m" if hours else f"{minute}m{second:02d}s"


@dataclass(frozen=True)
class Column:
    title: str
    width: int
    value: Callable[[SessionInfo], str]
    right: bool = False


def _calls(info: SessionInfo) -> str:
    return "…" if info.calls is None else f"{info.calls:,}"


def _tokens(info: SessionInfo) -> str:
    if info.tokens is None:
        return "" if info.counted else "…"
    return f"{info.tokens:,}"


STARTED = Column("started", 16, lambda info: info.started[:16].replace("T", " "))
TOOK = Column("took", 6, lambda info: _took(duration_of(info)), right=True)
AGENT = Column("agent", 6, lambda info: AGENT_NAMES.get(info.agent, info.agent))
CALLS = Column("calls", 5, _calls, right=True)
TOKENS = Column("tokens", 7, _tokens, right=True)
MODEL = Column("model", 20, lambda info: info.model)
VERSION = Column("version", 8, lambda info: info.version)
NARROW = (STARTED, TOOK, AGENT, CALLS, TOKENS)
"""What fits 80 columns with room for the first prompt: the model and version are left out."""
WIDE = (STARTED, TOOK, AGENT, MODEL, VERSION, CALLS, TOKENS)
WIDE_FROM = 120
GAP = "  "


def columns_for(width: int) -> tuple[Column, ...]:
    return WIDE if width >= WIDE_FROM else NARROW


def header(width: int) -> str:
    """The column titles over the list, as wide as the list's columns."""
    cells = [
        f"{column.title:>{column.width}}" if column.right else f"{column.title:<{column.width}}"
        for column in columns_for(width)
    ]
    return GAP + GAP.join(cells) + GAP + "first prompt"


class SessionList(ScrollView, can_focus=True, inherit_bindings=False):
    """Project headings and their sessions; the cursor moves over sessions only."""

    BINDINGS = CURSOR_BINDINGS
    DEFAULT_CSS = """
    SessionList {
        height: 1fr;
        overflow-x: hidden;
        .sessionlist--cursor { background: $accent 40%; }
        .sessionlist--project { color: $primary; text-style: bold; }
        .sessionlist--muted { color: $text-muted; }
        .sessionlist--problem { color: $warning; }
    }
    """
    COMPONENT_CLASSES = {"sessionlist--cursor", "sessionlist--project", "sessionlist--muted", "sessionlist--problem"}

    cursor = reactive(0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines: list[str | SessionInfo] = []
        self.sessions: list[int] = []
        """Positions in ``lines`` of the sessions (the rest are project headings)."""
        self.positions: dict[str, int] = {}
        """Each session's position in ``lines``, by path."""

    def show(self, sessions: list[SessionInfo]) -> None:
        by_project: dict[str, list[SessionInfo]] = {}
        for info in sessions:
            by_project.setdefault(info.project, []).append(info)
        self.lines = []
        for project, infos in by_project.items():
            self.lines.append(f"{project}  ({plural(len(infos), 'session')})")
            self.lines.extend(infos)
        self.sessions = [n for n, line in enumerate(self.lines) if isinstance(line, SessionInfo)]
        self.positions = {line.path: n for n, line in enumerate(self.lines) if isinstance(line, SessionInfo)}
        self.virtual_size = Size(self.size.width, len(self.lines))
        self.cursor = 0
        self.refresh()

    def update(self, sessions: list[SessionInfo]) -> None:
        """Show these sessions' new summaries in their rows."""
        for info in sessions:
            position = self.positions.get(info.path)
            if position is not None:
                self.lines[position] = info
        self.refresh()

    @property
    def chosen(self) -> SessionInfo | None:
        if not self.sessions:
            return None
        line = self.lines[self.sessions[self.cursor]]
        return line if isinstance(line, SessionInfo) else None

    def render_lines(self, crop: Region) -> list[Strip]:
        self._styles = row_styles(self)
        self._base = self.rich_style
        self._columns = columns_for(self.size.width)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        number = scroll_y + y
        width = self.scrollable_content_region.width
        if number >= len(self.lines):
            return Strip.blank(width, self._base)
        line = self.lines[number]
        text = Text(no_wrap=True, end="", overflow="ellipsis")
        if isinstance(line, str):
            text.append(line, self._styles["sessionlist--project"])
        else:
            cells = []
            for column in self._columns:
                value = column.value(line)
                if len(value) > column.width:
                    value = value[: column.width - 1] + "…"
                cells.append(f"{value:>{column.width}}" if column.right else f"{value:<{column.width}}")
            text.append(GAP + GAP.join(cells) + GAP)
            if line.problem:
                text.append(line.problem, self._styles["sessionlist--problem"])
            else:
                text.append(line.title, self._styles["sessionlist--muted"])
        text.truncate(width, overflow="ellipsis")
        selected = self.sessions and number == self.sessions[self.cursor]
        style = self._base + self._styles["sessionlist--cursor"] if selected else self._base
        strip = Strip(list(text.render(self.app.console))).apply_style(style)
        return strip.crop_extend(scroll_x, scroll_x + width, style)

    def on_resize(self, event: Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.lines))

    def action_move(self, rows: int) -> None:
        if self.sessions:
            self.cursor = max(0, min(len(self.sessions) - 1, self.cursor + rows))

    def watch_cursor(self, old: int, new: int) -> None:
        if self.sessions:
            line = self.sessions[new]
            self.scroll_to_region(Region(0, max(0, line - 1), 1, 2), animate=False, immediate=True)
        self.refresh()


class SessionsScreen(ReportsFailures, Screen[None]):
    """Every session; Enter opens one."""

    BINDINGS = [
        Binding("enter,o", "open_session", "Open"),
        Binding("r", "reload", "Refresh"),
        Binding("escape,w", "app.pop_screen", "Back"),
        Binding("q", "app.quit", "Quit"),
    ]
    DEFAULT_CSS = """
    SessionsScreen {
        #about { height: auto; padding: 0 1; background: $boost; }
        #columns { height: 1; color: $text-muted; text-style: bold; }
    }
    """

    class OpenSession(Message):
        def __init__(self, info: SessionInfo) -> None:
            super().__init__()
            self.info = info

    class _Listed(Message):
        def __init__(self, sessions: list[SessionInfo]) -> None:
            super().__init__()
            self.sessions = sessions

    class _Counted(Message):
        def __init__(self, sessions: list[SessionInfo], left: int) -> None:
            super().__init__()
            self.sessions = sessions
            self.left = left

    def __init__(self, home: str | None = None) -> None:
        super().__init__()
        self.home = home
        self.listed: list[SessionInfo] = []
        self.left = 0
        """Sessions whose calls are still being counted."""

    def compose(self) -> ComposeResult:
        yield Static("Looking for Claude Code, Codex and Gemini CLI sessions…", id="about")
        yield Static(header(self.app.size.width), id="columns")
        yield SessionList(id="sessions")
        yield FittedFooter()

    def on_mount(self) -> None:
        self.query_one(SessionList).focus()
        self.action_reload()

    def on_resize(self, event: Resize) -> None:
        self.query_one("#columns", Static).update(header(event.size.width))

    def action_reload(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def _load(self) -> None:
        """The list at once, then the counts of the sessions not counted yet, a batch at a time."""
        worker = get_current_worker()
        cache = SessionCache()
        sessions = list_sessions(self.home, cache)
        self.post_message(self._Listed(sessions))
        left = sum(not info.counted and not info.problem for info in sessions)
        batch: list[SessionInfo] = []
        posted = time.monotonic()
        try:
            for info in count_sessions(sessions, cache):
                if worker.is_cancelled:
                    return
                batch.append(info)
                left -= 1
                if time.monotonic() - posted >= UPDATE_SECONDS:
                    self.post_message(self._Counted(batch, left))
                    batch, posted = [], time.monotonic()
                    cache.save()
            self.post_message(self._Counted(batch, 0))
        finally:
            cache.save()

    def on_sessions_screen__listed(self, event: _Listed) -> None:
        self.listed = event.sessions
        self.left = sum(not info.counted and not info.problem for info in event.sessions)
        self.query_one(SessionList).show(event.sessions)
        self._tell()

    def on_sessions_screen__counted(self, event: _Counted) -> None:
        self.left = event.left
        self.query_one(SessionList).update(event.sessions)
        self._tell()

    def _tell(self) -> None:
        sessions = self.listed
        projects = len({info.project for info in sessions})
        counting = f" · counting calls: {self.left:,} to go" if self.left else ""
        about = (
            f"[b]Sessions[/b] · {plural(len(sessions), 'session')} in {plural(projects, 'project')} · newest first"
            f"{counting} · Enter opens one"
            if sessions
            else "No Claude Code, Codex or Gemini CLI sessions were found in this home."
        )
        self.query_one("#about", Static).update(about)

    def action_open_session(self) -> None:
        chosen = self.query_one(SessionList).chosen
        if chosen is not None:
            self.post_message(self.OpenSession(chosen))
