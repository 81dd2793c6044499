"""Which calls of every session read the line in focus: the sessions index brought up to date and
asked, in a worker; choosing a call opens its session at that call."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from agentpager.sessions_index.listing import list_sessions
from agentpager.sessions_index.pool import background_workers
from agentpager.sessions_index.search import ReadCall, reads_of
from agentpager.sessions_index.store import IndexStore
from agentpager.sessions_index.updating import unread, update_calls
from agentpager.tui.failures import ReportsFailures
from agentpager.tui.found_list import AGENT_NAMES
from agentpager.tui.screens.dialog import Dialog
from agentpager.wording import plural


def read_row(read: ReadCall) -> str:
    info = read.session
    last = "end" if read.last_line is None else f"{read.last_line:,}"
    agent = AGENT_NAMES.get(info.agent, info.agent)
    return (
        f"{info.started[:16].replace('T', ' ')}  {agent:<6}  #{read.call} {read.tool}  lines {read.first_line:,}-{last}"
        f"  {info.project} · {info.title}"
    )


class ReadsScreen(ReportsFailures, Dialog[bool]):
    """The calls that read line ``line`` of the file at ``path``; dismissed with whether the index
    was brought up to date (the viewer's gutter counts again then)."""

    BINDINGS = [Binding("escape,q", "dismiss(True)", "Close")]
    DEFAULT_CSS = """
    ReadsScreen { align: center middle; }
    ReadsScreen > Vertical {
        width: 90%; max-width: 160; height: 80%; border: round $accent; background: $surface; padding: 0 1;
    }
    ReadsScreen #title { height: auto; text-style: bold; }
    ReadsScreen #note { height: auto; color: $text-muted; }
    ReadsScreen OptionList { height: 1fr; border: none; }
    """

    class OpenSession(Message):
        """Open the session whose log is at ``path``, at the call on line ``line`` of it."""

        def __init__(self, path: str, line: int) -> None:
            super().__init__()
            self.path = path
            self.line = line

    class _Progress(Message):
        def __init__(self, left: int) -> None:
            super().__init__()
            self.left = left

    class _Found(Message):
        def __init__(self, reads: list[ReadCall]) -> None:
            super().__init__()
            self.reads = reads

    def __init__(self, path: str, shown_path: str, line: int, home: str | None) -> None:
        super().__init__()
        self.path, self.shown_path, self.line, self.home = path, shown_path, line, home
        self.reads: list[ReadCall] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                f"Line {self.line:,} of {self.shown_path}: the calls of every session that read it", id="title"
            )
            yield Static("Reading the sessions…", id="note")
            yield OptionList(id="reads")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._find()

    @work(thread=True, exclusive=True, group="reads", exit_on_error=False, description="finding the reads of a line")
    def _find(self) -> None:
        worker = get_current_worker()
        store = IndexStore()
        list_sessions(self.home, store, workers=background_workers())
        left = len(unread(store, self.home))
        for batch in update_calls(self.home, store, background_workers(), worker.cancelled_event):
            left = max(0, left - len(batch))
            self.post_message(self._Progress(left))
        if not worker.is_cancelled:
            self.post_message(self._Found(reads_of(store, self.home, self.path, line=self.line)))

    @on(_Progress)
    def _progress(self, event: _Progress) -> None:
        self.query_one("#note", Static).update(f"Reading the calls of every session: {event.left:,} to go…")

    @on(_Found)
    def _found(self, event: _Found) -> None:
        self.reads = event.reads
        sessions = len({read.session.path for read in event.reads})
        note = (
            f"{plural(len(event.reads), 'call')} in {plural(sessions, 'session')} · Enter opens the session at the call"
            if event.reads
            else "No recorded call read this line."
        )
        self.query_one("#note", Static).update(note)
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(Text(read_row(read))) for read in event.reads])  # Text: no markup
        if event.reads:
            options.highlighted = 0

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        read = self.reads[event.option_index]
        self.app.post_message(self.OpenSession(read.session.path, read.line))  # the app outlives this screen
        self.dismiss(True)
