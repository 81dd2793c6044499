"""Asking the real agent from the TUI, with ``fake_agent.py`` standing in for Claude Code (installed
into a cache dir of the test's own, as npm would lay it out): found and the same, found and
different, not installed (then installed by a stand-in npm), cancelled, and no agent to ask."""

from __future__ import annotations

import json
import shlex
import stat
import sys
from pathlib import Path

import pytest
from pilot_helpers import settle
from test_transcript_screen import shown
from textual.pilot import Pilot
from textual.widgets import Input, Log, Static, TextArea
from waiting import all_gone, processes_with

from agentpager import Workspace
from agentpager.agents import get_agent
from agentpager.probe.confinement import unavailable
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.lines import visible
from agentpager.tui.screens.probe import ProbeScreen

FAKE_AGENT = Path(__file__).parents[1] / "fake_agent.py"
NEWEST = "2.1.332"
NO_NAMESPACE = unavailable()
runs_the_agent = pytest.mark.skipif(bool(NO_NAMESPACE), reason=f"the probe runs agents confined: {NO_NAMESPACE}")


@pytest.fixture
def agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty agents cache dir, and nothing on PATH but what a test puts in ``bin``."""
    monkeypatch.setenv("AGENTPAGER_AGENTS_DIR", str(tmp_path / "agents"))
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setattr("agentpager.tui.app.system_clipboard", lambda: None)
    return tmp_path / "agents"


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_agent_script(path: Path, mode: str = "") -> Path:
    """A start script for the fake agent in ``mode`` (an agent's environment is made afresh: the mode
    is set here), with the script's path as the marker of the children it starts."""
    variables = f"FAKE_AGENT_MODE={mode} FAKE_AGENT_MARKER={shlex.quote(str(path))}"
    return executable(path, f'#!/bin/sh\n{variables} exec {sys.executable} {FAKE_AGENT} "$@"\n')


def install_fake(agents: Path, mode: str = "", version: str = NEWEST) -> str:
    """The fake agent where npm would put Claude Code ``version`` in the cache; returns the marker of
    the children it starts."""
    prefix = agents / f"claude-code@{version}"
    script = fake_agent_script(prefix / get_agent("claude-code").program().entry_points[0], mode)
    manifest = prefix / "node_modules" / "@anthropic-ai" / "claude-code" / "package.json"
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps({"version": version}))
    return str(script)


def make_app(root: Path, profile: str = "claude-code") -> AgentPagerApp:
    (root / "a.txt").write_text("alpha\nbeta\n")
    app = AgentPagerApp(Workspace(root, profile), "a.txt")
    app.animation_level = "none"
    return app


async def ask(pilot: Pilot, arguments: dict | None = None) -> ProbeScreen:
    """Pin a Read of a.txt and press ``a``; wait until the agent's answer is shown."""
    app = pilot.app
    assert isinstance(app, AgentPagerApp)
    await settle(pilot)
    app.panel.load_call(app.panel.profile, "Read", arguments or {"file_path": "a.txt"})
    await settle(pilot)
    await pilot.press("a")
    await settle(pilot)
    assert isinstance(app.screen, ProbeScreen)
    return app.screen


def last_notice(app: AgentPagerApp) -> str:
    return [str(notice.message) for notice in app._notifications][-1]


def text_of(screen: ProbeScreen, selector: str, as_wide_as_shown: bool = False) -> str:
    """What a Static shows, drawn 200 columns wide or as wide as it is on the screen."""
    widget = screen.query_one(selector, Static)
    return shown(widget, widget.content_size.width if as_wide_as_shown else 200).rstrip()


@runs_the_agent
async def test_the_same_answer_byte_for_byte(root: Path, agents: Path) -> None:
    install_fake(agents, "numbered")
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ask(pilot)
        assert screen.state == "answered"
        assert text_of(screen, "#verdict") == "✓ the same, byte for byte · model claude-fake-default"
        assert screen.answer is not None and screen.answer.result.text == "1\talpha\n2\tbeta\n3\t"
        assert text_of(screen, "#difference") == "No difference: the two answers are the same 17 characters."
        await pilot.press("c")
        await settle(pilot)
        assert app.clipboard == "1\talpha\n2\tbeta\n3\t"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]


