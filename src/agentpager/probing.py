"""Run a real agent once, confined, against the mock and return the exact result of one tool call.

The probe's parts (the mock and its API dialects, ``Program``, installation, confinement) are in
``agentpager.probe``, below the agents, whose ``probe.py`` use them; the run is here, above the agents,
the workspace and the transcripts, since it reads all three: the agent's profiles decide whether the
call is sent (``check``), and its session log what it kept of the result.

Which calls the probe may send a real agent: only those its profile answers as a read. The profile
that stands for the agent's version answers the call first, as replay would pick it (the first of the
agent's profiles that claims it). A tool the profiles do not have (an edit, a write, a fetch), or a
command the shell emulator does not answer (it runs nothing: a build, a redirection, a program it
does not know), is refused: the agent never sees it. Every caller goes through ``check`` (``probe``
calls it first): the command line, the terminal UI, the golden recorder. MCP never reaches the probe.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentpager.agents import find_agent, get_agent
from agentpager.probe.confinement import Job, run_confined
from agentpager.probe.installation import Installed, Progress, find
from agentpager.probe.mock import Recording
from agentpager.probe.program import PROMPT, Program
from agentpager.tools.base import RecordedCall
from agentpager.transcripts import TranscriptError, open_transcript
from agentpager.workspace import Workspace

PROBE_TIMEOUT = 180.0
"""Seconds from start until the tool result must have arrived."""
EXIT_GRACE = 20.0
"""Seconds the agent gets to exit once the result is recorded (it is killed after)."""
NO_PROXY_PORT = 9
"""Proxies point here (a closed port on 127.0.0.1): traffic that bypasses the mock fails at once."""
NAMESPACE_GRACE = 30.0
"""Seconds the namespace gets, beyond the agent's, to set up and to hand back the recording."""
MOCK_PORT = 8765
"""The mock's port inside the agent's network namespace, where nothing else listens."""


class Refused(ValueError):
    """The call is not one agentpager answers as a read: it is not sent to the agent."""


def check(
    program: Program, version: str, tool: str, arguments: Mapping[str, Any], root: str | os.PathLike[str]
) -> None:
    """Raise Refused unless the agent's profile answers ``tool`` with ``arguments`` in ``root`` as a read."""
    agent = get_agent(program.agent)
    recorded = RecordedCall(tool, dict(arguments), None, agent.id, version, cwd=os.path.abspath(root))
    for profile in agent.profiles():
        claim = profile.claim(recorded)
        if claim is None:
            continue
        workspace = Workspace(root, claim.profile or profile.name, settings=claim.settings)
        result = workspace.call(claim.tool, claim.arguments)
        if result.unreplayable:
            raise Refused(
                f"agentpager does not send {program.title} this call: it sends only calls it answers as "
                f"reads, and it does not answer this one ({result.unreplayable})."
            )
        return
    tools = sorted({tool.spec.name for profile in agent.profiles() for tool in profile.tools})
    raise Refused(
        f"agentpager does not send {program.title} this call: it sends only reads it answers itself, "
        f"with {', '.join(tools)} and the arguments those take; {tool} with these arguments is not one."
    )


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
    logged: str | None = None
    """What the agent's own session log kept of the result (None: it keeps no log of this call)."""

    def request(self) -> Any:
        """The whole request that carried the result (system prompt, tools, every message), as JSON."""
        return json.loads(self.raw_request)


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


def _model_asked_for(recording: Recording) -> str:
    """The model the agent's model requests named (when it was left to choose)."""
    for request in recording.requests:
        body = request.json()
        if isinstance(body, dict) and isinstance(body.get("model"), str):
            return body["model"]
    return ""


def hidden_configs(program: Program, root: str | os.PathLike[str]) -> list[str]:
    """The agent's project config in the workspace and every directory above it (as given and as
    resolved), where it exists: what the confinement covers."""
    found: dict[str, None] = {}
    for start in dict.fromkeys((os.path.abspath(root), os.path.realpath(root))):
        for directory in (start, *map(str, Path(start).parents)):
            for name in program.project_config:
                path = os.path.join(directory, name)
                if os.path.lexists(path):
                    found[path] = None
    return list(found)


