"""The transcript screen's context tab: bars as wide as the screen, a header that stays, PgDn at once,
the window drawn, compaction marked, the costliest outputs by file."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from pilot_helpers import settle, until
from rich.cells import cell_len
from rich.console import Console
from textual.containers import VerticalScroll
from textual.widgets import Static

from agentpager.transcripts import Transcript, open_transcript
from agentpager.transcripts.context import AgentContext
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.context_view import Charted, ChartRows, ContextView, chart, charted, header

TURNS = 40


def long_session(root: Path, turns: int = TURNS, compacted_before: int | None = None) -> Path:
    """A Claude Code session of ``turns`` model turns, each reading a part of a deep file, the
    context growing by 4,000 tokens a turn against claude-sonnet-4-5's 200,000; compacted before
    the turn ``compacted_before`` (0-based), if given."""
    deep = root / "src" / "shop" / "orders"
    deep.mkdir(parents=True)
    (deep / "export_job.py").write_text("".join(f"line {n}\n" for n in range(1, 5001)))
    cwd = str(root)
    records: list[dict] = [{"type": "user", "cwd": cwd, "message": {"role": "user", "content": "go"}}]
    for n in range(turns):
        if n == compacted_before:
            metadata = {"trigger": "auto", "preTokens": 4000 * n}
            records.append({"type": "system", "subtype": "compact_boundary", "cwd": cwd, "compactMetadata": metadata})
        usage = {"input_tokens": 10, "cache_read_input_tokens": 4000 * (n + 1), "output_tokens": 50}
        use = {
            "type": "tool_use",
            "id": f"t{n}",
            "name": "Read",
            "input": {"file_path": f"{cwd}/src/shop/orders/export_job.py", "offset": 100 * n + 1, "limit": 100},
        }
        message = {"id": f"m{n}", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage, "content": [use]}
        records.append({"type": "assistant", "cwd": cwd, "message": message})
        output = "".join(f"line {k}\n" for k in range(100 * n + 1, 100 * n + 101 + 50 * (n == 7)))
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": output}
        records.append({"type": "user", "cwd": cwd, "message": {"role": "user", "content": [result]}})
    path = root / "session.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def text(widget: Static, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    console.print(widget.render())
    return console.export_text().splitlines()


def transcript_with_a_compaction(root: Path) -> Transcript:
    """The long session, compacted before its turn 21."""
    return open_transcript(str(long_session(root, compacted_before=20)))


def context_of(path: Path) -> Charted:
    """What the chart shows of the session's main agent, its outputs counted by their characters."""
    transcript = open_transcript(str(path))
    return charted(transcript, AgentContext(transcript.index, count=len), 0, 0)


async def shown_context(app: AgentPagerApp, pilot) -> ContextView:  # noqa: ANN001 - a Pilot
    """The Context tab (the last: left from the first wraps to it), once its chart is counted."""
    await settle(pilot)
    await pilot.press("left")
    view = app.screen.query_one(ContextView)
    head = view.query_one("#context-head", Static)
    await until(pilot, lambda: not text(head, 80)[0].startswith("Counting"), "the context was counted")
    return view


async def test_the_bars_take_the_width_and_the_header_stays(root: Path) -> None:
    rows_by_width = {}
    for size in ((80, 24), (200, 55)):
        app = AgentPagerApp.for_transcript(transcript_with_a_compaction(root / str(size[0])), str(root))
        async with app.run_test(size=size) as pilot:
            view = await shown_context(app, pilot)
            head = text(view.query_one("#context-head", Static), size[0])
            assert head[0].startswith("claude-sonnet-4-5 · window 200,000 tokens"), head
            assert head[2].startswith("turn 0") and head[2].rstrip().endswith("200k    tokens"), head
            rows = view.query_one(ChartRows)
            assert app.focused is rows, "the rows take the keys: PgDn needs no Tab"
            before = view.query_one("#context-head").region
            await pilot.press("pagedown")
            await settle(pilot)
            assert rows.scroll_y > 0 and view.query_one("#context-head").region == before
            lines = text(view.query_one("#chart", Static), size[0])
            rows_by_width[size[0]] = lines
            assert all(len(line) <= size[0] for line in lines)
    narrow, wide = rows_by_width[80], rows_by_width[200]
    # turn 40 sent 160,010 tokens of a 200,000 window: 80% of the bar
    last = next(line for line in narrow if line.startswith("  40 "))
    bar = last[5:-10]
    assert len(bar) == bar_cells(80) and bar.count("·") == round(bar_cells(80) * 0.2), last
    assert len(next(line for line in wide if line.startswith("  40 "))[5:-10]) > 2 * len(bar)
    assert any(
        line.strip().startswith("── ✂ compaction (auto) at 80,000 tokens: the context starts") for line in narrow
    )


