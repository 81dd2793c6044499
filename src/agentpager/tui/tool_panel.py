"""The tool panel: the call an agent would make for what you are looking at, and its exact output.

It follows the viewer (and the tree) until you edit an argument or the call's JSON: then the call is
pinned, and the viewer moves to the window it reads. Arguments are checked as you type with the
same checks the tools run; nothing is sent until they are valid. In a small terminal the call and
the output are two tabs; the one-line status under the screen always says what the output costs.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from typing import Any, Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Checkbox, Input, Label, Select, Static, Tab, Tabs, TextArea

from agentpager.exchange import PAIR_FORMATS, call_json, read_call
from agentpager.fileview import FileView
from agentpager.tui.failures import ReportsFailures
from agentpager.tui.lines import Shading, one_row
from agentpager.tui.output_area import OutputArea
from agentpager.tui.viewer import Window
from agentpager.workspace import ToolError, ToolResult, ToolSpec, Workspace, overflow_severity

DEFAULT_CONTEXT_WINDOW = 200_000


@dataclass(frozen=True)
class Outcome:
    """A call that ran: what was sent and what came back, and what it covers of the viewer's file."""

    profile: str
    tool: str
    arguments: dict[str, Any]
    result: ToolResult
    tokens: int
    shading: Shading | None = None


class ArgumentField(Input):
    """An argument's field: its value exact, a file name's control characters shown as their
    pictures (an escape sequence in a name reached the terminal), one for one: the cursor stays true."""

    @property
    def _value(self) -> Text:  # what Textual's Input draws (8.2.8)
        return Text(one_row(self.value), no_wrap=True, overflow="ignore", end="")


class ProfileSelect(Select[str]):
    """The profile chooser. It offers only the chosen profile until it is first focused: listing
    every profile imports every agent's tools (0.1 s), which the app's first paint need not wait for."""

    def __init__(self, profile: str, **options: Any) -> None:
        super().__init__([(profile, profile)], value=profile, allow_blank=False, **options)
        self.every = False
        """Whether every profile is offered yet."""

    def show(self, profile: str) -> None:
        """Show ``profile`` chosen, without a Changed message."""
        with self.prevent(Select.Changed):
            if not self.every:
                self.set_options([(profile, profile)])
            self.value = profile

    def on_focus(self) -> None:
        if not self.every:
            self.every = True
            with self.prevent(Select.Changed):
                profile = self.value
                self.set_options([(name, name) for name in Workspace.profile_names()])
                self.value = profile


