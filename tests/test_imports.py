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
from waiting import HANG

import agentpager
from agentpager.agents import AGENTS

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
    done = subprocess.run([sys.executable, "-c", CHECK, str(root)], capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "0 []", "small files are read without numpy, Textual, markitdown or mcp"


CALL_OF = """
import sys
from agentpager import cli
cli.main(["call", "--root", sys.argv[1], "--profile", sys.argv[2], sys.argv[3], sys.argv[4]])
print(" ".join(sorted(name for name in sys.modules if name.startswith("agentpager.agents"))), file=sys.stderr)
"""


AGENT_PACKAGES = [agent.profiles_at.split(":")[0].rsplit(".", 1)[0] for agent in AGENTS]
"""Each agent's package (``agentpager.agents.codex``): the list of agents imports them all."""


@pytest.mark.parametrize(
    ("profile", "tool", "arguments", "agents_loaded"),
    [
        ("qq", "read_file", '{"path": "a.txt"}', ""),
        (
            "claude-code",
            "Read",
            '{"file_path": "a.txt"}',
            " ".join(
                sorted(
                    [
                        "agentpager.agents",
                        "agentpager.agents.base",
                        *AGENT_PACKAGES,
                        *(f"agentpager.agents.claude_code.{module}" for module in ("bash", "profiles", "read")),
                    ]
                )
            ),
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
        [sys.executable, "-c", CALL_OF, str(root), profile, tool, arguments],
        capture_output=True,
        text=True,
        timeout=HANG,
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
        subprocess.run([sys.executable, "-c", LEAN, str(root), counter], capture_output=True, text=True, timeout=HANG)
        for _ in range(2)
    ]
    assert [run.stdout.startswith("[File: big.txt | Lines 60000-60199 of 80000]") for run in runs] == [True, True]
    first, second = (json.loads(run.stderr) for run in runs)
    if os.cpu_count() != 1:
        assert first["scan threads"] > 0, "the first one scans"
    assert first["heavy"] == ([] if counter == "with C" else ["numpy"]), first
    assert second == {"heavy": [], "scan threads": 0}, "the second one does not scan"


def _modules_of(package: Path) -> dict[str, tuple[Path, bool]]:
    """Every module of the package by dotted name: its file, and whether it is a package's ``__init__``."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def _imports_within(name: str, path: Path, is_package: bool, modules: dict[str, tuple[Path, bool]]) -> set[str]:
    """The package's modules that module ``name`` imports: every import, at the top, inside functions,
    and under ``if TYPE_CHECKING`` (an annotation's import ties modules as much as any); relative
    imports resolved; ``from a import b`` names the module ``a.b`` when there is one (importing it
    runs ``a`` first, as any dotted import runs its parents: that is not counted as an edge). A module
    that calls ``importlib.import_module`` imports each module its string literals name."""
    found: set[str] = set()
    literals: set[str] = set()
    dynamic = False
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = name.split(".")[: None if is_package else -1]
                base = ".".join(parent[: len(parent) - node.level + 1] + ([node.module] if node.module else []))
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names)
        elif isinstance(node, ast.Attribute) and node.attr == "import_module":
            dynamic = True
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            literals.add(node.value)
    if dynamic:
        found |= literals
    return {module for module in found if module in modules and module != name}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for start in graph:
        if start in order:
            continue
        work = [(start, iter(sorted(graph[start])))]
        order[start] = low[start] = len(order)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in order:
                    order[target] = low[target] = len(order)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], order[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == order[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        circles.append(sorted(component))
    return circles


def test_the_package_imports_in_no_circle() -> None:
    """No module of agentpager imports, through others, a module that imports it: the layers stay
    layers. TYPE_CHECKING imports count too (they are how a circle hides)."""
    modules = _modules_of(Path(agentpager.__file__).parent)
    graph = {name: _imports_within(name, path, is_package, modules) for name, (path, is_package) in modules.items()}
    assert sum(map(len, graph.values())) > 200, "the imports were read"
    assert _circles(graph) == []


def test_circles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}, "f": {"d"}}
    assert _circles(graph) == [["a", "b", "c"]]


WARM_SCREEN = """
import asyncio, sys
from agentpager.transcripts import index, open_transcript
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.screens.transcript import CallList, TranscriptScreen
index.SAVED_MIN_BYTES = 0


async def first_rows():
    transcript = open_transcript(sys.argv[1], wait=False, paused=True)
    assert transcript.complete, "restored from the saved index"
    app = AgentPagerApp.for_transcript(transcript, sys.argv[2])
    async with app.run_test(size=(80, 24)):
        while not (isinstance(app.screen, TranscriptScreen) and app.screen.query_one(CallList).size.height > 0):
            await asyncio.sleep(0.01)
        app.screen.query_one(CallList).render_line(0)
        print(sorted(name for name in sys.modules if name == "numpy" or name.startswith("numpy.")), file=sys.stderr)
        app.exit()


asyncio.run(first_rows())
"""


def test_the_transcript_screen_shows_a_saved_index_without_numpy(root: Path) -> None:
    """A saved record index is checked and shown without numpy (its import was half of a 1 GB
    session's warm first screen)."""
    use = {"type": "assistant", "message": {"id": "m", "content": [{"type": "tool_use", "id": "t", "name": "Read"}]}}
    compaction = {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"preTokens": 9}}
    (root / "s.jsonl").write_text("".join(json.dumps(record) + "\n" for record in (use, compaction, use)))
    saving = "from agentpager.transcripts import index, open_transcript as o; index.SAVED_MIN_BYTES = 0; o('s.jsonl')"
    subprocess.run([sys.executable, "-c", saving], cwd=root, check=True, timeout=HANG)
    log, workspace = str(root / "s.jsonl"), str(root)
    command = [sys.executable, "-c", WARM_SCREEN, log, workspace]
    done = subprocess.run(command, capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"
