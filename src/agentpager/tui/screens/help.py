"""The help screen: every key, and where the numbers come from. It fits an 80x24 terminal (it scrolls).

A screen with its own keys (the transcript's) names them in ``HELP_SECTION``: the help opened there
lists them first, built from their bindings (each one's tooltip, else its description).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Markdown

from agentpager.tui.screens.dialog import Dialog

INTRO = """\
# agentpager

See a workspace as an agent's file tools see it: the panel shows the call an agent makes for the
lines in the viewer, and its exact output.

"""

HELP = """\
## The viewer

- `↑ ↓` `j k` a line, `← →` `h l` four columns, `0` `$` the start and the end of the lines
- `PgUp PgDn` `b space` a page, `u d` half a page, `Home End` `g G` the first and the last line
- `:` go to a line (`:450`) or a share of the file (`:50%`): it becomes the top line
- `/` search the whole file for a regex (case matters only with a capital letter); `n` `N` next and
  previous match; `↑ ↓` in the prompt bring back earlier searches; `Escape` clears the highlight
- `w` wrap long lines; `f` follow a growing file
- `m` and a letter mark the top line; `'` and the letter go back there; `''` back to where the
  last jump left from
- `v` open the file at this line in `$VISUAL` or `$EDITOR` (agentpager comes back when it exits)
- `R` every session's calls that read the line in focus (`Enter` opens the session at the call); the
  gutter's shades: how many recorded reads covered each line (darker: more), a line without one was
  never seen by any agent
- `Escape` cancel a conversion, an indexing or a search

## The call

- `e` edit the call: an argument, or its JSON (paste an OpenAI or Anthropic call there too);
  `Tab` next field, `Escape` back to the viewer
- `p` pin the call, or follow the viewer again
- `c` copy the output, `y` the call as JSON, `C` both as an OpenAI or Anthropic message pair
- `a` ask the real agent the profile stands for (Claude Code, Codex or Gemini CLI, at the profile's
  version) for the call: its answer beside the profile's, the difference, and whether they are the same
- the shaded lines are what the call returns; `✂` marks where the output guard cuts it
- the line under the screen: the call, its characters, its tokens, and whether it was cut

## The tree and files

- `Enter` show a file (the focus stays in the tree), or a directory's `list_files` call
- `r` read the directories again (they are checked every few seconds anyway)
- `o` open a file by typing letters of its path
- `T` hide or show the tree
- `⚠` more than 20 files, where `list_files` warns instead of listing; `⊘` a path the profile refuses

## The session browser (`S`)

- `Enter` open a session; `/` search every session's prompts, call arguments and outputs (add
  `tool:Read`, `agent:codex`, `since:7d`, or `read:PATH` for the calls that read a file); `Escape`
  back to every session
- `E` export the session as one HTML page (a name ending in `.md`: Markdown)

## Everywhere

- `Tab` `Shift+Tab` the next or previous part; `t` the transcript's tool calls; `S` every agent session
- `Ctrl+P` every action; `?` this help; `q` quit

Lines are numbered as `grep -n` numbers them; control characters are shown as symbols, tabs as
spaces, and long lines are cut for display only: the panel and the copies hold the exact text.
"""


def screen_keys(screen: Screen[Any]) -> str:
    """The section of ``screen``'s keys, from its ``HELP_SECTION`` (a title, and the widgets whose keys
    follow the screen's); none for a screen without one. Keys that do the same are on one line."""
    section: tuple[str, tuple[type[Any], ...]] | None = getattr(screen, "HELP_SECTION", None)
    if section is None:
        return ""
    title, widgets = section
    keys: dict[str, list[str]] = {}
    for owner in (type(screen), *widgets):
        for binding in Binding.make_bindings(owner.BINDINGS):
            what = binding.tooltip or binding.description
            if what:
                keys.setdefault(what, []).append(f"`{screen.app.get_key_display(binding)}`")
    lines = [f"- {' '.join(shown)} {what}" for what, shown in keys.items()]
    return "\n".join([f"## {title}", "", *lines, "", ""])


class HelpScreen(Dialog[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss(None)", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90; max-width: 100%; height: 90%; border: round $accent; background: $surface;
    }
    """

    def __init__(self, opened_from: Screen[Any]) -> None:
        super().__init__()
        self.opened_from = opened_from

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(INTRO + screen_keys(self.opened_from) + HELP)

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()
