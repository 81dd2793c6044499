"""What the app's start leaves out: screens and libraries are imported when first used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from waiting import HANG

FIRST_PAINT = """
import asyncio, sys
from agentpager.tui.app import AgentPagerApp
from agentpager.workspace import Workspace


async def first_paint():
    app = AgentPagerApp(Workspace(sys.argv[1]), open_path="a.txt")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.exit()
    print(sorted(name for name in sys.modules if name.startswith(tuple(sys.argv[2:]))), file=sys.stderr)


asyncio.run(first_paint())
"""

LAZY = (
    "markdown_it",  # the help screen's Markdown
    "agentpager.probe",  # the probe's machinery (an HTTP server among it)
    "agentpager.tui.screens.help",
    "agentpager.tui.screens.probe",
    "agentpager.tui.screens.find_file",
    "agentpager.tools.shell",  # the agents' shell programs: every agent's profiles are found when first listed
)


def test_the_app_starts_without_the_help_the_probe_or_the_file_finder(root: Path) -> None:
    (root / "a.txt").write_text("small file\n")
    command = [sys.executable, "-c", FIRST_PAINT, str(root), *LAZY]
    done = subprocess.run(command, capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"
