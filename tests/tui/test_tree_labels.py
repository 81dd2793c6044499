"""The tree's labels in a narrow tree: cut to its width, a count whole or not at all."""

from __future__ import annotations

import re
from pathlib import Path

from pilot_helpers import settle

from agentpager import Workspace
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.tree import WorkspaceTree


def shown_lines(tree: WorkspaceTree) -> list[str]:
    return ["".join(segment.text for segment in tree.render_line(y)).rstrip() for y in range(tree.size.height)]


async def test_a_narrow_tree_cuts_names_with_an_ellipsis_and_never_a_count(tmp_path: Path) -> None:
    deep = tmp_path / "a_directory_with_a_long_name" / "site-packages-of-the-project"
    deep.mkdir(parents=True)
    for n in range(12):
        (deep / f"f{n}.txt").write_text("x\n")
    (tmp_path / "a_directory_with_a_long_name" / "short").mkdir()
    app = AgentPagerApp(Workspace(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree = app.query_one(WorkspaceTree)
        assert tree.size.width == 23
        await pilot.press("down", "enter")  # the long-named directory: opened
        await settle(pilot)
        await pilot.press("down", "enter")  # site-packages-of-the-project/: opened
        await settle(pilot)
        lines = shown_lines(tree)
        width = tree.scrollable_content_region.width
        assert all(len(line) <= width for line in lines), lines
        long_names = [line for line in lines if "a_dir" in line or "site-pa" in line]
        assert len(long_names) == 2 and all(line.endswith("…") for line in long_names), lines
        short = next(line for line in lines if "short/" in line)
        assert short.endswith("short/ 0 files"), short  # it fits: its count shows whole
        assert not any(re.search(r"\d+( f| fi| fil| file)?…?$", line) for line in lines), lines
