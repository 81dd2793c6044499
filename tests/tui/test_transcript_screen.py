"""The transcript screen: calls with replay statuses, the difference, and opening a call's window."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from pilot_helpers import settle, type_ahead, until
from rich.cells import cell_len
from rich.console import Console
from textual.widgets import Markdown, Static, TabbedContent, TabPane
from textual.widgets._footer import FooterKey, FooterLabel

from agentpager import Workspace
from agentpager.transcripts import open_transcript
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.context_view import ChartRows
from agentpager.tui.lines import visible
from agentpager.tui.output_area import OutputArea
from agentpager.tui.screens.transcript import CallList, TranscriptScreen, _pattern_problem
from agentpager.tui.tree import WorkspaceTree
from agentpager.wording import cut_middle

SIZE = (200, 55)


def shown(widget: Static, width: int = 200) -> str:
    """What a Static shows, as plain text (drawn ``width`` columns wide)."""
    console = Console(width=width, record=True, color_system=None)
    console.print(widget.content)
    return console.export_text()


def session(root: Path, count: int = 3) -> Path:
    """A Claude Code session in ``root`` reading big.txt, with one stale read and a shell call that is
    not replayed (agentpager does not emulate ``xargs``)."""
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 1001)))
    read = Workspace(root, "claude-code")
    cwd = str(root.absolute())  # an agent records where it ran as an absolute path
    lines: list[dict] = [{"type": "user", "cwd": cwd, "message": {"role": "user", "content": "go"}}]
    for n in range(count):
        if n % 3 == 2:
            name, arguments, output = "Bash", {"command": "ls | xargs echo"}, "big.txt"
        else:
            name, arguments = "Read", {"file_path": f"{cwd}/big.txt", "offset": 100 * n + 400, "limit": 20}
            output = read.call(name, arguments).text if n % 3 == 0 else "stale"
        lines.append(
            {
                "type": "assistant",
                "cwd": cwd,
                "message": {
                    "id": f"m{n}",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": f"t{n}", "name": name, "input": arguments}],
                },
            }
        )
        lines.append(
            {
                "type": "user",
                "cwd": cwd,
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": output}],
                },
            }
        )
    path = root / "session.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


async def test_calls_replay_and_open_in_the_viewer(root: Path) -> None:
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root))), str(root))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TranscriptScreen)
        calls = screen.query_one(CallList)
        assert [calls.summaries[call.key].status for call in calls.calls] == ["same", "differs", "not replayable"]
        assert calls.summaries[calls.calls[0].key].tokens == Workspace.count_tokens(
            screen.transcript.recorded(screen.transcript.calls[0])
        )
        await pilot.press("down")
        await settle(pilot)
        difference = shown(screen.query_one("#difference", Static))
        assert difference.startswith("line │ recorded ") and "replayed now" in difference and "stale" in difference
        await pilot.press("up", "o")
        await settle(pilot)
        assert not isinstance(app.screen, TranscriptScreen)
        assert app.viewer.window.top == 400
        assert app.panel.pinned and app.panel.outcome.tool == "Read"
        assert app.panel.outcome.arguments == {"file_path": "big.txt", "offset": 400, "limit": 20}
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen), "t comes back to the transcript"


async def test_shell_calls_have_no_window(root: Path) -> None:
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root))), str(root))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "o")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)


async def test_the_tree_offers_a_transcript(root: Path) -> None:
    session(root)
    app = AgentPagerApp(Workspace(root))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one(WorkspaceTree).post_message(WorkspaceTree.FileChosen("session.jsonl"))
        await settle(pilot)
        assert app.offered_transcript == "session.jsonl"
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert len(app.screen.query_one(CallList).calls) == 3


async def test_a_transcript_given_to_open_is_offered(root: Path) -> None:
    """``agentpager session.jsonl`` shows the log in the viewer, and ``t`` its calls (it said "No transcript")."""
    session(root)
    app = AgentPagerApp(Workspace(root), open_path="session.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.viewer.path == "session.jsonl"
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert len(app.screen.query_one(CallList).calls) == 3


async def test_ten_thousand_calls(root: Path) -> None:
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root, 10_000))), str(root))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        calls = app.screen.query_one(CallList)
        assert calls.virtual_size.height == 10_000
        await pilot.press("end")
        assert calls.cursor == 9_999
        app.screen.workers.cancel_all()


async def test_the_header_says_a_search_is_running_until_it_ends(root: Path) -> None:
    """A search of a big session takes seconds: the header says so until its calls are shown."""
    import threading

    transcript = open_transcript(str(session(root, 6)))
    search, release = transcript.search, threading.Event()

    def held(*arguments: object) -> set:
        release.wait(30)
        return search(*arguments)  # type: ignore[arg-type]

    transcript.search = held  # type: ignore[method-assign]
    app = AgentPagerApp.for_transcript(transcript, str(root))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        about = app.screen.query_one("#about", Static)
        await pilot.press("slash", *"big", "enter")
        await until(pilot, lambda: "searching /big/…" in shown(about), "the header says the search runs")
        release.set()
        await until(pilot, lambda: "searching" not in shown(about), "the header no longer says so")
        assert "showing matching /big/" in shown(about)
        app.screen.workers.cancel_all()


@pytest.mark.parametrize("width", [80, 200])
async def test_the_header_says_where_a_session_ran_when_it_is_replayed_elsewhere(
    root: Path, tmp_path: Path, width: int
) -> None:
    """The directory is cut to 48 cells at 80 columns (a header of two lines) and to half the line
    past 96: at 200 columns a directory of 99 cells is shown whole."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran_in = root / ("d" * max(1, 99 - len(str(root.absolute())) - 1))
    ran_in.mkdir()
    for replayed_in, said in ((ran_in, False), (elsewhere, True)):
        app = AgentPagerApp.for_transcript(open_transcript(str(session(ran_in))), str(replayed_in))
        async with app.run_test(size=(width, 24)) as pilot:
            await settle(pilot)
            about = shown(app.screen.query_one("#about", Static), 400)
            cwd = str(ran_in.absolute())
            expected = cwd if width == 200 and len(cwd) <= 100 else cut_middle(cwd, 48)
            assert (f"(the session ran in {expected})" in about) is said, about
            app.screen.workers.cancel_all()


