"""What a listing writes for each session: its JSON line (``--json``) and its text line (under its
project's heading). Both are made when the summary is, and kept with it in the index: listing
20,000 unchanged sessions then writes what is kept instead of formatting it again."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from typing import Any, NamedTuple

from agentpager.sessions import SessionInfo, duration_of
from agentpager.wording import plural

_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def duration_text(seconds: float | None) -> str:
    """``4m05s``, ``1h02m``; empty when unknown."""
    if seconds is None:
        return ""
    minutes, second = divmod(int(seconds), 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}h{minute:02d}m" if hours else f"{minute}m{second:02d}s"


def session_json(info: SessionInfo) -> str:
    """A session as ``agentpager sessions --json`` writes it (one line, without its end)."""
    return _json(info, duration_of(info))


def session_text(info: SessionInfo) -> str:
    """A session as ``agentpager sessions`` writes it under its project (without its end)."""
    return _text(info, duration_of(info))


class SessionRow(NamedTuple):
    """A summary as the index keeps it, made where the summary is (a worker process of a first
    listing: a tuple of values crosses to the writing process in a third of a dataclass's time)."""

    values: tuple[Any, ...]
    """The summary's fields, in SessionInfo's order (``path`` first)."""
    json: bytes
    """Its JSON line, UTF-8."""
    text: bytes
    """Its text line, UTF-8."""

    @property
    def path(self) -> str:
        return str(self.values[0])


def session_row(info: SessionInfo) -> SessionRow:
    """A session's values and both its lines, its duration worked out once."""
    duration = duration_of(info)
    return SessionRow(
        tuple(vars(info).values()),  # dataclasses.astuple copies deeply: slower
        _json(info, duration).encode("utf-8", "surrogatepass"),
        _text(info, duration).encode("utf-8", "surrogatepass"),
    )


def _json(info: SessionInfo, duration: float | None) -> str:
    return _ENCODE(vars(info) | {"duration_seconds": duration})


def _text(info: SessionInfo, duration: float | None) -> str:
    tokens = "" if info.tokens is None else plural(info.tokens, "token")
    calls = "… calls" if info.calls is None else plural(info.calls, "call")
    return (
        f"  {info.started[:16].replace('T', ' '):<16}  {duration_text(duration):>7}  {info.agent:<11} "
        f"{info.version:<8} {info.model[:24]:<24} {calls:>10}  {tokens:>14}  {info.title[:60]}"
    )


def listing_bytes(lines: Iterable[tuple[str, bytes]], headings: bool) -> bytes:
    """Each session's line (with its project), one a line, by project under a heading when
    ``headings``; written into one buffer as the lines come (without headings, none is held)."""
    out = io.BytesIO()
    if not headings:
        for _, line in lines:
            out.write(line)
            out.write(b"\n")
        return out.getvalue()
    by_project: dict[str, list[bytes]] = {}
    for project, line in lines:
        by_project.setdefault(project, []).append(line)
    for project, rows in by_project.items():
        out.write(f"{project}  ({plural(len(rows), 'session')})\n".encode("utf-8", "surrogatepass"))
        for row in rows:
            out.write(row)
            out.write(b"\n")
    return out.getvalue()
