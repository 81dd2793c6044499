"""The help screen: every key, and where the numbers come from."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# agentpager

See a workspace exactly as an agent's file tools do. The panel on the right shows the call for what
the viewer shows and its exact output; edit an argument to hand-craft a call.

| key | what it does |
| --- | --- |
| `↑ ↓ ← →`, `j k` | scroll a line or four columns |
| `PgUp PgDn`, `space` | scroll a page |
| `Home End`, `g G` | first line, last line |
| `:` | go to a line (it becomes the top line) |
| `/` | search the whole file for a regex; `n` / `N` next and previous match |
| `f` | follow a growing file |
| `Escape` | cancel a conversion, an indexing or a search |
| `p` | pin the call / follow the viewer again |
| `c` | copy the output |
| `y` | copy the call as JSON |
| `C` | copy the call and its result as an OpenAI or Anthropic message pair |
| `t` | the transcript's tool calls (`o` opens a call's window here, `Escape` comes back) |
| `Tab`, `Shift+Tab` | move between the tree, the viewer and the panel |
| `Ctrl+P` | command palette: every action |
| `?` | this help |
| `q` | quit |

The tree shows a directory 100 entries at a time; `⚠` marks a directory with more than 20 files,
where `list_files` would warn instead of listing. Lines are numbered as `grep -n` numbers them;
control characters are shown as symbols, tabs as spaces, and long lines are cut for display
only: the panel and the copies hold the exact text.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss(None)", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90; height: 80%; border: round $accent; background: $surface; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(HELP)