def _logged(agent_id: str, home: Path, tool: str) -> str | None:
    """What the agent's own session log, in its temporary home, kept of the call's result."""
    agent = find_agent(agent_id)
    sessions = None if agent is None else agent.sessions
    if sessions is None:
        return None
    if sessions.find is not None:  # a store: each session exported into the cache dir, of no use after
        exported = [path for path, _ in sessions.find(str(home))]
        try:
            return _logged_in(exported, tool)
        finally:
            for path in exported:
                Path(path).unlink(missing_ok=True)
    directory = Path(sessions.directory_in(str(home)))
    return _logged_in([str(path) for pattern in sessions.patterns for path in sorted(directory.glob(pattern))], tool)


def _logged_in(paths: list[str], tool: str) -> str | None:
    for path in paths:
        try:
            transcript = open_transcript(path, subagents=False)
        except TranscriptError:
            continue
        for call in transcript.calls:
            if call.tool == tool and call.result is not None:
                return transcript.recorded(call)
    return None


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
    home: str | os.PathLike[str] | None = None,
) -> ProbeResult:
    """Run the agent once in ``root``: the mock model calls ``tool`` with ``arguments``, and the
    result the agent sends back is returned byte for byte, with what its session log kept of it.

    Only a call the agent's profile answers as read-only is sent (``check``), and the agent
    runs confined (``confinement``): no network but the loopback, nothing writable but its temporary
    home, the workspace's config for it hidden. ``home``: a directory to hold that home (kept after;
    by default a temporary one). ``version``: see ``find``. Raises Refused (the call is not sent),
    Unconfined (no namespace here), AgentNotInstalled, or ProbeError when no result came back;
    ``cancel`` set stops the agent and its children and raises Cancelled.
    """
    installed = installed or find(program, version)
    spec = installed.program
    check(spec, installed.version, tool, arguments, root)
    model = model or spec.default_model
    prompt_tool = spec.prompt_tools.get(tool)
    prompt = prompt_tool.prompt(arguments) if prompt_tool else PROMPT
    with tempfile.TemporaryDirectory(prefix="agentpager-agent-") as temp:
        scratch = Path(home) if home is not None else Path(temp)
        agent_home = scratch / "home"
        (agent_home / "tmp").mkdir(parents=True, exist_ok=True)
        url = f"http://127.0.0.1:{MOCK_PORT}"
        launch = spec.launch(agent_home, url, model, prompt, tool, arguments)
        dialect = f"{spec.dialect.__module__}:{spec.dialect.__qualname__}"
        job = Job(
            [*installed.command, *launch.arguments],
            agent_environment(agent_home, launch.env),
            os.path.abspath(root),
            MOCK_PORT,
            dialect,
            None if prompt_tool else tool,
            dict(arguments),
            model or "",
            timeout,
            EXIT_GRACE,
            str(scratch),
            hidden_configs(spec, root),
        )
        if progress:
            told = model or "its default model"
            progress(f"Starting {spec.agent} {installed.version} ({told}) against {url}, confined ...")
        try:
            outcome = run_confined(job, timeout + EXIT_GRACE + NAMESPACE_GRACE, cancel)
        except TimeoutError as error:
            raise ProbeError(str(error)) from None
        output = (agent_home / "agent.log").read_bytes().decode("utf-8", "replace")
        recording = outcome.recording
        if outcome.timed_out:
            raise ProbeError(f"no tool result within {timeout:.0f} s; its output:\n{output[-3000:]}")
        if prompt_tool:
            first = next((r for r in recording.requests if spec.dialect().is_model_turn(r)), None)
            result = prompt_tool.result(first, prompt) if first else None
            request = first
        else:
            result, request = recording.result, recording.result_request
        if spec.outcome is not None:
            result = spec.outcome(agent_home, result)
        if result is None:
            raise ProbeError(
                f"{spec.agent} {installed.version} sent no result for {tool} "
                f"(exit status {outcome.returncode}); its output:\n{output[-3000:]}"
            )
        logged = None if prompt_tool else _logged(spec.agent, agent_home, tool)
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
            logged,
        )
