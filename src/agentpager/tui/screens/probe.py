"""Asking the real agent: the panel's call run by the installed agent the profile stands for, its
answer beside the profile's, the difference, and a verdict.

The agent runs in a worker thread (``agentpager.probe``: seconds, against a mock of its model
API on 127.0.0.1) while the screen counts the seconds; Escape stops it, its children with it. An
agent that is not installed is named with the npm command that installs it, which ``i`` runs into
the cache dir (npm's output in the log) before asking.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Log, Static, TabbedContent, TabPane, Tabs

from agentpager.agents import get_agent
from agentpager.config import DEFAULT_BUDGET
from agentpager.probe import AgentNotInstalled, Cancelled, Unconfined, find, install
from agentpager.probing import ProbeError, ProbeResult, Refused, probe
from agentpager.tui.diff_view import difference
from agentpager.tui.failures import ReportsFailures
from agentpager.tui.footer import FittedFooter
from agentpager.tui.output_area import OutputArea
from agentpager.tui.status import call_line
from agentpager.workspace import Comparison, RealAgent, ToolResult, Workspace

TICK_SECONDS = 0.5


@dataclass(frozen=True)
class AgentAnswer:
    """The agent's answer, how it compares with the profile's, and the difference to show."""

    result: ProbeResult
    comparison: Comparison
    difference: RenderableType


class ProbeScreen(ReportsFailures, Screen[None]):
    """The real agent's answer to one call beside the profile's."""

    @dataclass
    class Phase(Message):
        """What asking the real agent is doing now (``starting Claude Code 2.1.332``), timed on screen."""

        text: str

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, ProbeScreen.Phase)

    @dataclass
    class Logged(Message):
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
    class NotSent(Message):
        """The call was not sent to the agent (not a read agentpager answers, or no confinement here): why."""

        reason: str

    @dataclass
    class Failed(Message):
        """The agent (or npm) failed: what it said."""

        reason: str

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("a", "ask", "Ask again"),
        Binding("i", "install", "Install"),
        Binding("c", "copy", "Copy"),
        Binding("r", "request", "Whole request"),
        Binding("q", "app.quit", "Quit", show=False),
    ]
    DEFAULT_CSS = """
    ProbeScreen {
        #asked { height: 1; padding: 0 1; background: $boost; text-wrap: nowrap; text-overflow: ellipsis; }
        #verdict { height: auto; max-height: 8; padding: 0 1; }
        #verdict.-same { color: $success; text-style: bold; }
        #verdict.-differs { color: $error; text-style: bold; }
        #notes { height: auto; max-height: 6; padding: 0 1; color: $text-muted; }
        #notes.-none { display: none; }
        #answers { height: 1fr; }
        #difference { padding: 0 1; }
    }
    """

    state = reactive("asking")
    """``asking``, ``installing``, ``answered``, ``missing`` (not installed), ``refused`` (not sent:
    not a read, or no confinement here) or ``failed``."""

    def __init__(self, workspace: Workspace, tool: str, arguments: dict[str, Any], real_agent: RealAgent) -> None:
        super().__init__()
        self.workspace = workspace
        self.tool = tool
        self.arguments = dict(arguments)
        self.real_agent = real_agent
        program = get_agent(real_agent.agent).program()
        assert program is not None, "a profile's real agent is one the probe can run"
        self.program = program
        self.title_of_agent = f"{program.title} {real_agent.version}"
        self.hint = ""
        self.answer: AgentAnswer | None = None
        self.profile_result: ToolResult | None = None
        self._cancel = threading.Event()
        self._phase = ""
        self._started = time.monotonic()
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(
            f"[b]profile {self.workspace.profile_name} ↔ {self.title_of_agent}[/b] · "
            f"{escape(call_line(self.tool, self.arguments))}",
            id="asked",
        )
        yield Static("", id="verdict")
        yield Static("", id="notes", classes="-none")
        with TabbedContent(id="answers"):
            with TabPane("Difference", id="tab-difference"), VerticalScroll():
                yield Static("", id="difference")
            with TabPane("Real agent", id="tab-agent"):
                yield OutputArea(id="agent-output")
            with TabPane("Profile", id="tab-profile"):
                yield OutputArea(id="profile-output")
            with TabPane("Log", id="tab-log"):
                yield Log(id="log")
        yield FittedFooter()

    def on_mount(self) -> None:
        self.query_one("#answers", TabbedContent).query_one(Tabs).focus()  # ← → choose what to see
        self._timer = self.set_interval(TICK_SECONDS, self._tick)
        self.action_ask()

    def on_unmount(self) -> None:
        self._cancel.set()  # the app quits, say: nothing it started keeps running

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "install":
            return self.state == "missing"
        if action == "ask":
            return self.state in ("answered", "failed", "missing")
        if action == "copy":
            return self.state in ("answered", "missing")
        if action == "request":
            return self.state == "answered"
        return True

    def watch_state(self, state: str) -> None:
        self.refresh_bindings()
        running = state in ("asking", "installing")
        if self._timer is not None:
            (self._timer.resume if running else self._timer.pause)()

    # -- asking -------------------------------------------------------------------------------------

    def action_ask(self) -> None:
        self._start("asking", f"finding {self.title_of_agent}")
        self._ask(self._cancel, install_first=False)

    def action_install(self) -> None:
        self._start("installing", f"installing {self.title_of_agent} (npm: its output is in the Log tab)")
        self.query_one("#answers", TabbedContent).active = "tab-log"
        self._ask(self._cancel, install_first=True)

    def _start(self, state: str, phase: str) -> None:
        self._cancel.set()  # an earlier run that is still going stops
        self._cancel = threading.Event()
        self.answer = None
        self._phase = phase
        self._started = time.monotonic()
        self.state = state
        self._show_notes("")
        self._tick()

    def _tick(self) -> None:
        if self.state not in ("asking", "installing"):
            return
        seconds = time.monotonic() - self._started
        self._show_verdict(f"{self._phase}… {seconds:.0f} s · Escape cancels", "")

    @work(thread=True, exclusive=True, group="probe", exit_on_error=False, description="asking the real agent")
    def _ask(self, cancel: threading.Event, install_first: bool) -> None:
        """The profile's answer, then the agent's (installed first when asked to), compared."""

        def post(message: Message) -> None:
            if not cancel.is_set():
                self.post_message(message)

        def log(line: str) -> None:
            post(self.Logged(line))

        workspace, tool, arguments, real, program = (
            self.workspace,
            self.tool,
            self.arguments,
            self.real_agent,
            self.program,
        )
        profile_result = workspace.call(tool, arguments)
        post(self.ProfileAnswered(profile_result))
        model = workspace.settings.get("model")
        try:
            if install_first:
                installed = install(program, real.version, progress=log, cancel=cancel)
            else:
                installed = find(program, real.version)
            told = model or program.default_model or "its default model"
            post(self.Phase(f"starting {program.title} {installed.version} ({told})"))
            result = probe(
                program,
                tool,
                arguments,
                workspace.root.path,
                progress=log,
                model=str(model) if model else None,
                installed=installed,
                cancel=cancel,
            )
        except Cancelled:
            return
        except AgentNotInstalled as error:
            post(self.AgentMissing(error.reason, error.hint))
            return
        except Refused as error:
            post(self.NotSent(str(error)))
            return
        except Unconfined as error:
            post(self.NotSent(f"agentpager runs an agent only confined, and cannot confine it here: {error}"))
            return
        except (ProbeError, RuntimeError, OSError) as error:
            post(self.Failed(str(error)))
            return
        comparison = workspace.compare(profile_result, result.text, result.is_error)
        names = (f"profile {workspace.profile_name}", f"{program.title} {result.version}")
        shown: RenderableType = (
            Text(f"No difference: the two answers are the same {len(result.text):,} characters.", "green")
            if comparison.exact
            else Text("No difference but for the parts that change from run to run (see above).", "green")
            if comparison.same
            else difference(comparison.profile_text, comparison.agent_text, names)
        )
        post(self.AgentAnswered(AgentAnswer(result, comparison, shown)))

    # -- what came back -----------------------------------------------------------------------------

    @on(Phase)
    def _phase_changed(self, event: ProbeScreen.Phase) -> None:
        self._phase = event.text
        self._started = time.monotonic()
        self.state = "asking"
        self._tick()

    @on(Logged)
    def _logged(self, event: ProbeScreen.Logged) -> None:
        self.query_one("#log", Log).write_line(event.line)

    @on(ProfileAnswered)
    def _profile_answered(self, event: ProbeScreen.ProfileAnswered) -> None:
        self.profile_result = event.result
        self.query_one("#profile-output", OutputArea).show(event.result.text)

    @on(AgentAnswered)
    def _agent_answered(self, event: ProbeScreen.AgentAnswered) -> None:
        answer = self.answer = event.answer
        result, comparison = answer.result, answer.comparison
        self.state = "answered"
        self.query_one("#agent-output", OutputArea).show(result.text)
        self.query_one("#difference", Static).update(answer.difference)
        model = f" · model {result.model}" if result.model else ""
        verdict = ("✓ " if comparison.same else "✗ ") + comparison.verdict
        self._show_verdict(verdict + model, "-same" if comparison.same else "-differs")
        self._show_notes(self._notes(comparison))
        self.query_one("#answers", TabbedContent).active = "tab-difference"

    def _notes(self, comparison: Comparison) -> str:
        notes = [f"{part.placeholder} not counted: {part.why}" for part in comparison.not_counted]
        profile, agent = self.profile_result, self.answer.result if self.answer else None
        if profile is not None and agent is not None and profile.is_error != agent.is_error:
            who = "the agent" if agent.is_error else "the profile"
            notes.append(f"Only {who} answered with an error.")
        if profile is not None and profile.uncertain and not comparison.same:
            notes.append(f"The profile said it may differ here: {profile.uncertain}.")
        return "\n".join(notes)

    @on(AgentMissing)
    def _agent_missing(self, event: ProbeScreen.AgentMissing) -> None:
        self.hint = event.hint
        self.state = "missing"
        self._show_verdict(f"{event.reason}\nInstall it with:\n  {event.hint}", "-differs")
        self._show_notes(
            "i installs it now (npm, from the registry, into agentpager's cache dir); c copies the command."
        )

    @on(NotSent)
    def _not_sent(self, event: ProbeScreen.NotSent) -> None:
        self.state = "refused"
        self._show_verdict(f"Not sent to {self.title_of_agent}: {event.reason}", "-differs")
        self._show_notes("The profile's answer is in the Profile tab; the agent ran nothing.")
        self.query_one("#answers", TabbedContent).active = "tab-profile"

    @on(Failed)
    def _failed(self, event: ProbeScreen.Failed) -> None:
        self.state = "failed"
        reason = event.reason.strip()
        first, _, rest = reason.partition("\n")
        self._show_verdict(f"{self.title_of_agent} gave no answer: {first}", "-differs")
        for line in rest.splitlines():
            self.query_one("#log", Log).write_line(line)
        self._show_notes("Its output is in the Log tab; a asks again.")

    def _show_verdict(self, text: str, kind: str) -> None:
        verdict = self.query_one("#verdict", Static)
        verdict.update(Text(text))
        verdict.set_class(kind == "-same", "-same")
        verdict.set_class(kind == "-differs", "-differs")

    def _show_notes(self, text: str) -> None:
        notes = self.query_one("#notes", Static)
        notes.update(Text(text))
        notes.set_class(not text, "-none")

    # -- keys ---------------------------------------------------------------------------------------

    def action_back(self) -> None:
        """Back to the workspace; an agent (or npm) still running is stopped with its children."""
        if self.state in ("asking", "installing"):
            self.notify(f"Stopped {self.title_of_agent}: nothing was compared.")
        self._cancel.set()
        self.dismiss(None)

    def action_request(self) -> None:
        """The whole request that carried the agent's answer, part by part, with token counts."""
        if self.answer is None:
            return
        from agentpager.probe.request import parts_of
        from agentpager.tui.screens.request import RequestScreen

        window = int(getattr(getattr(self.app, "config", None), "budget", 0) or DEFAULT_BUDGET)
        parts = parts_of(self.program.dialect(), self.answer.result.request())
        self.app.push_screen(RequestScreen(f"{self.title_of_agent} · model {self.answer.result.model}", parts, window))

    def action_copy(self) -> None:
        if self.state == "missing":
            text, what = self.hint, "the npm command"
        elif self.answer is not None:
            text, what = self.answer.result.text, f"{self.title_of_agent}'s answer"
        else:
            return
        copy = getattr(self.app, "copy_text", None)
        if copy is not None:
            copy(text, what)
        else:
            self.app.copy_to_clipboard(text)
