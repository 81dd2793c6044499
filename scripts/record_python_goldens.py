"""Record what the real OpenHands file editor and SWE-agent windowed tools answer on the test corpus.

Writes ``tests/goldens/openhands/views.json`` and ``tests/goldens/swe-agent/sessions.json``, which
the tests compare the profiles with, byte for byte, without the agents installed. Needs the oracles
of ``tests/python_oracles.py``: ``AGENTPAGER_OPENHANDS_PYTHON`` and ``AGENTPAGER_SWE_AGENT_TOOLS``.
The corpus root is written as ``/workspace/project`` (OpenHands) and ``/repo`` (SWE-agent), the
working directories the tests give the profiles.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))

from pyagent_corpus import OPENHANDS_PATHS, SWE_AGENT_SESSIONS, VIEW_RANGES, make_corpus  # noqa: E402
from python_oracles import OpenHandsOracle, SweAgentShell  # noqa: E402

OPENHANDS_ROOT = "/workspace/project"
SWE_AGENT_ROOT = "/repo"


def _write(path: Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def record_openhands(root: Path, version: str) -> dict:
    oracle = OpenHandsOracle()
    views = []
    try:
        for name in OPENHANDS_PATHS:
            for view_range in VIEW_RANGES:
                arguments: dict = {"command": "view", "path": os.path.normpath(root / name)}
                if view_range is not None:
                    arguments["view_range"] = view_range
                answer = oracle.view(root, **arguments)
                arguments["path"] = arguments["path"].replace(str(root), OPENHANDS_ROOT)
                answer["text"] = answer["text"].replace(str(root), OPENHANDS_ROOT)
                views.append({"arguments": arguments, **answer})
    finally:
        oracle.close()
    return {"agent": f"openhands-tools {version}", "working_dir": OPENHANDS_ROOT, "views": views}


def record_swe_agent(root: Path, commit: str) -> dict:
    sessions = []
    for commands in SWE_AGENT_SESSIONS:
        shell = SweAgentShell(root, SWE_AGENT_ROOT)
        sessions.append([{"command": list(command), "text": shell.run(*command)} for command in commands])
    return {"agent": f"SWE-agent tools/windowed at {commit}", "working_dir": SWE_AGENT_ROOT, "sessions": sessions}


def main() -> None:
    openhands_version, swe_agent_commit = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as folder:
        root = make_corpus(Path(folder), big=True)
        _write(TESTS / "goldens" / "openhands" / "views.json", record_openhands(root, openhands_version))
        _write(TESTS / "goldens" / "swe-agent" / "sessions.json", record_swe_agent(root, swe_agent_commit))


if __name__ == "__main__":
    main()
