"""Every profile equals the goldens recorded from its real agent, byte for byte (no npm needed).

A golden's call goes to the profiles of its agent (the profiles named after it, ``codex``,
``claude-code@2.0`` ...) the way replay offers a transcript's call: the first that claims it runs it,
and the profile picks its variant by the golden's version. The golden's model is passed as the
``model`` setting. Outputs compare literally, except the volatile parts the golden names (its
placeholders); a case marked ``server_counted`` turns on a count only the model's server makes, so
there the profile must say it is uncertain instead. A shell command the emulator does not replay
(``NOT_EMULATED``) must be answered as not run.

``pytest -m live_agents`` re-records every golden whose agent version is installed and compares.
"""

from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path

import pytest
from goldens.check import claim_of
from goldens.corpus import build, cases_of
from goldens.golden import Golden, GoldenCase, all_goldens, with_placeholders, with_root

from agentpager import Workspace
from agentpager.engine.content import ContentStore
from agentpager.profiles import all_profiles
from agentpager.tools.base import RecordedCall
from agentpager.tools.js.strings import js_trim
from agentpager.tools.paths import Root
from agentpager.tools.shell import NotReplayable, emulate

GOLDENS = all_goldens()
MOCK_USAGE = 11
"""The tokens the mock reports each model request used (10 in, 1 out)."""
NOT_EMULATED = {
    "ls -la dir | wc -l": "ls -l (owners, sizes and times of the machine it ran on)",
}
"""Commands in the goldens that the shell emulator does not replay, and why."""


