"""The mocks of the model APIs, the probe's run (``probing``) and ``agentpager probe``, without any real agent.

The stream framing is checked against the APIs' own shapes; the run is driven end to end by
``fake_agent.py``, a small client of the Anthropic API standing in for Claude Code.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from waiting import HANG, all_gone, processes_with

from agentpager.agents import get_agent, probed_agents
from agentpager.probe import AgentNotInstalled, Cancelled, Program, find, install, install_hint
from agentpager.probe.anthropic import AnthropicMessages, estimated_tokens
from agentpager.probe.confinement import unavailable
from agentpager.probe.gemini import GEMINI_CALL_ID, GeminiAPI
from agentpager.probe.installation import cached_versions
from agentpager.probe.mock import CALL_ID, MockServer, Request, ToolResult, sse
from agentpager.probe.program import Launch
from agentpager.probe.responses import RESPONSES_CALL_ID, OpenAIResponses
from agentpager.probing import ProbeError, probe
from agentpager.tools.volatile import compare

FAKE_AGENT = Path(__file__).parent / "fake_agent.py"
NO_NAMESPACE = unavailable()
runs_the_agent = pytest.mark.skipif(bool(NO_NAMESPACE), reason=f"the probe runs agents confined: {NO_NAMESPACE}")


def program(agent: str) -> Program:
    found = get_agent(agent).program()
    assert found is not None
    return found


def events(body: bytes) -> list[tuple[str | None, dict]]:
    """A text/event-stream body as (event name, data) pairs; the stream must end with a blank line."""
    assert body.endswith(b"\n\n")
    found = []
    for block in body.decode().split("\n\n")[:-1]:
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        assert set(fields) <= {"event", "data"}
        found.append((fields.get("event"), json.loads(fields["data"])))
    return found


def post(url: str, body: object, headers: dict[str, str] | None = None) -> tuple[str, bytes]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST", headers=headers or {})
    with urllib.request.urlopen(request, timeout=HANG) as response:
        return response.headers["Content-Type"], response.read()


def test_sse_frames_each_event_with_its_name_and_one_data_line() -> None:
    body = sse([("message_stop", {"type": "message_stop"}), (None, {"a": [1, 2]})]).body
    assert body == b'event: message_stop\ndata: {"type":"message_stop"}\n\ndata: {"a":[1,2]}\n\n'


def test_anthropic_tool_call_streams_the_input_as_json_deltas() -> None:
    request = Request("POST", "/v1/messages?beta=true", b'{"stream": true}')
    streamed = events(AnthropicMessages().tool_call(request, "Read", {"file_path": "é.txt"}, "claude-x").body)
    assert [name for name, _ in streamed] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert all(data["type"] == name for name, data in streamed)
    assert streamed[0][1]["message"]["model"] == "claude-x"
    assert streamed[1][1]["content_block"] == {"type": "tool_use", "id": CALL_ID, "name": "Read", "input": {}}
    assert json.loads(streamed[2][1]["delta"]["partial_json"]) == {"file_path": "é.txt"}
    assert streamed[4][1]["delta"]["stop_reason"] == "tool_use"


def test_anthropic_answers_a_request_that_does_not_stream_with_a_message() -> None:
    request = Request("POST", "/v1/messages", b'{"stream": false}')
    message = json.loads(AnthropicMessages().tool_call(request, "Read", {"file_path": "a"}, "m").body)
    assert message["content"] == [{"type": "tool_use", "id": CALL_ID, "name": "Read", "input": {"file_path": "a"}}]
    assert message["stop_reason"] == "tool_use"


def test_the_mock_calls_once_records_the_result_byte_for_byte_and_answers_the_rest() -> None:
    tools = [{"name": "Read"}]
    with MockServer(AnthropicMessages(), "Read", {"file_path": "a.txt"}, "m") as mock:
        url = mock.url + "/v1/messages?beta=true"
        assert mock.url.startswith("http://127.0.0.1:")
        kind, first = post(url, {"stream": True, "tools": tools, "messages": [{"role": "user", "content": "go"}]})
        assert kind == "text/event-stream" and events(first)[1][1]["content_block"]["name"] == "Read"
        _, side = post(url, {"stream": True, "messages": [{"role": "user", "content": "a title?"}]})
        assert events(side)[2][1]["delta"] == {"type": "text_delta", "text": "Done."}
        result = {"type": "tool_result", "tool_use_id": CALL_ID, "content": " 1→ä\r\n\t", "is_error": True}
        body = json.dumps({"stream": True, "tools": tools, "messages": [{"role": "user", "content": [result]}]})
        _, last = post(url, body.encode())
        assert events(last)[4][1]["delta"]["stop_reason"] == "end_turn"
        _, counted = post(mock.url + "/v1/messages/count_tokens", {"messages": [{"role": "user", "content": "x" * 41}]})
        with urllib.request.urlopen(mock.url + "/api/hello", timeout=HANG) as response:
            assert json.loads(response.read()) == {}
    recording = mock.recording
    assert recording.done.is_set()
    assert (recording.result.text, recording.result.is_error) == (" 1→ä\r\n\t", True)
    assert recording.result_request is not None and recording.result_request.body == body.encode()
    assert recording.offered_tools == tools
    assert json.loads(counted) == {"input_tokens": 11}


def test_tool_results_made_of_blocks_are_kept_as_their_json() -> None:
    image = {"type": "image", "source": {"type": "base64", "data": "AA==", "media_type": "image/png"}}
    blocks = [image, {"type": "text", "text": "note"}]
    body = {
        "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": CALL_ID, "content": blocks}]}]
    }
    found = AnthropicMessages().tool_result(body)
    assert found is not None and json.loads(found.text) == blocks
    one_text = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": CALL_ID, "content": [{"type": "text", "text": "x"}]}
                ],
            }
        ]
    }
    assert AnthropicMessages().tool_result(one_text).text == "x"


def test_the_token_count_stand_in_grows_with_the_content() -> None:
    assert estimated_tokens({"messages": [{"role": "user", "content": [{"type": "text", "text": "x" * 4000}]}]}) == 1000


def test_the_mock_reads_chunked_request_bodies() -> None:
    with MockServer(AnthropicMessages(), "Read", {}, "m") as mock:
        chunks = [b'{"stream": false, "tools": [{"name": "Read"}], ', b'"messages": []}']
        request = urllib.request.Request(
            mock.url + "/v1/messages", data=iter(chunks), method="POST", headers={"Transfer-Encoding": "chunked"}
        )  # http.client sends each chunk framed as one
        with urllib.request.urlopen(request, timeout=HANG) as response:
            answer = response.read()
    assert json.loads(answer)["content"][0]["type"] == "tool_use"


def test_responses_stream_and_the_function_call_output() -> None:
    dialect = OpenAIResponses()
    request = Request("POST", "/v1/responses", b"{}")
    assert dialect.is_model_turn(request)
    streamed = events(dialect.tool_call(request, "exec_command", {"cmd": "cat a"}, "gpt-x").body)
    assert [name for name, _ in streamed] == [
        "response.created",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [data["sequence_number"] for _, data in streamed] == list(range(6))
    done = streamed[4][1]["item"]
    assert (done["call_id"], done["name"], json.loads(done["arguments"])) == (
        RESPONSES_CALL_ID,
        "exec_command",
        {"cmd": "cat a"},
    )
    assert streamed[5][1]["response"]["usage"]["total_tokens"] == 11
    body = {"input": [{"type": "function_call_output", "call_id": RESPONSES_CALL_ID, "output": "Chunk ID: 1\nx"}]}
    assert dialect.tool_result(body).text == "Chunk ID: 1\nx"
    final = events(dialect.final_text(request, "Done.", "gpt-x").body)
    assert final[-1][1]["response"]["output"][0]["content"][0]["text"] == "Done."


def test_gemini_streams_data_lines_and_records_the_function_response() -> None:
    dialect = GeminiAPI()
    stream = Request("POST", "/v1beta/models/g:streamGenerateContent?alt=sse", b"{}")
    ((name, chunk),) = events(dialect.tool_call(stream, "read_file", {"file_path": "a"}, "g").body)
    assert name is None
    assert chunk["candidates"][0]["content"]["parts"] == [
        {"functionCall": {"id": GEMINI_CALL_ID, "name": "read_file", "args": {"file_path": "a"}}}
    ]
    answer = {"functionResponse": {"id": GEMINI_CALL_ID, "name": "read_file", "response": {"error": "no such file"}}}
    found = dialect.tool_result({"contents": [{"role": "user", "parts": [answer]}]})
    assert (found.text, found.is_error) == ("no such file", True)
    side = Request("POST", "/v1beta/models/g:generateContent", b"{}")
    text = json.loads(dialect.final_text(side, "Done.", "g").body)["candidates"][0]["content"]["parts"][0]["text"]
    assert json.loads(text)["next_speaker"] == "user"


def test_gemini_read_many_files_is_what_follows_the_prompt() -> None:
    prompt_tool = program("gemini-cli").prompt_tools["read_many_files"]
    prompt = prompt_tool.prompt({"include": ["a.txt", "b c.txt"]})
    assert prompt == "@a.txt @b c.txt"
    parts = [
        {"text": "<session_context>"},
        {"text": "@a.txt @b c.txt/**"},
        {"text": "\n--- Content from referenced files ---"},
        {"text": "\nContent from @a.txt:\n"},
        {"text": "x"},
    ]
    body = json.dumps({"contents": [{"role": "user", "parts": parts}]}).encode()
    read = prompt_tool.result(Request("POST", "/x", body), prompt)
    assert read.text == "\n--- Content from referenced files ---\nContent from @a.txt:\nx"
    nothing = json.dumps({"contents": [{"role": "user", "parts": parts[:2]}]}).encode()
    assert prompt_tool.result(Request("POST", "/x", nothing), prompt).text == ""


@pytest.fixture
def no_agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No agent on PATH and an empty cache."""
    monkeypatch.setenv("AGENTPAGER_AGENTS_DIR", str(tmp_path / "agents"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    return tmp_path / "agents"


def test_a_missing_agent_says_how_to_install_it(no_agents: Path) -> None:
    with pytest.raises(AgentNotInstalled) as raised:
        find(program("claude-code"), "2.1.84")
    expected = (
        f"npm install --prefix {no_agents}/claude-code@2.1.84 --no-audit --no-fund @anthropic-ai/claude-code@2.1.84"
    )
    assert raised.value.hint == expected
    assert install_hint(program("codex"), None).endswith("@openai/codex@latest")
    with pytest.raises(AgentNotInstalled):
        find(program("gemini-cli"))


def test_versions_in_the_cache_are_found_newest_first(no_agents: Path) -> None:
    for version in ("0.9.0", "0.10.0", "0.61.0"):
        package = no_agents / f"gemini-cli@{version}" / "node_modules" / "@google" / "gemini-cli"
        (package / "bundle").mkdir(parents=True)
        (package / "bundle" / "gemini.js").write_text("")
        (package / "package.json").write_text(json.dumps({"version": version}))
    (no_agents / "gemini-cli@1.0.0").mkdir()  # an install that failed: no entry point
    assert cached_versions(program("gemini-cli")) == ["0.9.0", "0.10.0", "0.61.0"]
    found = find(program("gemini-cli"))
    assert found.version == "0.61.0"
    assert found.command[1].endswith("gemini-cli@0.61.0/node_modules/@google/gemini-cli/bundle/gemini.js")


@runs_the_agent
def test_probe_runs_the_agent_against_the_mock_and_returns_its_result(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("héllo\n")
    messages: list[str] = []
    result = probe(
        program("claude-code"),
        "Read",
        {"file_path": "a.txt"},
        tmp_path,
        version=str(FAKE_AGENT),
        progress=messages.append,
    )
    assert (result.text, result.is_error, result.agent, result.version) == ("HÉLLO\n", False, "claude-code", "9.8.7")
    assert result.model == "claude-fake-default", "left to the agent, the model is the one it asked for"
    assert json.loads(result.raw_request)["messages"][-1]["content"][0]["content"] == "HÉLLO\n"
    assert result.offered_tools == (
        {"name": "Read", "description": "Reads a file.", "input_schema": {"type": "object"}},
    )
    assert messages[0].startswith("Starting claude-code 9.8.7 (its default model) against http://127.0.0.1:")
    missing = probe(
        program("claude-code"), "Read", {"file_path": "nope"}, tmp_path, version=str(FAKE_AGENT), model="claude-x"
    )
    assert missing.model == "claude-x" and json.loads(missing.raw_request)["model"] == "claude-x"
    assert (missing.text, missing.is_error) == ("<tool_use_error>No such file or directory</tool_use_error>", True)


def test_an_agent_whose_api_does_not_say_is_asked_its_own_records_once_it_exited(tmp_path: Path) -> None:
    """``Program.outcome`` gets the agent's home (still there) and the result sent, and its answer is the
    probe's; it also answers for a run that ended without sending one (no request carried it then)."""
    (tmp_path / "a.txt").write_text("x\n")
    seen: list[tuple[bool, str | None]] = []

    def outcome(home: Path, sent: ToolResult | None) -> ToolResult | None:
        seen.append(((home / "agent.log").is_file(), None if sent is None else sent.text))
        return ToolResult(sent.text if sent else "refused by its own rules", True)

    claude_code = dataclasses.replace(program("claude-code"), outcome=outcome)
    result = probe(claude_code, "Read", {"file_path": "a.txt"}, tmp_path, version=str(FAKE_AGENT))
    assert (result.text, result.is_error) == ("X\n", True) and json.loads(result.raw_request)["messages"]
    silent = dataclasses.replace(claude_code, launch=lambda *args: Launch(["--no-prompt"], {}))
    refused = probe(silent, "Read", {"file_path": "a.txt"}, tmp_path, version=str(FAKE_AGENT))
    assert (refused.text, refused.is_error, refused.raw_request) == ("refused by its own rules", True, b"")
    assert seen == [(True, "X\n"), (True, None)]


@pytest.fixture
def hang_marker(tmp_path: Path) -> str:
    """An argument on the command line of the hanging agent's child, for the test to find it (other
    tests' processes may run at the same time)."""
    return f"hanging-agent-{tmp_path}"


@pytest.fixture
def hanging_agent(hang_marker: str) -> Program:
    """The fake agent, started as Claude Code, starts a sleeping child with ``hang_marker`` on its
    command line and sleeps itself."""
    claude_code = program("claude-code")
    mode = {"FAKE_AGENT_MODE": "hang", "FAKE_AGENT_MARKER": hang_marker}
    hanging = lambda *args: Launch(  # noqa: E731
        claude_code.launch(*args).arguments, {**claude_code.launch(*args).env, **mode}
    )
    return dataclasses.replace(claude_code, launch=hanging)


@runs_the_agent
def test_an_agent_that_never_answers_is_killed_with_its_children(
    tmp_path: Path, hanging_agent: Program, hang_marker: str
) -> None:
    with pytest.raises(ProbeError, match="no tool result within 2 s"):  # it never answers: 2 s of waiting suffice
        probe(hanging_agent, "Read", {"file_path": "a"}, tmp_path, version=str(FAKE_AGENT), timeout=2)
    assert all_gone(hang_marker), processes_with(hang_marker)


def agentpager(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "agentpager", *args], capture_output=True, timeout=HANG, env=env, cwd=cwd
    )


@runs_the_agent
def test_cli_probe_prints_the_exact_result_and_exits_like_call(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    done = agentpager(
        "probe", "--root", str(tmp_path), "--version", str(FAKE_AGENT), "claude-code", "Read", '{"file_path": "a.txt"}'
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"X\n", b"")
    failed = agentpager(
        "probe", "--version", str(FAKE_AGENT), "claude-code", "Read", '{"file_path": "b.txt"}', cwd=tmp_path
    )
    assert (failed.returncode, failed.stdout) == (1, b"<tool_use_error>No such file or directory</tool_use_error>")


@runs_the_agent
def test_cli_probe_request_prints_the_whole_request_that_carried_the_result(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    done = agentpager(
        "probe",
        "--request",
        "--version",
        str(FAKE_AGENT),
        "claude-code",
        "Read",
        '{"file_path": "a.txt"}',
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    request = json.loads(done.stdout)
    assert request["system"] == [{"type": "text", "text": "You are a stand-in for Claude Code."}]
    assert [tool["name"] for tool in request["tools"]] == ["Read"]
    assert request["messages"][-1]["content"][0]["content"] == "X\n"
    assert done.stdout.decode().startswith('{\n  "model": "claude-fake-default",\n')


def test_cli_probe_without_the_agent_exits_2_with_the_npm_command(tmp_path: Path) -> None:
    env = {**os.environ, "AGENTPAGER_AGENTS_DIR": str(tmp_path), "PATH": str(tmp_path / "bin")}
    done = agentpager("probe", "codex", "exec_command", '{"cmd": "ls"}', env=env)
    assert (done.returncode, done.stdout) == (2, b"")
    assert (
        f"npm install --prefix {tmp_path}/codex@latest --no-audit --no-fund @openai/codex@latest"
        in done.stderr.decode()
    )
    unknown = agentpager("probe", "cursor", "read", env=env)
    assert unknown.returncode == 2
    choices = ", ".join(f"'{agent.id}'" for agent in probed_agents())
    assert f"invalid choice: 'cursor' (choose from {choices})".encode() in unknown.stderr


def test_answers_compare_byte_for_byte_but_for_the_agents_volatile_parts() -> None:
    volatile = get_agent("claude-code").volatile
    countdown = "\n\n<system-reminder>\n<total_tokens>{} tokens left</total_tokens>\n</system-reminder>"
    profile = "1\talpha" + countdown.format(15000000)
    same = compare(profile, False, profile, False, volatile)
    assert (same.exact, same.same, same.verdict, same.not_counted) == (True, True, "the same, byte for byte", ())
    budget = compare(profile, False, "1\talpha" + countdown.format(14999989), False, volatile)
    assert (budget.exact, budget.same, budget.verdict) == (
        False,
        True,
        "the same, apart from what changes from run to run",
    )
    assert [part.placeholder for part in budget.not_counted] == ["⟦tokens_left⟧"]
    assert budget.agent_text == "1\talpha" + countdown.format("⟦tokens_left⟧")
    differs = compare(profile, False, "1\talpha " + countdown.format(14999989), False, volatile)
    assert (differs.same, differs.verdict) == (False, "differs")
    assert not compare("x", False, "x", True, volatile).same, "an error and a plain answer differ"
    codex = get_agent("codex").volatile
    shell = "Chunk ID: {}\nWall time: {} seconds\nProcess exited with code 0\nOutput:\nalpha\n"
    assert compare(shell.format("3fa9c1", "0.0101"), False, shell.format("a01b2c", "0.0513"), False, codex).same
    assert not compare(shell.format("3fa9c1", "0.0101"), False, shell.format("3fa9c1", "0.0101 "), False, codex).same


def npm_stand_in(bin_dir: Path, script: str) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "npm").write_text("#!/bin/sh\nPATH=/usr/bin:/bin\n" + script)
    (bin_dir / "npm").chmod(0o755)


def test_install_hands_on_each_line_npm_writes_and_says_why_it_failed(no_agents: Path) -> None:
    npm_stand_in(no_agents.parent / "bin", "echo fetching\necho 'npm error 404 Not Found' >&2\nexit 1\n")
    lines: list[str] = []
    with pytest.raises(RuntimeError) as raised:
        install(program("claude-code"), "2.1.84", progress=lines.append)
    assert lines == [
        f"Installing @anthropic-ai/claude-code@2.1.84 into {no_agents}/claude-code@2.1.84 ...",
        "fetching",
        "npm error 404 Not Found",
    ]
    assert str(raised.value) == "npm install failed (1): fetching\nnpm error 404 Not Found"


def test_a_cancelled_install_stops_npm_and_its_children(no_agents: Path) -> None:
    duration = f"600.{os.getpid()}"  # no other test process sleeps as long
    npm_stand_in(no_agents.parent / "bin", f"echo started\nsleep {duration} & wait\n")
    cancel = threading.Event()

    def line(text: str) -> None:
        cancel.set()  # as soon as npm says anything

    with pytest.raises(Cancelled):
        install(program("claude-code"), "2.1.84", progress=line, cancel=cancel)
    assert all_gone(duration), processes_with(duration)


def test_a_version_not_in_the_cache_is_the_one_on_path_when_it_is_that_version(no_agents: Path) -> None:
    claude = no_agents.parent / "bin" / "claude"
    claude.parent.mkdir()
    claude.write_text("#!/bin/sh\necho '2.1.330 (Claude Code)'\n")
    claude.chmod(0o755)
    assert find(program("claude-code"), "2.1.330").command == (str(claude),)
    with pytest.raises(AgentNotInstalled) as raised:
        find(program("claude-code"), "2.1.84")
    assert raised.value.reason == (
        f"claude-code 2.1.84 is not installed in {no_agents}/claude-code@2.1.84 (claude on PATH is 2.1.330)."
    )


@runs_the_agent
def test_a_cancelled_probe_stops_the_agent_and_its_children(
    tmp_path: Path, hanging_agent: Program, hang_marker: str
) -> None:
    cancel, seen = threading.Event(), []

    def cancel_once_its_child_sleeps() -> None:
        while not (found := processes_with(hang_marker)) and not cancel.is_set():
            time.sleep(0.05)
        seen.extend(found)
        cancel.set()

    threading.Thread(target=cancel_once_its_child_sleeps, daemon=True).start()
    try:
        with pytest.raises(Cancelled):
            probe(hanging_agent, "Read", {"file_path": "a"}, tmp_path, version=str(FAKE_AGENT), cancel=cancel)
    finally:
        cancel.set()  # the watching thread stops, whatever happened
    assert seen, "the agent had started its child"
    assert all_gone(hang_marker), processes_with(hang_marker)
