"""The TUI on big inputs: a 1 GB file and a directory of 100,000 entries, headless at 200x55.

    python benchmarks/tui.py [--data DIR]

Uses (and if need be generates) the data of benchmarks/run.py. Measures how soon the first lines
show, how long a jump anywhere takes to paint (lines whole and wrapped), the memory while paging,
how long the first page of the big directory takes, how soon the file finder lists the directory's
files and shows a keystroke's matches, with the longest stall of the UI's event loop meanwhile, and
how long a transcript of 10,000 tool calls takes to be listed.
Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run import MiB, make_lines_file  # noqa: E402
from textual.geometry import Region  # noqa: E402
from textual.widgets import OptionList  # noqa: E402

from agentpager import Workspace  # noqa: E402
from agentpager.transcripts import open_transcript  # noqa: E402
from agentpager.tui.app import AgentPagerApp  # noqa: E402
from agentpager.tui.screens.find_file import FindFile  # noqa: E402
from agentpager.tui.screens.transcript import CallList, TranscriptScreen  # noqa: E402
from agentpager.tui.tree import WorkspaceTree  # noqa: E402

SIZE = (200, 55)


def rss_anon() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
    return 0


class StallMeter:
    """The longest gap between ticks of a 5 ms timer on the app's event loop."""

    def __init__(self, app: AgentPagerApp) -> None:
        self.longest = 0.0
        self._last = time.perf_counter()
        app.set_interval(0.005, self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self._last)
        self._last = now

    def reset(self) -> None:
        self.longest, self._last = 0.0, time.perf_counter()


async def until(condition, timeout: float = 30.0) -> float:
    start = time.perf_counter()
    while not condition():
        if time.perf_counter() - start > timeout:
            raise TimeoutError
        await asyncio.sleep(0.001)
    return time.perf_counter() - start


async def big_file(data: Path, name: str) -> list[tuple[str, str, bool]]:
    start = time.perf_counter()
    app = AgentPagerApp(Workspace(data), name)
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        viewer = app.viewer
        first_lines = await until(lambda: viewer.view is not None and viewer.line_count > 0) + (
            time.perf_counter() - start
        )
        indexed = await until(lambda: viewer.indexed) + first_lines
        await pilot.pause()
        meter = StallMeter(app)
        rng = random.Random(5)
        paints, peak = [], rss_anon()
        for _ in range(60):
            target = rng.randint(1, viewer.line_count - 60)
            began = time.perf_counter()
            viewer.go_to_line(target)
            for y in range(viewer.scrollable_content_region.height):
                viewer.render_line(y)
            paints.append(time.perf_counter() - began)
            assert viewer.line(target)[0], "the window was fetched"
            await pilot.pause()  # let the panel follow: its call runs meanwhile
            peak = max(peak, rss_anon())
        stall = meter.longest
        viewer.action_toggle_wrap()
        wrapped = []
        for _ in range(20):
            began = time.perf_counter()
            viewer.go_to_line(rng.randint(1, viewer.line_count - 60))
            region = viewer.scrollable_content_region
            viewer.render_lines(Region(0, 0, region.width, region.height))
            wrapped.append(time.perf_counter() - began)
        await pilot.press("q")
    return [
        (
            "first lines of the 1 GB file on screen (app start included)",
            f"{first_lines * 1000:.0f} ms (all {viewer.line_count:,} lines counted at {indexed * 1000:.0f} ms)",
            first_lines < 0.5,
        ),
        (
            "jump anywhere: fetch and paint the window (60 random)",
            f"median {statistics.median(paints) * 1000:.1f} ms, worst {max(paints) * 1000:.1f} ms",
            max(paints) < 0.05,
        ),
        ("longest UI stall while jumping (the panel following)", f"{stall * 1000:.0f} ms", stall < 0.05),
        (
            "jump anywhere with lines wrapped: fold and paint (20 random)",
            f"median {statistics.median(wrapped) * 1000:.1f} ms, worst {max(wrapped) * 1000:.1f} ms",
            max(wrapped) < 0.05,
        ),
        ("anonymous memory of the whole app while paging", f"{peak / MiB:.0f} MB", peak < 200 * MiB),
    ]


async def big_directory(data: Path, entries: int) -> list[tuple[str, str, bool]]:
    flat = flat_directory(data, entries)
    app = AgentPagerApp(Workspace(data))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WorkspaceTree)
        await until(lambda: any(str(node.label).startswith(flat.name) for node in tree.root.children))
        node = next(node for node in tree.root.children if str(node.label).startswith(flat.name))
        meter = StallMeter(app)
        await pilot.pause()
        meter.reset()
        node.expand()
        first_page = await until(lambda: len(node.children) > 0)
        await pilot.pause(0.2)
        stall = meter.longest
        shown = len(node.children)
        await pilot.press("q")
    return [
        (
            f"first page of a directory of {entries:,} entries",
            f"{first_page * 1000:.0f} ms ({shown} nodes)",
            first_page < 0.3,
        ),
        ("longest UI stall meanwhile", f"{stall * 1000:.0f} ms", stall < 0.05),
    ]


