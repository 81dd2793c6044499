"""Regenerate the SVGs in screenshots/: the main screens of agentpager, on the demo workspace.

    python scripts/screenshots.py [--out DIR] [--size 200M]

Deterministic: the demo is built in the same temp dir every time from fixed seeds, no user config
or theme is read (an empty config dir), the cache is a fresh temp dir, animations and cursor
blinking are off, and every screen waits for its workers before it is saved.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent, TextArea
from textual.worker import WorkerCancelled

from agentpager.config import Config
from agentpager.demo import Demo, build_demo, parse_size
from agentpager.tui import demo_app

OUT = Path(__file__).resolve().parent.parent / "screenshots"
DEMO_DIR = Path(tempfile.gettempdir()) / "agentpager-screenshots" / "shop"


async def steady(pilot: Pilot) -> None:
    """Workers done, their messages handled, cursors still."""
    for _ in range(6):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            pass
        await pilot.pause()
    for widget in [*pilot.app.query(Input).results(), *pilot.app.query(TextArea).results()]:
        widget.cursor_blink = False
    for screen in pilot.app.screen_stack:
        for widget in [*screen.query(Input).results(), *screen.query(TextArea).results()]:
            widget.cursor_blink = False
    await pilot.pause()


async def press(pilot: Pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await steady(pilot)


@dataclass
class Shot:
    name: str
    """The SVG's name (without .svg) and what it shows."""
    size: tuple[int, int]
    steps: Callable[[Pilot], Awaitable[None]]
    open_file: bool = True
    theme: str | None = None


async def file_open(pilot: Pilot) -> None:
    await press(pilot, "colon", *"236", "enter")


async def warning_directory(pilot: Pilot) -> None:
    # The tree: docs/, fixtures/ (expand), then customers/, orders/ (expand: its listing in the panel).
    await press(pilot, "down", "down", "enter", "down", "down", "enter")


async def transcript(pilot: Pilot) -> None:
    await press(pilot, "t")
    await press(pilot, *["down"] * 6)  # the Read of src/shop/config.py, which the agent then edited
    pilot.app.screen.query_one(TabbedContent).active = "tab-difference"
    await steady(pilot)


async def help_screen(pilot: Pilot) -> None:
    await press(pilot, "question_mark")


async def nothing(pilot: Pilot) -> None:
    await steady(pilot)


SHOTS = [
    Shot("file-open", (200, 50), file_open),
    Shot("warning-directory", (200, 50), warning_directory, open_file=False),
    Shot("transcript", (200, 50), transcript),
    Shot("help", (160, 50), help_screen),
    Shot("narrow-80x24", (80, 24), nothing),
    Shot("theme-paper", (160, 45), file_open, theme="paper"),
]


async def take(shot: Shot, demo: Demo, out: Path) -> Path:
    app = demo_app(demo, Config())
    app.welcome = None
    if not shot.open_file:
        app.open_path = None
    if shot.theme:
        app.theme = shot.theme
    app.animation_level = "none"
    async with app.run_test(size=shot.size) as pilot:
        await steady(pilot)
        await shot.steps(pilot)
        await steady(pilot)
        return Path(app.save_screenshot(f"{shot.name}.svg", str(out)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the SVGs go (default {OUT})")
    parser.add_argument("--size", default="200M", help="the demo log's size (default 200M, as agentpager demo)")
    options = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="agentpager-screenshots-"))
    os.environ["AGENTPAGER_CONFIG_DIR"] = str(scratch / "config")  # no user settings or themes
    os.environ["AGENTPAGER_CACHE_DIR"] = str(scratch / "cache")
    options.out.mkdir(parents=True, exist_ok=True)
    demo = build_demo(DEMO_DIR, parse_size(options.size))
    for shot in SHOTS:
        path = asyncio.run(take(shot, demo, options.out))
        print(f"{path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
