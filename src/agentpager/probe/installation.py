"""Finding an installed agent (on PATH, at a given path, or a version in the cache) and installing one.

Versions go into ``platformdirs.user_cache_dir("agentpager")/agents/<agent>@<version>`` with
``npm install --prefix``; nothing is installed globally. Each function takes the agent's ``Program``
(``Agent.program()``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentpager.probe.processes import stream_lines
from agentpager.probe.program import Program

INSTALL_TIMEOUT = 900
VERSION_TIMEOUT = 30
_VERSION = re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?")

Progress = Callable[[str], None]


class AgentNotInstalled(LookupError):
    """The agent (or that version of it) is not installed; ``hint`` is the command that installs it."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(f"{message}\nInstall it with:\n  {hint}")
        self.reason = message
        self.hint = hint


@dataclass(frozen=True)
class Installed:
    program: Program
    version: str
    command: tuple[str, ...]
    """The executable (or node and the script) to run."""


def agents_dir() -> Path:
    """Where agent versions are installed (``$AGENTPAGER_AGENTS_DIR`` overrides it)."""
    override = os.environ.get("AGENTPAGER_AGENTS_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("agentpager")) / "agents"


def prefix_of(agent: str, version: str) -> Path:
    return agents_dir() / f"{agent}@{version}"


def install_command(program: Program, version: str) -> list[str]:
    """The npm command that installs ``version`` of the agent into the cache."""
    return [
        "npm",
        "install",
        "--prefix",
        str(prefix_of(program.agent, version)),
        "--no-audit",
        "--no-fund",
        f"{program.package}@{version}",
    ]


def install_hint(program: Program, version: str | None) -> str:
    return " ".join(install_command(program, version or "latest"))


def _node() -> str:
    return shutil.which("node") or "node"


def _command_for(path: Path) -> tuple[str, ...]:
    """How to run ``path``: a script with node, anything else as it is."""
    return (_node(), str(path)) if path.suffix in (".js", ".cjs", ".mjs") else (str(path),)


def _command_in(prefix: Path, program: Program) -> tuple[str, ...] | None:
    for entry in program.entry_points:
        if (prefix / entry).is_file():
            return _command_for(prefix / entry)
    return None


def _package_version(prefix: Path, program: Program) -> str | None:
    try:
        manifest = json.loads((prefix / "node_modules" / program.package / "package.json").read_text())
    except (OSError, ValueError):
        return None
    version = manifest.get("version")
    return version if isinstance(version, str) else None


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version.split("-")[0]))


def cached_versions(program: Program) -> list[str]:
    """Versions of the agent installed in the cache, oldest first."""
    found = []
    for prefix in agents_dir().glob(f"{program.agent}@*"):
        if _command_in(prefix, program) is not None:
            found.append(prefix.name.split("@", 1)[1])
    return sorted(found, key=_version_key)


def version_of(command: tuple[str, ...]) -> str:
    """The version an executable reports with ``--version`` ("unknown" when it says none)."""
    try:
        done = subprocess.run(
            [*command, "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/"), "NO_COLOR": "1"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    found = _VERSION.search(done.stdout + done.stderr)
    return found.group() if found else "unknown"


def find(program: Program, version: str | None = None) -> Installed:
    """An installed agent: ``version`` None is the one on PATH, else the newest in the cache; a
    version such as ``2.1.84`` is that version in the cache, else the one on PATH if it is that
    version; a path is that executable.

    Raises AgentNotInstalled with the npm command that installs it.
    """
    agent = program.agent
    if version is not None and (os.sep in version or version.endswith((".js", ".exe"))):
        path = Path(version).expanduser()
        if not path.is_file():
            raise AgentNotInstalled(f"{path} does not exist.", install_hint(program, None))
        return Installed(program, version_of(_command_for(path)), _command_for(path))
    if version is None:
        on_path = shutil.which(program.executable)
        if on_path is not None:
            return Installed(program, version_of((on_path,)), (on_path,))
        cached = cached_versions(program)
        if not cached:
            raise AgentNotInstalled(
                f"{agent} is not installed (no '{program.executable}' on PATH, none in {agents_dir()}).",
                install_hint(program, None),
            )
        version = cached[-1]
    prefix = prefix_of(agent, version)
    command = _command_in(prefix, program)
    if command is not None:
        return Installed(program, _package_version(prefix, program) or version, command)
    on_path = shutil.which(program.executable)
    path_version = version_of((on_path,)) if on_path is not None else None
    if on_path is not None and path_version == version:
        return Installed(program, version, (on_path,))
    elsewhere = f" ({program.executable} on PATH is {path_version})" if path_version else ""
    raise AgentNotInstalled(
        f"{agent} {version} is not installed in {prefix}{elsewhere}.", install_hint(program, version)
    )


def resolve_version(program: Program, version: str) -> str:
    """An exact version for ``latest`` or a range, asked of the npm registry (``npm view``)."""
    if re.fullmatch(r"\d+\.\d+\.\d+", version):
        return version
    done = subprocess.run(
        ["npm", "view", f"{program.package}@{version}", "version", "--json"],
        capture_output=True,
        text=True,
        timeout=VERSION_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        raise RuntimeError(f"npm view failed: {done.stderr.strip()}")
    found = json.loads(done.stdout)
    return found[-1] if isinstance(found, list) else str(found)


def install(
    program: Program, version: str = "latest", progress: Progress | None = None, cancel: threading.Event | None = None
) -> Installed:
    """Install ``version`` of the agent into the cache (a no-op when it is there) and return it.

    ``progress`` gets what is being done and each line npm writes; ``cancel`` set stops npm (and
    raises Cancelled).
    """
    exact = resolve_version(program, version)
    prefix = prefix_of(program.agent, exact)
    if _command_in(prefix, program) is None:
        if shutil.which("npm") is None:
            raise AgentNotInstalled("npm is not on PATH.", install_hint(program, exact))
        if progress:
            progress(f"Installing {program.package}@{exact} into {prefix} ...")
        prefix.mkdir(parents=True, exist_ok=True)
        written: list[str] = []

        def line(text: str) -> None:
            written.append(text)
            if progress:
                progress(text)

        with subprocess.Popen(
            install_command(program, exact),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        ) as npm:
            try:
                stream_lines(npm, line, cancel, INSTALL_TIMEOUT)
            except TimeoutError as error:
                raise RuntimeError(f"npm install {error}") from None
        if npm.returncode != 0:
            output = "\n".join(written).strip()[-2000:]
            raise RuntimeError(f"npm install failed ({npm.returncode}): {output}")
    if progress:
        progress(f"{program.agent} {exact} is installed.")
    return find(program, exact)
