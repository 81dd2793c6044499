"""The session browser: every agent session on this machine, by project, newest first.

The list comes from a worker: first the rows the index has (at once), then the files as they are now
(a look at the ends of each new or changed one), then the calls (and tokens) of every session not
read yet, each row updated as its count arrives (``…`` until then). ``/`` searches every session's
prompts, call arguments and outputs (or finds the calls that read a file), its rows shown as they
are found (in a session whose calls are not read yet, as soon as they are); Enter opens the
session's transcript, at the call, replayed against the app's workspace root; ``E`` exports one.
The columns fit the terminal: at 80 columns the time, agent, calls, tokens and the first prompt;
from 120 the model and version too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Resize
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from agentpager.sessions import SessionInfo, duration_of
from agentpager.sessions_index.lines import duration_text
from agentpager.sessions_index.listing import first_sessions, indexed_sessions, list_sessions
from agentpager.sessions_index.pool import background_workers
from agentpager.sessions_index.search import (
    Filters,
    Looked,
    SearchError,
    TextMatch,
    first_prompts,
    found_while_reading,
    newest_session_first,
    parse_query,
    reads_of,
    search,
)
from agentpager.sessions_index.store import IndexStore
from agentpager.sessions_index.updating import unread, update_calls
from agentpager.tui.failures import ReportsFailures
from agentpager.tui.footer import FittedFooter
from agentpager.tui.found_list import AGENT_NAMES, Found, FoundList, found_lines
from agentpager.tui.rows import HeadedRows, headed_rows_classes, headed_rows_css
from agentpager.tui.screens.exporting import ExportsSessions
from agentpager.tui.screens.prompt import PromptScreen
from agentpager.tui.screens.styled import StyledOnce
from agentpager.wording import plural

UPDATE_SECONDS = 0.25
"""Counts are posted to the list at most this often (a batch at a time)."""
SHOWN_SECONDS = 1.0
"""How long the first rows are given to be shown before the others are read."""
FILLING_SECONDS = 0.5
"""How far a first listing is, and the list as it fills, are posted at most this often."""


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
TOOK = Column("took", 6, lambda info: duration_text(duration_of(info)), right=True)
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


class SessionList(HeadedRows[SessionInfo]):
    """Project headings and their sessions; the cursor moves over sessions only."""

    PREFIX = "sessionlist"
    DEFAULT_CSS = headed_rows_css("SessionList", PREFIX)
    COMPONENT_CLASSES = headed_rows_classes(PREFIX)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.positions: dict[str, int] = {}
        """Each session's position in ``lines``, by path."""

    def show(self, sessions: list[SessionInfo], follow_top: bool = False) -> None:
        """Show these sessions by project; the cursor stays on the session it was on (``follow_top``:
        on the first row, it stays on the first row, as newer sessions come in above it)."""
        chosen = None if follow_top and self.cursor == 0 else self.chosen
        by_project: dict[str, list[SessionInfo]] = {}
        for info in sessions:
            by_project.setdefault(info.project, []).append(info)
        lines: list[str | SessionInfo] = []
        for project, infos in by_project.items():
            lines.append(f"{project}  ({plural(len(infos), 'session')})")
            lines.extend(infos)
        self.positions = {line.path: n for n, line in enumerate(lines) if isinstance(line, SessionInfo)}
        self.show_lines(lines, None if chosen is None else lambda info: info.path == chosen.path)

    def update(self, sessions: list[SessionInfo]) -> None:
        """Show these sessions' new summaries in their rows."""
        for info in sessions:
            position = self.positions.get(info.path)
            if position is not None:
                self.lines[position] = info
        self.refresh()

    def row_text(self, row: SessionInfo, width: int) -> Text:
        cells = []
        for column in columns_for(self.size.width):
            value = column.value(row)
            if len(value) > column.width:
                value = value[: column.width - 1] + "…"
            cells.append(f"{value:>{column.width}}" if column.right else f"{value:<{column.width}}")
        text = Text(GAP + GAP.join(cells) + GAP, no_wrap=True, end="", overflow="ellipsis")
        if row.problem:
            text.append(row.problem, self.style("problem"))
        else:
            text.append(row.title, self.style("muted"))
        return text


