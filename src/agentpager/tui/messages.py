"""The messages the workspace screen's widgets send each other, as dataclasses.

After toolong's ``messages.py``: each message is a ``@dataclass`` (Textual's ``Message`` runs its own
set-up in ``__post_init__``), and a message that reports progress or the latest state says, with
``can_replace``, that a newer one of its kind makes it stale: Textual then drops it from the queue
instead of handling every report of a fast scroll or a long scan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from agentpager.fileview import FileView, Matcher
    from agentpager.tui.probe_screen import AgentAnswer
    from agentpager.tui.tool_panel import Outcome
    from agentpager.tui.viewer import FileViewer, Window
    from agentpager.workspace import ToolResult, Workspace


# -- the tree -------------------------------------------------------------------------------------


@dataclass
class FileChosen(Message):
    path: str


@dataclass
class DirectoryChosen(Message):
    """A directory was chosen (``file_offset`` None: the call an agent makes first), or a page of
    its files (``file_offset``: where the page starts, as ``list_files`` counts)."""

    path: str
    file_offset: int | None


# -- the viewer -----------------------------------------------------------------------------------


@dataclass
class WindowChanged(Message):
    """The lines on screen changed (scrolled, resized, or more of the file is known)."""

    viewer: FileViewer
    window: Window

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, WindowChanged) and message.viewer is self.viewer


@dataclass
class Opened(Message):
    view: FileView


@dataclass
class Failed(Message):
    """A file cannot be shown: ``lines`` say why and what to do."""

    path: str
    lines: list[str]


@dataclass
class Indexed(Message):
    """Progress of counting a file's lines: ``lines`` known so far, the ``fraction`` of bytes scanned."""

    view: FileView
    lines: int
    complete: bool
    fraction: float

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Indexed) and message.view is self.view


@dataclass
class Searched(Message):
    """Matches of a search so far (the worker keeps appending to ``matches`` until ``complete``)."""

    pattern: Matcher
    matches: list[int]
    complete: bool
    problem: str = ""
    """Why the search stopped early (re, in its child, took too long), if it did."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Searched) and message.matches is self.matches


# -- the tool panel -------------------------------------------------------------------------------


@dataclass
class ShowLine(Message):
    """A hand-made call reads this file from this line: show it there."""

    path: str
    line: int


@dataclass
class Ran(Message):
    """A call ran: what was sent and what came back."""

    outcome: Outcome

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Ran)


@dataclass
class Followed(Message):
    """The call for the viewer's window, worked out off the UI thread."""

    tool: str
    arguments: dict[str, Any]

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Followed)


@dataclass
class Carried(Message):
    """The new profile's call for the window a pinned call read (after the profile was switched)."""

    tool: str
    arguments: dict[str, Any]


@dataclass
class ProfileChosen(Message):
    """The panel's profile changed: the tree marks the paths this profile refuses."""

    workspace: Workspace


# -- asking the real agent (the probe screen) -----------------------------------------------------


@dataclass
class ProbePhase(Message):
    """What asking the real agent is doing now (``starting Claude Code 2.1.332``), timed on screen."""

    text: str

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ProbePhase)


@dataclass
class ProbeLogged(Message):
    """A line for the probe's log: what the probe is doing, or a line npm wrote."""

    line: str


@dataclass
class ProfileAnswered(Message):
    """The profile's answer to the call the agent is asked."""

    result: ToolResult


@dataclass
class AgentAnswered(Message):
    """The real agent answered: its answer set against the profile's."""

    answer: AgentAnswer


@dataclass
class AgentMissing(Message):
    """The agent (that version of it) is not installed: why, and the npm command that installs it."""

    reason: str
    hint: str


@dataclass
class ProbeFailed(Message):
    """The agent (or npm) failed: what it said."""

    reason: str


@dataclass
class ProbeRefused(Message):
    """The call was not sent to the agent (not a read agentpager answers, or no confinement here): why."""

    reason: str