class ToolPanel(ReportsFailures, Vertical):
    """Profile, tool, arguments, the call as JSON, the exact output, and the budget it fits."""

    @dataclass
    class ShowLine(Message):
        """A hand-made call reads this file from this line: show it there."""

        path: str
        line: int

    @dataclass
    class Ran(Message):
        """A call ran: what was sent and what came back (None: no call is shown)."""

        outcome: Outcome | None

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, ToolPanel.Ran)

    @dataclass
    class Followed(Message):
        """The call for the viewer's window, worked out off the UI thread."""

        tool: str
        arguments: dict[str, Any]

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, ToolPanel.Followed)

    @dataclass
    class Carried(Message):
        """The new profile's call for the window a pinned call read (after the profile was switched)."""

        tool: str
        arguments: dict[str, Any]

    @dataclass
    class ProfileChosen(Message):
        """The panel's profile changed: the tree marks the paths this profile refuses."""

        workspace: Workspace

    BINDINGS = [
        Binding(
            "escape",
            "app.leave_panel",
            "Back",
            id="leave_panel",
            tooltip="Leave the panel for the viewer",
        ),
        Binding("tab", "app.focus_next", "Next field", show=False),
        Binding("shift+tab", "app.focus_previous", "Previous field", show=False),
    ]
    DEFAULT_CSS = """
    ToolPanel {
        width: 66;
        border-left: tall $panel;
        padding: 0 1;
        #panel-tabs { display: none; height: 1; }
        #panel-tabs Underline { display: none; }
        #parts { height: 1fr; }
        #call-part { height: auto; max-height: 60%; scrollbar-size-vertical: 1; }
        #output-part { height: 1fr; }
        #chooser { height: 1; margin-bottom: 1; }
        #chooser Select { width: 1fr; margin-right: 1; }
        #arguments { height: auto; }
        .argument-row { height: auto; }
        .argument { height: 1; }
        .argument Label { color: $text-muted; }
        .argument Input { width: 1fr; }
        .argument-error { color: $error; height: auto; }
        .argument-error.-none { display: none; }
        #call { height: auto; max-height: 12; margin-top: 1; background: $boost; border: none; padding: 0 1; }
        #call-problem { color: $error; height: auto; }
        #call-problem.-none { display: none; }
        #mode { height: auto; color: $text-muted; }
        #mode.pinned { color: $warning; }
        #output { height: 1fr; min-height: 3; }
        #stats { height: auto; margin-top: 1; }
        #budget { height: 1; }
        #budget Label { width: auto; color: $text-muted; margin-right: 1; }
        #budget Input { width: 1fr; max-width: 10; margin-right: 1; }
        #budget Select { width: 1fr; min-width: 13; max-width: 16; }
        .section { color: $text-muted; text-style: bold; margin-top: 1; }
    }
    """

    pinned = reactive(False)
    tab = reactive("output")
    """The part a small terminal shows: ``call`` or ``output``."""

    def __init__(self, workspace: Workspace, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_class("-show-output", update=False)  # the tab's class from the start: not a restyle at mount
        self.workspace = workspace
        self.profile = workspace.profile_name
        self.tool = workspace.tool_names()[0]
        self.arguments: dict[str, Any] = {}
        self.outcome: Outcome | None = None
        self.view: FileView | None = None
        self._set_by_panel: dict[str, list[str | bool]] = {}
        """Per field, the values the panel set whose Changed events have not come back yet (two sets
        before the first event: the first value is not a person's edit either)."""
        self._fields: dict[str, Input | Checkbox] = {}
        self._errors: dict[str, Static] = {}
        self._call_number = 0
        self._last_window: Window | None = None
        self._unreadable: str | None = None
        """The file the panel follows that the viewer cannot show (its call answers the agent's error)."""
        self._directory: tuple[str, int | None] | None = None
        """The directory the panel follows, and where the page of its files shown starts (None: the
        call an agent makes first)."""
        self._edit_base: dict[str, Any] = {}
        """The call before a person started editing it (a window's end moves with its start from there)."""
        self._touched: set[str] = set()
        """The arguments the person changed since (the others are the panel's to set)."""
        self._context_window = DEFAULT_CONTEXT_WINDOW
        """The budget's window when its field is empty: the settings'."""

    # -- layout -----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Tabs(Tab("call", id="call-tab"), Tab("output", id="output-tab"), active="output-tab", id="panel-tabs")
        with Vertical(id="parts"):
            with VerticalScroll(id="call-part"):
                with Horizontal(id="chooser"):
                    yield ProfileSelect(self.profile, compact=True, id="profile")
                    yield Select(self._tool_options(), value=self.tool, allow_blank=False, compact=True, id="tool")
                yield Static("", id="mode")
                yield Vertical(id="arguments")
                yield TextArea(
                    "",
                    soft_wrap=True,
                    compact=True,
                    highlight_cursor_line=False,
                    id="call",
                    tooltip="The call as JSON: edit it, or paste a call (also an OpenAI or Anthropic one)",
                )
                yield Static("", id="call-problem", classes="-none")
            with Vertical(id="output-part"):
                yield Label("Output", classes="section")
                yield OutputArea(id="output")
                yield Static("", id="stats")
                with Horizontal(id="budget"):
                    yield Label("budget")
                    yield Input(
                        f"{DEFAULT_CONTEXT_WINDOW:,}",
                        placeholder=f"{DEFAULT_CONTEXT_WINDOW:,}",
                        compact=True,
                        id="window",
                        tooltip="context window (tokens); empty: the settings' window",
                    )
                    yield Label("used")
                    yield Input("0", placeholder="0", compact=True, id="used", tooltip="tokens already used")
                    yield Label("pair")
                    yield Select(
                        [(name, name) for name in PAIR_FORMATS],
                        value="openai",
                        allow_blank=False,
                        compact=True,
                        id="pair",
                    )

    def on_mount(self) -> None:
        self.border_title = "tool call"
        self.query_one("#call", TextArea).match_cursor_bracket = False
        self._build_form()
        self.watch_pinned(False)
        self.watch_tab("output")

    def _tool_options(self) -> list[tuple[str, str]]:
        return [(name, name) for name in self._workspace().tool_names()]

    def _workspace(self) -> Workspace:
        return (
            self.workspace if self.workspace.profile_name == self.profile else self.workspace.with_profile(self.profile)
        )

    @property
    def spec(self) -> ToolSpec:
        spec = self._workspace().tool_spec(self.tool)
        assert spec is not None
        return spec

    @property
    def pair_format(self) -> str:
        return str(self.query_one("#pair", Select).value)

    # -- tabs (small terminals) -------------------------------------------------------------------

    @on(Tabs.TabActivated, "#panel-tabs")
    def _tab_chosen(self, event: Tabs.TabActivated) -> None:
        self.tab = "call" if event.tab.id == "call-tab" else "output"

    def watch_tab(self, tab: str) -> None:
        self.set_class(tab == "call", "-show-call")
        self.set_class(tab == "output", "-show-output")
        tabs = self.query_one("#panel-tabs", Tabs)
        if tabs.active != f"{tab}-tab":
            tabs.active = f"{tab}-tab"

    def edit(self) -> None:
        """Show the call and put the cursor in its first argument after the file (or in the first)."""
        self.tab = "call"
        params = self.spec.params
        wanted = next((param.name for param in params if not param.is_path), params[0].name if params else None)
        target = self._fields.get(wanted) if wanted else None
        (target or self.query_one("#call", TextArea)).focus()

    # -- the form ---------------------------------------------------------------------------------

    def _build_form(self) -> None:
        form = self.query_one("#arguments", Vertical)
        form.remove_children()
        self._fields, self._errors, self._set_by_panel = {}, {}, {}
        rows = []
        # the names' column: the longest name and a space, so that no name runs into its value
        names_width = 1 + max((len(param.name) for param in self.spec.params if param.type != "boolean"), default=0)
        for param in self.spec.params:
            field: Input | Checkbox
            if param.type == "boolean":
                field = Checkbox(param.name, bool(param.default), compact=True, tooltip=param.description)
            else:
                hint = (
                    "required" if param.required else "absent" if param.default is None else f"default {param.default}"
                )
                field = ArgumentField(placeholder=hint, compact=True, tooltip=param.description)
            self._fields[param.name] = field
            self._errors[param.name] = Static("", classes="argument-error -none")  # no error: no restyle
            self._errors[param.name].styles.padding = (0, 0, 0, names_width)
            label = Label("" if param.type == "boolean" else param.name)
            label.styles.width = names_width
            rows.append(
                Vertical(Horizontal(label, field, classes="argument"), self._errors[param.name], classes="argument-row")
            )
        form.mount_all(rows)
        self._fill_form(self.arguments)

    def _fill_form(self, arguments: dict[str, Any]) -> None:
        """Show ``arguments`` in the form without taking it for an edit."""
        for param in self.spec.params:
            value = arguments.get(param.name)
            field = self._fields[param.name]
            if isinstance(field, Checkbox):
                shown: str | bool = bool(param.default) if value is None else bool(value)
            else:
                shown = "" if value is None else json.dumps(value) if isinstance(value, list) else str(value)
            if field.value != shown:
                self._set_by_panel.setdefault(param.name, []).append(shown)
                field.value = shown
            self._show_error(param.name, "")

    def _show_error(self, name: str, error: str) -> None:
        self._errors[name].update(error)
        self._errors[name].set_class(not error, "-none")

    def _read_form(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The arguments the form holds, and an error per argument that is not valid."""
        arguments: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for param in self.spec.params:
            field = self._fields[param.name]
            if isinstance(field, Checkbox):
                if field.value != param.default:
                    arguments[param.name] = field.value
                continue
            text = field.value.strip()
            if not text:
                if param.required:
                    errors[param.name] = "required"
                continue
            try:
                value = param.coerce(text)
            except ToolError as error:
                errors[param.name] = error.message
                continue
            if param.minimum is not None and value < param.minimum:
                errors[param.name] = f"must be >= {param.minimum}"
                continue
            arguments[param.name] = value
        return arguments, errors

    @on(Input.Changed, "#arguments Input")
    @on(Checkbox.Changed, "#arguments Checkbox")
    def _edited(self, event: Input.Changed | Checkbox.Changed) -> None:
        name = next((name for name, field in self._fields.items() if field is event.control), None)
        if name is None:
            return  # a field of a form that was just replaced
        if event.value in self._set_by_panel.get(name, ()):
            del self._set_by_panel[name][: self._set_by_panel[name].index(event.value) + 1]
            return
        self._touched.add(name)
        form, errors = self._read_form()
        for param_name in self._errors:
            self._show_error(param_name, errors.get(param_name, ""))
        if errors:
            return
        edited = {key: value for key, value in self._edit_base.items() if key not in self._touched}
        edited |= {key: value for key, value in form.items() if key in self._touched}
        arguments = self._workspace().after_edit(self.tool, self._edit_base, edited)
        self._fill_form(arguments)
        self._use(arguments, edited=True)

    def _use(self, arguments: dict[str, Any], edited: bool = False) -> None:
        """Pin and run a call a person made (``edited``: in the form), and show where it reads."""
        self.pinned = True
        self.arguments = arguments
        self._run(edited)
        self._show_the_line()

    # -- the call as JSON -------------------------------------------------------------------------

    def _show_json(self) -> None:
        editor = self.query_one("#call", TextArea)
        if editor.has_focus:
            return  # never rewrite what a person is typing
        with editor.prevent(TextArea.Changed):
            editor.load_text(call_json(self.tool, self.arguments))
        self._show_call_problem("")

    def _show_call_problem(self, problem: str) -> None:
        shown = self.query_one("#call-problem", Static)
        shown.update(problem)
        shown.set_class(not problem, "-none")

    @on(TextArea.Changed, "#call")
    def _json_edited(self, event: TextArea.Changed) -> None:
        try:
            tool, arguments = read_call(event.text_area.text)
        except ValueError as error:
            self._show_call_problem(str(error))
            return
        profile = self._profile_with(tool, arguments)
        if profile is None:
            self._show_call_problem(f"No profile has a tool '{tool}' taking {', '.join(arguments) or 'no arguments'}.")
            return
        self._show_call_problem("")
        if (profile, tool, arguments) == (self.profile, self.tool, self.arguments):
            return
        if (profile, tool) != (self.profile, self.tool):
            if profile != self.profile:
                self.profile = profile
                self.post_message(self.ProfileChosen(self._workspace()))
            self.tool, self.arguments = tool, arguments
            self._build_form()
            self._show_choices()
        else:
            self._fill_form(arguments)
        self._use(arguments)

    def _profile_with(self, tool: str, arguments: dict[str, Any]) -> str | None:
        """This profile if it has ``tool`` with these arguments, else the first profile that has."""
        for name in (self.profile, *Workspace.profile_names()):
            found = self.workspace.with_profile(name).tool_spec(tool)
            if found is not None and set(arguments) <= {param.name for param in found.params}:
                return name
        return None

    # -- choosing a profile or a tool -------------------------------------------------------------

    def _show_the_line(self) -> None:
        """Move the viewer to where a hand-made read call reads (opening its file first)."""
        self._locate(self._workspace(), self.tool, dict(self.arguments))

    @work(thread=True, exclusive=True, group="line", exit_on_error=False, description="the line a call starts at")
    def _locate(self, workspace: Workspace, tool: str, arguments: dict[str, Any]) -> None:
        """Where a call reads, found off the UI thread (a character or byte offset may index the file)."""
        coverage = workspace.coverage(tool, arguments)
        if coverage is not None:
            self.post_message(self.ShowLine(coverage.path, coverage.first_line))

    def load_call(self, profile: str, tool: str, arguments: dict[str, Any]) -> None:
        """Show and pin a given call (from a transcript, say), and the window it reads."""
        self.pinned = True
        if profile != self.profile:
            self.profile = profile
            self.post_message(self.ProfileChosen(self._workspace()))
        self.tool, self.arguments = tool, dict(arguments)
        self._show_choices()
        self._build_form()
        self._run()
        self._show_the_line()

    def _show_choices(self) -> None:
        """Make the profile and tool selectors show the current profile and tool. They only echo the
        state, so their changes are not handled (new options select the first tool on the way)."""
        self.query_one(ProfileSelect).show(self.profile)
        tools = self.query_one("#tool", Select)
        with tools.prevent(Select.Changed):
            tools.set_options(self._tool_options())
            tools.value = self.tool

    @on(Select.Changed, "#profile")
    def _profile_chosen(self, event: Select.Changed) -> None:
        if event.value == self.profile:
            return
        before, tool, arguments = self._workspace(), self.tool, dict(self.arguments)
        self.profile = str(event.value)
        self.post_message(self.ProfileChosen(self._workspace()))
        if self.pinned:  # the form waits for the new profile's call for the same lines
            self.tool, self.arguments = self._workspace().tool_names()[0], {}
            self._build_form()
            self._carry_over(before, self._workspace(), tool, arguments, self.view)
        else:
            self._follow_anew()
        self._show_choices()

    def _follow_anew(self) -> None:
        """The new profile's call for what the panel follows: an unreadable file's read, a directory's
        listing, else the viewer's window. With none of them (nothing chosen yet, a directory this
        profile cannot list), its first tool's form and no call: not its read with no arguments."""
        workspace = self._workspace()
        if self._unreadable is not None:
            call = workspace.read_call(self._unreadable)
        elif self._directory is not None and (listing := workspace.listing_call(*self._directory)) is not None:
            call = listing
        elif self.view is not None:
            self._choose_tool(*self._read_call())
            return
        else:
            if self._directory is not None:
                self._say_it_cannot_list()
            self._show_no_call()
            return
        self.tool, self.arguments = call
        self._build_form()
        self._run()

    def _show_no_call(self) -> None:
        self.tool, self.arguments = self._workspace().tool_names()[0], {}
        self._build_form()
        self._show_json()
        self._call_number += 1  # a call still running is not shown either
        self.post_message(self.Ran(None))

    @work(
        thread=True,
        exclusive=True,
        group="carry",
        exit_on_error=False,
        description="the window carried to another profile",
    )
    def _carry_over(
        self, before: Workspace, after: Workspace, tool: str, arguments: dict[str, Any], view: FileView | None
    ) -> None:
        """The new profile's call for the lines the pinned call read (vault: the offset of its first line)."""
        coverage = before.coverage(tool, arguments)
        if coverage is None:
            path = view.name if view is not None else None
            carried = after.read_call(path) if path else (after.tool_names()[0], {})
        else:
            shown = view if view is not None and view.name == coverage.path else after.open_view(coverage.path)
            carried = after.read_call(coverage.path, shown, (coverage.first_line, coverage.last_line))
        self.post_message(self.Carried(*carried))

    @on(Carried)
    def _carried(self, event: ToolPanel.Carried) -> None:
        self._choose_tool(event.tool, event.arguments)
        self._show_choices()

    @on(Select.Changed, "#tool")
    def _tool_chosen(self, event: Select.Changed) -> None:
        if event.value != self.tool:
            self.pinned = True
            self._choose_tool(str(event.value), self._arguments_for(str(event.value)))

    def _arguments_for(self, tool: str) -> dict[str, Any]:
        """What a tool chosen by hand starts from: the open file's read call; any other tool, the
        listing of the file's directory (list_files and count_files take the directory, not the file)."""
        read_tool, arguments = self._read_call()
        if self.view is None or tool == read_tool:
            return arguments
        listing = self._workspace().listing_call(posixpath.dirname(self.view.name) or ".")
        return arguments if listing is None else listing[1]

    def _read_call(self) -> tuple[str, dict[str, Any]]:
        """The current profile's plain read call for the open file (no arguments without one)."""
        workspace = self._workspace()
        if self.view is None:
            return workspace.tool_names()[0], {}
        return workspace.read_call(self.view.name)

    def _choose_tool(self, tool: str, arguments: dict[str, Any]) -> None:
        self.tool = tool
        names = {param.name for param in self.spec.params}
        self.arguments = {name: value for name, value in arguments.items() if name in names}
        self._build_form()
        if not self.pinned and self.view is not None and self._last_window is not None:
            self._follow(self._workspace(), self.view, self._last_window)
        else:
            self._run()

    # -- following --------------------------------------------------------------------------------

    def follow_file(self, view: FileView, window: Window) -> None:
        """Show the call for the viewer's window, unless the call is pinned."""
        self.view = view
        self._last_window = window
        self._unreadable = self._directory = None
        if not self.pinned:
            self._follow(self._workspace(), view, window)

    @work(thread=True, exclusive=True, group="follow", exit_on_error=False, description="following the viewer")
    def _follow(self, workspace: Workspace, view: FileView, window: Window) -> None:
        try:
            tool, arguments = workspace.read_call(view.name, view, (window.top, window.bottom))
        except (OSError, ValueError, LookupError):
            return  # the file is changing; the next window report tries again
        self.post_message(self.Followed(tool, arguments))

    @on(Followed)
    def _followed(self, event: ToolPanel.Followed) -> None:
        if self.pinned:
            return
        self._show_call(event.tool, event.arguments)

    def follow_unreadable_file(self, path: str) -> None:
        """Show the read call for a file the viewer cannot show: its answer is the agent's error."""
        self.view = None
        self._last_window = None
        self._unreadable, self._directory = path, None
        if not self.pinned:
            self._show_call(*self._workspace().read_call(path))

    def follow_directory(self, path: str, file_offset: int | None) -> None:
        """Show the listing call for a directory (None: the call an agent makes first) or a page of it."""
        if self.pinned:
            return
        self._directory, self._unreadable = (path, file_offset), None
        listing = self._workspace().listing_call(path, file_offset)
        if listing is None:
            self._say_it_cannot_list()
            return
        self._show_call(*listing)

    def _say_it_cannot_list(self) -> None:
        self.notify(f"The {self.profile} profile has no tool that lists a directory.")

    def _show_call(self, tool: str, arguments: dict[str, Any]) -> None:
        if tool != self.tool:
            self.tool = tool
            self.arguments = arguments
            self.query_one("#tool", Select).value = tool
            self._build_form()
        else:
            self.arguments = arguments
            self._fill_form(arguments)
        self._run()

    def toggle_pin(self) -> None:
        self.pinned = not self.pinned
        if not self.pinned and self.view is not None and self._last_window is not None:
            self._follow(self._workspace(), self.view, self._last_window)

    def watch_pinned(self, pinned: bool) -> None:
        self.query_one("#mode", Static).set_class(pinned, "pinned")
        self._show_mode()

    def on_descendant_focus(self) -> None:
        self._show_mode()

    def on_descendant_blur(self) -> None:
        self._show_mode()

    def _show_mode(self) -> None:
        """Whether the call follows the viewer, and the key that changes that: in a field, ``e`` and ``p``
        are typed, not the workspace's keys (the line said "e edits the call" where ``e`` typed an e)."""
        focused = self.screen.focused if self.has_focus_within else None
        editing = isinstance(focused, Input) or (isinstance(focused, TextArea) and not focused.read_only)
        if self.pinned:
            mode = f"pinned: your call · {'esc, then ' if editing else ''}p follows the viewer"
        else:
            mode = f"following the viewer · {'esc goes back' if editing else 'e edits the call'}"
        self.query_one("#mode", Static).update(mode)

    # -- running ----------------------------------------------------------------------------------

    def _run(self, edited: bool = False) -> None:
        """Run the call shown; one that was not ``edited`` in the form is where the next edit starts from."""
        if not edited:
            self._edit_base, self._touched = dict(self.arguments), set()
        self._call_number += 1
        self._show_json()
        self._call(self._call_number, self.profile, self.tool, dict(self.arguments), self.view)

    @work(thread=True, exclusive=True, group="call", exit_on_error=False, description="the tool call")
    def _call(self, number: int, profile: str, tool: str, arguments: dict[str, Any], view: FileView | None) -> None:
        workspace = self.workspace.with_profile(profile)
        result = workspace.call(tool, arguments)
        tokens = workspace.count_tokens(result.text)
        shading = None
        coverage = (
            None if result.is_error else workspace.coverage(tool, arguments, result.text if result.truncated else None)
        )
        if coverage is not None:
            shading = Shading(coverage.path, coverage.first_line, coverage.last_line, cut=coverage.cut)
            if coverage.unit != "line" and view is not None and view.name == coverage.path:
                shading = _columns(shading, view, coverage.unit == "char", coverage.start, coverage.end)
        if number == self._call_number:
            self.post_message(self.Ran(Outcome(profile, tool, arguments, result, tokens, shading)))

    @on(Ran)
    def _ran(self, event: ToolPanel.Ran) -> None:
        self.outcome = event.outcome
        self.query_one("#output", OutputArea).show(event.outcome.result.text if event.outcome else "")
        self._show_stats()

    @on(Input.Changed, "#budget Input")
    def _budget_changed(self) -> None:
        self._show_stats()

    def _show_stats(self) -> None:
        stats = self.query_one("#stats", Static)
        if self.outcome is None:
            stats.update("")
            return
        tokens = self.outcome.tokens
        window, used = self._budget()
        if window is None or used is None:
            stats.update("[$error]budget: whole numbers, please[/]")
            return
        overflow = used + tokens - window
        severity = overflow_severity(overflow)
        stats.update(
            f"fits the budget: {-overflow:,} tokens left"
            if severity == "none"
            else f"[b $error]over the budget by {overflow:,} tokens: {severity}[/]"
        )

    def _budget(self) -> tuple[int | None, int | None]:
        """The context window and the tokens used, None where the field holds no whole number."""
        window = _whole_number(self.query_one("#window", Input).value, self._context_window)
        return window, _whole_number(self.query_one("#used", Input).value, 0)

    def apply_settings(self, context_window: int, pair_format: str) -> None:
        """Start from the user's settings: the budget's context window and the message pair format."""
        self._context_window = context_window
        window = self.query_one("#window", Input)
        window.value = window.placeholder = f"{context_window:,}"
        self.query_one("#pair", Select).value = pair_format


def _whole_number(text: str, empty: int) -> int | None:
    """A number as a person types it, with or without separators (``200,000``, ``200 000``,
    ``200_000``); ``empty`` when there is none, None when it is not a whole number."""
    digits = "".join(text.split()).replace(",", "").replace("_", "")
    if not digits:
        return empty
    if len(digits) > _MOST_DIGITS:  # int() refuses past 4,300 digits; no window is that wide
        return None
    return int(digits) if digits.isascii() and digits.isdigit() else None


_MOST_DIGITS = 30


def _columns(shading: Shading, view: FileView, chars: bool, start: int, end: int) -> Shading:
    """``shading`` narrowed to the characters (else bytes) ``[start, end)`` of its lines."""
    unit: Literal["char", "byte"] = "char" if chars else "byte"
    first_line, first_column = view.position(start, unit)
    last_line, end_column = view.position(end, unit)
    end_at: int | None = end_column
    if end_column == 0 and last_line > first_line:  # it ends with a line break: that line is whole
        last_line, end_at = last_line - 1, None
    return Shading(shading.path, first_line, last_line, first_column, end_at, shading.cut)