@pytest.mark.parametrize(
    ("width", "rows", "said"),
    [
        (200, 1, "/srv/agents/a-rather-long-name-for-the-check…/of-a-session-run-in-it"),
        (80, 3, "/srv/agents/a-rather-lon…/of-a-session-run-in-it"),
    ],
)
async def test_the_header_takes_one_row_when_the_directory_cut_fits_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, width: int, rows: int, said: str
) -> None:
    """At 200 columns the directory a session ran in is cut to what is left of the header's row (half
    the line took a second row); at 80 columns, where no cut keeps one row, it takes 48 cells as before."""
    monkeypatch.chdir(tmp_path)
    ran_in, elsewhere = Path("agent-sessions/of-a-project-with-a-long-name"), Path("e")
    ran_in.mkdir(parents=True)
    elsewhere.mkdir()
    path = session(ran_in)
    cwd = "/srv/agents/a-rather-long-name-for-the-checkout-directory/and-a-deep-path/in-it/of-a-session-run-in-it"
    path.write_text(path.read_text().replace(str(ran_in.absolute()), cwd))
    app = AgentPagerApp.for_transcript(open_transcript(str(path)), str(elsewhere))
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        about = app.screen.query_one("#about", Static)
        assert (about.size.height, f"(the session ran in {said})" in shown(about, 400)) == (rows, True), shown(about)
        app.screen.workers.cancel_all()


