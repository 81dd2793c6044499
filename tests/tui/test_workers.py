"""Every worker with arguments is given a description: without one, Textual describes it by the repr
of its arguments, on the UI thread, as it starts (a tree listing of 100,000 names took 180 ms, a
transcript's 10,000 calls or a copied text would be written out whole)."""

from __future__ import annotations

import ast
from pathlib import Path

import agentpager.tui

TUI = Path(agentpager.tui.__file__).parent


def workers() -> list[tuple[str, bool, bool]]:
    """Each function decorated with ``@work(...)`` in the TUI: its name, whether it takes arguments,
    whether it is given a description."""
    found = []
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", None) == "work":
                    takes_arguments = len(node.args.args) + len(node.args.kwonlyargs) > 1 or bool(node.args.vararg)
                    described = "description" in {keyword.arg for keyword in decorator.keywords}
                    found.append((f"{path.relative_to(TUI)}: {node.name}", takes_arguments, described))
    return found


def test_every_worker_with_arguments_has_a_description() -> None:
    found = workers()
    assert len(found) >= 20, "the walk finds the workers (a renamed decorator would make this vacuous)"
    assert [name for name, takes_arguments, described in found if takes_arguments and not described] == []
