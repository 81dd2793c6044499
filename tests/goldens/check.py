"""Asking a real agent the golden cases, and setting its answers against the profiles.

``record`` asks an installed agent every case of a target (through the probe: only reads, confined)
and returns a ``Golden``; ``verdicts`` sets a golden's answers against one profile, case by case;
``report`` says which of the agent's profiles answers as the agent did, or where the closest
differs. Used by ``scripts/record_goldens.py`` (``--newest``) and ``agentpager probe --check``.
"""

from __future__ import annotations

import difflib
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from goldens.corpus import build, cases_of
from goldens.golden import Golden, GoldenCase, with_placeholders, with_root

from agentpager.agents import get_agent
from agentpager.probe import Installed
from agentpager.probing import Refused, probe
from agentpager.tools.base import Claim, Profile, RecordedCall
from agentpager.workspace import Workspace

Say = Callable[[str], None]


def record(
    installed: Installed,
    model: str,
    say: Say,
    only: set[str] = frozenset(),
    attempts: int = 2,
    old: Golden | None = None,
) -> Golden:
    """Every case of the agent's target (``only``: those), asked of the installed agent. A case the
    probe refuses to send (a command agentpager does not answer as a read) keeps ``old``'s recording."""
    program, agent = installed.program, installed.program.agent
    spec = cases_of(agent, installed.version, model)
    kept = {case.name: case for case in old.cases} if old is not None else {}
    cases, offered = [], []
    for case in spec.cases:
        if only and case.name not in only:
            continue
        for attempt in range(1, attempts + 1):
            with tempfile.TemporaryDirectory(prefix="agentpager-corpus-") as temp:
                root = build(Path(temp) / "corpus", spec.extra_files)
                started = time.monotonic()
                try:
                    result = probe(
                        program, case.tool, with_root(case.arguments, root), root, model=model, installed=installed
                    )
                except Refused as error:
                    say(f"  {case.name}: not sent ({error})")
                    if case.name in kept:
                        say(f"  {case.name}: the earlier recording is kept")
                        cases.append(kept[case.name])
                    break
                except Exception as error:  # report and retry: one flaky start must not lose the run
                    say(f"  {case.name}: attempt {attempt} failed: {error}")
                    continue
                output = with_placeholders(result.text, root, spec.volatile)
                logged = None if result.logged is None else with_placeholders(result.logged, root, spec.volatile)
            took = time.monotonic() - started
            say(f"  {case.name:<32} {len(output):>7} chars  error={result.is_error!s:<5} {took:.1f} s")
            cases.append(GoldenCase(case.name, case.tool, case.arguments, output, result.is_error, case.why, logged))
            tools = {case.tool for case in spec.cases}
            offered = [t for t in result.offered_tools if isinstance(t, dict) and t.get("name") in tools] or offered
            break
        else:
            raise RuntimeError(f"{agent} {installed.version}: {case.name} failed {attempts} times")
    return Golden(
        agent,
        installed.version,
        model,
        "scripts/record_goldens.py",
        spec.volatile,
        spec.notes,
        tuple(offered) or (old.offered_tools if old is not None else ()),
        tuple(cases),
    )


def claim_of(
    golden: Golden, case: GoldenCase, root: Path, profiles: tuple[Profile, ...] = ()
) -> tuple[str, Claim] | None:
    """The profile that claims the call as replay would pick it (of ``profiles``, by default the
    golden's agent's), and its claim."""
    recorded = RecordedCall(
        case.tool, with_root(case.arguments, root), None, golden.agent, golden.version, cwd=str(root)
    )
    for profile in profiles or get_agent(golden.agent).profiles():
        if (claim := profile.claim(recorded)) is not None:
            return claim.profile or profile.name, claim
    return None


def corpus_for(golden: Golden, directory: Path) -> Path:
    """The corpus of ``golden``'s cases (with its agent's extra files), built in ``directory``."""
    return build(directory / "corpus", cases_of(golden.agent, golden.version, golden.model).extra_files)


