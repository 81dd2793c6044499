"""A 1 GB Claude Code session built from real public logs, and agentpager on it, each figure against
a baseline taken in the same run (the machine may be shared: ratios, medians of interleaved runs).

The session is the ``claude -p --output-format stream-json`` runs that tielec/ai-workflow-agent
commits (``.ai-workflow/issue-*/*/*/agent_log_raw.txt``, Claude Code 2.0.21, about 1,300 runs and
113 MB in its history), one after another, again and again until 1 GB: about 89,000 calls, 80,000
model turns, 660 compactions and Task subagents. Measured, with no saved index ("cold") and with
the one the first run saved ("warm"):

- the transcript screen (headless ``run_test`` at 200x55, in a process of its own): from opening
  the session to the first rows of the call list on screen, against ``wc -l`` of the session;
  60 jumps anywhere (fetch and paint the rows on screen); its anonymous memory while paging;
- ``agentpager replay --json`` and ``replay --context``, whole processes, against ``wc -l``: the
  time to the first line out, the time to the end, and the peak memory of each.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCE = "https://github.com/tielec/ai-workflow-agent"
RUN_LOGS = "*agent_log_raw.txt"
STREAM_JSON = b'{"type":"system","subtype":"init"'
SIZE = 1_000_000_000


def real_runs(repository: Path) -> list[bytes]:
    """Every Claude Code stream-json run the repository's history holds (``codex exec`` logs and
    the like left out), in the order of their blobs' ids."""
    git = ["git", f"--git-dir={repository}"]
    log = subprocess.run(
        [*git, "log", "--all", "--raw", "--no-abbrev", "--format=", "--", RUN_LOGS],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    blobs = sorted({line.split()[3] for line in log.splitlines() if line.startswith(":") and line.split()[4] != "D"})
    found = subprocess.run(
        [*git, "cat-file", "--batch"], input=("\n".join(blobs) + "\n").encode(), check=True, capture_output=True
    ).stdout
    runs, position = [], 0
    while position < len(found):
        header = found.index(b"\n", position)
        length = int(found[position:header].split()[2])
        body = found[header + 1 : header + 1 + length]
        position = header + 1 + length + 1
        if body.startswith(STREAM_JSON):
            runs.append(body if body.endswith(b"\n") else body + b"\n")
    return runs


def repository(repos: Path) -> Path:
    """The git directory of tielec/ai-workflow-agent: ``repos`` itself, or under it (cloned there
    when missing)."""
    for candidate in (repos, repos / "ai-workflow-agent" / ".git", repos / "ai-workflow-agent"):
        if (candidate / "HEAD").exists() and (candidate / "objects").exists():
            return candidate
    target = repos / "ai-workflow-agent"
    subprocess.run(["git", "clone", "--bare", "--quiet", SOURCE, str(target)], check=True)
    return target


def make_session(path: Path, repos: Path, size: int = SIZE) -> None:
    """The real runs one after another, again and again, until ``size`` bytes."""
    if path.exists() and path.stat().st_size >= size:
        return
    runs = real_runs(repository(repos))
    partial = path.with_suffix(".partial")
    written = 0
    with open(partial, "wb") as out:
        while written < size:
            for run in runs:
                out.write(run)
                written += len(run)
                if written >= size:
                    break
    partial.replace(path)


SCREEN_PROBE = """
import asyncio, random, statistics, sys, time
began = time.perf_counter()
from agentpager.transcripts import open_transcript
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.screens.transcript import CallList, TranscriptScreen
imported = time.perf_counter() - began


def anon():
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("RssAnon")) * 1024


async def main():
    start = time.perf_counter()
    try:  # as agentpager transcript opens it
        transcript = open_transcript(sys.argv[1], wait=False, paused=True)
    except TypeError:  # an agentpager from before the record index: it reads the whole session first
        transcript = open_transcript(sys.argv[1])
    app = AgentPagerApp.for_transcript(transcript, sys.argv[2])
    app.animation_level = "none"
    async with app.run_test(size=(200, 55)) as pilot:
        while not (isinstance(app.screen, TranscriptScreen) and app.screen.query_one(CallList).size.height > 0):
            await asyncio.sleep(0.001)
        calls = app.screen.query_one(CallList)
        calls.render_line(0)
        first = time.perf_counter() - start
        shown = len(transcript.calls)
        while not getattr(transcript, "complete", True):
            await asyncio.sleep(0.05)
        indexed = time.perf_counter() - start
        await pilot.pause()
        rng, paints, peak = random.Random(5), [], anon()
        for _ in range(60):
            target = rng.randrange(len(calls.rows))
            moved = time.perf_counter()
            calls.cursor = target
            for y in range(calls.size.height):
                calls.render_line(y)
            paints.append(time.perf_counter() - moved)
            await pilot.pause()
            peak = max(peak, anon())
        print(imported, first, shown, indexed, len(transcript.calls), statistics.median(paints), max(paints), peak)
        app.screen.workers.cancel_all()
        app.exit()


asyncio.run(main())
"""


def run(command: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Run a process: (seconds to its first line out, seconds to its end, its peak memory in bytes,
    as GNU time reports it: ``wait4``'s own figure would count this script's memory, the real runs it
    loaded, since Linux keeps a forked child's high-water mark across ``exec``)."""
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        process = subprocess.Popen(
            ["/usr/bin/time", "-f", "%M", "-o", report.name, *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert process.stdout is not None
        process.stdout.readline()
        first = time.perf_counter() - start
        while process.stdout.read(1 << 20):
            pass
        if process.wait():
            raise subprocess.CalledProcessError(process.returncode, command)
        return first, time.perf_counter() - start, int(report.read().split()[-1]) * 1024


def interleaved(command: list[str], baseline: list[str], env: dict[str, str], runs: int) -> dict[str, float]:
    """``command`` and ``baseline`` run in turn ``runs`` times: medians, and the median ratio of pairs."""
    ours, theirs, firsts, peaks = [], [], [], []
    for _ in range(runs):
        first, seconds, peak = run(command, env)
        ours.append(seconds)
        firsts.append(first)
        peaks.append(peak)
        theirs.append(run(baseline, env)[1])
    ratios = [mine / other for mine, other in zip(ours, theirs, strict=True)]
    return {
        "seconds": statistics.median(ours),
        "first": statistics.median(firsts),
        "baseline": statistics.median(theirs),
        "ratio": statistics.median(ratios),
        "peak": max(peaks),
    }


def benchmark(
    data: Path, repos: Path, runs: int, size: int = SIZE, session: Path | None = None
) -> list[tuple[str, str, bool | None]]:
    """(what, measured, target met, or None when there is no target) for the session of ``size`` bytes,
    built in ``data`` (or ``session``, one built before)."""
    if session is None:
        session = data / f"session-real-{size // 1_000_000}MB.jsonl"
        make_session(session, repos, size)
    workspace = data / "workspace"
    workspace.mkdir(exist_ok=True)
    cache = data / "cache-big"
    shutil.rmtree(cache, ignore_errors=True)
    env = os.environ | {"AGENTPAGER_CACHE_DIR": str(cache)}
    agentpager = [sys.executable, "-m", "agentpager"]
    wc = ["wc", "-l", str(session)]
    run(wc, env)  # the page cache warm, for both
    rows: list[tuple[str, str, bool | None]] = []
    megabytes = session.stat().st_size / 1e6
    one_run = data / "session-real-one-run.jsonl"
    with open(session, "rb") as head:  # the same app on the first run alone: what the app itself takes
        one_run.write_bytes(head.read(1 << 20).split(b'{"type":"result"', 1)[0])

    def screen(path: Path) -> list[float]:
        command = [sys.executable, "-c", SCREEN_PROBE, str(path), str(workspace)]
        return [
            float(value)
            for value in subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout.split()
        ]

    for state, count in (("cold", 1), ("warm", runs)):  # the first run builds and saves the index
        probes, floors, floor_peaks, baselines = [], [], [], []
        for _ in range(count):
            probes.append(screen(session))
            floor = screen(one_run)
            floors.append(floor[1])
            floor_peaks.append(floor[-1])
            baselines.append(run(wc, env)[1])
        imported, first, shown, indexed, calls, jump, worst, peak = (
            statistics.median(p) for p in zip(*probes, strict=True)
        )
        floor, baseline = statistics.median(floors), statistics.median(baselines)
        rows.append(
            (
                f"transcript screen, {megabytes:,.0f} MB session ({state}): first rows on screen",
                f"{first * 1000:,.0f} ms = {first / baseline:.1f}x wc -l ({baseline * 1000:,.0f} ms); the same app on "
                f"one run of it: {floor * 1000:,.0f} ms; {int(shown):,} calls listed then, all {int(calls):,} at "
                f"{indexed:,.1f} s; imports {imported:.2f} s apart",
                first < 0.5,
            )
        )
        rows.append(
            (
                f"transcript screen ({state}): jump anywhere, fetch and paint the rows (60 random)",
                f"median {jump * 1000:.1f} ms, worst {worst * 1000:.1f} ms",
                worst < 0.05,
            )
        )
        rows.append(
            (
                f"transcript screen ({state}): anonymous memory while paging",
                f"{peak / 1e6:,.0f} MB (the same app on one run of the session: {max(floor_peaks) / 1e6:,.0f} MB)",
                peak < 100e6,
            )
        )
    for state, count in (("cold", 1), ("warm", runs)):
        if state == "cold":
            shutil.rmtree(cache, ignore_errors=True)
        for what, arguments, limit in (("--context", ["--context"], 5.0), ("--json", ["--json"], None)):
            if state == "cold" and what == "--json":
                continue  # the --context run saved the index
            found = interleaved(
                [*agentpager, "replay", str(session), *arguments, "--root", str(workspace)], wc, env, count
            )
            rows.append(
                (
                    f"agentpager replay {what} ({state}), whole process",
                    f"{found['seconds']:,.2f} s = {found['ratio']:.1f}x wc -l ({found['baseline']:.2f} s); "
                    f"first line out at {found['first']:.2f} s; peak {found['peak'] / 1e6:,.0f} MB",
                    None if limit is None or state == "cold" else found["ratio"] < limit,
                )
            )
    return rows


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.environ.get("AGENTPAGER_BENCH_DIR", tempfile.gettempdir()))
    parser.add_argument("--repos", help="where tielec/ai-workflow-agent is (cloned there when missing)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--megabytes", type=int, default=SIZE // 1_000_000, help="the session's size (default 1000)")
    parser.add_argument("--session", type=Path, help="a session built before (by this script): measured as it is")
    options = parser.parse_args()
    data = Path(options.data) / "agentpager-sessions-bench"
    data.mkdir(parents=True, exist_ok=True)
    repos = Path(options.repos) if options.repos else data / "repos"
    rows = benchmark(data, repos, options.runs, options.megabytes * 1_000_000, options.session)
    width = max(len(what) for what, _, _ in rows)
    for what, measured, ok in rows:
        print(f"{'    ' if ok is None else 'ok  ' if ok else 'MISS'} {what:<{width}}  {measured}")
    return 0 if all(ok is not False for _, _, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
