"""The agentpager app: the workspace tree, the viewer, and the tool panel, wired together."""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterable
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.dom import DOMNode
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Footer

from agentpager.config import DEFAULT_THEME, Config, ConfigError, save_setting
from agentpager.exchange import call_and_result, call_json
from agentpager.transcripts import Transcript, TranscriptError, open_transcript, sniff
from agentpager.transcripts.replay import Replayer
from agentpager.tui.clipboard import copy_with_pyperclip, system_clipboard
from agentpager.tui.failures import ReportsFailures
from agentpager.tui.screens.help import HelpScreen
from agentpager.tui.screens.prompt import PromptScreen
from agentpager.tui.sessions_screen import SessionsScreen
from agentpager.tui.themes import load_themes
from agentpager.tui.tool_panel import ToolPanel
from agentpager.tui.transcript_screen import TranscriptScreen
from agentpager.tui.tree import WorkspaceTree
from agentpager.tui.viewer import FileViewer
from agentpager.workspace import Workspace

NARROW_BELOW = 160
"""Below this many columns the tool panel moves under the viewer."""


def _line_number(text: str) -> int:
    """``text`` as a line number (commas allowed), or 0 when it is not one."""
    digits = text.strip().replace(",", "")
    return int(digits) if digits.isdigit() else 0


def _line_number_problem(text: str) -> str | None:
    return None if _line_number(text) > 0 else "A line number: 1 or more."


