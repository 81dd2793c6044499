"""The session browser: every agent session on this machine, by project, newest first.

The list is read in a worker (summaries come from the cache unless a session changed); Enter opens
the session's transcript, replayed against the app's workspace root.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, Static

from agentpager.sessions import SessionInfo, duration_of, list_sessions
from agentpager.tui.failures import ReportsFailures
from agentpager.wording import plural

COLUMNS = (
    "  started            took  agent        version  model                        calls      tokens  first prompt"
)


def _took(seconds: float | None) -> str:
    if seconds is None:
        return ""
    minutes, second = divmod(int(seconds), 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}h{minute:02d}m" if hours else f"{minute}m{second:02d}s"


class SessionList(ScrollView, can_focus=True, inherit_bindings=False):
    """Project headings and their sessions; the cursor moves over sessions only."""

    BINDINGS = [
        Binding("up,k", "move(-1)", show=False),
        Binding("down,j", "move(1)", show=False),
        Binding("pageup", "move(-20)", show=False),
        Binding("pagedown", "move(20)", show=False),
        Binding("home,g", "move(-1000000000)", show=False),
        Binding("end,G", "move(1000000000)", show=False),
    ]
    DEFAULT_CSS = """
    SessionList {
        height: 1fr;
        .sessionlist--cursor { background: $accent 40%; }
        .sessionlist--project { color: $primary; text-style: bold; }
        .sessionlist--muted { color: $text-muted; }
    }
    """
    COMPONENT_CLASSES = {"sessionlist--cursor", "sessionlist--project", "sessionlist--muted"}

    cursor = reactive(0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines: list[str | SessionInfo] = []
        self.sessions: list[int] = []
        """Positions in ``lines`` of the sessions (the rest are project headings)."""

    def show(self, sessions: list[SessionInfo]) -> None:
        by_project: dict[str, list[SessionInfo]] = {}
        for info in sessions:
            by_project.setdefault(info.project, []).append(info)
        self.lines = []
        for project, infos in by_project.items():
            self.lines.append(f"{project}  ({plural(len(infos), 'session')})")
            self.lines.extend(infos)
        self.sessions = [n for n, line in enumerate(self.lines) if isinstance(line, SessionInfo)]
        self.virtual_size = Size(200, len(self.lines))
        self.cursor = 0
        self.refresh()

    @property
    def chosen(self) -> SessionInfo | None:
        if not self.sessions:
            return None
        line = self.lines[self.sessions[self.cursor]]
        return line if isinstance(line, SessionInfo) else None

    def render_lines(self, crop: Region) -> list[Strip]:
        self._styles = {name: self.get_component_rich_style(name) for name in self.COMPONENT_CLASSES}
        self._base = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        number = scroll_y + y
        width = self.scrollable_content_region.width
        if number >= len(self.lines):
            return Strip.blank(width, self._base)
        line = self.lines[number]
        text = Text(no_wrap=True, end="")
        if isinstance(line, str):
            text.append(line, self._styles["sessionlist--project"])
        else:
            tokens = "" if line.tokens is None else f"{line.tokens:,}"
            text.append(
                f"  {line.started[:16].replace('T', ' '):<16} {_took(duration_of(line)):>7}  {line.agent:<12} "
                f"{line.version[:8]:<8} {line.model[:28]:<28} {line.calls:>5,}  {tokens:>10}  "
            )
            text.append(line.title or line.problem, self._styles["sessionlist--muted"])
        selected = self.sessions and number == self.sessions[self.cursor]
        style = self._base + self._styles["sessionlist--cursor"] if selected else self._base
        strip = Strip(list(text.render(self.app.console))).apply_style(style)
        return strip.crop_extend(scroll_x, scroll_x + width, style)

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

    def __init__(self, home: str | None = None) -> None:
        super().__init__()
        self.home = home

    def compose(self) -> ComposeResult:
        yield Static("Looking for Claude Code, Codex and Gemini CLI sessions…", id="about")
        yield Static(COLUMNS, id="columns")
        yield SessionList(id="sessions")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SessionList).focus()
        self.action_reload()

    def action_reload(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def _load(self) -> None:
        sessions = list_sessions(self.home)
        self.app.call_from_thread(self._loaded, sessions)

    def _loaded(self, sessions: list[SessionInfo]) -> None:
        self.query_one(SessionList).show(sessions)
        projects = len({info.project for info in sessions})
        about = (
            f"[b]Sessions[/b] · {plural(len(sessions), 'session')} in {plural(projects, 'project')} · newest first · "
            "Enter opens one"
            if sessions
            else "No Claude Code, Codex or Gemini CLI sessions were found in this home."
        )
        self.query_one("#about", Static).update(about)

    def action_open_session(self) -> None:
        chosen = self.query_one(SessionList).chosen
        if chosen is not None:
            self.post_message(self.OpenSession(chosen))
