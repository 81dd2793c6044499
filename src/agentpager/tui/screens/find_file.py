"""Open a file by typing parts of its path (fuzzy), over every file ``list_files`` sees.

The files are listed once in a worker (the listing ``list_files`` uses, so it is cached and shared);
each keystroke matches in a worker that the next keystroke replaces, with one regex per query (the
letters in order, anything between), so 100,000 paths match in about a tenth of a second and the
screen never waits for it.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import re
import threading
from collections import defaultdict
from collections.abc import Iterator

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from agentpager.tui.lines import one_row
from agentpager.tui.screens.dialog import Dialog
from agentpager.workspace import Workspace

TITLE = "Open a file: type letters of its path (Enter opens, Escape cancels)"
MAX_FILES = 500_000
"""Files offered at most (the first in ``project_first``'s order): memory and matching time stay bounded."""
SHOWN = 50
CHUNK = 1024


def fuzzy(query: str) -> re.Pattern[str]:
    """A pattern matching a line that holds the query's characters in order (spaces ignored),
    case-blind, one group per character: each is the first of its kind after the one before, and
    the skips are possessive, so a line that does not match fails without backtracking."""
    characters = [re.escape(character) for character in query if not character.isspace()]
    parts = [f"({characters[0]})"] if characters else []
    parts += [f"[^{character}\\n]*+({character})" for character in characters[1:]]
    return re.compile("".join(parts), re.IGNORECASE)


def project_first(paths: list[str], ignored_directories: set[str]) -> list[str]:
    """``paths`` (sorted) in the order that breaks ties between equal matches: the project's own
    files before those in ``ignored_directories``, then the shallower first, then in path order.
    Candidates rank equal matches by their order, so the scan's early stop stays right."""
    groups: dict[tuple[bool, int], list[str]] = defaultdict(list)
    for path in paths:
        groups[path.rpartition("/")[0] in ignored_directories, path.count("/")].append(path)
    return [path for key in sorted(groups) for path in groups[key]]


class Candidates:
    """The paths to choose from, as texts of a path a line that one regex scans at C speed.

    Each text holds CHUNK paths, so one scan (which holds the GIL) lasts a few milliseconds at most
    and the UI thread keeps its turn.
    """

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self.chunks = [Chunk(paths, first) for first in range(0, len(paths), CHUNK)]

    def rank(
        self, pattern: re.Pattern[str], limit: int, stop: threading.Event | None = None
    ) -> list[tuple[str, list[int]]]:
        """The best ``limit`` paths ``pattern`` matches, with the positions of the matched characters.

        Better: all in the file name, then the tighter match, then one that starts the name (``cli``
        finds ``cli.py`` before ``test_cli.py``), then the path's order (``project_first``'s). Once
        ``limit`` paths start their name with the query whole, no path can beat them and the scan
        stops. Setting ``stop`` ends it early too (with what it found so far).
        """
        best = heapq.nsmallest(limit, self._matches(pattern, limit, stop), key=lambda item: item[0])
        return [(self.paths[key[-1]], positions) for key, positions in best]

    def _matches(
        self, pattern: re.Pattern[str], limit: int, stop: threading.Event | None
    ) -> Iterator[tuple[tuple[bool, int, bool, int], list[int]]]:
        """(sort key, positions in the path) for each path that matches, until ``limit`` perfect ones."""
        perfect = 0
        for chunk in self.chunks:
            if stop is not None and stop.is_set():
                return
            last_line = -1
            for found in pattern.finditer(chunk.text):
                line = bisect.bisect_right(chunk.starts, found.start()) - 1
                if line == last_line:
                    continue  # one match a path: its first
                last_line = line
                start, end = chunk.starts[line], chunk.ends[line]
                name = chunk.text.rfind("/", start, end) + 1 or start
                if found.start() < name and (in_name := pattern.search(chunk.text, name, end)):
                    found = in_name
                span = found.end() - found.start()
                positions = [found.start(group) - start for group in range(1, pattern.groups + 1)]
                yield (found.start() < name, span, found.start() > name, chunk.first + line), positions
                if found.start() == name and span == pattern.groups:
                    perfect += 1
                    if perfect >= limit:
                        return


class Chunk:
    """CHUNK paths from ``first`` as one text, with where each starts and ends in it."""

    def __init__(self, paths: list[str], first: int) -> None:
        lines = paths[first : first + CHUNK]
        self.first = first
        self.text = "\n".join(lines)
        self.starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
        self.ends = [start + len(line) for start, line in zip(self.starts, lines, strict=True)]


class FindFile(Dialog[str | None]):
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
    FindFile #title { height: auto; margin-bottom: 1; }
    FindFile OptionList { height: auto; max-height: 20; border: none; padding: 0; margin-top: 1; }
    """

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace
        self.files: Candidates | None = None
        self.shown_for: str | None = None
        """The query the options shown match (None until the files are listed)."""
        self.open_when_shown = False
        """Enter came before the options for the query: open the first when they come."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"{TITLE} · listing the files…", id="title")
            yield Input(placeholder="e.g. tuiapp for src/agentpager/tui/app.py", compact=True)
            yield OptionList()

    def on_mount(self) -> None:
        self._list_files()

    @work(thread=True, group="list", exit_on_error=False)
    def _list_files(self) -> None:
        files = self.workspace.files()
        files = project_first(files, self.workspace.ignored_directories(files))
        note = (
            f"{len(files):,} files" if len(files) <= MAX_FILES else f"the first {MAX_FILES:,} of {len(files):,} files"
        )
        self.app.call_from_thread(self._listed, Candidates(files[:MAX_FILES]), note)

    def _listed(self, files: Candidates, note: str) -> None:
        self.files = files
        self.query_one("#title", Static).update(f"{TITLE} · {note}")
        self._match(self.query_one(Input).value)

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        if self.files is not None:
            self._match(event.value)

    @work(thread=True, group="match", exclusive=True, exit_on_error=False, description="matching")
    def _match(self, query: str) -> None:
        files = self.files
        if files is None:
            return
        worker = get_current_worker()
        if not query.strip():
            found: list[tuple[str, list[int]]] = [(path, []) for path in files.paths[:SHOWN]]
        else:
            found = files.rank(fuzzy(query), SHOWN, worker.cancelled_event)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, query, found)

    def _show(self, query: str, found: list[tuple[str, list[int]]]) -> None:
        self.shown_for = query
        if self.open_when_shown and query == self.query_one(Input).value:
            self.open_when_shown = False
            if found:
                self.dismiss(found[0][0])
                return
        options = self.query_one(OptionList)
        options.clear_options()
        labels = []
        for path, positions in found:
            label = Text(one_row(path))
            for position in positions:
                label.stylize("bold reverse", position, position + 1)
            labels.append(Option(label, id=path))
        options.add_options(labels)
        if found:
            options.highlighted = 0
        elif self.files is not None and self.files.paths:
            options.add_option(Option(Text("No file matches.", style="dim"), disabled=True))

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            options.highlighted = ((options.highlighted or 0) + step) % options.option_count

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if self.shown_for != event.value:  # typed ahead of the listing or the matching
            self.open_when_shown = True
            return
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self._choose(options.get_option_at_index(options.highlighted))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(event.option)

    def _choose(self, option: Option) -> None:
        if option.id is not None and not option.disabled:
            self.dismiss(option.id)
