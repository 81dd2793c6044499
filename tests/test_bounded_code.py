"""The engine's bounds hold in every tool and transcript reader: a test reads the code to check it.

One way to match a pattern someone else wrote (``engine.patterns``: RE2 in linear time, ``re`` in a
child process within a time limit) and one way to read a file (a block or a line at a time, never
the whole file): a call to ``re`` with a pattern that is not our own literal, or a read of a whole
file, has to be on a list below with the reason it is bounded.
"""

from __future__ import annotations

import ast
from pathlib import Path

import agentpager

PACKAGE = Path(agentpager.__file__).parent
CHECKED = ("tools", "agents", "logs", "transcripts")
RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split"}
WHOLE_READS = {"read_text", "read_bytes", "readlines"}

PATTERNS_ALLOWED = {
    ("tools/volatile.py", "part.pattern"): "ours: each agent's Volatile parts are literals in agents/<id>/__init__.py",
}
"""(file, what the pattern is written as) -> why a non-literal pattern there is allowed."""
READS_ALLOWED = {
    ("agents/claude_code/read.py", "file.read()"): "the output is the whole file: an image or PDF, sent as such",
    ("agents/opencode/sessions.py", "file.read()"): "a file of OpenCode's store (before 1.2), all exported",
    ("tools/shell/ripgrep.py", "path.read_text(encoding='utf-8')"): "package data: a ripgrep type list, 6 KB",
}
"""(file, the call) -> why reading a whole file there is allowed."""


def _sources() -> list[tuple[str, ast.Module]]:
    found = []
    for folder in CHECKED:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            found.append((path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))))
    return found


def _constants(module: ast.Module) -> dict[str, ast.expr]:
    """Module-level names bound once to a value (``_REGEX = r"..."``) and names imported from our modules."""
    values: dict[str, ast.expr] = {}
    for node in module.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agentpager."):
            for alias in node.names:
                if alias.name.isupper():  # a constant of ours (JS_WHITESPACE)
                    values[alias.asname or alias.name] = ast.Constant("")
    return values


def _is_ours(node: ast.expr, constants: dict[str, ast.expr], depth: int = 0) -> bool:
    """Whether a pattern is text we wrote: a literal, a join or f-string of literals and our constants."""
    if depth > 20:
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str | bytes)
    if isinstance(node, ast.JoinedStr):
        return all(
            isinstance(part, ast.Constant) or _is_ours(part.value, constants, depth + 1)
            for part in node.values
            if isinstance(part, ast.Constant | ast.FormattedValue)
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_ours(node.left, constants, depth + 1) and _is_ours(node.right, constants, depth + 1)
    if isinstance(node, ast.Name) and node.id in constants:
        return _is_ours(constants[node.id], constants, depth + 1)
    return False


def _re_calls(module: ast.Module) -> list[ast.Call]:
    """Calls of ``re``'s functions, as ``re.search(...)`` or imported by name."""
    names = {
        alias.asname or alias.name
        for node in ast.walk(module)
        if isinstance(node, ast.ImportFrom) and node.module == "re"
        for alias in node.names
        if alias.name in RE_FUNCTIONS
    }
    calls = []
    for node in ast.walk(module):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Attribute) and function.attr in RE_FUNCTIONS:
            if isinstance(function.value, ast.Name) and function.value.id == "re":
                calls.append(node)
        elif isinstance(function, ast.Name) and function.id in names:
            calls.append(node)
    return calls


def foreign_patterns() -> set[tuple[str, str]]:
    found = set()
    for name, module in _sources():
        constants = _constants(module)
        for call in _re_calls(module):
            pattern = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "pattern"), None)
            if pattern is not None and not _is_ours(pattern, constants):
                found.add((name, ast.unparse(pattern)))
    return found


def whole_reads() -> set[tuple[str, str]]:
    found = set()
    for name, module in _sources():
        for node in ast.walk(module):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            size = node.args[0] if node.args else None
            unbounded = size is None or (isinstance(size, ast.Constant) and size.value in (None, -1))
            if node.func.attr in WHOLE_READS or (node.func.attr == "read" and unbounded and not node.keywords):
                found.add((name, ast.unparse(node)))
    return found


def test_every_pattern_someone_else_wrote_goes_through_the_engine() -> None:
    assert foreign_patterns() <= set(PATTERNS_ALLOWED), sorted(foreign_patterns() - set(PATTERNS_ALLOWED))


def test_no_file_is_read_whole() -> None:
    assert whole_reads() <= set(READS_ALLOWED), sorted(whole_reads() - set(READS_ALLOWED))


def test_the_lists_name_only_what_is_there() -> None:
    """An entry that no longer matches anything is removed, so that the lists stay the exceptions."""
    assert set(PATTERNS_ALLOWED) - foreign_patterns() == set()
    assert set(READS_ALLOWED) - whole_reads() == set()


def test_the_check_finds_a_foreign_pattern_and_a_whole_read() -> None:
    module = ast.parse(
        "import re\nfrom re import search as s\nA = 'x' + 'y'\n"
        "def f(p, file):\n    re.compile(A)\n    re.compile(f'{A}z')\n    re.compile(p)\n    s(p + 'x', 'y')\n"
        "    file.read()\n    file.read(10)\n    file.read_text()\n"
    )
    constants = _constants(module)
    assert [_is_ours(call.args[0], constants) for call in _re_calls(module)] == [True, True, False, False]