@dataclass(frozen=True)
class Verdict:
    case: str
    same: bool
    excused: bool
    """The answer turns on what only the model's server knows (a ``server_counted`` case), or the
    profile did not run the command (the emulator does not answer it): a difference there is known."""
    difference: str = ""


def verdicts(golden: Golden, root: Path, profile: Profile | None = None) -> list[Verdict]:
    """Each case of ``golden`` (whose corpus is built at ``root``) answered by the profile replay would
    pick, or by ``profile`` (its own tools, whatever version it stands for), and set against the
    agent's. Without ``profile``, what the log kept must also become what the model received by the
    rules of the agent's profiles (``Profile.received``)."""
    out = []
    spec = {case.name: case for case in cases_of(golden.agent, golden.version, golden.model).cases}
    for case in golden.cases:
        found = claim_of(golden, case, root, (profile,) if profile is not None else ())
        if found is None:
            out.append(Verdict(case.name, False, False, "no profile takes this call"))
            continue
        name, claim = found
        settings = {"model": golden.model, **claim.settings}
        workspace = Workspace(root, profile.name if profile is not None else name, settings=settings)
        result = workspace.call(claim.tool, claim.arguments)
        asked = spec.get(case.name)
        if asked is not None and asked.argument_check:  # agentpager's own check refuses it, in its words
            same = result.is_error and case.is_error
        elif asked is not None and asked.unordered:  # a parallel walk's order: the same files, any order
            same = golden.matches_in_any_order(case, result.text, root) and result.is_error == case.is_error
        else:
            same = golden.matches(case, result.text, root) and result.is_error == case.is_error
        shown = "" if same else difference(case.output, with_placeholders(result.text, root, ()))
        received = _received(golden, case, root) if profile is None and same else None
        if received is not None and with_placeholders(received, root, golden.volatile) != case.output:
            same = False
            shown = "what the log kept, as the profile says the model received it:\n" + difference(
                case.output, with_placeholders(received, root, ())
            )
        excused = asked.server_counted if asked is not None else False
        out.append(Verdict(case.name, same, excused or bool(result.unreplayable), shown))
    return out


def _received(golden: Golden, case: GoldenCase, root: Path) -> str | None:
    if case.logged is None:
        return None
    recorded = RecordedCall(
        case.tool,
        with_root(case.arguments, root),
        with_root(case.logged, root),
        golden.agent,
        golden.version,
        cwd=str(root),
        model=golden.model,
    )
    return get_agent(golden.agent).profiles()[0].received(recorded)


def difference(agent: str, profile: str, lines: int = 40) -> str:
    diff = difflib.unified_diff(agent.splitlines(True), profile.splitlines(True), "agent", "profile", n=1)
    return "".join(list(diff)[:lines])


def report(goldens: list[Golden], say: Say) -> str | None:
    """Set the goldens (one per model, of one agent and version) against each of the agent's
    profiles; say how each did, and where the closest differs. Returns the name of the profile that
    answers every case as the agent did (apart from what only the model's server knows), or None."""
    agent = get_agent(goldens[0].agent)
    scores: list[tuple[int, str, list[Verdict]]] = []
    with tempfile.TemporaryDirectory(prefix="agentpager-corpus-") as temp:
        roots = [corpus_for(golden, Path(temp) / str(n)) for n, golden in enumerate(goldens)]
        for profile in agent.profiles():
            if profile.real_agent is None:
                continue
            found = [
                verdict
                for golden, root in zip(goldens, roots, strict=True)
                for verdict in verdicts(golden, root, profile)
            ]
            differing = [v for v in found if not v.same and not v.excused]
            say(f"{profile.name:<22} {len(found) - len(differing):>4} of {len(found)} the same")
            scores.append((len(differing), profile.name, differing))
    scores.sort(key=lambda score: score[0])
    best_count, best, differing = scores[0]
    if best_count == 0:
        say(f"{goldens[0].agent} {goldens[0].version} answers as the {best} profile does.")
        return best
    say(f"No profile answers as {goldens[0].agent} {goldens[0].version} does; the closest, {best}, differs on:")
    for verdict in differing:
        say(f"- {verdict.case}\n{verdict.difference}")
    return None