async def test_the_header_cuts_long_paths_in_their_middle_at_80_columns(root: Path) -> None:
    """A path wider than the header's line was broken where the line ended, in the middle of a word."""
    deep = root / "a-rather-long-directory-name" / "another-fairly-long-directory-component" / "and-a-third"
    deep.mkdir(parents=True)
    app = AgentPagerApp.for_transcript(open_transcript(str(session(deep))), str(deep))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        about = app.screen.query_one("#about", Static)
        words = shown(about, 1000).split()
        assert shown(about, 78).split() == words, "wrapped between words only (78: the line inside its padding)"
        assert words[0].startswith(str(root)[:10]) and "…" in words[0] and words[0].endswith("/session.jsonl")
        assert max(cell_len(word) for word in words) <= 78
        await pilot.resize_terminal(200, 55)
        await settle(pilot)
        assert shown(about, 1000).split()[0] == f"{deep}/session.jsonl", "whole when the line holds it"


async def test_page_down_shows_the_next_rows_and_skips_none(root: Path) -> None:
    """PgDn moves by the rows on screen (at 80x24 fewer than 20): the row after the last one shown
    comes to the top, and PgUp goes back."""
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root, 100))), str(root))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        calls = app.screen.query_one(CallList)
        shown = calls.scrollable_content_region.height
        assert 0 < shown < 20
        await pilot.press("pagedown")
        assert calls.cursor == shown and int(calls.scroll_y) == shown
        await pilot.press("pagedown", "pageup")
        assert calls.cursor == shown and int(calls.scroll_y) == shown
        app.screen.workers.cancel_all()


async def test_filter_search_copy_and_the_conversation(root: Path) -> None:
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root, 6))), str(root))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        calls = screen.query_one(CallList)
        conversation = shown(screen.query_one("#conversation", Static))
        assert conversation.startswith("user: go\n▶ #0 Read(")
        await pilot.press("f")  # calls that differ
        await settle(pilot)
        assert [calls.calls[i].index for i in calls.rows] == [1, 4]
        await pilot.press("f", "f")  # this tool (Read)
        await settle(pilot)
        assert list(calls.rows) == [0, 1, 3, 4]
        await pilot.press("f")  # all calls again
        await pilot.press("slash", *"big.txt", "enter")
        await settle(pilot)
        assert list(calls.rows) == [0, 1, 2, 3, 4, 5], "the shell calls printed big.txt"
        await pilot.press("slash", *"Stale", "enter")  # case matters with a capital letter
        await settle(pilot)
        assert list(calls.rows) == []
        await type_ahead(pilot, "slash", *"stale", "enter")  # typed in one go
        await settle(pilot)
        assert list(calls.rows) == [1, 4]
        await pilot.press("c")
        await settle(pilot)
        assert app.clipboard == "stale"
        await pilot.press("escape")  # the search's calls back to every call, as in the session browser
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen) and list(calls.rows) == [0, 1, 2, 3, 4, 5]
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, TranscriptScreen)


async def test_a_growing_session_is_followed(root: Path) -> None:
    path = session(root, 3)
    app = AgentPagerApp.for_transcript(open_transcript(str(path)), str(root))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        calls = app.screen.query_one(CallList)
        await pilot.press("F")
        lines = path.read_text().splitlines()
        with path.open("a") as file:
            file.write(lines[1].replace('"t0"', '"t9"') + "\n" + lines[2].replace('"t0"', '"t9"')[:20])
        await until(pilot, lambda: len(calls.calls) == 4, "the new call was read")
        await settle(pilot)
        assert len(calls.calls) == 4 and list(calls.rows) == [0, 1, 2, 3]
        assert app.screen.transcript.calls[3].result is None, "the result's line is still being written"
        with path.open("a") as file:
            file.write(lines[2].replace('"t0"', '"t9"')[20:] + "\n")
        await until(pilot, lambda: app.screen.transcript.calls[3].result is not None, "the result was read")
        await settle(pilot)
        assert app.screen.transcript.calls[3].result is not None and not app.screen.transcript.problems
        await pilot.press("F")
        app.screen.workers.cancel_all()


