"""The golden files: one JSON file per agent, version and model, holding every recorded case.

``tests/goldens/<agent>/<version>/<model>.json``::

    {"agent", "version", "model", "recorded_by", "volatile": [{"placeholder", "pattern", "why"}],
     "notes": [...], "offered_tools": [...],
     "cases": [{"name", "tool", "arguments", "output", "is_error", "why", "logged"}]}

``output`` is what the model received (the tool result as the agent's request carried it);
``logged`` what the agent's own session log kept of it (null where it keeps none: Gemini CLI's
``@path`` references). In ``arguments``, ``output`` and ``logged`` the corpus root's absolute path
is ``⟦root⟧``; each volatile part is its placeholder. ``matches`` compares an output with a golden byte for byte, except that a
volatile placeholder matches its pattern.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from goldens.corpus import ROOT

from agentpager.tools.volatile import Volatile
from agentpager.tools.volatile import with_placeholders as volatile_as_placeholders

GOLDENS_DIR = Path(__file__).parent


@dataclass(frozen=True)
class GoldenCase:
    name: str
    tool: str
    arguments: dict[str, Any]
    output: str
    is_error: bool
    why: str = ""
    logged: str | None = None
    """What the agent's session log kept of the result (None: no log of it was recorded)."""


@dataclass(frozen=True)
class Golden:
    agent: str
    version: str
    model: str
    recorded_by: str
    volatile: tuple[Volatile, ...]
    notes: tuple[str, ...]
    offered_tools: tuple[Any, ...]
    cases: tuple[GoldenCase, ...]

    @property
    def path(self) -> Path:
        return GOLDENS_DIR / self.agent / self.version / f"{self.model}.json"

    def save(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        record = asdict(self)
        text = json.dumps(record, indent=1, ensure_ascii=False)
        # A lone surrogate (a JavaScript agent's cut inside a UTF-16 pair can send one) as its JSON escape:
        # UTF-8 cannot hold it, and the escape reads back as the same string.
        text = re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)
        self.path.write_text(text + "\n", encoding="utf-8")
        return self.path

    def matches(self, case: GoldenCase, output: str, root: str | os.PathLike[str]) -> bool:
        """Whether ``output`` (produced in ``root``) is the recorded one."""
        produced = with_placeholders(output, root, ())
        if not any(part.placeholder in case.output for part in self.volatile):
            return produced == case.output  # what the pattern of a text with no placeholder matches
        return _pattern(case.output, self.volatile).fullmatch(produced) is not None

    def matches_in_any_order(self, case: GoldenCase, output: str, root: str | os.PathLike[str]) -> bool:
        """Whether ``output`` lists what the recorded one lists, in any order of files (a parallel
        walk's). When the recorded answer was cut (its first 100), only their number can compare."""
        produced = with_placeholders(output, root, ())
        if "Results are truncated" in case.output or "more matches available" in case.output:
            return len(produced.split("\n")) == len(case.output.split("\n"))
        return _files(produced) == _files(case.output)


def load(path: Path) -> Golden:
    record = json.loads(path.read_text(encoding="utf-8"))
    return Golden(
        record["agent"],
        record["version"],
        record["model"],
        record["recorded_by"],
        tuple(Volatile(**v) for v in record["volatile"]),
        tuple(record["notes"]),
        tuple(record["offered_tools"]),
        tuple(GoldenCase(**case) for case in record["cases"]),
    )


def all_goldens() -> list[Golden]:
    return [load(path) for path in sorted(GOLDENS_DIR.glob("*/*/*.json"))]


def _roots(root: str | os.PathLike[str]) -> list[str]:
    """The root as given and as resolved (they differ where /tmp is a link), longest first."""
    found = {os.path.abspath(root), os.path.realpath(root)}
    return sorted(found, key=len, reverse=True)


def with_placeholders(text: str, root: str | os.PathLike[str], volatile: tuple[Volatile, ...]) -> str:
    """``text`` with the root's path and every volatile part replaced by their placeholders."""
    for path in _roots(root):
        text = text.replace(path, ROOT)
    return volatile_as_placeholders(text, volatile)


def with_root(value: Any, root: str | os.PathLike[str]) -> Any:
    """Arguments with ``⟦root⟧`` replaced by the root's absolute path (in strings, lists and dicts)."""
    if isinstance(value, str):
        return value.replace(ROOT, os.path.abspath(root))
    if isinstance(value, list):
        return [with_root(item, root) for item in value]
    if isinstance(value, dict):
        return {key: with_root(item, root) for key, item in value.items()}
    return value


def _pattern(golden_output: str, volatile: tuple[Volatile, ...]) -> re.Pattern[str]:
    """The golden output as a regular expression: literal text, volatile placeholders as their patterns."""
    by_placeholder = {part.placeholder: part.pattern for part in volatile}
    pieces = re.split("(" + "|".join(re.escape(p) for p in by_placeholder) + ")", golden_output)
    # A volatile pattern's lookarounds refer to the text around it, which is literal here.
    regex = "".join(_bare(by_placeholder[piece]) if piece in by_placeholder else re.escape(piece) for piece in pieces)
    return re.compile(regex, re.DOTALL)


def _bare(pattern: str) -> str:
    """The pattern without its lookbehind, lookahead and ^/$ anchors (the literal text around it matches those)."""
    pattern = re.sub(r"^\(\?<=.*?\)|\(\?=.*\)$", "", pattern)
    return "(?:" + pattern.strip("^$") + ")"


def _files(text: str) -> list[str]:
    """An answer listing files, as its pieces per file, sorted: a path per line (glob), or grep's
    ``PATH:`` header with its lines, the count line and the truncation note kept apart."""
    lines = text.split("\n")
    if not lines[0].startswith("Found "):
        return sorted(lines)
    pieces = [lines[0]]
    for line in lines[1:]:
        if line.startswith(("/", ROOT)) and line.endswith(":") or line.startswith("(Results truncated"):
            pieces.append(line)
        else:
            pieces[-1] += "\n" + line
    return [pieces[0], *sorted(piece.rstrip("\n") for piece in pieces[1:])]
