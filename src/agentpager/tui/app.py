"""The agentpager app: the workspace tree, the viewer, and the tool panel, wired together."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult, SuspendNotSupported, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.dom import DOMNode
from textual.screen import Screen
from textual.theme import Theme

from agentpager.config import DEFAULT_THEME, Config, ConfigError, KeyTable, save_setting
from agentpager.exchange import call_and_result, call_json, to_json
from agentpager.transcripts import Transcript, TranscriptError, open_transcript, sniff
from agentpager.transcripts.replay import Replayer
from agentpager.tui.clipboard import copy_with_pyperclip, system_clipboard
from agentpager.tui.editor import editor_command
from agentpager.tui.failures import ReportsFailures
from agentpager.tui.footer import FittedFooter
from agentpager.tui.idle_collection import CollectsWhenIdle
from agentpager.tui.lines import one_row
from agentpager.tui.screens.prompt import PromptScreen
from agentpager.tui.screens.reads import ReadsScreen
from agentpager.tui.screens.sessions import SessionsScreen
from agentpager.tui.screens.styled import StyledOnce
from agentpager.tui.screens.transcript import TranscriptScreen
from agentpager.tui.status import CallStatus
from agentpager.tui.themes import load_themes
from agentpager.tui.tool_panel import ToolPanel
from agentpager.tui.tree import WorkspaceTree
from agentpager.tui.type_ahead import KeepsTypedAhead
from agentpager.tui.viewer import FileViewer
from agentpager.workspace import Workspace

SMALL_BELOW = 100
"""Below this many columns the tree is narrower, and the panel shows the call or the output (tabs)."""
WORKSPACE_ACTIONS = frozenset(
    {
        "edit_call",
        "open_file",
        "toggle_tree",
        "copy_output",
        "copy_call",
        "copy_pair",
        "toggle_pin",
        "leave_panel",
        "ask_agent",
        "reads_here",
    }
)
"""App actions on the workspace screen's tree, viewer and panel."""
_PERCENT = re.compile(r"(\d+(?:\.\d*)?)%")


def _line_number(text: str) -> int:
    """``text`` as a line number (commas allowed), or 0 when it is not one."""
    digits = text.strip().replace(",", "")
    return int(digits) if digits.isdigit() else 0


def _fraction(text: str) -> float | None:
    """``text`` as a share of the file (``50%``), or None when it is not one."""
    found = _PERCENT.fullmatch(text.strip())
    return None if found is None or float(found.group(1)) > 100 else float(found.group(1)) / 100


def _line_number_problem(text: str) -> str | None:
    if _line_number(text) > 0 or _fraction(text) is not None:
        return None
    return "A line number (1 or more), or a share of the file such as 50%."


def remappable_keys() -> KeyTable:
    """The keys a config can remap, as the bindings declare them: each binding with an id (its key,
    and its tooltip for what it does: the first one's, where screens share an id), and the command
    palette's."""
    keys = {"command_palette": (AgentPagerApp.COMMAND_PALETTE_BINDING, "Show the command palette")}
    for owner in (AgentPagerApp, FileViewer, WorkspaceTree, ToolPanel, SessionsScreen):
        for binding in owner.BINDINGS:
            if isinstance(binding, Binding) and binding.id:
                keys.setdefault(binding.id, (binding.key, binding.tooltip or binding.description))
    return keys


class WorkspaceScreen(StyledOnce):
    """The app's first screen: the tree, the viewer and the tool panel (composed by the app)."""


