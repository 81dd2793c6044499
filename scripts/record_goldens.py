"""Record the goldens: ask each real agent every case of the corpus, through agentpager's mock.

    python scripts/record_goldens.py                      # every target (corpus.TARGETS; installs what is missing)
    python scripts/record_goldens.py --agent codex        # one agent's targets
    python scripts/record_goldens.py --agent claude-code --version 2.1.84 --model claude-sonnet-4-5
    python scripts/record_goldens.py --agent claude-code --version latest --case plain --dry-run
    python scripts/record_goldens.py --newest claude-code # its newest release: record, and what changed

Agents are installed into agentpager's cache dir with npm (never into the repository). Each run
starts the agent once per case in a fresh corpus and a fresh temporary home, confined and offline:
the model is the mock on 127.0.0.1. Writes ``tests/goldens/<agent>/<version>/<model>.json``, each
case with what the model received and what the agent's own log kept.

``--newest AGENT`` installs the agent's newest release from npm, records every case with the models
of its newest target, writes those goldens, and prints, case by case, where the profile replay
would pick for that version answers otherwise, and which of the agent's profiles answers as it does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from goldens.check import corpus_for, record, report, verdicts  # noqa: E402
from goldens.corpus import TARGETS, newest_targets  # noqa: E402
from goldens.golden import Golden, load  # noqa: E402

from agentpager.agents import get_agent  # noqa: E402
from agentpager.probe import AgentNotInstalled, Installed, Program, find, install  # noqa: E402
from agentpager.probe.installation import resolve_version  # noqa: E402


def say(message: str) -> None:
    print(message, file=sys.stderr)


def program_of(agent: str) -> Program:
    program = get_agent(agent).program()
    if program is None:
        raise SystemExit(f"agentpager cannot run {agent}")
    return program


def installed_version(agent: str, version: str) -> Installed:
    program = program_of(agent)
    try:
        return find(program, version)
    except AgentNotInstalled:
        return install(program, version, progress=say)


def merged(old: Golden, new: Golden) -> Golden:
    """``old`` with the cases of ``new`` in place of its own, in the corpus's order."""
    from goldens.corpus import cases_of

    cases = {case.name: case for case in old.cases} | {case.name: case for case in new.cases}
    order = [case.name for case in cases_of(new.agent, new.version, new.model).cases]
    ordered = tuple(cases[name] for name in order if name in cases)
    return Golden(**{**new.__dict__, "cases": ordered, "offered_tools": new.offered_tools or old.offered_tools})


def newest(agent: str, attempts: int, dry_run: bool) -> int:
    """Record the newest release with the models of the agent's newest target; say what changed."""
    version = resolve_version(program_of(agent), "latest")
    say(f"{agent}: the newest release is {version}")
    installed = installed_version(agent, version)
    models = [target.model for target in newest_targets(agent)]
    goldens = []
    for model in models:
        say(f"{agent} {version} {model}")
        golden = record(installed, model, say, attempts=attempts)
        goldens.append(golden)
        if not dry_run:
            say(f"wrote {golden.save()} ({len(golden.cases)} cases)")
    import tempfile

    with tempfile.TemporaryDirectory(prefix="agentpager-corpus-") as temp:
        for n, golden in enumerate(goldens):
            found = verdicts(golden, corpus_for(golden, Path(temp) / str(n)))
            changed = [verdict for verdict in found if not verdict.same and not verdict.excused]
            say(f"\n{agent} {version} {golden.model}: {len(found) - len(changed)} of {len(found)} as the profile says")
            for verdict in changed:
                say(f"- {verdict.case} differs:\n{verdict.difference}")
    say("")
    return 0 if report(goldens, say) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--agent", choices=sorted({target.agent for target in TARGETS}), help="only this agent's targets"
    )
    parser.add_argument("--version", help="only this version (or 'latest')")
    parser.add_argument("--model", help="only this model (or, with --version, the model to use)")
    parser.add_argument("--case", action="append", default=[], help="only this case (repeatable)")
    parser.add_argument("--dry-run", action="store_true", help="print the outputs instead of writing the goldens")
    parser.add_argument("--attempts", type=int, default=2, help="tries per case (default 2)")
    parser.add_argument(
        "--newest",
        metavar="AGENT",
        choices=sorted({target.agent for target in TARGETS}),
        help="install AGENT's newest release, record every case with it and print what changed",
    )
    options = parser.parse_args()
    if options.newest:
        return newest(options.newest, options.attempts, options.dry_run)

    targets = [
        (target.agent, target.version, target.model)
        for target in TARGETS
        if (options.agent in (None, target.agent))
        and (options.version in (None, target.version))
        and (options.model in (None, target.model))
    ]
    if not targets and options.agent and options.version:
        model = options.model or program_of(options.agent).default_model
        targets = [(options.agent, options.version, model)]
    for agent, version, model in targets:
        say(f"{agent} {version} {model}")
        path = Golden(agent, version, model, "", (), (), (), ()).path
        old = load(path) if path.exists() else None
        golden = record(installed_version(agent, version), model, say, set(options.case), options.attempts, old)
        if options.dry_run:
            for case in golden.cases:
                print(
                    json.dumps(
                        {"name": case.name, "output": case.output, "is_error": case.is_error, "logged": case.logged},
                        ensure_ascii=False,
                    )
                )
        else:
            if options.case and old is not None:  # re-record some cases: keep the others
                golden = merged(old, golden)
            say(f"wrote {golden.save()} ({len(golden.cases)} cases)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
