"""Record the goldens: ask each real agent every case of the corpus, through agentpager's mock.

    python scripts/record_goldens.py                      # every target (corpus.TARGETS; installs what is missing)
    python scripts/record_goldens.py --agent codex        # one agent's targets
    python scripts/record_goldens.py --agent claude-code --version 2.1.84 --model claude-sonnet-4-5
    python scripts/record_goldens.py --agent claude-code --version latest --case plain --dry-run

Agents are installed into agentpager's cache dir with npm (never into the repository). Each run
starts the agent once per case in a fresh corpus and a fresh temporary home, offline: the model is
the mock on 127.0.0.1. Writes ``tests/goldens/<agent>/<version>/<model>.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from goldens.corpus import TARGETS, build, cases_of  # noqa: E402
from goldens.golden import Golden, GoldenCase, load, with_placeholders, with_root  # noqa: E402

from agentpager.agents import get_agent  # noqa: E402
from agentpager.probe import AgentNotInstalled, Program, find, install, probe  # noqa: E402


def program_of(agent: str) -> Program:
    program = get_agent(agent).program()
    if program is None:
        raise SystemExit(f"agentpager cannot run {agent}")
    return program


def record(agent: str, version: str, model: str, only: set[str], attempts: int) -> Golden:
    program = program_of(agent)
    try:
        installed = find(program, version)
    except AgentNotInstalled:
        installed = install(program, version, progress=lambda m: print(m, file=sys.stderr))
    spec = cases_of(agent, version, model)
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
                except Exception as error:  # report and retry: one flaky start must not lose the run
                    print(f"  {case.name}: attempt {attempt} failed: {error}", file=sys.stderr)
                    continue
                output = with_placeholders(result.text, root, spec.volatile)
            took = time.monotonic() - started
            print(
                f"  {case.name:<32} {len(output):>7} chars  error={result.is_error!s:<5} {took:.1f} s", file=sys.stderr
            )
            cases.append(GoldenCase(case.name, case.tool, case.arguments, output, result.is_error, case.why))
            tools = {case.tool for case in spec.cases}
            offered = [t for t in result.offered_tools if isinstance(t, dict) and t.get("name") in tools] or offered
            break
        else:
            raise SystemExit(f"{agent} {version}: {case.name} failed {attempts} times")
    return Golden(
        agent,
        installed.version,
        model,
        "scripts/record_goldens.py",
        spec.volatile,
        spec.notes,
        tuple(offered),
        tuple(cases),
    )


def merged(old: Golden, new: Golden) -> Golden:
    """``old`` with the cases of ``new`` in place of its own, in the corpus's order."""
    cases = {case.name: case for case in old.cases} | {case.name: case for case in new.cases}
    order = [case.name for case in cases_of(new.agent, new.version, new.model).cases]
    ordered = tuple(cases[name] for name in order if name in cases)
    return Golden(**{**new.__dict__, "cases": ordered, "offered_tools": new.offered_tools or old.offered_tools})


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
    options = parser.parse_args()

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
        print(f"{agent} {version} {model}", file=sys.stderr)
        golden = record(agent, version, model, set(options.case), options.attempts)
        if options.dry_run:
            for case in golden.cases:
                print(
                    json.dumps(
                        {"name": case.name, "output": case.output, "is_error": case.is_error}, ensure_ascii=False
                    )
                )
        else:
            if options.case and golden.path.exists():  # re-record some cases: keep the others
                golden = merged(load(golden.path), golden)
            print(f"wrote {golden.save()} ({len(golden.cases)} cases)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
