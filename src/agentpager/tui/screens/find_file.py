"""Open a file by typing parts of its path (fuzzy), over every file ``list_files`` sees.

The files are listed once in a worker (the listing ``list_files`` uses, so it is cached and shared);
each keystroke matches in a worker that the next keystroke replaces, with one regex per query (the
letters in order, anything between), so 100,000 paths match in about a tenth of a second and the
screen never waits for it.
"""

from __future__ import annotations

import re
import threading

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from agentpager.workspace import Workspace

MAX_FILES = 500_000
"""Files offered at most (the first, in path order): memory and matching time stay bounded."""
SHOWN = 50


def fuzzy(query: str) -> re.Pattern[str]:
    """A pattern matching paths that hold the query's characters in order (spaces ignored), case-blind."""
    characters = [re.escape(character) for character in query if not character.isspace()]
    return re.compile(".*?".join(f"({character})" for character in characters), re.IGNORECASE)


def rank(
    pattern: re.Pattern[str], paths: list[str], limit: int, stop: threading.Event | None = None
) -> list[tuple[str, list[int]]]:
    """The best ``limit`` paths ``pattern`` matches, with the positions of the matched characters.

    Better: all in the file name, then the tighter match, then the shorter path. Setting ``stop``
    ends it early (with what it found so far).
    """
    scored = []
    for number, path in enumerate(paths):
        if number % 10_000 == 0 and stop is not None and stop.is_set():
            break
        found = pattern.search(path, path.rfind("/") + 1) or pattern.search(path)
        if found is not None:
            in_name = found.start() > path.rfind("/")
            scored.append(((not in_name, found.end() - found.start(), len(path), path), found))
    scored.sort(key=lambda item: item[0])
    return [
        (key[3], [found.start(group) for group in range(1, (pattern.groups or 0) + 1)]) for key, found in scored[:limit]
    ]


class FindFile(ModalScreen[str | None]):
    """Answers with the display path chosen, or None."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("down", "move(1)", "Next", show=False),
        Binding("up", "move(-1)", "Previous", show=False),
    ]
    DEFAULT_CSS = """
    FindFile { align: center top; }
    FindFile > Vertical {
        width: 90; max-width: 100%; height: auto; max-height: 100%; margin-top: 1; padding: 0 1;
        border: round $accent; background: $surface;
    }
    FindFile OptionList { height: auto; max-height: 20; border: none; padding: 0; }
    FindFile #note { color: $text-muted; height: auto; }
    """

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace
        self.files: list[str] | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Open a file: type letters of its path (Enter opens, Escape cancels)")
            yield Input(placeholder="e.g. srcapp for src/agentpager/tui/app.py")
            yield OptionList()
            yield Static("Listing the files…", id="note")

    def on_mount(self) -> None:
        self._list_files()

    @work(thread=True, group="list", exit_on_error=False)
    def _list_files(self) -> None:
        files = self.workspace.files()
        note = (
            f"{len(files):,} files" if len(files) <= MAX_FILES else f"the first {MAX_FILES:,} of {len(files):,} files"
        )
        self.app.call_from_thread(self._listed, files[:MAX_FILES], note)

    def _listed(self, files: list[str], note: str) -> None:
        self.files = files
        self.query_one("#note", Static).update(note)
        self._match(self.query_one(Input).value)

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        if self.files is not None:
            self._match(event.value)

    @work(thread=True, group="match", exclusive=True, exit_on_error=False)
    def _match(self, query: str) -> None:
        files = self.files or []
        worker = get_current_worker()
        if not query.strip():
            found: list[tuple[str, list[int]]] = [(path, []) for path in files[:SHOWN]]
        else:
            found = rank(fuzzy(query), files, SHOWN, worker.cancelled_event)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, found)

    def _show(self, found: list[tuple[str, list[int]]]) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        for path, positions in found:
            label = Text(path)
            for position in positions:
                label.stylize("bold reverse", position, position + 1)
            options.add_option(Option(label, id=path))
        if found:
            options.highlighted = 0
        elif self.files:
            options.add_option(Option(Text("No file matches.", style="dim"), disabled=True))

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            options.highlighted = ((options.highlighted or 0) + step) % options.option_count

    @on(Input.Submitted)
    def _submitted(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self._choose(options.get_option_at_index(options.highlighted))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(event.option)

    def _choose(self, option: Option) -> None:
        if option.id is not None and not option.disabled:
            self.dismiss(option.id)
