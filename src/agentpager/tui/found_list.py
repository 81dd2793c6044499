"""What a search of every session found, under each session's heading: the prompts, call arguments
and outputs that hold the text, or the calls that read a file, one row each."""

from __future__ import annotations

from rich.text import Text

from agentpager.agents import AGENTS
from agentpager.sessions import SessionInfo
from agentpager.sessions_index.search import Hit, ReadCall
from agentpager.tui.rows import HeadedRows, headed_rows_classes, headed_rows_css
from agentpager.wording import cut_around

Found = Hit | ReadCall
AGENT_NAMES = {agent.id: agent.short_title for agent in AGENTS}
"""Each agent's name in the agent column and the headings."""


def heading(info: SessionInfo) -> str:
    agent = AGENT_NAMES.get(info.agent, info.agent)
    return f"{info.started[:16].replace('T', ' ')}  {agent}  {info.project} · {info.title}"


def found_lines(found: list[Found]) -> list[str | Found]:
    """Each session's heading, then its rows."""
    lines: list[str | Found] = []
    last = None
    for item in found:
        if item.session.path != last:
            last = item.session.path
            lines.append(heading(item.session))
        lines.append(item)
    return lines


class FoundList(HeadedRows[Found]):
    """The rows a search found; Enter opens the session at the call."""

    PREFIX = "foundlist"
    DEFAULT_CSS = headed_rows_css("FoundList", PREFIX)
    COMPONENT_CLASSES = headed_rows_classes(PREFIX)

    def row_text(self, row: Found, width: int) -> Text:
        text = Text(no_wrap=True, end="", overflow="ellipsis")
        if isinstance(row, Hit):
            call = "" if row.call is None else f"#{row.call} {row.tool}"
            text.append(f"  {row.kind:<9} {call:<16}  ")
            text.append(cut_around(row.excerpt, *row.found, width - text.cell_len), self.style("muted"))
        else:
            last = "end" if row.last_line is None else f"{row.last_line:,}"
            text.append(f"  #{row.call} {row.tool}  lines {row.first_line:,}-{last}")
        return text