class AgentPagerApp(ReportsFailures, KeepsTypedAhead, CollectsWhenIdle):
    """See a workspace the way an agent's file tools see it."""

    TITLE = "agentpager"
    CSS_PATH = "app.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-small"), (SMALL_BELOW, "-narrow"), (160, "-wide")]
    """The screen's class by width: the panel beside the viewer from 160 columns, under it below."""
    BINDINGS = [
        Binding("question_mark", "help", "Help", id="help", tooltip="Show every key"),
        # "Edit call" pushed Copy off the footer at 80 columns
        Binding("e", "edit_call", "Edit", id="edit_call", tooltip="Edit the tool call"),
        Binding("o", "open_file", "Open", id="open_file", tooltip="Open a file by typing letters of its path"),
        Binding("T", "toggle_tree", "Tree", id="toggle_tree", tooltip="Hide or show the tree"),
        Binding("c", "copy_output", "Copy", id="copy_output", tooltip="Copy the tool output"),
        Binding("y", "copy_call", "Copy call", show=False, id="copy_call", tooltip="Copy the call as JSON"),
        Binding(
            "C",
            "copy_pair",
            "Copy pair",
            show=False,
            id="copy_pair",
            tooltip="Copy the call and its result as a message pair",
        ),
        Binding("p", "toggle_pin", "Pin", id="toggle_pin", tooltip="Pin the call, or follow the viewer again"),
        Binding(
            "a",
            "ask_agent",
            "Ask agent",
            show=False,
            id="ask_agent",
            tooltip="Ask the real agent for the call, beside the profile's answer",
        ),
        Binding("t", "transcript", "Transcript", show=False, id="transcript", tooltip="Show the transcript"),
        Binding("S", "sessions", "Sessions", id="sessions", tooltip="Browse every agent session"),
        Binding("q", "quit", "Quit", id="quit", tooltip="Quit"),
    ]

    def __init__(
        self,
        workspace: Workspace,
        open_path: str | None = None,
        theme: str | None = None,
        replayer: Replayer | None = None,
        config: Config | None = None,
        start_with_sessions: bool = False,
        sessions_home: str | None = None,
    ) -> None:
        """``config``: the user's settings (default: the built-in ones, and nothing is saved);
        ``start_with_sessions``: open on the session browser (of ``sessions_home``, default yours)."""
        self.config = config or Config()
        if "command_palette" in self.config.keys:  # read by App.__init__ and by the footer
            self.COMMAND_PALETTE_BINDING = self.config.keys["command_palette"].split(",")[0]  # type: ignore[misc]
        super().__init__()
        self.workspace = workspace
        self.open_path = open_path
        self.replayer = replayer
        self.offered_transcript: str | None = None
        self.start_with_sessions = start_with_sessions
        self.sessions_home = sessions_home
        self.welcome: str | None = None
        """A note shown once the app is up (the demo's)."""
        self.search_history: list[str] = []
        self.line_history: list[str] = []
        self.problems = self._use_settings(theme)
        self._saved_theme = self.theme
        self._clashes_told: set[str] = set()

    def _use_settings(self, theme: str | None) -> list[tuple[str, str]]:
        """Register the themes, choose one, remap the keys; (title, text) for each file with problems."""
        user_themes = self.config.path.parent / "themes" if self.config.path is not None else None
        loaded = load_themes(user_themes)
        for found in loaded.themes:
            self.register_theme(found)
        config_problems = list(self.config.problems)
        wanted = self.config.theme
        if not theme and wanted and wanted not in self.available_themes:
            config_problems.append(
                f"{self.config.path}: theme: '{wanted}' is not a theme (themes: {', '.join(loaded.names)}); "
                f"using {DEFAULT_THEME}."
            )
            wanted = None
        self.theme = theme or wanted or DEFAULT_THEME
        self.set_keymap({key: value for key, value in self.config.keys.items() if key != "command_palette"})
        problems = [("Settings not used", "\n".join(config_problems))] if config_problems else []
        return problems + [("Theme skipped", problem) for problem in loaded.problems]

    @classmethod
    def for_transcript(
        cls, transcript: Transcript, root: str | None = None, theme: str | None = None, config: Config | None = None
    ) -> AgentPagerApp:
        """The app on the transcript's workspace, showing the transcript first."""
        replayer = Replayer(transcript, root)
        return cls(replayer.workspace, theme=theme, replayer=replayer, config=config)

    def get_default_screen(self) -> Screen[Any]:
        return WorkspaceScreen(id="_default")

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield WorkspaceTree(self.workspace, id="tree")
            with Horizontal(id="work"):
                yield FileViewer(self.workspace, id="viewer")
                yield ToolPanel(self.workspace, id="panel")
        yield CallStatus(id="status")
        yield FittedFooter()

    @property
    def viewer(self) -> FileViewer:
        return self.screen_stack[0].query_one(FileViewer)

    @property
    def panel(self) -> ToolPanel:
        return self.screen_stack[0].query_one(ToolPanel)

    @property
    def workspace_tree(self) -> WorkspaceTree:
        return self.screen_stack[0].query_one(WorkspaceTree)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The workspace's keys act on its screen: over another (sessions, help) they are neither
        shown in the footer nor run."""
        return action not in WORKSPACE_ACTIONS or self.screen is self.screen_stack[0]

    def on_mount(self) -> None:
        self.panel.apply_settings(self.config.budget, self.config.pair_format)
        self.viewer.reads_home = self.sessions_home
        if self.welcome:
            self.notify(self.welcome, title="agentpager demo", timeout=10)
        for title, problem in self.problems:
            self.notify(problem, title=title, severity="warning", timeout=15, markup=False)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.watch(self.panel, "pinned", self._pinned_changed, init=False)
        self.watch(self.viewer, "scroll_y", self.idle_collections.saw_activity, init=False)
        if self.open_path:
            if self.size.width < SMALL_BELOW:  # a file to read in a small terminal: give it the width
                self.workspace_tree.display = False
            self._open(self.open_path, focus=True)  # a transcript given to open is offered, as in the tree
        else:
            self.workspace_tree.focus()
        if self.replayer is not None:
            self._show_transcript(self.replayer)
        elif self.start_with_sessions:
            self.action_sessions()

    # -- settings ---------------------------------------------------------------------------------

    def _theme_changed(self, theme: Theme) -> None:
        """A theme chosen (in the command palette) is saved in the config file, for the next start."""
        if theme.name != self._saved_theme and self.config.path is not None:
            self._saved_theme = theme.name
            self._save_theme(self.config.path, theme.name)

    @work(thread=True, group="settings", exit_on_error=False, description="saving the theme")
    def _save_theme(self, path: Path, name: str) -> None:
        try:
            save_setting(path, "theme", name, remappable_keys())
        except (ConfigError, OSError) as error:
            self.notify(f"The theme is used but not saved: {error}", title="Settings", severity="warning", markup=False)
        else:
            self.config.theme = name
            self.notify(f"Theme {name}, saved in {path}.", title="Settings", markup=False)

    def handle_bindings_clash(self, clashed_bindings: set[Binding], node: DOMNode) -> None:
        """Keys remapped onto keys already in use: say so once (Textual keeps the first binding)."""
        told = ", ".join(sorted(f"{binding.key} ({binding.action})" for binding in clashed_bindings))
        if told not in self._clashes_told:
            self._clashes_told.add(told)
            self.notify(f"These keys clash: {told}. Change [keys] in the config.", severity="warning", markup=False)

    # -- wiring -----------------------------------------------------------------------------------

    @on(WorkspaceTree.FileChosen)
    def _file_chosen(self, event: WorkspaceTree.FileChosen) -> None:
        """A file chosen in the tree is shown while the focus stays in the tree; the file shown stays
        where it is, and the panel follows it again."""
        viewer = self.viewer
        if event.path == viewer.path and viewer.view is not None:
            self.panel.pinned = False
            self.panel.follow_file(viewer.view, viewer.window)
            return
        self._open(event.path, focus=False)

    def _open(self, path: str, focus: bool) -> None:
        self.panel.pinned = False
        self.viewer.open_file(path, focus=focus)
        if path.endswith((".jsonl", ".json")):
            self._offer_transcript(path)

    @work(thread=True, group="sniff", exclusive=True, exit_on_error=False, description="looking for a transcript")
    def _offer_transcript(self, path: str) -> None:
        found = sniff(path, filesystem=self.workspace.filesystem)
        if found:
            self.offered_transcript = path
            offer = f"{one_row(path)} looks like a {found} transcript: press t to see its tool calls."
            self.notify(offer, markup=False)

    # -- transcripts ------------------------------------------------------------------------------

    def _show_transcript(self, replayer: Replayer, at_line: int | None = None) -> None:
        """Show a transcript in place of the last one (at the call on line ``at_line`` of its log).
        When the last one is under the session browser (opened from it), it leaves the stack and the
        browser stays under the new one."""

        async def show() -> None:
            if self.is_screen_installed("transcript"):
                old = self.get_screen("transcript")
                kept: list[Screen[Any]] = []
                if old in self.screen_stack:
                    above = self.screen_stack[self.screen_stack.index(old) + 1 :]
                    kept = [screen for screen in above if self.is_screen_installed(screen)]
                    for _ in range(len(above) + 1):
                        await self.pop_screen()
                self.uninstall_screen("transcript")
                for screen in kept:
                    await self.push_screen(screen)
            self.install_screen(TranscriptScreen(replayer.transcript, replayer, at_line), "transcript")
            await self.push_screen("transcript")

        self.call_later(show)

    def action_transcript(self) -> None:
        """Show the transcript again, or open the one the tree offered."""
        if self.offered_transcript is not None:
            self._read_transcript(self.offered_transcript)
            self.offered_transcript = None
        elif self.replayer is not None:
            self.push_screen("transcript")
        else:
            self.notify("No transcript: open one with agentpager transcript FILE, or choose a .jsonl in the tree.")

    @work(thread=True, group="transcript", exclusive=True, exit_on_error=False, description="reading a transcript")
    def _read_transcript(self, path: str) -> None:
        try:
            transcript = open_transcript(path, wait=False, paused=True, filesystem=self.workspace.filesystem)
        except TranscriptError as error:
            self.notify(str(error), severity="error", markup=False)
            return
        self.replayer = Replayer(transcript, workspace=self.workspace)
        self.call_from_thread(self._show_transcript, self.replayer)

    # -- sessions ---------------------------------------------------------------------------------

    def action_sessions(self) -> None:
        """Browse every agent session on this machine (back to the browser when a session was opened
        from it: it is in the stack once)."""
        if not self.is_screen_installed("sessions"):
            self.install_screen(SessionsScreen(self.sessions_home), "sessions")
        sessions = self.get_screen("sessions")
        if sessions not in self.screen_stack:
            self.push_screen(sessions)
        while self.screen is not sessions:
            self.pop_screen()

    @on(SessionsScreen.OpenSession)
    def _open_session(self, event: SessionsScreen.OpenSession) -> None:
        self._read_session(event.info.path, event.line)

    @on(ReadsScreen.OpenSession)
    def _open_read(self, event: ReadsScreen.OpenSession) -> None:
        self._read_session(event.path, event.line)

    @work(thread=True, group="transcript", exclusive=True, exit_on_error=False, description="reading a session")
    def _read_session(self, path: str, at_line: int | None = None) -> None:
        try:
            transcript = open_transcript(path, wait=False, paused=True)
        except TranscriptError as error:
            self.notify(str(error), severity="error", markup=False)
            return
        self.replayer = Replayer(transcript, workspace=self.workspace)
        self.call_from_thread(self._show_transcript, self.replayer, at_line)

    def action_reads_here(self) -> None:
        """Every session's calls whose reads covered the line in focus of the viewer's file."""
        viewer = self.viewer
        if viewer.view is None or not viewer.line_count:
            self.notify("Open a file first: this lists the calls of every session that read a line of it.")
            return
        path = os.path.join(self.workspace.root.path, viewer.path)
        reads = ReadsScreen(path, viewer.path, viewer.line_in_focus, self.sessions_home)
        self.push_screen(reads, lambda updated: viewer.count_reads() if updated else None)

    def action_workspace(self) -> None:
        """Back to the workspace from the screens over it (a transcript opened from the session
        browser is over the browser: both stay installed, for ``t`` and ``S``)."""
        while len(self.screen_stack) > 1:
            self.pop_screen()

    @on(TranscriptScreen.OpenCall)
    def _open_call(self, event: TranscriptScreen.OpenCall) -> None:
        plan = event.replay.plan
        assert plan is not None
        self.action_workspace()
        self.panel.load_call(plan.profile, plan.tool, plan.arguments)

    @on(WorkspaceTree.DirectoryChosen)
    def _directory_chosen(self, event: WorkspaceTree.DirectoryChosen) -> None:
        self.panel.pinned = False
        self.panel.follow_directory(event.path, event.file_offset)

    @on(FileViewer.WindowChanged)
    def _window_changed(self, event: FileViewer.WindowChanged) -> None:
        if event.viewer.view is not None:
            self.panel.follow_file(event.viewer.view, event.window)

    @on(FileViewer.Failed)
    def _file_failed(self, event: FileViewer.Failed) -> None:
        self.panel.follow_unreadable_file(event.path)

    @on(ToolPanel.ShowLine)
    def _show_line(self, event: ToolPanel.ShowLine) -> None:
        if event.path != self.viewer.path:
            self.viewer.open_file(event.path, event.line, focus=False)
        else:
            self.viewer.go_to_line(event.line)

    @on(ToolPanel.Ran)
    def _ran(self, event: ToolPanel.Ran) -> None:
        self.query_one(CallStatus).show(event.outcome, self.panel.pinned)
        self.viewer.shade(event.outcome.shading if event.outcome else None)

    def _pinned_changed(self, pinned: bool) -> None:
        self.query_one(CallStatus).show(self.panel.outcome, pinned)

    @on(ToolPanel.ProfileChosen)
    def _profile_chosen(self, event: ToolPanel.ProfileChosen) -> None:
        self.workspace_tree.use_workspace(event.workspace)

    # -- actions ----------------------------------------------------------------------------------

    def action_help(self) -> None:
        from agentpager.tui.screens.help import HelpScreen  # Markdown: imported when first asked for

        self.push_screen(HelpScreen(self.screen))

    async def action_goto_line(self) -> None:
        def go(answer: str | None) -> None:
            if answer:
                fraction = _fraction(answer)
                if fraction is not None:
                    self.viewer.go_to_fraction(fraction)
                else:
                    self.viewer.jump_to_line(_line_number(answer))
                self.viewer.focus()

        prompt = PromptScreen(
            "Go to line", "line number, or 50%", _line_number_problem, self.line_history, "It becomes the top line."
        )
        await self.push_screen(prompt, go)

    async def action_search(self) -> None:
        def searched(answer: str | None) -> None:
            self.viewer.focus()

        hint = "Case matters only with a capital letter. n / N: next / previous match. ↑ ↓: earlier searches."
        prompt = PromptScreen("Search the whole file (regex)", "pattern", self.viewer.search, self.search_history, hint)
        await self.push_screen(prompt, searched)

    def action_toggle_tree(self) -> None:
        """Show the tree and focus it, or hide it (the viewer takes its focus). The focus moves now,
        not after a refresh as ``focus()`` moves it: a Tab typed right after moves on from there."""
        tree = self.workspace_tree
        tree.display = not tree.display
        if tree.display:
            self.screen.set_focus(tree)
        elif self.focused is None or self.focused is tree:
            self.screen.set_focus(self.viewer)

    def action_edit_call(self) -> None:
        self.panel.edit()

    def action_leave_panel(self) -> None:
        """Escape in the panel: back to the viewer (a small terminal shows the output tab again)."""
        self.panel.tab = "output"
        self.viewer.focus()

    async def action_open_file(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                self._open(path, focus=True)

        from agentpager.tui.screens.find_file import FindFile

        await self.push_screen(FindFile(self.workspace), chosen)

    def action_open_in_editor(self) -> None:
        """Hand the terminal to ``$VISUAL`` or ``$EDITOR`` at the line in view, then read the file again."""
        viewer = self.viewer
        if viewer.view is None:
            self.notify("Open a file first: then v opens it in your editor at the line you see.", severity="warning")
            return
        line = None if viewer.view.kind == "document" else viewer.line_in_focus
        command = editor_command(os.environ, os.path.join(self.workspace.root.path, viewer.path), line)
        try:
            with self.suspend():
                subprocess.run(command, check=False)
        except SuspendNotSupported:
            self.notify("This terminal cannot be handed to an editor.", severity="warning")
            return
        except OSError as error:
            self.notify(
                f"Could not run {command[0]}: {error.strerror or error}. Set $VISUAL or $EDITOR.", severity="error"
            )
            return
        viewer.recount()

    def action_next_match(self) -> None:
        self.viewer.action_next_match(1)

    def action_previous_match(self) -> None:
        self.viewer.action_next_match(-1)

    def action_follow(self) -> None:
        self.viewer.action_toggle_follow()

    def action_toggle_pin(self) -> None:
        self.panel.toggle_pin()

    def action_ask_agent(self) -> None:
        """Ask the real agent the profile stands for to answer the panel's call (or say why there is none)."""
        outcome = self.panel.outcome
        if outcome is None:
            self.notify(
                "No call yet: open a file, then a asks the real agent for the panel's call.", severity="warning"
            )
            return
        workspace = self.workspace.with_profile(outcome.profile)
        if workspace.real_agent is None:
            self.notify(
                f"The {workspace.profile_name} profile has no real agent to ask: {workspace.ground_truth}.",
                title="Ask the real agent",
                timeout=12,
            )
            return
        from agentpager.tui.screens.probe import ProbeScreen  # the probe's machinery: imported when first used

        self.push_screen(ProbeScreen(workspace, outcome.tool, outcome.arguments, workspace.real_agent))

    def action_copy_output(self) -> None:
        if outcome := self._outcome():
            self._copy(outcome.result.text, "the output")

    def action_copy_call(self) -> None:
        if outcome := self._outcome():
            self._copy(call_json(outcome.tool, outcome.arguments), "the call")

    def action_copy_pair(self) -> None:
        if outcome := self._outcome():
            pair_format = self.panel.pair_format
            messages = call_and_result(
                pair_format, outcome.tool, outcome.arguments, outcome.result.text, outcome.result.is_error
            )
            self._copy(to_json(messages, indent=2), f"the {pair_format} message pair")

    def _outcome(self):  # noqa: ANN202 - the panel's Outcome, or None with a note
        outcome = self.panel.outcome
        if outcome is None:
            self.notify("Nothing to copy yet: open a file or choose a directory.", severity="warning")
        return outcome

    def copy_text(self, text: str, what: str) -> None:
        """Copy ``text`` (``what`` names it in the note that says how it was copied)."""
        self._copy(text, what)

    @work(thread=True, group="copy", exit_on_error=False, description="copying")
    def _copy(self, text: str, what: str) -> None:
        mechanism = system_clipboard()
        if mechanism and copy_with_pyperclip(text):
            self.notify(f"Copied {what} ({len(text):,} chars) with {mechanism}.")
            return
        self.call_from_thread(self.copy_to_clipboard, text)
        self.notify(f"Copied {what} ({len(text):,} chars) through the terminal (OSC 52).")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        commands = [
            ("Open file", "Find a file by typing letters of its path (o)", self.action_open_file),
            ("Edit the call", "Edit the call's arguments or its JSON (e)", self.action_edit_call),
            ("Show or hide the tree", "Give the viewer the tree's columns (T)", self.action_toggle_tree),
            ("Wrap lines", "Fold long lines, or scroll them sideways (w)", self.viewer.action_toggle_wrap),
            ("Open in $EDITOR", "Edit the file at the line you see (v)", self.action_open_in_editor),
            ("Go to line", "Make a line (or 50% of the file) the top line of the viewer (:)", self.action_goto_line),
            ("Search", "Search the whole file for a regex (/)", self.action_search),
            ("Next match", "Go to the next search match (n)", self.action_next_match),
            ("Previous match", "Go to the previous search match (N)", self.action_previous_match),
            ("Follow the file", "Follow a growing file, or stop (f)", self.action_follow),
            ("Pin or follow", "Pin the tool call, or let it follow the viewer again (p)", self.action_toggle_pin),
            (
                "Ask the real agent",
                "Run the call with the installed agent the profile stands for, and compare (a)",
                self.action_ask_agent,
            ),
            ("Copy output", "Copy the exact tool output (c)", self.action_copy_output),
            ("Copy call", "Copy the tool call as JSON (y)", self.action_copy_call),
            ("Copy call and result", "Copy both as an OpenAI or Anthropic message pair (C)", self.action_copy_pair),
            ("Transcript", "Show the transcript's tool calls (t)", self.action_transcript),
            ("Sessions", "Browse every Claude Code, Codex and Gemini CLI session (S)", self.action_sessions),
            ("Help", "Show every key (?)", self.action_help),
        ]
        for title, help_text, callback in commands:
            yield SystemCommand(title, help_text, callback)
