"""``agentpager demo``: a workspace that shows what agentpager is for, built in about a second.

A web shop whose nightly export failed: a log of about 200 MB, sources, 250 fixtures in three
folders (one past the listing's warning and its page size), a DOCX and a PDF, and the Claude Code
session of an agent that looked into it, replayable against the files. It is built in a temp dir
by default and reused while it is complete; a dir that holds anything else is never touched.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from agentpager import __version__
from agentpager.demo import documents, project
from agentpager.demo.log import write_log
from agentpager.demo.session import write_session
from agentpager.workspace import Workspace

DEFAULT_LOG_SIZE = 200_000_000
LOG = "logs/app.log"
SESSION = "sessions/claude-code.jsonl"
MARKER = ".agentpager-demo.json"
"""Written last: a dir with it is a complete demo."""
BUILDING = ".agentpager-demo-building"
"""Written first: a dir with it (and no marker) is a demo whose build stopped half-way."""
_FORMAT = 1
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*", re.IGNORECASE)


class DemoError(Exception):
    """The demo cannot be built there (the message says why; nothing was changed)."""


@dataclass
class Demo:
    root: Path
    reused: bool
    seconds: float
    """How long building (or checking) it took."""
    workspace: Workspace
    """A workspace on the demo; when it was just built, its index of the log is already made."""
    log: str = LOG
    session: str = SESSION


def default_demo_dir() -> Path:
    """``agentpager-demo-USER`` in the temp dir: the same dir every run, so a complete demo is reused."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"agentpager-demo-{user}"


def parse_size(text: str) -> int:
    """``200M``, ``1.5G``, ``50MB``, ``800k`` or a number of bytes (k, M, G are powers of 1000)."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"'{text}' is not a size: give bytes or a size such as 200M, 50MB or 1G.")
    number, unit = float(match.group(1)), match.group(2).lower()
    size = int(number * {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}[unit])
    if size < 1000:
        raise ValueError(f"'{text}' is too small for the demo's log: give at least 1k.")
    return size


def _is_complete(root: Path, log_size: int) -> bool:
    try:
        marker = json.loads((root / MARKER).read_text())
        return (
            marker.get("format") == _FORMAT
            and marker.get("log_size") == log_size
            and (root / LOG).stat().st_size == marker.get("log_bytes")
            and (root / SESSION).is_file()
        )
    except (OSError, ValueError, AttributeError):
        return False


def _make_room(root: Path) -> None:
    """An empty ``root``: created, or emptied when it holds an earlier demo (and only then)."""
    if not root.exists():
        root.mkdir(parents=True)
        return
    if not root.is_dir():
        raise DemoError(f"{root} is not a directory; choose another --dir.")
    if hasattr(os, "getuid") and root.stat().st_uid != os.getuid():
        raise DemoError(f"{root} belongs to another user; choose another --dir.")
    if (root / MARKER).exists() or (root / BUILDING).exists():
        shutil.rmtree(root)
        root.mkdir()
    elif any(root.iterdir()):
        raise DemoError(
            f"{root} is not empty and holds no agentpager demo; choose another --dir (nothing was changed)."
        )


def build_demo(root: Path | None = None, log_size: int = DEFAULT_LOG_SIZE) -> Demo:
    """The demo workspace in ``root`` (default: ``default_demo_dir()``), built unless already complete."""
    started = time.perf_counter()
    root = (root or default_demo_dir()).absolute()
    if _is_complete(root, log_size):
        return Demo(root, True, time.perf_counter() - started, Workspace(root, "claude-code"))
    _make_room(root)
    (root / BUILDING).touch()
    project.write_sources(root)
    project.write_fixtures(root)
    (root / "docs").mkdir()
    (root / "docs" / "incident-report.docx").write_bytes(documents.docx_bytes(INCIDENT_REPORT))
    (root / "docs" / "architecture.pdf").write_bytes(documents.pdf_bytes(ARCHITECTURE))
    (root / "logs").mkdir()
    facts = write_log(root / LOG, log_size)
    workspace = Workspace(root, "claude-code")
    write_session(root / SESSION, workspace, facts)
    config = root / "src" / "shop" / "config.py"  # the edit the session ends with, made after it
    config.write_text(config.read_text().replace(project.TIMEOUT_BEFORE, project.TIMEOUT_AFTER))
    marker = {"format": _FORMAT, "version": __version__, "log_size": log_size, "log_bytes": facts.size}
    (root / MARKER).write_text(json.dumps(marker) + "\n")
    (root / BUILDING).unlink()
    return Demo(root, False, time.perf_counter() - started, workspace)


INCIDENT_REPORT: list[documents.Block] = [
    ("h1", "Incident report: nightly export failed"),
    ("p", "Date: 2026-11-21. Severity: 2. Status: resolved by raising the payment timeout."),
    ("h2", "Summary"),
    (
        "p",
        "From 02:00 UTC the nightly export sent no orders to the warehouse. Every order waiting for its "
        "charge timed out after 5 seconds, three times, and was left unpaid, so the export skipped it.",
    ),
    ("h2", "Timeline"),
    (
        "table",
        [
            ["Time (UTC)", "Event"],
            ["02:00", "The export starts; the payment provider is under its nightly load."],
            ["02:03", "First 'charge failed' in logs/app.log, with a ReadTimeout after 5.0 s."],
            ["02:40", "The export ends with 0 orders sent."],
            ["08:14", "An agent reads the log and finds PAYMENT_TIMEOUT_S = 5.0 in src/shop/config.py."],
            ["08:20", "The timeout is raised to 30 s; the next export sends every order."],
        ],
    ),
    ("h2", "What we learned"),
    ("p", "Timeouts belong in one place, and the provider's own figures (up to 20 s under load) decide them."),
]

ARCHITECTURE: list[list[str]] = [
    [
        "Shop architecture",
        "The shop is three services behind one gateway.",
        "gateway (Go): checks tokens, forwards to the Python services.",
        "shop.api (Python): orders, carts, customers and products.",
        "shop.payments (Python): charges orders through pay.example.test.",
        "shop.export (Python): sends paid orders to the warehouse every night at 02:00 UTC.",
    ],
    [
        "Payments",
        "A charge is tried up to PAYMENT_RETRIES (3) times, each waiting PAYMENT_TIMEOUT_S.",
        "An order whose charge fails stays unpaid, and the export leaves it out.",
        "The provider answers within 2 s by day and within 20 s under its nightly load.",
    ],
]