@runs_the_agent
async def test_the_command_palette_asks_too(root: Path, agents: Path) -> None:
    install_fake(agents, "numbered")
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p", *"Ask the real agent")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ProbeScreen)
        assert text_of(app.screen, "#verdict") == "✓ the same, byte for byte · model claude-fake-default"


@runs_the_agent
async def test_an_answer_that_differs_shows_the_difference(root: Path, agents: Path) -> None:
    install_fake(agents)
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ask(pilot, {"file_path": "a.txt", "offset": 2})
        assert text_of(screen, "#verdict") == "✗ differs · model claude-fake-default"
        assert [line.rstrip() for line in text_of(screen, "#difference", as_wide_as_shown=True).splitlines()] == [
            "--- profile claude-code",
            "+++ Claude Code 2.1.332",
            "@@ -1,2 +1,2 @@",
            "-2       beta",  # the profile's 2\tbeta, its tab expanded within the text, after the marker
            "-3",
            "\\ No newline at end of text",
            "+ALPHA",
            "+BETA",
        ]
        assert screen.query_one("#agent-output", TextArea).text == "ALPHA\nBETA\n"
        assert screen.profile_result is not None and screen.profile_result.text == "2\tbeta\n3\t"
        assert screen.query_one("#profile-output", TextArea).text == visible("2\tbeta\n3\t")


@runs_the_agent
async def test_a_missing_agent_is_named_with_its_npm_command_and_installed_on_request(
    root: Path, agents: Path, tmp_path: Path
) -> None:
    hint = f"npm install --prefix {agents}/claude-code@{NEWEST} --no-audit --no-fund @anthropic-ai/claude-code@{NEWEST}"
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ask(pilot)
        assert screen.state == "missing"
        assert (
            text_of(screen, "#verdict").replace("\n", " ").split()
            == (
                f"claude-code {NEWEST} is not installed in {agents}/claude-code@{NEWEST}. Install it with: {hint}"
            ).split()
        )
        await pilot.press("c")
        await settle(pilot)
        assert app.clipboard == hint
        # A stand-in npm that lays the fake agent out as npm would, writing a few lines as it goes.
        agent_script = fake_agent_script(tmp_path / "fake-claude", "numbered")
        entry = get_agent("claude-code").program().entry_points[0]
        executable(
            tmp_path / "bin" / "npm",
            "#!/bin/sh\nPATH=/usr/bin:/bin\n"
            'echo "npm $*"\n'
            'prefix="$3"\n'
            f'mkdir -p "$prefix/$(dirname {entry})" "$prefix/node_modules/@anthropic-ai/claude-code"\n'
            f'cp {agent_script} "$prefix/{entry}"\n'
            f'echo \'{{"version": "{NEWEST}"}}\' > "$prefix/node_modules/@anthropic-ai/claude-code/package.json"\n'
            "echo 'added 3 packages in 0s' >&2\n",
        )
        await pilot.press("i")
        await settle(pilot)
        assert screen.state == "answered"
        assert text_of(screen, "#verdict") == "✓ the same, byte for byte · model claude-fake-default"
        logged = list(screen.query_one("#log", Log).lines)
        assert logged[:3] == [
            f"Installing @anthropic-ai/claude-code@{NEWEST} into {agents}/claude-code@{NEWEST} ...",
            hint,
            "added 3 packages in 0s",
        ]


