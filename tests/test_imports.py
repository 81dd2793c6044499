"""The engine, the tools and ``agentpager call`` never load Textual or markitdown (startup matters)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
