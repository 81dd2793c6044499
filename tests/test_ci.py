"""``.ci/run`` runs the README's test command: CI runs the tests as a developer is told to."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_test_command() -> str:
    """The ``python -m pytest`` line of the README's Development section (its comment left out)."""
    development = (ROOT / "README.md").read_text().split("\n## Development\n", 1)[1]
    block = development.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    return next(command for command in commands if command.startswith("python -m pytest"))


def test_ci_runs_the_readme_test_command_last() -> None:
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip()]
    assert steps[-1] == readme_test_command() == "python -m pytest -n auto"