async def test_following_a_session_with_subagents(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from test_follow import CWD, append, call, result, session, subagent

    main, sub = session(tmp_path)
    root = tmp_path / "proj"
    root.mkdir()
    app = AgentPagerApp.for_transcript(open_transcript(str(main)), str(root))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        calls = app.screen.query_one(CallList)
        read = calls.calls[2]
        before = calls.summaries[read.key]
        await pilot.press("F")
        append(sub, *subagent("a1", result("u1", "config.py"), call("u2", "Read", {"file_path": f"{CWD}/config.py"})))
        await until(pilot, lambda: len(calls.calls) == 4, "the subagent's new call was read")
        await settle(pilot)
        assert [(c.index, c.tool, c.depth) for c in calls.calls] == [
            (0, "Task", 0),
            (1, "Glob", 1),
            (2, "Read", 1),
            (3, "Read", 0),
        ]
        assert calls.summaries[read.key] is before, "what was shown of a call stays with it"
        assert calls.calls[3].key == read.key, "the call placed after the subagent's new one"
        await until(pilot, lambda: calls.calls[2].key in calls.summaries, "the new call was replayed")
        await pilot.press("F")
        app.screen.workers.cancel_all()


def test_a_session_search_pattern_is_checked_as_the_viewer_checks_it() -> None:
    assert _pattern_problem("(") == "Invalid regex: missing ), unterminated subpattern at position 0"
    assert _pattern_problem("x" * 1001) == "Invalid regex: Pattern is too long: 1,001 characters (at most 1,000)."
    assert _pattern_problem("(a+)+$") is None


async def test_arrows_and_brackets_switch_the_tabs_and_the_footer_says_so(root: Path) -> None:
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root))), str(root))
    app.animation_level = "none"  # the tabs' underline is not waited for
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        outputs = app.screen.query_one("#outputs", TabbedContent)
        assert isinstance(app.focused, CallList) and outputs.active == "tab-recorded"
        await pilot.press("right")
        assert outputs.active == "tab-received"
        await pilot.press("right")
        assert outputs.active == "tab-replayed"
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert outputs.active == "tab-conversation"
        await pilot.press("left")
        assert outputs.active == "tab-difference"
        assert isinstance(app.focused, CallList), "the cursor stays in the list"
        await pilot.press("left_square_bracket", "left_square_bracket", "left", "left")
        assert outputs.active == "tab-context", "the first tab goes round to the last"
        assert isinstance(app.focused, ChartRows), "the context's rows take the keys (PgDn)"
        await settle(pilot)
        footer = {key.key: key for key in app.screen.query(FooterKey)}
        assert "left" in footer and "right" in footer
        assert footer["right"].region.right <= 80, "seen in the footer at 80 columns"
        labels = [str(label.render()) for label in app.screen.query(FooterLabel)]
        assert labels == ["Tabs"]
        await pilot.press("right")
        assert outputs.active == "tab-recorded" and isinstance(app.focused, CallList), "the list is back"


async def test_a_search_that_matches_nothing_says_so(root: Path) -> None:
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root))), str(root))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        summary = screen.query_one("#summary", Static)
        assert shown(summary).startswith("#0 turn 1 · Read")
        await pilot.press("slash", *"nowhere", "enter")
        await settle(pilot)
        assert shown(summary) == "No calls match /nowhere/: an empty search (/ then Enter) shows every call.\n"
        assert screen.query_one("#recorded", OutputArea).text == ""
        assert screen.query_one("#difference", Static).content == ""
        await pilot.press("c")
        assert app.clipboard == "", "nothing is copied"
        await pilot.press("f", "f")  # errors: none here either
        await settle(pilot)
        assert shown(summary) == (
            "No errors match /nowhere/: an empty search (/ then Enter) shows them all, f the next filter.\n"
        )
        await pilot.press("slash", "enter")
        await settle(pilot)
        assert shown(summary) == "No errors: f shows the next filter.\n"
        await pilot.press("f", "f")
        await settle(pilot)
        assert shown(summary).startswith("#0 turn 1 · Read")


