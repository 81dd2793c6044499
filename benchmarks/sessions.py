"""Session targets, each measured in the same run against its baseline.

    python benchmarks/sessions.py [--data DIR] [--quick]

1. A generated home of 1,000 Claude Code and Codex sessions (166 MB), nothing cached: the session
   browser (headless, in process) from the moment it opens until its list is on screen, and
   ``agentpager sessions --json`` (a process of its own, its start included) the first time (each
   session's ends are read; the calls of the sessions bigger than twice EDGE_BYTES are left to
   count) and from the cache. Target: under a second for each. For information: counting every
   session (``--full``), and when the browser had counted them all.
2. Listing the calls of a 463 MB Claude Code session (1,000 calls, 200,000-character outputs):
   ``open_transcript`` against ``wc -l`` on the same file, runs interleaved, the best of each, in
   the same process after ``import agentpager.transcripts`` (whose time, a constant, is printed
   apart), with its anonymous memory (RssAnon). Target: at most 2x.
The package is byte-compiled first, as pip installs it. ``--quick`` uses 200 sessions and a 46 MB
session (saying so) to check the script itself. Exits 1 when a
target is missed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 5


def claude_lines(calls: int, output_chars: int, cwd: str) -> list[str]:
    lines = [
        json.dumps(
            {
                "type": "user",
                "cwd": cwd,
                "sessionId": "s",
                "version": "2.1.130",
                "timestamp": "2026-01-01T10:00:00.000Z",
                "message": {"role": "user", "content": "go"},
            }
        )
    ]
    text = "".join(f'{n:>6}→    const value{n} = compute("item", {n});\n' for n in range(output_chars // 45 + 1))[
        :output_chars
    ]
    for n in range(calls):
        lines.append(
            json.dumps(
                {
                    "type": "assistant",
                    "cwd": cwd,
                    "version": "2.1.130",
                    "timestamp": "2026-01-01T10:01:00.000Z",
                    "message": {
                        "id": f"m{n}",
                        "role": "assistant",
                        "model": "claude-sonnet-4-5",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": f"t{n}",
                                "name": "Read",
                                "input": {"file_path": f"{cwd}/f{n}.js"},
                            }
                        ],
                        "usage": {"input_tokens": 3, "cache_read_input_tokens": 40000 + n, "output_tokens": 50},
                    },
                },
                separators=(",", ":"),
            )
        )
        lines.append(
            json.dumps(
                {
                    "type": "user",
                    "cwd": cwd,
                    "timestamp": "2026-01-01T10:01:01.000Z",
                    "message": {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": text}],
                    },
                    "toolUseResult": {"type": "text", "file": {"filePath": f"{cwd}/f{n}.js", "content": text}},
                },
                separators=(",", ":"),
            )
        )
    return lines


def make_home(home: Path, sessions: int) -> None:
    random.seed(7)
    for n in range(sessions):
        cwd = f"/home/me/project{n % 40}"
        if n % 2:
            directory = home / ".claude" / "projects" / cwd.replace("/", "-")
            directory.mkdir(parents=True, exist_ok=True)
            (directory / f"session{n}.jsonl").write_text(
                "\n".join(claude_lines(random.randint(5, 60), 3000, cwd)) + "\n"
            )
        else:
            directory = home / ".codex" / "sessions" / "2026" / "01" / f"{n % 28 + 1:02d}"
            directory.mkdir(parents=True, exist_ok=True)
            records = [
                {
                    "timestamp": "2026-01-01T10:00:00Z",
                    "type": "session_meta",
                    "payload": {"id": f"c{n}", "cwd": cwd, "cli_version": "0.60.1"},
                }
            ]
            for k in range(random.randint(5, 60)):
                records.append(
                    {
                        "timestamp": "2026-01-01T10:00:01Z",
                        "type": "response_item",
                        "payload": {
                            "type": "function_call",
                            "name": "shell_command",
                            "call_id": f"c{k}",
                            "arguments": '{"command": "sed -n \'1,200p\' a.js"}',
                        },
                    }
                )
                records.append(
                    {
                        "timestamp": "2026-01-01T10:00:02Z",
                        "type": "response_item",
                        "payload": {
                            "type": "function_call_output",
                            "call_id": f"c{k}",
                            "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\n" + "x" * 3000,
                        },
                    }
                )
            (directory / f"rollout-2026-01-01T10-00-00-c{n}.jsonl").write_text(
                "".join(json.dumps(r) + "\n" for r in records)
            )


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    return time.perf_counter() - start, done.stdout


BROWSER_PROBE = """
import asyncio, sys, time
start = time.perf_counter()
from agentpager import Workspace
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.screens.sessions import SessionsScreen
imported = time.perf_counter() - start

