"""Profile ``vault``: character offsets with continuation markers, and protected folders (section 8)."""

from __future__ import annotations

import os
from typing import Any

from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import Call, Coverage, Opener, Profile, Shown, Tool, error_with_prefix
from agentpager.tools.errors import ToolError

PROTECTED_FOLDERS = frozenset({".git", ".obsidian", ".trash"})


def _protected(relative: str) -> bool:
    return any(part in PROTECTED_FOLDERS for part in relative.replace(os.sep, "/").split("/"))


def read_file(call: Call, path: str, offset: int, length: int) -> str:
    if offset < 0:
        raise ToolError(f"offset must be >= 0 (got {offset})")
    if length < 1:
        raise ToolError(f"length must be >= 1 (got {length})")
    not_allowed = ToolError(f"Access to '{path}' is not allowed.")
    if _protected(call.root.display(path)):
        raise not_allowed
    resolved = call.resolve(path, "file")
    if _protected(os.path.relpath(resolved.real, call.root.real)):
        raise not_allowed
    with call.text_of(resolved).file.open() as reader:
        total = reader.char_count()
        if offset == 0 and total <= length:
            return call.answer(reader.chars_text(0, total))
        if offset >= total:
            raise ToolError(f"offset {offset} exceeds file length {total}")
        end = offset + length
        return call.answer(
            f"[Continuing from char {offset} of {total}]\n\n" if offset > 0 else "",
            reader.chars_text(offset, min(length, total - offset)),
            f"\n\n[... truncated at char {end} of {total}. Use offset={end} to read more.]" if end < total else "",
        )


class Vault(Profile):
    def refuses(self, path: str) -> str | None:
        return f"Access to '{path}' is not allowed." if _protected(path) else None

    def text_offset(self, tool: str, arguments: dict[str, Any], output: str) -> int | None:
        """After the continuation marker, when the read starts past the first character."""
        if arguments["offset"] == 0:
            return 0
        marker = f"[Continuing from char {arguments['offset']} of "
        end = output.find("]\n\n")
        return end + 3 if output.startswith(marker) and end > 0 else None

    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        """The character offset of the top line on screen."""
        arguments: dict[str, Any] = {"path": path}
        if shown is not None:
            with shown.content.file.open() as reader:
                arguments["offset"] = reader.char_offset(shown.top)
        return "read_file", arguments

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        path, offset = arguments["path"], arguments["offset"]
        with open_text(path).file.open() as reader:
            end = min(offset + arguments["length"], reader.char_count())
            first = reader.line_at_char(offset)
            return Coverage(path, first, max(first, reader.line_at_char(max(offset, end - 1))), "char", offset, end)


PROFILE = Vault(
    name="vault",
    description="Notes read by character offset, 4,000 characters at a time, with continuation markers.",
    error_form=error_with_prefix,
    tools=(
        Tool(
            ToolSpec(
                "read_file",
                "Read a note (or any text file). Long files are returned 4000 characters at a time "
                "with a marker giving the offset to read on; .git, .obsidian and .trash are off limits.",
                (
                    Param(
                        "path",
                        "string",
                        "Path to the note, relative to the vault root or absolute inside it.",
                        is_path=True,
                    ),
                    Param("offset", "integer", "Character position to start reading from.", 0, minimum=0),
                    Param("length", "integer", "Maximum number of characters to return.", 4000, minimum=1),
                ),
            ),
            read_file,
        ),
    ),
)

PROFILES = (PROFILE,)