class AgentPagerApp(ReportsFailures, App[None]):
    """See a workspace the way an agent's file tools see it."""

    TITLE = "agentpager"
    CSS_PATH = "app.tcss"
    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit"),
        Binding("question_mark", "help", "Help", id="help"),
        Binding("c", "copy_output", "Copy output", id="copy_output"),
        Binding("y", "copy_call", "Copy call", id="copy_call"),
        Binding("C", "copy_pair", "Copy pair", id="copy_pair"),
        Binding("p", "toggle_pin", "Pin/follow", id="toggle_pin"),
        Binding("t", "transcript", "Transcript", id="transcript"),
        Binding("S", "sessions", "Sessions", id="sessions"),
    ]

    MAIN_SCREEN_ACTIONS = frozenset({"copy_output", "copy_call", "copy_pair", "toggle_pin", "transcript"})
    """Keys of the viewer and its tool panel: the other screens neither offer nor take them."""

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

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield WorkspaceTree(self.workspace.root, id="tree")
            with Horizontal(id="work"):
                yield FileViewer(self.workspace, id="viewer")
                yield ToolPanel(self.workspace, id="panel")
        yield Footer()

    @property
    def viewer(self) -> FileViewer:
        return self.query_one(FileViewer)

    @property
    def panel(self) -> ToolPanel:
        return self.query_one(ToolPanel)

    def on_mount(self) -> None:
        # Full garbage collections over Textual's long-lived objects paused the UI for 25-50 ms
        # while scrolling; freezing what exists once the screen is up leaves them out.
        self.call_after_refresh(gc.freeze)
        self._fit_layout(self.size.width)
        self.panel.apply_settings(self.config.budget, self.config.pair_format)
        if self.welcome:
            self.notify(self.welcome, title="agentpager demo", timeout=20)
        for title, problem in self.problems:
            self.notify(problem, title=title, severity="warning", timeout=15)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        if self.open_path:
            self.viewer.open_file(self.open_path)
        else:
            self.query_one(WorkspaceTree).focus()
        if self.replayer is not None:
            self._show_transcript(self.replayer)
        elif self.start_with_sessions:
            self.action_sessions()

    def on_resize(self) -> None:
        self._fit_layout(self.size.width)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        elsewhere = len(self.screen_stack) > 1 and self.screen is not self.screen_stack[0]
        return not (elsewhere and action in self.MAIN_SCREEN_ACTIONS)

    def _fit_layout(self, width: int) -> None:
        self.query_one("#work").set_class(width < NARROW_BELOW, "narrow")

    # -- settings ---------------------------------------------------------------------------------

    def _theme_changed(self, theme: Theme) -> None:
        """A theme chosen (in the command palette) is saved in the config file, for the next start."""
        if theme.name != self._saved_theme and self.config.path is not None:
            self._saved_theme = theme.name
            self._save_theme(self.config.path, theme.name)

    @work(thread=True, group="settings", exit_on_error=False)
    def _save_theme(self, path: Path, name: str) -> None:
        try:
            save_setting(path, "theme", name)
        except (ConfigError, OSError) as error:
            self.notify(f"The theme is used but not saved: {error}", title="Settings", severity="warning")
        else:
            self.config.theme = name
            self.notify(f"Theme {name}, saved in {path}.", title="Settings")

    def handle_bindings_clash(self, clashed_bindings: set[Binding], node: DOMNode) -> None:
        """Keys remapped onto keys already in use: say so once (Textual keeps the first binding)."""
        told = ", ".join(sorted(f"{binding.key} ({binding.action})" for binding in clashed_bindings))
        if told not in self._clashes_told:
            self._clashes_told.add(told)
            self.notify(f"These keys clash: {told}. Change [keys] in the config.", severity="warning")

    # -- wiring -----------------------------------------------------------------------------------

    @on(WorkspaceTree.FileChosen)
    def _file_chosen(self, event: WorkspaceTree.FileChosen) -> None:
        self.panel.pinned = False
        self.viewer.open_file(event.path)
        if event.path.endswith((".jsonl", ".json")):
            self._offer_transcript(event.path)

    @work(thread=True, group="sniff", exclusive=True, exit_on_error=False)
    def _offer_transcript(self, path: str) -> None:
        found = sniff(os.path.join(self.workspace.root.path, path))
        if found:
            self.offered_transcript = path
            self.notify(f"{path} looks like a {found} transcript: press t to see its tool calls.")

    # -- transcripts ------------------------------------------------------------------------------

    def _show_transcript(self, replayer: Replayer) -> None:
        if self.is_screen_installed("transcript"):
            self.uninstall_screen("transcript")
        self.install_screen(TranscriptScreen(replayer.transcript, replayer), "transcript")
        self.push_screen("transcript")

    def action_transcript(self) -> None:
        """Show the transcript again, or open the one the tree offered."""
        if self.offered_transcript is not None:
            self._read_transcript(self.offered_transcript)
            self.offered_transcript = None
        elif self.replayer is not None:
            self.push_screen("transcript")
        else:
            self.notify("No transcript: open one with agentpager transcript FILE, or choose a .jsonl in the tree.")

    @work(thread=True, group="transcript", exclusive=True, exit_on_error=False)
    def _read_transcript(self, path: str) -> None:
        try:
            transcript = open_transcript(os.path.join(self.workspace.root.path, path))
        except TranscriptError as error:
            self.notify(str(error), severity="error")
            return
        self.replayer = Replayer(transcript, self.workspace.root.path)
        self.call_from_thread(self._show_transcript, self.replayer)

    # -- sessions ---------------------------------------------------------------------------------

    def action_sessions(self) -> None:
        """Browse every agent session on this machine."""
        if not self.is_screen_installed("sessions"):
            self.install_screen(SessionsScreen(self.sessions_home), "sessions")
        if self.screen is not self.get_screen("sessions"):
            self.push_screen("sessions")

    @on(SessionsScreen.OpenSession)
    def _open_session(self, event: SessionsScreen.OpenSession) -> None:
        self._read_session(event.info.path)

    @work(thread=True, group="transcript", exclusive=True, exit_on_error=False)
    def _read_session(self, path: str) -> None:
        try:
            transcript = open_transcript(path)
        except TranscriptError as error:
            self.notify(str(error), severity="error")
            return
        self.replayer = Replayer(transcript, self.workspace.root.path)
        self.call_from_thread(self._show_transcript, self.replayer)

    @on(TranscriptScreen.OpenCall)
    def _open_call(self, event: TranscriptScreen.OpenCall) -> None:
        plan = event.replay.plan
        assert plan is not None
        self.pop_screen()
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
            self.viewer.open_file(event.path, event.line)
        else:
            self.viewer.go_to_line(event.line)

    # -- actions ----------------------------------------------------------------------------------

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_goto_line(self) -> None:
        def go(answer: str | None) -> None:
            if answer:
                self.viewer.go_to_line(_line_number(answer))
                self.viewer.focus()

        self.push_screen(PromptScreen("Go to line", "line number", _line_number_problem), go)

    def action_search(self) -> None:
        def searched(answer: str | None) -> None:
            self.viewer.focus()

        self.push_screen(PromptScreen("Search the whole file (regex)", "pattern", self.viewer.search), searched)

    def action_next_match(self) -> None:
        self.viewer.action_next_match(1)

    def action_previous_match(self) -> None:
        self.viewer.action_next_match(-1)

    def action_follow(self) -> None:
        self.viewer.action_toggle_follow()

    def action_toggle_pin(self) -> None:
        self.panel.toggle_pin()

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
            self._copy(json.dumps(messages, indent=2, ensure_ascii=False), f"the {pair_format} message pair")

    def _outcome(self):  # noqa: ANN202 - the panel's Outcome, or None with a note
        outcome = self.panel.outcome
        if outcome is None:
            self.notify("Nothing to copy yet: open a file or choose a directory.", severity="warning")
        return outcome

    def copy_text(self, text: str, what: str) -> None:
        """Copy ``text`` (``what`` names it in the note that says how it was copied)."""
        self._copy(text, what)

    @work(thread=True, group="copy", exit_on_error=False)
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
            ("Go to line", "Make a line the top line of the viewer (:)", self.action_goto_line),
            ("Search", "Search the whole file for a regex (/)", self.action_search),
            ("Next match", "Go to the next search match (n)", self.action_next_match),
            ("Previous match", "Go to the previous search match (N)", self.action_previous_match),
            ("Follow the file", "Follow a growing file, or stop (f)", self.action_follow),
            ("Pin or follow", "Pin the tool call, or let it follow the viewer again (p)", self.action_toggle_pin),
            ("Copy output", "Copy the exact tool output (c)", self.action_copy_output),
            ("Copy call", "Copy the tool call as JSON (y)", self.action_copy_call),
            ("Copy call and result", "Copy both as an OpenAI or Anthropic message pair (C)", self.action_copy_pair),
            ("Transcript", "Show the transcript's tool calls (t)", self.action_transcript),
            ("Sessions", "Browse every Claude Code, Codex and Gemini CLI session (S)", self.action_sessions),
            ("Help", "Show every key (?)", self.action_help),
        ]
        for title, help_text, callback in commands:
            yield SystemCommand(title, help_text, callback)
