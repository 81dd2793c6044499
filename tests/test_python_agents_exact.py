"""The openhands and swe-agent profiles against the agents' own code, byte for byte.

Goldens (``tests/goldens/``, recorded by ``scripts/record_python_goldens.py`` from the real code)
always; the live oracles of ``tests/python_oracles.py`` on the same corpus and on random files and
commands when they are installed (skipped otherwise).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyagent_corpus import OPENHANDS_PATHS, SWE_AGENT_SESSIONS, VIEW_RANGES, make_corpus, swe_agent_arguments
from python_oracles import OPENHANDS_PYTHON, SWE_AGENT_TOOLS, OpenHandsOracle, SweAgentShell

from agentpager import Workspace
from agentpager.transcripts import open_transcript
from agentpager.transcripts.replay import Replayer

GOLDENS = Path(__file__).parent / "goldens"
needs_openhands = pytest.mark.skipif(not OPENHANDS_PYTHON, reason="no OpenHands oracle ($AGENTPAGER_OPENHANDS_PYTHON)")
needs_swe_agent = pytest.mark.skipif(not SWE_AGENT_TOOLS, reason="no SWE-agent tools ($AGENTPAGER_SWE_AGENT_TOOLS)")


def without_traceback(text: str) -> str:
    """A SWE-agent answer with the frames of a Python traceback left out (they depend on where the
    tools are installed and on the Python that runs them; the profile shows the last line)."""
    lines = text.split("\n")
    if lines[0] != "Traceback (most recent call last):":
        return text
    last = next(n for n, line in enumerate(lines) if line.startswith("UnicodeDecodeError: "))
    return "\n".join(lines[last:])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_corpus(tmp_path_factory.mktemp("corpus"), big=True)


# -- goldens ----------------------------------------------------------------------------------------


def test_openhands_equals_its_goldens(corpus: Path) -> None:
    golden = json.loads((GOLDENS / "openhands" / "views.json").read_text(encoding="utf-8"))
    workspace = Workspace(corpus, "openhands", settings={"working_dir": golden["working_dir"]})
    assert len(golden["views"]) == len(OPENHANDS_PATHS) * len(VIEW_RANGES)
    for view in golden["views"]:
        result = workspace.call("file_editor", view["arguments"])
        assert (result.text, result.is_error) == (view["text"], view["is_error"]), view["arguments"]


def test_swe_agent_equals_its_goldens(corpus: Path) -> None:
    golden = json.loads((GOLDENS / "swe-agent" / "sessions.json").read_text(encoding="utf-8"))
    assert len(golden["sessions"]) == len(SWE_AGENT_SESSIONS)
    for session in golden["sessions"]:
        workspace = Workspace(corpus, "swe-agent", settings={"working_dir": golden["working_dir"]})
        for step in session:
            command = tuple(step["command"])
            result = workspace.call(command[0], swe_agent_arguments(command))
            assert result.text == without_traceback(step["text"]), command
            assert bool(result.uncertain) == (step["text"] != without_traceback(step["text"]))


# -- the live oracles -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def openhands() -> Iterator[OpenHandsOracle]:
    oracle = OpenHandsOracle()
    yield oracle
    oracle.close()


@needs_openhands
@pytest.mark.parametrize("view_range", VIEW_RANGES)
def test_openhands_equals_the_real_editor(corpus: Path, openhands: OpenHandsOracle, view_range: list | None) -> None:
    workspace = Workspace(corpus, "openhands")
    for name in OPENHANDS_PATHS:
        arguments: dict = {"command": "view", "path": os.path.normpath(corpus / name)}
        if view_range is not None:
            arguments["view_range"] = view_range
        expected = openhands.view(corpus, **arguments)
        result = workspace.call("file_editor", arguments)
        assert (result.text, result.is_error) == (expected["text"], expected["is_error"]), arguments


@needs_swe_agent
@pytest.mark.parametrize("session", range(len(SWE_AGENT_SESSIONS)))
def test_swe_agent_equals_the_real_tools(corpus: Path, session: int) -> None:
    shell = SweAgentShell(corpus)
    workspace = Workspace(corpus, "swe-agent")
    for command in SWE_AGENT_SESSIONS[session]:
        expected = without_traceback(shell.run(*command))
        assert workspace.call(command[0], swe_agent_arguments(command)).text == expected, command


# Text with what the agents read differently from a plain UTF-8 line split: every kind of line end,
# separators splitlines() knows, tabs, control characters, a BOM, bytes that are not UTF-8.
_PIECES = [b"a", b"word ", b"\t", b"\n", b"\r\n", b"\r", b"\x0c", b"\x0b", "é".encode(), "\u2028".encode()]
_PIECES += [b"\x1b[1m", b"\x00", b"\xe9", b"\xef\xbb\xbf", b"x" * 300]
file_bytes = st.lists(st.sampled_from(_PIECES), max_size=400).map(b"".join)
_names = itertools.count()  # a new file each time: the editor keeps a file's codec while its mtime is the same


@needs_openhands
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=file_bytes,
    lines=st.lists(st.integers(min_value=-1, max_value=60), max_size=3),
    numbered=st.integers(min_value=0, max_value=3000),
)
def test_openhands_equals_the_real_editor_on_random_files(
    tmp_path: Path, openhands: OpenHandsOracle, data: bytes, lines: list[int], numbered: int
) -> None:
    path = tmp_path / f"random{next(_names)}.txt"
    path.write_bytes(data + b"".join(b"%d\n" % n for n in range(numbered)))
    workspace = Workspace(tmp_path, "openhands")
    for view_range in (None, lines):
        arguments: dict = {"command": "view", "path": str(path)}
        if view_range is not None:
            arguments["view_range"] = view_range
        expected = openhands.view(tmp_path, **arguments)
        result = workspace.call("file_editor", arguments)
        assert (result.text, result.is_error) == (expected["text"], expected["is_error"]), arguments


_SWE_COMMANDS = st.one_of(
    st.tuples(st.just("open"), st.just("random.txt")),
    st.tuples(st.just("open"), st.just("random.txt"), st.integers(-5, 400).map(str)),
    st.tuples(st.just("goto"), st.integers(-5, 400).map(str)),
    st.tuples(st.sampled_from(["scroll_up", "scroll_down"])),
)


@needs_swe_agent
@settings(max_examples=examples(40), deadline=None)
@given(data=file_bytes, numbered=st.integers(min_value=0, max_value=400), commands=st.lists(_SWE_COMMANDS, max_size=6))
def test_swe_agent_equals_the_real_tools_on_random_files(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, numbered: int, commands: list[tuple[str, ...]]
) -> None:
    root = tmp_path_factory.mktemp("random")
    (root / "random.txt").write_bytes(data + b"".join(b"%d\n" % n for n in range(numbered)))
    shell = SweAgentShell(root)
    workspace = Workspace(root, "swe-agent")
    for command in commands:
        expected = without_traceback(shell.run(*command))
        assert workspace.call(command[0], swe_agent_arguments(command)).text == expected, command


def test_a_recorded_swe_agent_session_replays_the_same(tmp_path: Path, corpus: Path) -> None:
    """A function-calling transcript of the real tools (the goldens' first session, in /repo) replays
    call by call against the corpus, the window carried from call to call, every output the same."""
    session = json.loads((GOLDENS / "swe-agent" / "sessions.json").read_text(encoding="utf-8"))["sessions"][0]
    messages: list[dict] = [{"role": "user", "content": "Look around."}]
    for number, step in enumerate(session):
        command = tuple(step["command"])
        function = {"name": command[0], "arguments": json.dumps(swe_agent_arguments(command))}
        call = {"id": f"call_{number}", "type": "function", "function": function}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{number}", "content": step["text"]})
    path = tmp_path / "session.json"
    path.write_text(json.dumps(messages))
    transcript = open_transcript(str(path))
    replayer = Replayer(transcript, str(corpus))
    replays = [replayer.replay(call) for call in transcript.calls]
    assert [replay.status for replay in replays] == ["same"] * len(session)
    assert {replay.plan.profile for replay in replays if replay.plan} == {"swe-agent"}