async def test_tab_goes_between_the_list_and_the_tab_shown_and_each_shows_it_has_the_focus(root: Path) -> None:
    """Tab stopped at the row of tabs too, a third stop with the screen's own keys (``[ ] Tabs`` in the
    footer, as at the output), and the list looked the same with the focus as without it."""
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root))), str(root))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        calls = app.screen.query_one(CallList)
        outputs = app.screen.query_one("#outputs", TabbedContent)
        for tab in ("tab-recorded", "tab-difference", "tab-conversation"):
            outputs.active = tab
            await settle(pilot)
            cursor_with_focus = calls.get_component_rich_style("calllist--cursor").bgcolor
            await pilot.press("tab")
            pane = app.focused
            assert pane is not None and pane in outputs.get_pane(tab).query("*"), f"{tab}: the tab shown is next"
            assert calls.get_component_rich_style("calllist--cursor").bgcolor != cursor_with_focus, tab
            border_with_focus = pane.styles.border_left
            await pilot.press("tab")
            assert app.focused is calls, f"{tab}: back to the list, the only other stop"
            assert pane.styles.border_left != border_with_focus, f"{tab}: its border shows it had the focus"


async def test_the_context_tab_shows_estimated_turns_at_80x24(root: Path) -> None:
    """The session records no usage: each of its three requests is estimated, marked ``~``."""
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root))), str(root))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("left")  # the first tab goes round to the last: Context
        await settle(pilot)
        screen = app.screen
        assert screen.query_one(TabbedContent).active == "tab-context"
        chart = shown(screen.query_one("#chart", Static), 80).splitlines()
        rows = [row for row in chart if row[:4].strip().isdigit()]
        assert [row.split()[0] for row in rows] == ["1", "2", "3"] and all(row.endswith("~") for row in rows)
        assert rows[0].split()[-1] == "1~", "the first request held the prompt, go: 1 token"
        assert "~ estimated with cl100k: the log records no usage" in chart
        assert "No model turns recorded." not in chart


SESSIONS = Path(__file__).parent.parent / "sessions"


async def test_a_compaction_and_a_subagent_on_the_call_list(root: Path) -> None:
    """Real excerpts (see ``tests/test_session_shapes.py``): ✂ marks the first call after a
    compaction, └ a subagent's call under the Task that started it; turn is the model turn."""
    compacted = open_transcript(str(SESSIONS / "claude-stream-compaction.jsonl"))
    app = AgentPagerApp.for_transcript(compacted, str(root))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        calls = app.screen.query_one(CallList)
        rows = [calls.render_line(y).text[:60].rstrip() for y in range(4)]
        assert rows == [
            "    0     1  Edit              609 chars           400  not",
            "    1     2  Edit              742 chars           447  not",
            "    2     3  Edit              1,261 chars        ~720  not",
            "    3✂    4  Bash              1 char                0  diff",
        ], (
            "tokens from the usage recorded, ~ counted (no turn after the output: it was compacted); "
            "the Bash's grep -r is emulated, over a root without the session's src/"
        )
        summary = app.screen.query_one("#summary", Static)
        assert shown(summary).strip() == "#0 turn 1 · Edit · not replayable: not one of the file tools", (
            "the status said once"
        )
        await pilot.press("end")
        await settle(pilot)
        assert shown(summary).startswith("#3 turn 4 · first after the compaction (auto) at 155,791 tokens · Bash")
    subagent = open_transcript(str(SESSIONS / "claude-stream-subagent.jsonl"))
    app = AgentPagerApp.for_transcript(subagent, str(root))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        calls = app.screen.query_one(CallList)
        assert [calls.render_line(y).text[:19].rstrip() for y in range(2)] == ["    0  Task", "    1  └ Read"]
        await pilot.press("down", "left")  # the subagent's call; the Context tab
        await settle(pilot)
        chart = shown(app.screen.query_one("#chart", Static), 80).splitlines()
        assert [row.split()[0::2] for row in chart[0:1]] == [["1", "11,730"]], "the subagent's own context"


async def test_the_list_shows_a_session_while_it_is_read(root: Path) -> None:
    path = session(root, 3000)
    transcript = open_transcript(str(path), wait=False)
    app = AgentPagerApp.for_transcript(transcript, str(root))
    async with app.run_test(size=SIZE) as pilot:
        calls = app.screen.query_one(CallList)
        transcript.build.join()
        await pilot.pause(0.6)  # the list looks at the index every WATCH_SECONDS
        assert len(calls.rows) == calls.virtual_size.height == 3000
        assert "reading" not in str(app.screen.query_one("#about", Static).content)
        app.screen.workers.cancel_all()