def _command(arguments: dict[str, object]) -> str:
    """The command of a shell call (Codex's ``cmd``, ``command`` elsewhere; an argv as its list's text)."""
    return str(arguments.get("cmd", arguments.get("command")))


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The corpus of each agent (most share the one with no extra files), built once."""
    built: dict[str, Path] = {}
    for golden in GOLDENS:
        extra = cases_of(golden.agent, golden.version, golden.model).extra_files
        key = golden.agent if extra else ""
        if key not in built:
            built[key] = build(tmp_path_factory.mktemp("goldens") / "corpus", extra)
    return built


def corpus_of(golden: Golden, corpora: dict[str, Path]) -> Path:
    return corpora.get(golden.agent) or corpora[""]


def _claimed() -> list[tuple[Golden, GoldenCase]]:
    scratch = Path("/nonexistent-corpus")  # claims read arguments, never files
    return [(golden, case) for golden in GOLDENS for case in golden.cases if claim_of(golden, case, scratch)]


CLAIMED = _claimed()


def _diff(expected: str, actual: str) -> str:
    lines = difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "golden", "profile", n=2)
    return "".join(list(lines)[:60])


@pytest.mark.parametrize(
    ("golden", "case"),
    CLAIMED,
    ids=[f"{golden.agent}@{golden.version}/{golden.model}/{case.name}" for golden, case in CLAIMED],
)
def test_profile_equals_the_real_agent(golden: Golden, case: GoldenCase, corpora: dict[str, Path]) -> None:
    corpus = corpus_of(golden, corpora)
    found = claim_of(golden, case, corpus)
    assert found is not None
    profile, claim = found
    workspace = Workspace(corpus, profile, settings={"model": golden.model, **claim.settings})
    result = workspace.call(claim.tool, claim.arguments)
    if result.unreplayable:
        command = _command(case.arguments)
        assert command in NOT_EMULATED, f"{profile} did not run {command!r}: {result.unreplayable}"
        assert result.uncertain and result.is_error
        return
    spec = next(c for c in cases_of(golden.agent, golden.version, golden.model).cases if c.name == case.name)
    if spec.server_counted:
        assert result.uncertain, f"{profile} answers as if it knew Claude's token count:\n{result.text[:300]}"
        return
    if spec.argument_check:
        assert result.is_error and case.is_error
        return
    if spec.unordered:
        assert result.uncertain, f"{profile} answers as if it knew the order of a parallel walk"
        assert golden.matches_in_any_order(case, result.text, corpus), f"{profile} lists other files"
        return
    produced = with_placeholders(result.text, corpus, ())
    assert golden.matches(case, result.text, corpus), f"{profile} differs from the real agent:\n" + _diff(
        case.output, produced
    )
    assert result.is_error == case.is_error


def test_the_goldens_cover_the_versions_and_every_case() -> None:
    recorded = {(golden.agent, golden.version, golden.model) for golden in GOLDENS}
    assert recorded >= {
        ("claude-code", "2.0.21", "claude-sonnet-4-5"),
        ("claude-code", "2.1.84", "claude-sonnet-4-5"),
        ("claude-code", "2.1.330", "claude-sonnet-4-5"),
        ("claude-code", "2.1.330", "claude-opus-5-5"),
        ("claude-code", "2.1.332", "claude-sonnet-4-5"),
        ("claude-code", "2.1.332", "claude-opus-5-5"),
        ("codex", "0.169.0", "gpt-5.5"),
        ("codex", "0.171.0", "gpt-5.5"),
        ("codex", "0.60.1", "gpt-5.1-codex-max"),
        ("codex", "0.60.1", "gpt-5"),
        ("gemini-cli", "0.61.0", "gemini-2.5-pro"),
    }
    for golden in GOLDENS:
        recorded_cases = [case.name for case in golden.cases]
        expected = cases_of(golden.agent, golden.version, golden.model).cases
        # A command the probe does not send was recorded only before it refused such calls.
        sent = [case.name for case in expected if _command(case.arguments) not in NOT_EMULATED]
        assert recorded_cases == [case.name for case in expected if case.name in sent or case.name in recorded_cases]
        assert golden.offered_tools, f"{golden.path}: the tool definitions the agent offered are missing"
        for case in golden.cases:
            assert "/agentpager-corpus-" not in case.output, f"{golden.path}: {case.name} holds the temp root"
            if case.tool != "read_many_files" and _command(case.arguments) not in NOT_EMULATED:  # not sent
                assert case.logged is not None, f"{golden.path}: {case.name} has no log"


LOGGED = [(golden, case) for golden in GOLDENS for case in golden.cases if case.logged is not None]


@pytest.mark.parametrize(
    ("golden", "case"),
    LOGGED,
    ids=[f"{golden.agent}@{golden.version}/{golden.model}/{case.name}" for golden, case in LOGGED],
)
def test_what_the_log_kept_becomes_what_the_model_received(
    golden: Golden, case: GoldenCase, corpora: dict[str, Path]
) -> None:
    """The profile's ``received`` turns each recorded log text into the text the request carried."""
    corpus = corpus_of(golden, corpora)
    profile = next(p for p in all_profiles() if p.name.split("@")[0] == golden.agent)
    logged = with_root(case.logged, corpus)
    recorded = RecordedCall(
        case.tool,
        with_root(case.arguments, corpus),
        logged,
        golden.agent,
        golden.version,
        cwd=str(corpus),
        model=golden.model,
        used_tokens=MOCK_USAGE,
    )
    received = profile.received(recorded)
    if received is None:  # the log does not hold it all: the model received more, or blocks
        assert case.output.startswith("[{") or js_trim(case.logged) in case.output, case.output[:200]
        return
    spec = next(c for c in cases_of(golden.agent, golden.version, golden.model).cases if c.name == case.name)
    if spec.server_counted:  # the note on a partial view names the server's token count, which no log holds
        assert case.output.startswith(js_trim(case.logged))
        return
    produced = with_placeholders(received, corpus, golden.volatile)
    assert produced == case.output, _diff(case.output, produced)


@pytest.mark.parametrize("command", sorted(NOT_EMULATED))
def test_the_commands_not_emulated_are_not(command: str, corpora: dict[str, Path]) -> None:
    """When the emulator learns one of them, its golden is compared instead."""
    assert isinstance(emulate(Root.of(corpora[""]), ContentStore(None), command), NotReplayable)


def test_every_claude_code_golden_has_a_profile() -> None:
    claude_code = [g for g in GOLDENS if g.agent == "claude-code"]
    assert claude_code and all(all((g, case) in CLAIMED for case in g.cases) for g in claude_code), (
        "each Claude Code version's Read is replayed by a claude-code profile"
    )


