"""The real Python agents' code, run as oracles for the openhands and swe-agent profiles.

- OpenHands: ``$AGENTPAGER_OPENHANDS_PYTHON`` is a Python (3.12 or newer) with openhands-tools
  installed (``.ci/run`` makes one from ``tests/oracles/requirements.txt``). Its file editor runs
  in one child process (``tests/oracles/openhands_view.py``), without network when ``unshare`` can
  take it away.
- SWE-agent: its tools are not on PyPI. ``$AGENTPAGER_SWE_AGENT_TOOLS`` is the ``tools/`` folder
  of a SWE-agent checkout (``windowed/`` and ``registry/`` are used); each command runs its script,
  as SWE-agent's shell would, with the state file its registry keeps between commands.

Either oracle missing: the tests that need it are skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from waiting import HANG

OPENHANDS_PYTHON = os.environ.get("AGENTPAGER_OPENHANDS_PYTHON", "")
SWE_AGENT_TOOLS = os.environ.get("AGENTPAGER_SWE_AGENT_TOOLS", "")
_HERE = Path(__file__).parent


def _offline(command: list[str]) -> list[str]:
    """``command`` in a network namespace of its own, when this machine lets us make one."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n", *command]
    return command


class OpenHandsOracle:
    """OpenHands' FileEditorExecutor in a child process: one call, one answer."""

    def __init__(self) -> None:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": tempfile.mkdtemp(prefix="openhands-home-"),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "OPENHANDS_SUPPRESS_BANNER": "1",
            "LANG": "C.UTF-8",
        }
        self.process = subprocess.Popen(
            _offline([OPENHANDS_PYTHON, str(_HERE / "oracles" / "openhands_view.py")]),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            env=env,
        )

    def view(self, root: Path, **arguments: Any) -> dict[str, Any]:
        """``{"text", "is_error"}``, or ``{"invalid"}`` when the SDK refuses the arguments themselves."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"root": str(root), **arguments}) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError("the OpenHands oracle stopped")
        return dict(json.loads(answer))

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=HANG)


_ANSI_ESCAPE = re.compile(r"\x1B[@-_][0-?]*[ -/]*[@-~]")


class SweAgentShell:
    """SWE-agent's windowed tools run one command at a time in ``root``, keeping their registry."""

    def __init__(self, root: Path, working_dir: str = "", tools: str = SWE_AGENT_TOOLS) -> None:
        """``working_dir``: the name the root is shown by (for goldens), else its real path."""
        self.root = root
        self.real_root = os.path.realpath(root)
        self.working_dir = working_dir or self.real_root
        self.tools = Path(tools)
        self.env_file = Path(tempfile.mkdtemp(prefix="swe-agent-env-")) / "env.json"
        # What tools/windowed/install.sh writes with _write_env.
        self.env_file.write_text(json.dumps({"WINDOW": "100", "OVERLAP": "2", "FIRST_LINE": "0", "CURRENT_FILE": ""}))

    def run(self, command: str, *arguments: str) -> str:
        """The observation the model gets: the command's output (stdout and stderr, as a terminal
        shows them) in the next-step template of SWE-agent's configs with these tools."""
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": f"{self.tools / 'windowed' / 'lib'}:{self.tools / 'registry' / 'lib'}",
            "SWE_AGENT_ENV_FILE": str(self.env_file),
            "PYTHONUNBUFFERED": "1",
            "LANG": "C.UTF-8",
        }
        script = self.tools / "windowed" / "bin" / command
        ran = subprocess.run(
            [sys.executable, str(script), *arguments],
            cwd=self.root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        output = _ANSI_ESCAPE.sub("", ran.stdout.decode("utf-8", "backslashreplace")).replace("\r\n", "\n")
        output = output.replace(self.real_root, self.working_dir)
        current = json.loads(self.env_file.read_text()).get("CURRENT_FILE")
        open_file = str(Path(current).resolve()) if current else "n/a"  # what tools/windowed/bin/_state says
        open_file = open_file.replace(self.real_root, self.working_dir)
        if len(output) > 100_000:  # sweagent/agent/agents.py, TemplateConfig.next_step_truncated_observation_template
            return (
                f"Observation: {output[:100_000]}<response clipped><NOTE>Observations should not exceeded 100000 "
                f"characters. {len(output) - 100_000} characters were elided. Please try a different command that "
                "produces less output or use head/tail/grep/redirect the output to a file. Do not use interactive "
                "pagers.</NOTE>"
            )
        return f"{output}\n(Open file: {open_file})\n(Current directory: {self.working_dir})\nbash-$"
