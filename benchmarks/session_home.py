"""A home of 20,000 agent sessions built from real public logs, for ``benchmarks/sessions.py``.

    python benchmarks/session_home.py --claude GIT_DIR --codex GIT_DIR HOME [--sessions N]

- Claude Code: the ``claude -p --output-format stream-json`` runs that tielec/ai-workflow-agent
  commits (``.ai-workflow/issue-*/*/execute/agent_log_raw.txt``, Claude Code 2.0.21, each with the
  run's ``prompt.txt``), written as project logs (``~/.claude/projects/<project>/<session>.jsonl``):
  the run's prompt first, then each line with the fields a project log has on every line (cwd,
  sessionId, version, gitBranch, timestamp). 85% of the sessions, in 200 projects.
- Codex: the rollout pinouchon/rtchess commits (``dev_history/*_rtchess_1.jsonl``, Codex 0.60.1,
  2 MB, 298 calls), cut after a random number of its lines (so sizes vary), as
  ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``. 15% of the sessions.

Every session gets its own id, project directory (the recorded one replaced in its text) and times
(a start over two years, a second per line). Get the repositories with ``git clone --mirror
https://github.com/tielec/ai-workflow-agent`` and ``.../pinouchon/rtchess``. Built once into HOME
(a temp dir: never the repository) with a ``built`` file that says how.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

CLAUDE_LOGS = "agent_log_raw.txt"
CODEX_ROLLOUT = "_rtchess_1.jsonl"
CLAUDE_SHARE = 0.85
PROJECTS = 200
CODEX_PROJECTS = 40
CODEX_LINES = (40, 870)
"""How many of the rollout's 2,222 lines a Codex session keeps (uniformly)."""
START = datetime(2024, 6, 1, tzinfo=UTC)
SPAN_SECONDS = 2 * 365 * 24 * 3600