opened = []
mount = SessionsScreen.on_mount

def on_mount(self):
    opened.append(time.perf_counter())
    mount(self)

SessionsScreen.on_mount = on_mount

async def main():
    app = AgentPagerApp(Workspace(sys.argv[2]), start_with_sessions=True, sessions_home=sys.argv[1])
    async with app.run_test(size=(200, 55)) as pilot:
        while not (isinstance(app.screen, SessionsScreen) and app.screen.listed):
            await asyncio.sleep(0.001)
        listed = time.perf_counter() - opened[0]
        while app.screen.left:
            await asyncio.sleep(0.01)
        print(imported, listed, time.perf_counter() - opened[0], len(app.screen.listed))
        app.exit()

asyncio.run(main())
"""

LISTING_PROBE = """
import resource, subprocess, sys, time
start = time.perf_counter()
from agentpager.transcripts import open_transcript
imported = time.perf_counter() - start
path, runs = sys.argv[1], int(sys.argv[2])
ours, theirs = [], []
for _ in range(runs):
    start = time.perf_counter()
    subprocess.run(["wc", "-l", path], check=True, stdout=subprocess.DEVNULL)
    theirs.append(time.perf_counter() - start)
    start = time.perf_counter()
    calls = len(open_transcript(path).calls)
    ours.append(time.perf_counter() - start)
anon = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("RssAnon"))
print(calls, min(ours), min(theirs), imported, anon // 1024)
"""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=os.environ.get("AGENTPAGER_BENCH_DIR", tempfile.gettempdir()))
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    data = Path(options.data) / "agentpager-sessions-bench"
    # As pip installs it: byte-compiled (with PYTHONDONTWRITEBYTECODE set, each process would compile
    # what changed since the last .pyc, 50-90 ms of the first listing).
    package = importlib.util.find_spec("agentpager")
    assert package is not None and package.submodule_search_locations
    subprocess.run([sys.executable, "-m", "compileall", "-q", *package.submodule_search_locations], check=True)
    count, megabytes = (200, 50) if options.quick else (1000, 500)
    home, cache = data / f"home-{count}", data / "cache"
    if not home.exists():
        make_home(home, count)
    shutil.rmtree(cache, ignore_errors=True)
    env = os.environ | {"AGENTPAGER_CACHE_DIR": str(cache)}
    command = [sys.executable, "-m", "agentpager", "sessions", "--home", str(home), "--json"]
    first, listed = timed(command, env)
    cached = min(timed(command, env)[0] for _ in range(3))
    uncounted = sum(json.loads(line)["calls"] is None for line in listed.splitlines())
    full = timed([*command, "--full"], env)[0]
    shutil.rmtree(cache, ignore_errors=True)
    workspace = data / "workspace"
    workspace.mkdir(exist_ok=True)
    imported, browser, counted, shown = map(
        float,
        subprocess.run(
            [sys.executable, "-c", BROWSER_PROBE, str(home), str(workspace)],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        ).stdout.split(),
    )
    ok = True
    for what, seconds in (
        ("session browser, from opening to its list", browser),
        ("agentpager sessions, first listing", first),
        ("agentpager sessions, from the cache", cached),
    ):
        good = seconds < 1.0
        ok &= good
        print(f"{count:,} sessions, {what}: {seconds:.2f} s (target < 1 s) {'ok' if good else 'MISSED'}")
    print(
        f"  first listing: {count - uncounted:,} sessions counted from their ends (small enough to read whole), "
        f"{uncounted:,} left to count; counting them all (--full): {full:.2f} s; the browser showed "
        f"{int(shown):,} rows and had counted them all {counted:.2f} s after it opened (its imports: {imported:.2f} s)"
    )

    big = data / f"session-{megabytes}MB.jsonl"
    if not big.exists():  # a call and its 200,000-character output take 463 KB
        big.write_text("\n".join(claude_lines(2 * megabytes, 200_000, "/home/me/big")) + "\n")
    calls, ours, theirs, imported, anon = subprocess.run(
        [sys.executable, "-c", LISTING_PROBE, str(big), str(RUNS)], check=True, capture_output=True, text=True
    ).stdout.split()
    ratio = float(ours) / float(theirs)
    good = ratio <= 2
    ok &= good
    print(
        f"{big.stat().st_size / 1e6:.0f} MB session, {int(calls):,} calls listed: {float(ours):.3f} s = "
        f"{ratio:.2f}x wc -l ({float(theirs):.3f} s), best of {RUNS} each, interleaved; {anon} MB anonymous "
        f"memory; import {float(imported):.2f} s apart (target <= 2x) {'ok' if good else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
