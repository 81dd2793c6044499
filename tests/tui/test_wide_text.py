"""Wide characters (CJK: two cells each) in the lists' rows: columns measured in cells, not characters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pilot_helpers import settle
from rich.cells import cell_len

from agentpager.transcripts import open_transcript
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.screens.transcript import CallList

JAPANESE = "テストシナリオと実装ログの確認（チェック付き）"


def wide_session(root: Path) -> Path:
    """A Claude Code session: a shell call in ASCII, then calls whose arguments hold Japanese, the last
    one's tool name too."""
    cwd = str(root)
    calls = [
        ("Bash", {"command": "cat > /tmp/notes.md <<'EOF'\n" + "plain ascii notes " * 10 + "\nEOF"}),
        ("Bash", {"command": "cat > /tmp/notes.md <<'EOF'\n" + JAPANESE * 4 + "\nEOF"}),
        ("TodoWrite", {"todos": [{"content": JAPANESE, "status": "pending", "activeForm": JAPANESE}] * 3}),
        ("ファイル読み込み", {"command": "cat > /tmp/notes.md <<'EOF'\n" + JAPANESE * 4 + "\nEOF"}),
    ]
    records: list[dict] = [{"type": "user", "cwd": cwd, "message": {"role": "user", "content": "go"}}]
    for n, (tool, arguments) in enumerate(calls):
        use = {"type": "tool_use", "id": f"t{n}", "name": tool, "input": arguments}
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "done"}
        records.append({"type": "assistant", "cwd": cwd, "message": {"id": f"m{n}", "content": [use]}})
        records.append({"type": "user", "cwd": cwd, "message": {"role": "user", "content": [result]}})
    session = root / "session.jsonl"
    session.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records))
    return session


@pytest.mark.parametrize("size", [(80, 24), (200, 55)])
async def test_the_call_list_measures_wide_arguments_in_cells(root: Path, size: tuple[int, int]) -> None:
    app = AgentPagerApp.for_transcript(open_transcript(str(wide_session(root))), str(root))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        calls = app.screen.query_one(CallList)
        width = calls.scrollable_content_region.width
        rows = ["".join(segment.text for segment in calls.render_line(y)) for y in range(4)]
        for row, end in zip(rows, ('EOF"', 'EOF"', '"}]', 'EOF"'), strict=True):
            assert cell_len(row) == width, row
            assert row.rstrip().endswith(end), f"the arguments are cut in their middle, not at the edge: {row!r}"
        ascii_row, japanese_row, todos_row, tool_row = rows
        arguments_at = cell_len(ascii_row[: ascii_row.index("command=")])
        assert cell_len(japanese_row[: japanese_row.index("command=")]) == arguments_at
        assert cell_len(todos_row[: todos_row.index("todos=")]) == arguments_at
        assert cell_len(tool_row[: tool_row.index("command=")]) == arguments_at
        tokens_at = cell_len(ascii_row[: ascii_row.index("~1")])
        assert cell_len(tool_row[: tool_row.index("~1")]) == tokens_at, "the tool name fills its column in cells"
        assert "付き）" in japanese_row and "付き）" in todos_row
