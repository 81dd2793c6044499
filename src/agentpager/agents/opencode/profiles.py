"""Profile ``opencode``: OpenCode 1.18.33's ``read``, ``glob`` and ``grep``, equal to what the real program
sent its model (``tests/goldens/opencode``); ``read.py`` and ``search.py`` say what each does.

The workspace root plays the session's directory: answers name absolute paths under it. Setting
``directory``: the absolute path that directory had for the agent (replay takes it from the session),
by default the root's real path.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agentpager.agents.opencode import AGENT
from agentpager.agents.opencode.read import read
from agentpager.agents.opencode.search import glob, grep
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import (
    Claim,
    Coverage,
    Opener,
    Profile,
    RealAgent,
    RecordedCall,
    Shown,
    Tool,
    lines_covered,
)

VERSION = "1.18.33"
LONE_SURROGATES = dict.fromkeys(range(0xD800, 0xE000), 0xFFFD)
"""``str.translate`` table: each UTF-16 surrogate to U+FFFD, as UTF-8 encoding (WHATWG) writes it."""


class OpenCode(Profile):
    def received(self, recorded: RecordedCall) -> str | None:
        """What was logged, with each lone surrogate as U+FFFD: the store keeps the result as the
        JavaScript string it was (a line cut inside a UTF-16 pair ends in half of it), and the request
        body goes out as UTF-8, which has no surrogates (measured: ``emoji_long`` in the goldens)."""
        return None if recorded.output is None else recorded.output.translate(LONE_SURROGATES)

    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        arguments: dict[str, Any] = {"filePath": path}
        if shown is not None:
            arguments |= {"offset": shown.top, "limit": shown.bottom - shown.top + 1}
        return "read", arguments

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        if tool != "read":
            return None
        first = arguments.get("offset") or 1
        limit = arguments.get("limit")
        return lines_covered(arguments["filePath"], first, first + (2000 if limit is None else limit) - 1, open_text)

    def listing_call(self, path: str, offset: int | None) -> tuple[str, dict[str, Any]] | None:
        return "read", {"filePath": path, **({"offset": offset + 1} if offset else {})}

    def claim(self, recorded: RecordedCall) -> Claim | None:
        """An OpenCode session's ``read``, ``glob`` or ``grep``, run with the session's directory as
        the agent's (its absolute paths then name workspace paths, and the answers name them alike)."""
        if recorded.agent != AGENT.id:
            return None
        claim = super().claim(replace(recorded, cwd=None))
        if claim is None:
            return None
        return Claim(claim.tool, claim.arguments, {"directory": recorded.cwd} if recorded.cwd else {})


def _path(description: str, name: str = "filePath") -> Param:
    return Param(name, "string", description, is_path=True)


PROFILE = OpenCode(
    name=AGENT.id,
    description="OpenCode's read (numbered lines, 2,000 lines or 50 KB), glob and grep (ripgrep).",
    error_form=lambda message: message,
    guarded=False,
    real_agent=RealAgent(AGENT.id, VERSION),
    ground_truth=f"the real OpenCode {VERSION}, recorded in tests/goldens/opencode",
    tools=(
        Tool(
            ToolSpec(
                "read",
                "Read a file or directory from the local filesystem. Contents are returned with each line "
                "prefixed by its line number as `<line>: <content>`; directories list their entries.",
                (
                    _path("The absolute path to the file or directory to read"),
                    Param("offset", "integer", "The line number to start reading from (1-indexed)", None, 0),
                    Param("limit", "integer", "The maximum number of lines to read (defaults to 2000)", None, 0),
                ),
            ),
            read,
        ),
        Tool(
            ToolSpec(
                "glob",
                "Fast file pattern matching tool that works with any codebase size (ripgrep's --files).",
                (
                    Param("pattern", "string", "The glob pattern to match files against"),
                    Param("path", "string", "The directory to search in.", None, is_path=True),
                ),
            ),
            glob,
        ),
        Tool(
            ToolSpec(
                "grep",
                "Fast content search tool that works with any codebase size (ripgrep, 100 matches at most).",
                (
                    Param("pattern", "string", "The regex pattern to search for in file contents"),
                    Param("path", "string", "The directory to search in.", None, is_path=True),
                    Param(
                        "include", "string", 'File pattern to include in the search (e.g. "*.js", "*.{ts,tsx}")', None
                    ),
                ),
            ),
            grep,
        ),
    ),
)
PROFILES = (PROFILE,)