@runs_the_agent
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="looks for the agent's processes in /proc")
async def test_escape_stops_the_agent_and_its_children(root: Path, agents: Path) -> None:
    marker = install_fake(agents, "hang")
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.panel.load_call("claude-code", "Read", {"file_path": "a.txt"})
        await settle(pilot)
        await pilot.press("a")
        screen = app.screen
        assert isinstance(screen, ProbeScreen)
        while not processes_with(marker):  # until the fake agent has started its sleeping child
            assert screen.state == "asking", text_of(screen, "#verdict")  # else it ended before its child started
            await pilot.pause(0.05)
        assert text_of(screen, "#verdict").startswith(f"starting Claude Code {NEWEST} (its default model)… ")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert all_gone(marker), processes_with(marker)
        assert last_notice(app) == f"Stopped Claude Code {NEWEST}: nothing was compared."


@pytest.mark.parametrize(
    ("profile", "why"),
    [
        ("qq", "its tools are defined by the contract, docs/TOOLS.md, which its tests check byte for byte"),
        ("openhands", "its oracle is OpenHands' own file editor, Python code the tests run (tests/python_oracles.py)"),
    ],
)
async def test_a_profile_without_a_real_agent_says_why(root: Path, agents: Path, profile: str, why: str) -> None:
    app = make_app(root, profile)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert last_notice(app) == f"The {profile} profile has no real agent to ask: {why}."


async def test_the_key_waits_for_a_call(root: Path, agents: Path) -> None:
    app = AgentPagerApp(Workspace(root, "claude-code"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert "No call yet" in last_notice(app)


async def test_a_hand_edited_call_that_writes_is_never_sent(root: Path, agents: Path) -> None:
    install_fake(agents, "escape")
    app = make_app(root)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        app.panel.load_call("claude-code", "Bash", {"command": "touch written-by-the-agent"})
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ProbeScreen) and screen.state == "refused"
        assert " ".join(text_of(screen, "#verdict").split()) == (
            f"Not sent to Claude Code {NEWEST}: agentpager does not send Claude Code this call: it sends only "
            "calls it answers as reads, and it does not answer this one (the program touch)."
        )
        assert screen.profile_result is not None and screen.profile_result.unreplayable
        assert not (root / "written-by-the-agent").exists()


@runs_the_agent
@pytest.mark.parametrize("size", [(80, 24), (200, 55)], ids=lambda size: f"{size[0]}x{size[1]}")
@runs_the_agent
def test_snapshot_of_an_answer_that_differs(root: Path, agents: Path, snap_compare, size: tuple[int, int]) -> None:
    install_fake(agents)

    async def run_before(pilot: Pilot) -> None:
        await ask(pilot)
        for widget in pilot.app.query(Input).results():
            widget.cursor_blink = False
        await pilot.pause()

    assert snap_compare(make_app(root), terminal_size=size, run_before=run_before)


@runs_the_agent
async def test_the_whole_request_in_parts_with_their_tokens(root: Path, agents: Path) -> None:
    from textual.widgets import DataTable

    from agentpager.tui.screens.request import RequestScreen

    install_fake(agents, "numbered")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ask(pilot)
        await pilot.press("r")
        await settle(pilot)
        request = app.screen
        assert isinstance(request, RequestScreen)
        table = request.query_one(DataTable)
        rows = [[str(cell).strip() for cell in table.get_row_at(n)] for n in range(table.row_count)]
        assert [row[0] for row in rows] == [
            "system prompt",
            "tools (1)",
            "messages (3)",
            "message 1 · user",
            "message 2 · assistant",
            "message 3 · user",
        ]
        assert rows[0][1:] == ["9", "0.0%"], "cl100k tokens of 'You are a stand-in for Claude Code.', of 200,000"
        assert request.query_one("#part", TextArea).text == "You are a stand-in for Claude Code."
        await pilot.press("down", "c")
        assert json.loads(app.clipboard) == [
            {"name": "Read", "description": "Reads a file.", "input_schema": {"type": "object"}}
        ]
        assert screen.answer is not None
        assert (
            json.loads(screen.answer.result.raw_request)["messages"][-1]["content"][0]["content"]
            == "1\talpha\n2\tbeta\n3\t"
        )
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
