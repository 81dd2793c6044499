"""The engine, the tools and ``agentpager call`` never load Textual or markitdown (startup matters)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scanners import scanner

import agentpager

CHECK = """
import importlib, pkgutil, sys
import agentpager.engine, agentpager.tools
for package in (agentpager.engine, agentpager.tools):
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
import agentpager.workspace, agentpager.cli
from agentpager import Workspace
result = Workspace(sys.argv[1]).call("read_file", {"path": "a.txt"})
assert not result.is_error, result.text
exit_status = agentpager.cli.main(["call", "--root", sys.argv[1], "read_file", '{"path": "a.txt"}'])
loaded = sorted(name for name in sys.modules if name.split(".")[0] in ("textual", "markitdown", "mcp", "numpy"))
print(exit_status, loaded, file=sys.stderr)
"""


def test_call_path_imports_no_textual_markitdown_or_mcp(root: Path) -> None:
    (root / "a.txt").write_text("small file\n")
    done = subprocess.run([sys.executable, "-c", CHECK, str(root)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "0 []", "small files are read without numpy, Textual, markitdown or mcp"


CALL_OF = """
import sys
from agentpager import cli
cli.main(["call", "--root", sys.argv[1], "--profile", sys.argv[2], sys.argv[3], sys.argv[4]])
print(" ".join(sorted(name for name in sys.modules if name.startswith("agentpager.agents"))), file=sys.stderr)
"""


@pytest.mark.parametrize(
    ("profile", "tool", "arguments", "agents_loaded"),
    [
        ("qq", "read_file", '{"path": "a.txt"}', ""),
        (
            "claude-code",
            "Read",
            '{"file_path": "a.txt"}',
            "agentpager.agents agentpager.agents.base agentpager.agents.claude_code agentpager.agents.claude_code.bash "
            "agentpager.agents.claude_code.profiles agentpager.agents.claude_code.read agentpager.agents.codex "
            "agentpager.agents.gemini_cli agentpager.agents.openhands agentpager.agents.swe_agent",
        ),
    ],
)
def test_a_call_loads_its_own_agents_profiles_alone(
    root: Path, profile: str, tool: str, arguments: str, agents_loaded: str
) -> None:
    """A contract profile's call loads no agent; an agent's loads the list of agents (their light
    descriptions) and its own profiles, none of another agent's."""
    (root / "a.txt").write_text("small file\n")
    done = subprocess.run(
        [sys.executable, "-c", CALL_OF, str(root), profile, tool, arguments], capture_output=True, text=True, timeout=60
    )
    assert done.stderr.strip() == agents_loaded


def imported_modules(source: str) -> set[str]:
    """Every module a Python source imports, absolute or relative, at any depth (lazy imports too)."""
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative imports would hide where a name comes from"
            modules.add(node.module or "")
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def test_the_tui_reads_through_workspace_and_fileview_only() -> None:
    """One way in for file text: the TUI imports nothing from the tools or the engine."""
    package = Path(agentpager.__file__).parent / "tui"
    below = ("agentpager.tools", "agentpager.engine")
    reaching_down = {
        f"{path.relative_to(package)}: {module}"
        for path in sorted(package.rglob("*.py"))
        for module in imported_modules(path.read_text(encoding="utf-8"))
        if module in below or module.startswith(tuple(name + "." for name in below))
    }
    assert reaching_down == set()


def test_the_agents_import_only_what_lies_below_them() -> None:
    """An agent's package is loaded by what reads it (the registries in ``profiles``, ``transcripts``,
    ``sessions``, the probe's screen), by ``module:attribute``: it imports only the layers below
    (``logs``, ``probe``, ``tools``, ``engine``) and the agents', so no import runs back up into a circle."""
    package = Path(agentpager.__file__).parent / "agents"
    below = tuple(f"agentpager.{name}" for name in ("agents", "logs", "probe", "tools", "engine"))
    reaching_up = {
        f"{path.relative_to(package)}: {module}"
        for path in sorted(package.rglob("*.py"))
        for module in imported_modules(path.read_text(encoding="utf-8"))
        if module.split(".")[0] == "agentpager" and ".".join(module.split(".")[:2]) not in below
    }
    assert reaching_up == set()


LEAN = """
import json, sys, threading
from agentpager.engine import newline_scan, savedindex, textfile
savedindex.SAVED_MIN_BYTES = textfile.SAVED_MIN_BYTES = 1 << 20
if sys.argv[2] == "without C":
    newline_scan._native = None
from agentpager import cli
cli.main(["call", "--root", sys.argv[1], "read_file", '{"path": "big.txt", "start_line": 60000}'])
heavy = ("numpy", "subprocess", "concurrent", "re2", "zipfile", "tiktoken")
loaded = sorted({name.split(".")[0] for name in sys.modules} & set(heavy))
scanners = [thread.name for thread in threading.enumerate() if thread.name == "agentpager-scan"]
print(json.dumps({"heavy": loaded, "scan threads": len(scanners)}), file=sys.stderr)
"""


@pytest.mark.parametrize("counter", ["with C", "without C"])
def test_a_call_on_a_file_whose_index_is_saved_loads_nothing_heavy(root: Path, counter: str) -> None:
    """The first ``agentpager call`` on a big file scans it, with numpy only where the C newline
    counter was not built; the second reads the saved index: no numpy, no scan threads."""
    if counter == "with C":
        with scanner("c"):
            pass  # skips where no C compiler could build it
    (root / "big.txt").write_text("".join(f"line {n:06d} of a file bigger than a few blocks\n" for n in range(80000)))
    runs = [
        subprocess.run([sys.executable, "-c", LEAN, str(root), counter], capture_output=True, text=True, timeout=60)
        for _ in range(2)
    ]
    assert [run.stdout.startswith("[File: big.txt | Lines 60000-60199 of 80000]") for run in runs] == [True, True]
    first, second = (json.loads(run.stderr) for run in runs)
    if os.cpu_count() != 1:
        assert first["scan threads"] > 0, "the first one scans"
    assert first["heavy"] == ([] if counter == "with C" else ["numpy"]), first
    assert second == {"heavy": [], "scan threads": 0}, "the second one does not scan"