async def test_the_chart_opens_on_the_call_s_turn(root: Path) -> None:
    app = AgentPagerApp.for_transcript(transcript_with_a_compaction(root), str(root))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("end")  # the last call: turn 40, past the first screen of bars
        view = await shown_context(app, pilot)
        rows = view.query_one(ChartRows)
        await until(pilot, lambda: rows.scroll_y > 0, "the chart scrolled to the call's turn")
        lines = text(view.query_one("#chart", Static), 80)
        turn = next(number for number, line in enumerate(lines) if line.startswith("  40 "))
        assert rows.scroll_y <= turn < rows.scroll_y + rows.scrollable_content_region.height, (rows.scroll_y, turn)


def bar_cells(width: int) -> int:
    """What a bar gets at a terminal ``width`` wide: the turn and token columns, the padding, the
    scrollbar and the border that shows the focus taken."""
    return width - 5 - 10 - 2 - 2 - 1


def test_the_costliest_outputs_name_their_files_relative_to_the_cwd(root: Path) -> None:
    lines = Console(width=80, record=True, color_system=None)
    lines.print(chart(context_of(long_session(root)), 76))
    costliest = lines.export_text().split("Costliest tool outputs")[1].splitlines()[1:]
    assert costliest[0].startswith("    1,350  #7     Read ")
    assert costliest[0].rstrip().endswith('Read           file_path="src…/export_job.py" offset=701 …'), costliest[0]
    assert all(len(line) <= 76 for line in costliest)


def test_a_costliest_row_of_wide_characters_fits_its_cells(root: Path) -> None:
    """A Japanese argument takes two cells a character: the row was cut by characters and wrapped."""
    shown = context_of(long_session(root))
    cost, call = shown.costliest[0]
    wide = dataclasses.replace(call, tool="Edit", arguments={"old_string": "ファイルが書き込まれる" * 20})
    lines = Console(width=80, record=True, color_system=None)
    lines.print(chart(Charted(shown.fills, shown.turns, [(cost, wide)]), 76))
    row = lines.export_text().split("Costliest tool outputs")[1].splitlines()[1]
    assert row.startswith("    1,350  #7     Edit           old_string=\"ファイル") and cell_len(row) <= 76, row


def test_the_header_names_the_window_and_cuts_the_model_name(root: Path) -> None:
    shown = context_of(long_session(root))
    long_name = "claude-sonnet-4-5-20250929-a-very-long-model-name-indeed"
    fills = [fill._replace(model=long_name) for fill in shown.fills[:3]] + shown.fills[3:]
    console = Console(width=60, record=True, color_system=None)
    console.print(header(Charted(fills, shown.turns, shown.costliest), 60))
    first = console.export_text().splitlines()[0]
    assert first.endswith("… · window 200,000 tokens") and len(first) <= 60, first


async def test_the_chart_shows_its_focus_as_the_conversation_does(root: Path) -> None:
    """A left border, bright while the rows have the focus and dimmed without it (the chart showed
    nothing): the border is the whole view's, so the header's scale stays over the bars."""
    app = AgentPagerApp.for_transcript(transcript_with_a_compaction(root), str(root))
    async with app.run_test(size=(80, 24)) as pilot:
        view = await shown_context(app, pilot)
        head, rows = view.query_one("#context-head"), view.query_one(ChartRows)
        assert head.region.x == rows.region.x == 1, (head.region, rows.region)
        borders = [view.styles.border_left]
        app.screen.set_focus(None)
        await settle(pilot)
        borders.append(view.styles.border_left)
        await pilot.press("left")  # the Conversation tab
        await settle(pilot)
        conversation = app.screen.query_one("#tab-conversation VerticalScroll", VerticalScroll)
        conversation.focus()
        await settle(pilot)
        expected = [conversation.styles.border_left]
        app.screen.set_focus(None)
        await settle(pilot)
        expected.append(conversation.styles.border_left)
        assert borders == expected and expected[0] != expected[1], (borders, expected)