async def test_the_cursor_stays_in_sight_while_the_list_grows(root: Path) -> None:
    """End while the session is being read goes to the last call the list shows, on screen."""
    transcript = open_transcript(str(session(root, 3000)), wait=False, paused=True)
    resume = transcript.build.resume
    transcript.build.resume = lambda: None  # type: ignore[method-assign]  # held after its first batch
    app = AgentPagerApp.for_transcript(transcript, str(root))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        calls = app.screen.query_one(CallList)
        assert 0 < len(calls.rows) < 3000, "the first calls are listed before the rest is read"
        resume()
        transcript.build.join()
        shown = len(calls.rows)
        await pilot.press("end")  # the list may take in more rows while the key is handled
        top = int(calls.scroll_y)
        assert shown - 1 <= calls.cursor and top <= calls.cursor < top + calls.size.height
        await until(pilot, lambda: len(calls.rows) == 3000, "the list took in the whole session")
        await pilot.press("end")
        top = int(calls.scroll_y)
        assert calls.cursor == 2999 and top <= calls.cursor < top + calls.size.height
        app.screen.workers.cancel_all()


async def test_a_call_shows_what_was_logged_and_what_the_model_received(tmp_path: Path) -> None:
    from test_received import COUNTDOWN, claude_code_session

    app = AgentPagerApp.for_transcript(
        open_transcript(str(claude_code_session(tmp_path, "claude-sonnet-4-5"))), str(tmp_path)
    )
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        outputs = screen.query_one("#outputs", TabbedContent)
        labels = [str(tab.label) for tab in outputs.query("ContentTab")]
        assert labels[:3] == ["As logged", "As received", "Replayed"]
        logged = "1\tdef main():\n2\t    return 1\n3\t"
        received = "1\tdef main():\n2\t    return 1\n3" + COUNTDOWN.format(15_000_000 - 2150)
        assert screen.query_one("#recorded", OutputArea).text == visible(logged)
        assert screen.query_one("#received", OutputArea).text == visible(received)
        await pilot.press("c")
        assert app.clipboard == logged
        await pilot.press("right")
        assert outputs.active == "tab-received"
        await pilot.press("c")
        assert app.clipboard == received, "c copies the output whose tab is open"


async def test_a_codex_exec_call_says_why_what_the_model_received_is_not_known(tmp_path: Path) -> None:
    exec_log = Path(__file__).parent.parent / "sessions" / "codex-exec-review.jsonl"
    app = AgentPagerApp.for_transcript(open_transcript(str(exec_log)), str(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.screen.query_one("#received", OutputArea).text == (
            "(not known: this log keeps the whole output its client was shown; Codex sent its model a cut copy)"
        )


async def test_the_footer_under_a_dialog_shows_whole_keys_at_80x24(root: Path) -> None:
    """A dialog changes the transcript screen's keys: its footer was fitted before the new keys were
    laid out, and ended in ``q Q`` (Quit cut) under the help and the search prompt."""
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root))), str(root))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        transcript = app.screen
        for dialog in ("question_mark", "slash", "ctrl+p"):
            await pilot.press(dialog)
            await settle(pilot)
            assert app.screen is not transcript, dialog
            keys = [key for key in transcript.query(FooterKey) if key.display]
            assert "q" in [key.key for key in keys], dialog
            assert [key.key for key in keys if key.region.right > 80] == [], dialog
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen is transcript


