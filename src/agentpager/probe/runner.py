"""Run a real agent once against the mock and return the exact result of one tool call."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentpager.probe.installation import Installed, Progress, find
from agentpager.probe.mock import MockServer, Recording
from agentpager.probe.processes import Cancelled, stop
from agentpager.probe.program import PROMPT, Program

PROBE_TIMEOUT = 180.0
"""Seconds from start until the tool result must have arrived."""
EXIT_GRACE = 20.0
"""Seconds the agent gets to exit once the result is recorded (it is killed after)."""
NO_PROXY_PORT = 9
"""Proxies point here (a closed port on 127.0.0.1): traffic that bypasses the mock fails at once."""


class ProbeError(RuntimeError):
    """The agent did not send the tool result back (it failed, refused or timed out)."""


@dataclass(frozen=True)
class ProbeResult:
    text: str
    """The tool result exactly as the agent sent it to the model."""
    is_error: bool
    agent: str
    """The agent's id."""
    version: str
    model: str
    raw_request: bytes
    """The body of the request that carried the result (empty when only the agent's own records had it)."""
    offered_tools: tuple[Any, ...] = ()
    """The tool definitions the agent offered the model."""


def agent_environment(home: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """A clean environment (as ``env -i``): a minimal PATH with node, the temp home, proxies to nowhere."""
    node = shutil.which("node")
    path = [str(Path(node).parent)] if node else []
    path += [p for p in ("/usr/local/bin", "/usr/bin", "/bin") if p not in path]
    dead = f"http://127.0.0.1:{NO_PROXY_PORT}"
    env = {
        "PATH": os.pathsep.join(path),
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "1",
        **{name: dead for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy")},
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    return env | dict(extra)


def _wait(
    process: subprocess.Popen[bytes], recording: Recording, timeout: float, cancel: threading.Event | None
) -> None:
    deadline = time.monotonic() + timeout
    while process.poll() is None and not recording.done.is_set():
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled")
        if time.monotonic() > deadline:
            raise ProbeError(f"no tool result within {timeout:.0f} s")
        recording.done.wait(0.05)
    grace = time.monotonic() + EXIT_GRACE
    while process.poll() is None and time.monotonic() < grace and not (cancel is not None and cancel.is_set()):
        time.sleep(0.05)
    if process.poll() is None:
        stop(process)


def _model_asked_for(recording: Recording) -> str:
    """The model the agent's model requests named (when it was left to choose)."""
    for request in recording.requests:
        body = request.json()
        if isinstance(body, dict) and isinstance(body.get("model"), str):
            return body["model"]
    return ""


def probe(
    program: Program,
    tool: str,
    arguments: Mapping[str, Any],
    root: str | os.PathLike[str],
    version: str | None = None,
    progress: Progress | None = None,
    model: str | None = None,
    timeout: float = PROBE_TIMEOUT,
    installed: Installed | None = None,
    cancel: threading.Event | None = None,
) -> ProbeResult:
    """Run the agent once in ``root``: the mock model calls ``tool`` with ``arguments``, and the
    result the agent sends back is returned byte for byte.

    ``version``: see ``find``. Raises AgentNotInstalled, or ProbeError when no result came back;
    ``cancel`` set stops the agent and its children and raises Cancelled.
    """
    installed = installed or find(program, version)
    spec = installed.program
    model = model or spec.default_model
    prompt_tool = spec.prompt_tools.get(tool)
    prompt = prompt_tool.prompt(arguments) if prompt_tool else PROMPT
    with tempfile.TemporaryDirectory(prefix="agentpager-agent-") as temp:
        home = Path(temp)
        (home / "tmp").mkdir()
        mock = MockServer(spec.dialect(), None if prompt_tool else tool, arguments, model or "")
        with mock:
            launch = spec.launch(home, mock.url, model, prompt)
            if progress:
                progress(
                    f"Starting {spec.agent} {installed.version} ({model or 'its default model'}) against {mock.url} ..."
                )
            with open(home / "agent.log", "wb") as log:
                process = subprocess.Popen(
                    [*installed.command, *launch.arguments],
                    cwd=os.fspath(root),
                    env=agent_environment(home, launch.env),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                try:
                    _wait(process, mock.recording, timeout, cancel)
                except BaseException:
                    stop(process)
                    raise
            output = (home / "agent.log").read_bytes().decode("utf-8", "replace")
        recording = mock.recording
        if prompt_tool:
            first = next((r for r in recording.requests if mock.dialect.is_model_turn(r)), None)
            result = prompt_tool.result(first, prompt) if first else None
            request = first
        else:
            result, request = recording.result, recording.result_request
        if spec.outcome is not None:
            result = spec.outcome(home, result)
        if result is None:
            raise ProbeError(
                f"{spec.agent} {installed.version} sent no result for {tool} "
                f"(exit status {process.returncode}); its output:\n{output[-3000:]}"
            )
        if progress:
            progress(f"{spec.agent} answered.")
        return ProbeResult(
            result.text,
            result.is_error,
            spec.agent,
            installed.version,
            model or _model_asked_for(recording),
            b"" if request is None else request.body,
            tuple(recording.offered_tools),
        )
