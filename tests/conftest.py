from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agentpager import ToolResult, Workspace


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test converts documents into its own cache and ignores the user's guard settings."""
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("AGENTPAGER_CACHE_DIR", str(cache))
    monkeypatch.delenv("QQ_MAX_TOOL_OUTPUT", raising=False)
    monkeypatch.delenv("QQ_CHARS_PER_TOKEN", raising=False)
    return cache


@pytest.fixture(autouse=True)
def isolated_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test has its own (empty) config dir: the user's settings and themes never leak in."""
    config_dir = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("AGENTPAGER_CONFIG_DIR", str(config_dir))
    return config_dir


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "proj"
    workspace.mkdir()
    return workspace


Caller = Callable[..., ToolResult]


@pytest.fixture
def call(root: Path) -> Caller:
    """``call(tool, profile="qq", **arguments)`` against the ``root`` workspace."""
    workspaces: dict[str, Workspace] = {}

    def run(tool: str, profile: str = "qq", **arguments: object) -> ToolResult:
        if profile not in workspaces:
            workspaces[profile] = Workspace(root, profile)
        return workspaces[profile].call(tool, arguments)

    return run


@pytest.fixture
def public_root() -> Iterator[Path]:
    """A workspace every user can traverse (pytest's own temp dirs are private to their owner)."""
    base = Path(tempfile.mkdtemp(prefix="agentpager-public-"))
    base.chmod(0o755)
    yield base
    for path in (base, *base.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(base)


@pytest.fixture
def unprivileged() -> Callable[[Callable[[], str]], str]:
    """Run a function that returns text as a user who cannot read what it has no permission for.

    Root reads everything, so as root the function runs in a forked child turned into ``nobody``.
    """

    def run(function: Callable[[], str]) -> str:
        if os.geteuid() != 0:
            return function()
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: drop privileges, answer through the pipe, never return to pytest
            try:
                os.close(reader)
                os.setgid(65534)
                os.setuid(65534)
                os.write(writer, function().encode())
            finally:
                os._exit(0)
        os.close(writer)
        with os.fdopen(reader) as answer:
            result = answer.read()
        os.waitpid(pid, 0)
        return result

    return run
