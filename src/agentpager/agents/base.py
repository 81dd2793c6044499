"""What agentpager knows of one agent, in one place: ``Agent``.

An agent's package (``agentpager/agents/<id>/``) defines ``AGENT`` in its ``__init__.py``, light enough
to import on every start: names, where its sessions are, its settings, what varies in its answers. Its
heavier parts are modules of the package, named here by ``module:attribute`` and imported only when
asked for: its profiles, its transcript format, and how the probe runs it.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentpager.tools.volatile import Volatile

if TYPE_CHECKING:
    from agentpager.logs.collector import Collector
    from agentpager.probe.program import Program
    from agentpager.tools.base import Profile


def _no_project(path: str) -> str:
    return ""


@dataclass(frozen=True)
class Sessions:
    """Where an agent keeps its sessions: files matching ``patterns`` in its directory, or what ``find`` finds."""

    directory: str
    """Its directory in the user's home (``.codex``)."""
    variable: str | None
    """The environment variable that names another directory instead (``CODEX_HOME``), or None."""
    patterns: tuple[str, ...] = ()
    """Globs in the directory for its session files."""
    ignored: str = ""
    """A glob for file names among them that are not sessions (Claude Code's subagents' own files)."""
    project: Callable[[str], str] = _no_project
    """The project a session belongs to, from its path, for when the session does not say ("" if unknown):
    the same for every session of one directory (it is asked once per directory)."""
    find: Callable[[str | None], Iterable[tuple[str, str]]] | None = None
    """For an agent that does not keep a file per session (a database): ``find(home)`` (None: the user's
    home) yields each session as a transcript file it wrote (in the cache dir) and its project ("" if
    unknown); the patterns are not used then."""

    def directory_in(self, home: str | None) -> str:
        """The directory in ``home`` (None: the user's, where the environment variable may move it)."""
        moved = os.environ.get(self.variable) if self.variable and home is None else None
        return moved or os.path.join(home or os.path.expanduser("~"), self.directory)


@dataclass(frozen=True)
class Setting:
    """A profile setting people may set in ``config.toml``'s ``[settings]``."""

    key: str
    default: Any
    """What the setting is when not set, as config.toml writes it."""
    expected: str
    """What a valid value is, for the message when one is not."""
    comment: str
    """What it does, for the commented line in the default config file."""
    read: Callable[[Any], Any]
    """The value the profiles get, from the file's; ValueError when the file's is not valid."""


@dataclass(frozen=True)
class Agent:
    """One agent: its names, its profiles, its transcripts and sessions, how the probe runs it."""

    id: str
    """Its one name everywhere: its profiles' family (``codex``, ``codex@0.60``), its transcripts' format,
    the name ``agentpager probe`` takes."""
    title: str
    """Its name for people: ``Claude Code``."""
    short_title: str
    """Its name where six letters fit (the session browser's agent column)."""
    profiles_at: str
    """``module:attribute`` of its profiles, the newest first."""
    transcript_at: str
    """``module:attribute`` of the Collector that reads its transcripts."""
    other_transcripts_at: tuple[str, ...] = ()
    """``module:attribute`` of the Collectors of its other logs (Codex's ``exec --json`` output): the
    same format (its id), recognised after ``transcript_at``'s."""
    program_at: str | None = None
    """``module:attribute`` of how the probe installs and runs it; None: agentpager cannot run it."""
    sessions: Sessions | None = None
    """Where it keeps its sessions on this machine; None: nowhere agentpager knows of."""
    settings: tuple[Setting, ...] = ()
    volatile: tuple[Volatile, ...] = ()
    """The parts of its answers that change from run to run: what its profiles' answers and the real
    agent's are compared without, by the probe and by replay."""

    def profiles(self) -> tuple[Profile, ...]:
        return tuple(_load(self.profiles_at))

    def collector(self) -> type[Collector]:
        collector: type[Collector] = _load(self.transcript_at)
        return collector

    def collectors(self) -> tuple[type[Collector], ...]:
        """Every Collector of its logs, its transcripts' first."""
        return (self.collector(), *(_load(reference) for reference in self.other_transcripts_at))

    def program(self) -> Program | None:
        return None if self.program_at is None else _load(self.program_at)


def _load(reference: str) -> Any:
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)