def _blobs(git_dir: Path, suffix: str) -> dict[str, str]:
    """Every version of the files whose path ends with ``suffix``, in any commit: blob -> path."""
    listed = subprocess.run(
        ["git", "--git-dir", str(git_dir), "rev-list", "--all", "--objects"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found: dict[str, str] = {}
    for line in listed.splitlines():
        blob, _, path = line.partition(" ")
        if path.endswith(suffix):
            found.setdefault(blob, path)
    return found


def _read_blobs(git_dir: Path, blobs: list[str]) -> dict[str, bytes]:
    """The contents of ``blobs``, read by one ``git cat-file --batch``."""
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        input="".join(blob + "\n" for blob in blobs).encode(),
        check=True,
        capture_output=True,
    ).stdout
    contents: dict[str, bytes] = {}
    position = 0
    while position < len(done):
        header_end = done.index(b"\n", position)
        blob, _, size = done[position:header_end].decode().split(" ")
        start = header_end + 1
        contents[blob] = done[start : start + int(size)]
        position = start + int(size) + 1
    return contents


def claude_runs(git_dir: Path) -> list[tuple[bytes, str, str]]:
    """(the run's stream-json lines after its init line, the cwd it recorded, its prompt) for each
    Claude Code run; runs of other agents (the repository keeps Codex ``exec --json`` logs too) left out."""
    logs = _blobs(git_dir, "/execute/" + CLAUDE_LOGS)
    prompts = {path.rsplit("/", 1)[0]: blob for blob, path in _blobs(git_dir, "/execute/prompt.txt").items()}
    contents = _read_blobs(git_dir, [*logs, *set(prompts.values())])
    runs = []
    for blob, path in sorted(logs.items(), key=lambda item: item[1] + item[0]):
        data = contents[blob]
        first, _, rest = data.partition(b"\n")
        if not first.startswith(b'{"type":"system","subtype":"init"'):
            continue
        cwd = json.loads(first)["cwd"]
        prompt_blob = prompts.get(path.rsplit("/", 1)[0])
        prompt = contents[prompt_blob].decode("utf-8", "replace") if prompt_blob else "Carry on with the workflow."
        runs.append((rest, cwd, prompt))
    return runs


def codex_rollout(git_dir: Path) -> bytes:
    blob = next(iter(_blobs(git_dir, CODEX_ROLLOUT)))
    return _read_blobs(git_dir, [blob])[blob]


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def write_claude_session(
    home: Path, run: tuple[bytes, str, str], number: int, rng: random.Random, started: datetime
) -> int:
    """One Claude Code project log from a stream-json run; its size."""
    lines, recorded_cwd, prompt = run
    project = number % PROJECTS
    cwd = f"/home/dev/work/service-{project:03d}"
    session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    branch = rng.choice(["main", "develop", f"issue-{number % 500}"])
    body = lines.replace(recorded_cwd.encode(), cwd.encode())
    common = (
        '{"parentUuid":null,"isSidechain":false,"userType":"external",'
        f'"cwd":{json.dumps(cwd)},"sessionId":"{session}","version":"2.0.21","gitBranch":"{branch}",'
    )
    first = {
        "type": "user",
        "message": {"role": "user", "content": prompt.replace(recorded_cwd, cwd)},
        "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "timestamp": _stamp(started),
    }
    out = [common.encode() + json.dumps(first, ensure_ascii=False, separators=(",", ":"))[1:].encode()]
    moment = started
    for line in body.split(b"\n"):
        if not line.startswith((b'{"type":"assistant"', b'{"type":"user"')):
            continue  # the stream's own records (init, result) are not in project logs
        moment += timedelta(seconds=rng.randint(1, 20))
        out.append(f'{common}"timestamp":"{_stamp(moment)}",'.encode() + line[1:])
    directory = home / ".claude" / "projects" / cwd.replace("/", "-")
    directory.mkdir(parents=True, exist_ok=True)
    data = b"\n".join(out) + b"\n"
    (directory / f"{session}.jsonl").write_bytes(data)
    return len(data)


def write_codex_session(home: Path, rollout: list[bytes], number: int, rng: random.Random, started: datetime) -> int:
    """One Codex rollout: the first lines of the real one, with a new id, cwd and times; its size."""
    session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    cwd = f"/home/dev/work/chess-{number % CODEX_PROJECTS:02d}"
    kept = rollout[: rng.randint(*CODEX_LINES)]
    out = []
    moment = started
    for line in kept:
        moment += timedelta(milliseconds=rng.randint(10, 4000))
        # Every line starts {"timestamp":"2025-11-22T20:45:35.610Z",... (24 characters of time).
        out.append(b'{"timestamp":"' + _stamp(moment).encode() + line[38:])
    data = b"\n".join(out) + b"\n"
    # session_meta's payload says when the session started too: the same time as its line's
    meta = rb'("type":"session_meta","payload":\{"id":"[^"]*","timestamp":")[^"]*'
    data = re.sub(meta, rb"\g<1>" + out[0][14:38], data)
    data = data.replace(b"019aad50-a7e6-7422-b7a8-0b384290624f", session.encode())
    data = data.replace(b"/Users/pinouchon/code/rtchess", cwd.encode())
    directory = home / ".codex" / "sessions" / started.strftime("%Y/%m/%d")
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"rollout-{started.strftime('%Y-%m-%dT%H-%M-%S')}-{session}.jsonl").write_bytes(data)
    return len(data)


def build(home: Path, claude_git: Path, codex_git: Path, sessions: int, seed: int = 16) -> tuple[int, int]:
    """Write ``sessions`` sessions into ``home``; (Claude Code sessions, bytes written)."""
    rng = random.Random(seed)
    runs = claude_runs(claude_git)
    rollout = [line for line in codex_rollout(codex_git).split(b"\n") if line.startswith(b'{"timestamp":"')]
    claude = round(sessions * CLAUDE_SHARE)
    written = 0
    for number in range(sessions):
        started = START + timedelta(seconds=rng.randrange(SPAN_SECONDS))
        if number < claude:
            written += write_claude_session(home, runs[number % len(runs)], number, rng, started)
        else:
            written += write_codex_session(home, rollout, number, rng, started)
    (home / "built").write_text(f"{sessions} sessions, {claude} Claude Code, {written} bytes, seed {seed}\n")
    return claude, written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claude", type=Path, required=True, help="git dir of tielec/ai-workflow-agent")
    parser.add_argument("--codex", type=Path, required=True, help="git dir of pinouchon/rtchess")
    parser.add_argument("--sessions", type=int, default=20_000)
    parser.add_argument("home", type=Path)
    options = parser.parse_args()
    claude, written = build(options.home, options.claude, options.codex, options.sessions)
    print(f"{options.sessions:,} sessions ({claude:,} Claude Code), {written / 1e9:.2f} GB in {options.home}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