class SessionsScreen(ReportsFailures, ExportsSessions, StyledOnce):
    """Every session; Enter opens one, ``/`` searches them all, ``E`` exports one."""

    BINDINGS = [
        Binding("enter,o", "open_session", "Open"),
        Binding("slash", "search", "Search", id="search", tooltip="Search every session"),
        Binding("E", "export", "Export", id="export_session", tooltip="Export a session as one HTML page or Markdown"),
        Binding("r", "reload", "Refresh", show=False),
        Binding("escape,w", "back", "Back"),
        Binding("q", "app.quit", "Quit"),
    ]
    DEFAULT_CSS = """
    SessionsScreen {
        #about { height: auto; padding: 0 1; background: $boost; }
        #columns { height: 1; color: $text-muted; text-style: bold; }
        FoundList { display: none; }
        &.-found FoundList { display: block; }
        &.-found SessionList, &.-found #columns { display: none; }
    }
    """

    class OpenSession(Message):
        """Open this session (at the call whose record is on line ``line`` of its log, when given)."""

        def __init__(self, info: SessionInfo, line: int | None = None) -> None:
            super().__init__()
            self.info = info
            self.line = line

    class _Listed(Message):
        def __init__(
            self,
            sessions: list[SessionInfo],
            left: int | None,
            total: tuple[int, int] | None = None,
            looked: tuple[int, int] | None = None,
        ) -> None:
            super().__init__()
            self.sessions = sessions
            self.left = left
            self.total = total
            """How many sessions and projects there are, when ``sessions`` are the first only."""
            self.looked = looked
            """How many of the sessions to sum up are summed up, and of how many, while the list fills."""

    class _Looking(Message):
        def __init__(self, looked: tuple[int, int]) -> None:
            super().__init__()
            self.looked = looked

    class _Counted(Message):
        def __init__(self, sessions: list[SessionInfo], left: int) -> None:
            super().__init__()
            self.sessions = sessions
            self.left = left

    class _Found(Message):
        def __init__(self, query: str, found: list[Found], done: bool) -> None:
            super().__init__()
            self.query = query
            self.found = found
            self.done = done

    def __init__(self, home: str | None = None) -> None:
        super().__init__()
        self.home = home
        self.listed: list[SessionInfo] = []
        self.total: tuple[int, int] | None = None
        """How many sessions and projects there are, while ``listed`` holds the first only."""
        self.looked: tuple[int, int] | None = None
        """How many of the sessions to sum up are summed up, and of how many, while ``listed`` fills."""
        self.shown = threading.Event()
        """Set when a list is shown."""
        self.left: int | None = None
        """Sessions whose calls are still to be read (None: not known yet)."""
        self.query_text = ""
        self.found: list[Found] | None = None
        """What the last search found (None: no search shown); growing while it runs."""
        self.searching = False
        self.queries: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("Looking for Claude Code, Codex and Gemini CLI sessions…", id="about")
        yield Static(header(self.app.size.width), id="columns")
        yield SessionList(id="sessions")
        yield FoundList(id="found")
        yield FittedFooter()

    def on_mount(self) -> None:
        self.query_one(SessionList).focus()
        self.action_reload()

    def on_resize(self, event: Resize) -> None:
        self.query_one("#columns", Static).update(header(event.size.width))

    def action_reload(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False, description="listing sessions")
    def _load(self) -> None:
        """The list as the index has it (the rows on screen first), then as the files are now (filling
        in as they are summed up), then each session's calls read (a batch of rows updated at a time)."""
        worker = get_current_worker()
        store = IndexStore()
        first, count, projects = first_sessions(self.home, self.app.size.height, store)
        if first:
            self.shown.clear()
            self.post_message(self._Listed(first, None, None if len(first) == count else (count, projects)))
            self.shown.wait(SHOWN_SECONDS)  # this thread would hold up the one that shows them
        listed = first
        if len(first) < count:
            listed = indexed_sessions(self.home, store)
            self.post_message(self._Listed(listed, None))
        sessions = list_sessions(self.home, store, background_workers(), self._filling(store, len(listed)))
        if worker.is_cancelled:
            return
        left = len(unread(store, self.home))
        self.post_message(self._Listed(sessions, left))
        self._read_calls(store, left)

    def _filling(self, store: IndexStore, shown: int) -> Callable[[int, int], None]:
        """What ``refresh`` tells of each batch it writes, when the list shown has ``shown`` sessions:
        how far it is, posted at most every FILLING_SECONDS, with the index's sessions each time they
        have doubled (the lists posted then take two lists' reading and showing at most: each took
        about 0.06 s at 20,000 sessions, and one a second slowed the first listing by about 5%)."""
        worker = get_current_worker()
        posted: float | None = None
        next_list = 2 * shown  # the sessions looked at when the list is posted again

        def saved(looked: int, changed: int) -> None:
            nonlocal next_list, posted
            if worker.is_cancelled or (posted is not None and time.monotonic() - posted < FILLING_SECONDS):
                return
            if looked >= next_list:
                sessions = indexed_sessions(self.home, store)
                next_list = 2 * len(sessions)
                self.post_message(self._Listed(sessions, None, looked=(looked, changed)))
            else:
                self.post_message(self._Looking((looked, changed)))
            posted = time.monotonic()

        return saved

    def _read_calls(self, store: IndexStore, left: int) -> None:
        """Read the calls not read yet (in a worker), posting the rows they change."""
        worker = get_current_worker()
        for batch in update_calls(self.home, store, background_workers(), worker.cancelled_event):
            left = max(0, left - len(batch))
            self.post_message(self._Counted(batch, left))
        if not worker.is_cancelled:
            self.post_message(self._Counted([], 0))

    def on_sessions_screen__listed(self, event: _Listed) -> None:
        filling = self.looked is not None or event.looked is not None  # this list, or the one it ends
        self.listed = event.sessions
        self.total = event.total
        self.left = event.left
        self.looked = event.looked
        self.query_one(SessionList).show(event.sessions, follow_top=filling)
        self._tell()
        self.shown.set()

    def on_sessions_screen__looking(self, event: _Looking) -> None:
        self.looked = event.looked
        self._tell()

    def on_sessions_screen__counted(self, event: _Counted) -> None:
        self.left = event.left
        self.query_one(SessionList).update(event.sessions)
        self._tell()

    def _tell(self) -> None:
        if self.found is not None:
            found = self.found
            where = len({item.session.path for item in found})
            going = " · searching…" if self.searching else ""
            reading = f" · reading calls: {self.left:,} sessions to go" if self.searching and self.left else ""
            about = (
                f"[b]{escape(self.query_text)}[/b] · {plural(len(found), 'match', 'matches')} in "
                f"{plural(where, 'session')}{going}{reading} · Enter opens one · Escape: every session"
            )
        elif self.looked is not None:
            looked, changed = self.looked
            about = (
                f"[b]Sessions[/b] · {looked:,} of {plural(changed, 'session')} looked at… · newest first"
                " · Enter opens one · / searches them all"
            )
        elif self.listed:
            sessions, projects = self.total or (len(self.listed), len({info.project for info in self.listed}))
            reading = f" · reading calls: {self.left:,} to go" if self.left else ""
            about = (
                f"[b]Sessions[/b] · {plural(sessions, 'session')} in {plural(projects, 'project')} · newest first"
                f"{reading} · Enter opens one · / searches them all"
            )
        else:
            about = "No Claude Code, Codex or Gemini CLI sessions were found in this home."
        self.query_one("#about", Static).update(about)

    # -- search -----------------------------------------------------------------------------------

    async def action_search(self) -> None:
        def searched(text: str | None) -> None:
            if text:
                self.query_text = text
                self.found = []
                self.searching = True
                self.add_class("-found")
                self.query_one(FoundList).show_lines([])
                self.query_one(FoundList).focus()
                self._tell()
                self._search(text)

        hint = (
            "Prompts, call arguments and outputs; case matters only with a capital letter. Add tool:Read, "
            "agent:codex, since:7d or read:PATH (the calls that read a file); filters alone list the sessions."
        )
        await self.app.push_screen(
            PromptScreen("Search every session", "text, and filters", query_problem, self.queries, hint), searched
        )

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False, description="searching the sessions")
    def _search(self, text: str) -> None:
        """The search, its rows posted as they are found: in the sessions whose calls are read at
        once, in the others a batch at a time as their calls are read; then in the list's order."""
        worker = get_current_worker()
        query = parse_query(text)
        store = IndexStore()
        sessions = list_sessions(self.home, store, workers=background_workers())
        look: Callable[[Filters], Iterable[Found]]
        if query.read is not None:
            look = partial(reads_of, store, self.home, query.read)
        elif query.text:
            look = partial(search, store, self.home, query.text, cancel=worker.cancelled_event)
        else:
            look = partial(first_prompts, store, self.home)
        left = len(unread(store, self.home))
        # the list behind the search (this worker cancelled the one that lists when it came first)
        self.post_message(self._Listed(sessions, left))
        found: list[Found] = []
        posted, shown = time.monotonic(), 0
        steps = found_while_reading(
            store, self.home, look, query.filters, background_workers(), worker.cancelled_event, query.needs_calls
        )
        for step in steps:
            if isinstance(step, Looked):
                if step.read:
                    left = max(0, left - len(step.read))
                    self.post_message(self._Counted(step.read, left))
            else:
                found.append(step)
            if len(found) > shown and (isinstance(step, Looked) or time.monotonic() - posted >= UPDATE_SECONDS):
                self.post_message(self._Found(text, list(found), False))
                posted, shown = time.monotonic(), len(found)
        if not worker.is_cancelled:
            self.post_message(self._Counted([], 0))
            self.post_message(self._Found(text, newest_session_first(store, self.home, found), True))

    def on_sessions_screen__found(self, event: _Found) -> None:
        if self.found is None or event.query != self.query_text:
            return
        self.found = event.found
        self.searching = not event.done
        found = self.query_one(FoundList)
        chosen = found.chosen
        found.show_lines(found_lines(event.found), None if chosen is None else lambda item: item == chosen)
        self._tell()

    def action_back(self) -> None:
        """From a search's results back to every session; from there back to the app."""
        if self.found is not None:
            self.workers.cancel_group(self, "sessions")
            self.found = None
            self.searching = False
            self.remove_class("-found")
            self.query_one(SessionList).focus()
            self._tell()
            if self.left:
                self._resume()
        else:
            self.app.pop_screen()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False, description="reading calls")
    def _resume(self) -> None:
        """Read on the calls a search's cancel interrupted."""
        store = IndexStore()
        self._read_calls(store, len(unread(store, self.home)))

    # -- a session ----------------------------------------------------------------------------------

    def _chosen(self) -> tuple[SessionInfo, int | None] | None:
        if self.found is not None:
            item = self.query_one(FoundList).chosen
            return None if item is None else (item.session, item.line or None)
        info = self.query_one(SessionList).chosen
        return None if info is None else (info, None)

    def action_open_session(self) -> None:
        chosen = self._chosen()
        if chosen is not None:
            self.post_message(self.OpenSession(*chosen))

    async def action_export(self) -> None:
        """Write the chosen session as one HTML page (or Markdown, for a name ending in .md)."""
        chosen = self._chosen()
        if chosen is not None:
            await self.ask_export(chosen[0].path, chosen[0].session_id)


def query_problem(text: str) -> str | None:
    try:
        query = parse_query(text)
        if query.read is None and query.text:
            TextMatch(query.text)
    except SearchError as error:
        return str(error)
    return None