async def test_the_help_over_the_transcript_lists_its_keys_first(root: Path) -> None:
    """``?`` showed the workspace's help only: nothing on f, F, [ ] or the Context chart's keys."""
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root))), str(root))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        help_text = app.screen.query_one("Markdown", Markdown).source
        sections = [line for line in help_text.splitlines() if line.startswith("## ")]
        assert sections[:2] == ["## The transcript (`t`)", "## The viewer"]
        transcript_keys = help_text.split("## The viewer")[0]
        for line in (
            "- `o` `⏎` Open the call's window in the viewer",
            "- `←` `[` The tab before",
            "- `→` `]` The next tab",
            "- `f` Show the calls that differ, then the errors, then the selected call's tool, then every call",
            "- `/` Search the whole session: conversation, arguments, outputs",
            "- `F` Follow a session still being written, or stop",
            "- `y` Copy the replayed output",
            "- `esc` Back to every call after a search, else to where it came from",
            "- `w` Back to the workspace",
            "- `↑` `↓` `pgup` `pgdn` `space` `home` `end` Scroll the Context tab's chart",
        ):
            assert line in transcript_keys.splitlines()
        await pilot.press("escape", "escape")
        assert not isinstance(app.screen, TranscriptScreen)
        await pilot.press("question_mark")
        assert "## The transcript" not in app.screen.query_one("Markdown", Markdown).source, "the workspace's help"


def crafted_session(root: Path) -> Path:
    """A Claude Code log whose records hold what no agent writes: arguments of every type, numbers
    out of range, control and lone surrogate characters, a huge path, results for no call."""
    cwd = str(root.absolute())

    def call(n: int, name: object, arguments: object, usage: object = None) -> dict:
        block = {"type": "tool_use", "id": f"t{n}", "name": name, "input": arguments}
        message = {"id": f"m{n}", "role": "assistant", "content": [block], "usage": usage, "model": ["x"]}
        return {"type": "assistant", "cwd": cwd, "timestamp": n, "message": message}

    def result(n: int, content: object, **more: object) -> dict:
        block = {"type": "tool_result", "tool_use_id": f"t{n}", "content": content, **more}
        return {"type": "user", "cwd": cwd, "message": {"role": "user", "content": [block]}}

    records: list[object] = [
        {"type": "user", "cwd": cwd, "message": {"role": "user", "content": "go \x1b[31mred\x07 \u202eevil"}},
        call(1, "Read", {"file_path": 12, "offset": "ten", "limit": -5}, {"input_tokens": 10**30}),
        result(1, [{"type": "text", "text": "\ud800 \x00 \r\r\n"}, {"type": "image"}, 7]),
        call(2, ["Read"], "not an object", {"input_tokens": -3, "output_tokens": "x"}),
        result(2, None, is_error="yes"),
        call(3, "Read", {"file_path": f"{cwd}/" + "d/" * 2000 + "f.txt", "offset": 10**20}),
        result(3, {"nested": {"deep": [1, 2]}}),
        call(4, "Bash", {"command": ["ls"], "timeout": {}}, "lots"),
        result(4, "\t" * 300 + "x"),
        call(5, "Grep\nGlob", {"pattern": "(" * 50, "path": None, "-n": "yes"}),
        result(9, "for no call"),
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"preTokens": -1, "trigger": []}},
        call(6, "Read", {}, {"input_tokens": 5, "cache_read_input_tokens": 10**12}),
        [1, 2, 3],
        "text",
    ]
    path = root / "crafted.jsonl"
    path.write_bytes(
        "".join(json.dumps(record) + "\n" for record in records).encode("utf-8", "surrogatepass")
        + b'{"type": "user", "message": \xff}\n'
    )
    return path


async def test_every_call_and_tab_of_a_crafted_session_shows(root: Path) -> None:
    app = AgentPagerApp.for_transcript(open_transcript(str(crafted_session(root))), str(root))
    app.animation_level = "none"  # a tab's underline is not waited for, 36 times
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        calls = app.screen.query_one(CallList)
        outputs = app.screen.query_one("#outputs", TabbedContent)
        tabs = [str(pane.id) for pane in outputs.query(TabPane)]
        assert len(calls.calls) == 6 and tabs[-1] == "tab-context"
        for row in range(len(calls.calls)):
            assert calls.cursor == row
            for tab in tabs[:-1]:  # the context is the agent's: charted once, below
                outputs.active = tab
                await pilot.pause()
            await settle(pilot)
            await pilot.press("c")  # copy what a crafted call logged
            outputs.active = tabs[0]
            await pilot.press("down")
        outputs.active = tabs[-1]
        await settle(pilot)
        assert isinstance(app.focused, ChartRows)