def flat_directory(data: Path, entries: int) -> Path:
    flat = data / f"flat-{entries}"
    if not (data / f"flat-{entries}.complete").exists():
        flat.mkdir(exist_ok=True)
        for n in range(entries):
            (flat / f"entry{n:06d}.txt").touch()
        (data / f"flat-{entries}.complete").touch()
    return flat


async def file_finder(data: Path, entries: int) -> list[tuple[str, str, bool]]:
    """The file finder (o) over the 100,000-entry directory: listing, a keystroke's matches, stalls."""
    flat = flat_directory(data, entries)
    began = time.perf_counter()
    found = subprocess.run(["find", str(flat), "-type", "f"], capture_output=True, check=True).stdout.count(b"\n")
    find_time = time.perf_counter() - began
    app = AgentPagerApp(Workspace(flat))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WorkspaceTree)
        await until(lambda: len(tree.root.children) > 0)  # the tree's own first page is measured above
        await pilot.pause(0.2)
        meter = StallMeter(app)
        began = time.perf_counter()
        await pilot.press("o")
        finder = app.screen
        assert isinstance(finder, FindFile)
        listed = await until(lambda: finder.files is not None) + (time.perf_counter() - began)
        options = finder.query_one(OptionList)

        def first_shown() -> object:
            return options.get_option_at_index(0).prompt if options.option_count else None

        matches = []
        for key in "e9999y":
            before = first_shown()
            began = time.perf_counter()
            await pilot.press(key)
            await until(lambda before=before: first_shown() not in (None, before))  # type: ignore[misc]
            matches.append(time.perf_counter() - began)
        stall = meter.longest
        await pilot.press("escape", "q")
    return [
        (
            f"file finder: {found:,} files listed (find -type f: {find_time * 1000:.0f} ms)",
            f"{listed * 1000:.0f} ms = {listed / find_time:.1f}x find",
            listed < 1.0,
        ),
        (
            "file finder: a keystroke's best matches on screen (6 keys)",
            f"median {statistics.median(matches) * 1000:.0f} ms, worst {max(matches) * 1000:.0f} ms",
            max(matches) < 0.5,
        ),
        ("longest UI stall while listing and matching", f"{stall * 1000:.0f} ms", stall < 0.05),
    ]


def make_session(path: Path, calls: int) -> None:
    """A Claude Code session of ``calls`` Read calls of 50 lines each, recorded in the arrow format."""
    if path.exists():
        return
    cwd = "/home/dev/proj"
    with open(path, "w") as out:
        out.write(json.dumps({"type": "system", "subtype": "init", "cwd": cwd}) + "\n")
        for n in range(calls):
            if n % 50 == 0:
                out.write(
                    json.dumps({"type": "user", "cwd": cwd, "message": {"role": "user", "content": f"step {n}"}}) + "\n"
                )
            arguments = {"file_path": f"{cwd}/src/module_{n % 400}.py", "offset": 1 + n % 300, "limit": 50}
            output = "\n".join(
                f"{line:>6}→    value_{line} = compute({line}, {n})" for line in range(1 + n % 300, 51 + n % 300)
            )
            out.write(
                json.dumps(
                    {
                        "type": "assistant",
                        "cwd": cwd,
                        "message": {
                            "id": f"m{n}",
                            "role": "assistant",
                            "content": [{"type": "tool_use", "id": f"t{n}", "name": "Read", "input": arguments}],
                        },
                    }
                )
                + "\n"
            )
            out.write(
                json.dumps(
                    {
                        "type": "user",
                        "cwd": cwd,
                        "message": {
                            "role": "user",
                            "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": output}],
                        },
                    }
                )
                + "\n"
            )


async def long_transcript(data: Path, calls: int) -> list[tuple[str, str, bool]]:
    path = data / f"session-{calls}.jsonl"
    make_session(path, calls)
    start = time.perf_counter()
    app = AgentPagerApp.for_transcript(open_transcript(str(path)), str(data))
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: isinstance(app.screen, TranscriptScreen) and app.screen.query_one(CallList).size.height > 0)
        shown = time.perf_counter() - start
        listed = len(app.screen.query_one(CallList).calls)
        app.screen.workers.cancel_all()
        await pilot.press("q")
    size = path.stat().st_size / MiB
    return [(f"transcript of {listed:,} calls ({size:.0f} MB) listed on screen", f"{shown * 1000:.0f} ms", shown < 1.0)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = Path(os.environ.get("AGENTPAGER_BENCH_DIR", tempfile.gettempdir())) / "agentpager-bench"
    parser.add_argument("--data", type=Path, default=default)
    options = parser.parse_args()
    options.data.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("AGENTPAGER_CACHE_DIR", str(options.data / "cache"))
    size, lines = 1_000_000_000, 10_000_000
    name = f"lines-{size}.txt"
    make_lines_file(options.data / name, size, lines)
    rows = asyncio.run(big_file(options.data, name)) + asyncio.run(big_directory(options.data, 100_000))
    rows += asyncio.run(file_finder(options.data, 100_000))
    rows += asyncio.run(long_transcript(options.data, 10_000))
    width = max(len(what) for what, _, _ in rows)
    for what, measured, ok in rows:
        print(f"{'ok  ' if ok else 'MISS'} {what:<{width}}  {measured}")
    return 0 if all(ok for _, _, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
