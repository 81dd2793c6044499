"""Session targets, each measured in the same run against its baseline.

    python benchmarks/sessions.py [--data DIR] [--quick]

1. ``agentpager sessions`` over a generated home of 1,000 Claude Code and Codex sessions: the first
   listing (nothing cached), and the next (from the cache): target under a second each.
2. Listing the calls of a 500 MB Claude Code session (``open_transcript``) against ``wc -l`` on
   it: target at most 2x, with its anonymous memory (RssAnon).
``--quick`` uses 200 sessions and a 50 MB session to check the script itself. Exits 1 when a
target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


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


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=os.environ.get("AGENTPAGER_BENCH_DIR", tempfile.gettempdir()))
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    data = Path(options.data) / "agentpager-sessions-bench"
    count, megabytes = (200, 50) if options.quick else (1000, 500)
    home, cache = data / f"home-{count}", data / "cache"
    if not home.exists():
        make_home(home, count)
    shutil.rmtree(cache, ignore_errors=True)
    env = os.environ | {"AGENTPAGER_CACHE_DIR": str(cache)}
    command = [sys.executable, "-m", "agentpager", "sessions", "--home", str(home), "--json"]
    first, cached = timed(command, env), min(timed(command, env) for _ in range(3))
    ok = True
    for what, seconds in (("first listing", first), ("from the cache", cached)):
        good = seconds < 1.0
        ok &= good
        print(f"{count:,} sessions, {what}: {seconds:.2f} s (target < 1 s) {'ok' if good else 'MISSED'}")

    big = data / f"session-{megabytes}MB.jsonl"
    if not big.exists():
        lines = claude_lines(1000, 200_000, "/home/me/big")
        chunk = "\n".join(lines) + "\n"
        with big.open("w") as out:
            for _ in range(max(1, megabytes * 1_000_000 // len(chunk.encode()))):
                out.write(chunk)
    probe = (
        "import time,sys;t=time.perf_counter();from agentpager.transcripts import open_transcript;"
        f"n=len(open_transcript({str(big)!r}).calls);d=time.perf_counter()-t;"
        "anon=[l for l in open('/proc/self/status') if l.startswith('RssAnon')][0].split()[1];"
        "print(n,d,int(anon)//1024)"
    )
    ours, theirs = [], []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(["wc", "-l", str(big)], check=True, stdout=subprocess.DEVNULL)
        theirs.append(time.perf_counter() - start)
        calls, seconds, anon = subprocess.run(
            [sys.executable, "-c", probe], check=True, capture_output=True, text=True
        ).stdout.split()
        ours.append(float(seconds))
    ratio = min(ours) / min(theirs)
    good = ratio <= 2
    ok &= good
    print(
        f"{big.stat().st_size / 1e6:.0f} MB session, {int(calls):,} calls listed: {min(ours):.2f} s = {ratio:.1f}x wc -l "
        f"({min(theirs):.3f} s), {anon} MB anonymous memory (target <= 2x) {'ok' if good else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
