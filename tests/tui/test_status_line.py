"""The status line at 80x24: the call in every column the cost leaves, its file name whole whenever it fits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pilot_helpers import settle
from textual.widgets import Label

from agentpager import Workspace
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.status import CallStatus


def a_file(root: Path, path: str) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text("".join(f"line {n} of the file\n" for n in range(1, 2000)))


async def status_of(root: Path, profile: str, path: str, pinned: bool) -> tuple[str, str, int]:
    """The call and the cost the status line shows with ``path`` open, and the cells the call has."""
    app = AgentPagerApp(Workspace(root, profile), path)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        if pinned:
            await pilot.press("p")
            await settle(pilot)
        summary = app.query_one(CallStatus).query_one("#call-summary", Label)
        cost = app.query_one(CallStatus).query_one("#call-cost", Label)
        return str(summary.render()), str(cost.render()), summary.content_region.width


@pytest.mark.parametrize(
    ("profile", "path", "call"),
    [
        (  # the file name was cut ("…d_file.py") while the command stayed whole; then the command
            # was cut to '"…"', and the cells leaving it out frees go to the path
            "openhands",
            "src/agentpager/tui/screens/find_file.py",
            'pinned file_editor command=… path="s…/find_file.py" view_range=[1, 9]',
        ),
        (  # a short path was cut in its middle ("a/c…py") while the count of characters stayed
            "crush",
            "a/cli.py",
            'pinned file_read filename="a/cli.py" start_line=1 end_line=9',
        ),
    ],
)
async def test_a_pinned_call_keeps_its_file_name(root: Path, profile: str, path: str, call: str) -> None:
    """The cost leaves out the count of characters to make room (its tokens are not checked: some
    outputs name the workspace's directory)."""
    a_file(root, path)
    shown, cost, _ = await status_of(root, profile, path, pinned=True)
    assert shown == call
    assert cost.endswith(" tok") and "chars" not in cost


@pytest.mark.parametrize("profile", Workspace.profile_names())
async def test_every_profile_fills_the_line_and_keeps_the_file_name(root: Path, profile: str) -> None:
    path = "src/agentpager/tui/screens/find_file.py"
    a_file(root, path)
    for pinned in (False, True):
        call, _, width = await status_of(root, profile, path, pinned)
        assert "find_file.py" in call, (profile, pinned, call)
        assert len(call) == width or "…" not in call, (profile, pinned, call, width)
        assert not ONLY_AN_ELLIPSIS.search(call), (profile, pinned, call)


ONLY_AN_ELLIPSIS = re.compile(r'="…/?"|=\[…\]')
"""A value cut to nothing but its ellipsis (and a directory's "/"): ``path="…"``, ``path="…/"``,
``ignore=[…]``."""


@pytest.mark.parametrize(
    ("directory", "call"),
    [
        (  # was 'pattern="…" recursive=true path="…" limit=50': short texts are whole or left out
            "src/",
            "pinned list_files pattern=… recursive=true path=… limit=50",
        ),
        (  # was 'path="…"': a directory keeps what it can of its last part, as a file does
            "src/agentpager/",
            'pinned list_files pattern=… recursive=true path="…r/" limit=50',
        ),
    ],
)
async def test_a_directory_is_never_cut_to_only_an_ellipsis(root: Path, directory: str, call: str) -> None:
    a_file(root, "notes.txt")
    app = AgentPagerApp(Workspace(root, "qq"), "notes.txt")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        arguments = {"pattern": "*.py", "recursive": True, "path": directory, "limit": 50}
        app.panel.load_call("qq", "list_files", arguments)
        await settle(pilot)
        assert str(app.query_one(CallStatus).query_one("#call-summary", Label).render()) == call
