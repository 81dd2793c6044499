"""How soon ``agentpager demo`` shows its first screen, on a first run and when the demo is reused.

    python benchmarks/demo.py [--runs N] [--size 200M]

Each run is a fresh Python process doing what ``agentpager demo`` does (imports, building the demo
in a new dir or reusing it, loading the settings, starting the app), headless at 200x55, timed
from before the process starts to the first frame that shows the log's lines, and to the panel
showing its call's output. Writing the log's bytes with ``head -c`` into a new file is measured in
the same runs, interleaved, as the floor a first build cannot beat. Exits 1 when the first run
takes 3 s or more.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run import Row  # noqa: E402

LIMIT = 3.0

CHILD = """
import asyncio, json, sys, time
started = float(sys.argv[1])
from pathlib import Path
from agentpager.config import load_config
from agentpager.tui.app import remappable_keys
from agentpager.demo import build_demo, parse_size
from agentpager.tui import demo_app

demo = build_demo(Path(sys.argv[2]), parse_size(sys.argv[3]))
built = time.time() - started
app = demo_app(demo, load_config(keys=remappable_keys()))
app.animation_level = "none"
times = {"built": built, "reused": demo.reused}

async def main():
    async with app.run_test(size=(200, 55)) as pilot:
        viewer = app.viewer
        while viewer.view is None or viewer.line_count == 0:
            await asyncio.sleep(0.001)
        await pilot.pause()  # the frame with those lines
        times["painted"] = time.time() - started
        while app.panel.outcome is None:
            await asyncio.sleep(0.001)
        await pilot.pause()
        times["panel"] = time.time() - started
        app.exit()

asyncio.run(main())
print(json.dumps(times))
"""


def run_child(root: Path, size: str, config_dir: Path) -> dict:
    env = {**os.environ, "AGENTPAGER_CONFIG_DIR": str(config_dir)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, repr(time.time()), str(root), size],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def head_c(path: Path, size: int) -> float:
    start = time.perf_counter()
    subprocess.run(f"head -c {size} /dev/zero > {path}", shell=True, check=True)
    elapsed = time.perf_counter() - start
    path.unlink()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", default="200M", help="the demo log's size (default 200M)")
    options = parser.parse_args()
    from agentpager.demo import parse_size

    size = parse_size(options.size)
    work = Path(tempfile.mkdtemp(prefix="agentpager-demo-bench-"))
    config_dir = work / "config"  # no user settings: the first run of a fresh install
    fresh: list[dict] = []
    reused: list[dict] = []
    floor: list[float] = []
    try:
        for n in range(options.runs):
            floor.append(head_c(work / "zeros", size))
            root = work / f"demo-{n}"
            fresh.append(run_child(root, options.size, config_dir))
            reused.append(run_child(root, options.size, config_dir))
            assert not fresh[-1]["reused"] and reused[-1]["reused"]
            shutil.rmtree(root)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def median(runs: list[dict], key: str) -> float:
        return statistics.median(run[key] for run in runs)

    head = statistics.median(floor)
    build = median(fresh, "built")
    painted = median(fresh, "painted")
    rows = [
        Row(
            "first run: demo built (process start included)",
            f"{build * 1000:.0f} ms = {build / head:.1f}x head -c of the log ({head * 1000:.0f} ms)",
            "",
            True,
        ),
        Row(
            "first run: the log's lines on screen",
            f"{painted * 1000:.0f} ms (panel output at {median(fresh, 'panel') * 1000:.0f} ms, "
            f"worst run {max(run['painted'] for run in fresh) * 1000:.0f} ms)",
            f"< {LIMIT:g} s",
            painted < LIMIT,
        ),
        Row(
            "demo reused: the log's lines on screen",
            f"{median(reused, 'painted') * 1000:.0f} ms (panel output at {median(reused, 'panel') * 1000:.0f} ms)",
            f"< {LIMIT:g} s",
            median(reused, "painted") < LIMIT,
        ),
    ]
    width = max(len(row.what) for row in rows)
    print(f"{options.runs} runs each, medians; log {size / 1e6:,.0f} MB")
    for row in rows:
        print(f"{'ok  ' if row.ok else 'MISS'} {row.what:<{width}}  {row.measured}  {row.target}")
    return 0 if all(row.ok for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
