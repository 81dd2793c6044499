"""Profile ``forge``: byte ranges aligned to UTF-8 characters, answered as JSON (section 6)."""

from __future__ import annotations

import json
from typing import Any

from agentpager.engine.content import TextContent
from agentpager.engine.lineindex import read_exact
from agentpager.engine.utf8 import is_continuation
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import Call, Coverage, Opener, Profile, Shown, Tool, move_end_with_start
from agentpager.tools.errors import ToolError, binary_message

MAX_RANGE_BYTES = 65536
_ALIGNMENT = "UTF-8 character boundary alignment"


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def error_form(message: str) -> str:
    return _json({"error": message})


def fs_read(call: Call, path: str, start_byte: int | None, end_byte: int | None) -> str:
    for name, value in (("start_byte", start_byte), ("end_byte", end_byte)):
        if value is not None and value < 0:
            raise ToolError(f"Invalid range specified: {name} ({value}) must be >= 0.")
    if start_byte is not None and end_byte is not None and start_byte > end_byte:
        raise ToolError(f"Invalid range specified: start_byte ({start_byte}) is greater than end_byte ({end_byte}).")
    resolved = call.resolve(path, "file")
    found = call.store.inspect(resolved)
    if found.kind != "text":
        raise ToolError(binary_message(found.mime))
    if found.encoding != "utf-8":
        raise ToolError(f"Only UTF-8 text files are supported; '{path}' is {found.encoding}.")
    return call.answer(_read_range(resolved.fd, resolved.st.st_size, resolved.display, start_byte, end_byte))


def _read_range(fd: int, size: int, name: str, start_byte: int | None, end_byte: int | None) -> str:
    start = start_byte or 0
    end = size if end_byte is None else end_byte
    if start > size:
        raise ToolError(
            f"Invalid range specified: start_byte ({start}) is beyond the end of the file (file size {size})."
        )
    clamped = end > size
    end = min(end, size)
    if end - start > MAX_RANGE_BYTES:
        raise ToolError(
            f"Requested range is {end - start} bytes; the maximum per read is {MAX_RANGE_BYTES} bytes. "
            f"Use start_byte and end_byte to read a smaller range (file size {size})."
        )
    # Read three bytes either side: enough to find the character boundaries.
    window_start = max(0, start - 3)
    window = read_exact(fd, min(end + 3, size) - window_start, window_start)

    def byte_at(offset: int) -> int:
        return window[offset - window_start]

    actual_start = start
    while 0 < actual_start < size and start - actual_start < 3 and is_continuation(byte_at(actual_start)):
        actual_start -= 1
    actual_end = end
    while actual_end < size and actual_end - end < 3 and is_continuation(byte_at(actual_end)):
        actual_end += 1
    data = window[actual_start - window_start : actual_end - window_start]
    try:
        content, valid = data.decode("utf-8"), True
    except UnicodeDecodeError:
        content, valid = data.decode("utf-8", "replace"), False
    start_adjusted = actual_start != start
    end_reason = "Clamped to file size" if clamped else _ALIGNMENT if actual_end != end else None
    return _json(
        {
            "path": name,
            "content": content,
            "metadata": {
                "file_size": size,
                "requested_range": {"start_byte": start_byte, "end_byte": end_byte},
                "actual_range": {"start_byte": actual_start, "end_byte": actual_end},
                "boundary_adjustments": {
                    "start_adjusted": start_adjusted,
                    "start_adjustment_reason": _ALIGNMENT if start_adjusted else None,
                    "end_adjusted": end_reason is not None,
                    "end_adjustment_reason": end_reason,
                },
                "is_partial": actual_start > 0 or actual_end < size,
                "percent_of_file": round((actual_end - actual_start) * 100 / size, 1) if size else 100.0,
                "valid_utf8": valid,
            },
        }
    )


class Forge(Profile):
    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        """The byte range of the lines on screen, at most one read's worth (UTF-8 text only: forge
        refuses anything else, so other files get the plain call that says so)."""
        arguments: dict[str, Any] = {"path": path}
        if shown is not None and _is_utf8_text(shown.content):
            with shown.content.file.open() as reader:
                start, end = reader.line_span(shown.top, shown.bottom)
            arguments |= {"start_byte": start, "end_byte": min(end, start + MAX_RANGE_BYTES)}
        return "fs_read", arguments

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        path = arguments["path"]
        content = open_text(path)
        if not _is_utf8_text(content):
            return None
        with content.file.open() as reader:
            start = arguments["start_byte"] or 0
            end = reader.size if arguments["end_byte"] is None else min(arguments["end_byte"], reader.size)
            first = reader.line_at_byte(start)
            return Coverage(path, first, max(first, reader.line_at_byte(max(start, end - 1))), "byte", start, end)

    def after_edit(self, tool: str, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
        return move_end_with_start(before, after, "start_byte", "end_byte")


def _is_utf8_text(content: TextContent) -> bool:
    return content.classification.kind == "text" and content.classification.encoding == "utf-8"


PROFILE = Forge(
    name="forge",
    description="Byte ranges of UTF-8 text files, widened to whole characters, with JSON metadata.",
    error_form=error_form,
    guarded=False,
    tools=(
        Tool(
            ToolSpec(
                "fs_read",
                "Read a UTF-8 text file, or the byte range [start_byte, end_byte) of it (at most "
                "65536 bytes per read), widened to whole UTF-8 characters. Binary files are not "
                "supported. Returns JSON with the content and metadata about the range.",
                (
                    Param(
                        "path",
                        "string",
                        "File path, relative to the workspace root or absolute inside it.",
                        is_path=True,
                    ),
                    Param("start_byte", "integer", "First byte to read (0-based); default 0.", None, minimum=0),
                    Param(
                        "end_byte",
                        "integer",
                        "Byte to stop before (exclusive); default the file size.",
                        None,
                        minimum=0,
                    ),
                ),
            ),
            fs_read,
        ),
    ),
)

PROFILES = (PROFILE,)
