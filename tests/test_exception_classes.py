"""Exceptions can be raised anywhere: none is a frozen dataclass.

Raising sets an exception's ``__traceback__`` (and ``__context__``); a frozen dataclass refuses
every attribute, so one raised inside a ``with`` block became FrozenInstanceError (the viewer's
search then never reported why it stopped).
"""

from __future__ import annotations

import ast
from pathlib import Path

import agentpager


def _is_frozen_dataclass(decorator: ast.expr) -> bool:
    return (
        isinstance(decorator, ast.Call)
        and getattr(decorator.func, "id", getattr(decorator.func, "attr", "")) == "dataclass"
        and any(
            keyword.arg == "frozen" and isinstance(keyword.value, ast.Constant) and keyword.value.value
            for keyword in decorator.keywords
        )
    )


def test_no_exception_class_is_a_frozen_dataclass() -> None:
    found = []
    for path in sorted(Path(agentpager.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(_is_frozen_dataclass(d) for d in node.decorator_list):
                bases = {getattr(base, "id", getattr(base, "attr", "")) for base in node.bases}
                if any(name.endswith(("Error", "Exception", "Failure")) for name in bases):
                    found.append(f"{path.name}:{node.lineno} {node.name}")
    assert found == []