def test_the_codex_profiles_describe_their_tools_as_their_version_offered_them() -> None:
    """Codex's tools and their parameters, as the version each profile stands for described them
    (0.171.0 says of ``login``: "Omit to inherit")."""
    for profile in all_profiles():
        real = profile.real_agent
        if real is None or real.agent != "codex":
            continue
        offered = [
            tool
            for golden in GOLDENS
            if (golden.agent, golden.version) == (real.agent, real.version)
            for tool in golden.offered_tools
        ]
        assert offered, f"no golden of Codex {real.version}"
        for tool in offered:
            own = profile.tool(tool["name"])
            assert own is not None, f"{profile.name} lacks {tool['name']}"
            assert own.spec.description == tool["description"]
            described = {name: value["description"] for name, value in tool["parameters"]["properties"].items()}
            assert {param.name: param.description for param in own.spec.params} == described


def test_volatile_parts_match_their_pattern_and_nothing_else() -> None:
    golden = next(g for g in GOLDENS if g.agent == "codex")
    case = next(c for c in golden.cases if c.name == "cat_plain")
    real = "Chunk ID: 3fa9c1\nWall time: 0.0012 seconds\nProcess exited with code 0\nOriginal token count: 5\nOutput:\nalpha\nbeta\ngamma\n"
    assert golden.matches(case, real, "/r")
    assert not golden.matches(case, real.replace("Chunk ID: 3fa9c1", "Chunk ID: 3fa9c1 "), "/r")
    assert not golden.matches(case, real.replace("gamma", "gamma "), "/r")
    assert not golden.matches(case, real.replace("code 0", "code 1"), "/r")


@pytest.mark.live_agents
@pytest.mark.parametrize("golden", GOLDENS, ids=[f"{g.agent}@{g.version}/{g.model}" for g in GOLDENS])
def test_the_real_agent_still_answers_as_recorded(golden: Golden, tmp_path: Path) -> None:
    from agentpager.agents import get_agent
    from agentpager.probe import AgentNotInstalled, find
    from agentpager.probing import Refused, probe

    program = get_agent(golden.agent).program()
    assert program is not None
    try:
        installed = find(program, golden.version)
    except AgentNotInstalled as error:
        pytest.skip(str(error).splitlines()[0])
    differing = []
    for case in golden.cases:
        root = build(tmp_path / case.name, cases_of(golden.agent, golden.version, golden.model).extra_files)
        try:
            result = probe(
                program, case.tool, with_root(case.arguments, root), root, model=golden.model, installed=installed
            )
        except Refused:  # the probe sends only what agentpager answers as a read
            assert _command(case.arguments) in NOT_EMULATED, case.name
            continue
        matches = golden.matches(case, result.text, root) or golden.matches_in_any_order(case, result.text, root)
        if not matches or result.is_error != case.is_error:
            differing.append(
                f"{case.name}:\n{_diff(case.output, with_placeholders(result.text, root, golden.volatile))}"
            )
    assert not differing, "\n".join(differing)


def test_the_check_names_the_profile_that_answers_as_the_agent_did_or_where_the_closest_differs() -> None:
    """What ``agentpager probe --check`` and ``record_goldens.py --newest`` say of a recording."""
    from goldens.check import report

    golden = next(g for g in GOLDENS if (g.agent, g.version) == ("claude-code", "2.1.84"))
    said: list[str] = []
    assert report([golden], said.append) == "claude-code@2.1.84"
    assert said[-1] == "claude-code 2.1.84 answers as the claude-code@2.1.84 profile does."
    plain = next(case for case in golden.cases if case.name == "plain")
    changed = dataclasses.replace(plain, output=plain.output.replace("beta", "BETA"))
    tampered = dataclasses.replace(golden, cases=tuple(changed if c is plain else c for c in golden.cases))
    said.clear()
    assert report([tampered], said.append) is None
    assert said[-2] == "No profile answers as claude-code 2.1.84 does; the closest, claude-code@2.1.84, differs on:"
    assert said[-1].startswith("- plain\n--- agent\n+++ profile\n")
    assert "-     2→BETA\n+     2→beta\n" in said[-1]
