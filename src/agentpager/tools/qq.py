"""Profile ``qq``: a 200-line sliding window, and file listings that warn and paginate (section 5)."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import (
    Call,
    Claim,
    Coverage,
    Opener,
    Profile,
    RecordedCall,
    Shown,
    Tool,
    error_with_prefix,
    lines_covered,
)
from agentpager.tools.errors import ToolError
from agentpager.tools.listing import matcher
from agentpager.tools.paths import Resolved

MAX_LINES_PER_READ = 200
MAX_FILES_WARNING_THRESHOLD = 20
MAX_FILES_PER_LIST = 100
RULE = "-" * 40


def read_file(call: Call, path: str, start_line: int, num_lines: int) -> str:
    if start_line < 1:
        raise ToolError(f"start_line must be >= 1 (got {start_line}).")
    if num_lines < 1:
        raise ToolError(f"num_lines must be >= 1 (got {num_lines}).")
    resolved = call.resolve(path, "file")
    name = resolved.display
    with call.text_of(resolved).file.open() as reader:
        total = reader.line_count()
        if total == 0:
            return call.answer(f"[File: {name} is empty]")
        if start_line > total:
            return call.answer(f"Start line {start_line} is out of bounds. Total lines: {total}.")
        end = min(start_line + min(num_lines, MAX_LINES_PER_READ) - 1, total)
        if end < total:
            footer = (
                f"[Note: to read more of the file, request this again with start_line={end + 1}; total lines: {total}]"
            )
        else:
            footer = f"[File read completed. Total lines: {total}]"
        return call.answer(
            f"[File: {name} | Lines {start_line}-{end} of {total}]\n"
            f"[Note: Output limited to {MAX_LINES_PER_READ} lines max per request.]\n{RULE}\n",
            reader.lines_text(start_line, end),
            f"\n{RULE}\n{footer}",
        )


def _matching_files(
    call: Call, pattern: str, recursive: bool, use_regex: bool, path: str
) -> tuple[Resolved, list[str]]:
    with matcher(pattern, use_regex) as match:  # a bad regex is reported before the path
        directory = call.resolve(path, "directory")
        return directory, call.listings.files(call.root, directory, match, recursive)


def _is_root(call: Call, directory: Resolved) -> bool:
    return directory.real == call.root.real


def list_files(call: Call, pattern: str, recursive: bool, use_regex: bool, offset: int, limit: int, path: str) -> str:
    if offset < 0:
        raise ToolError(f"offset must be >= 0 (got {offset}).")
    if limit < 0:
        raise ToolError(f"limit must be >= 0 (got {limit}).")
    directory, files = _matching_files(call, pattern, recursive, use_regex, path)
    total = len(files)
    if not files:
        return call.answer("No files found matching the criteria.")
    if limit == 0:
        if total <= MAX_FILES_WARNING_THRESHOLD:
            return call.answer("\n".join(files))
        return call.answer(_too_many_files(call, directory, total, pattern, recursive, use_regex))
    step = min(limit, MAX_FILES_PER_LIST)
    page = files[offset : offset + step]
    if not page:
        return call.answer(f"No files in range. Total: {total}, offset: {offset}")
    if offset + len(page) < total:
        footer = f"[More files available. Use offset={offset + step} to continue.]"
    else:
        footer = f"[Listing complete. Total: {total} files]"
    return call.answer(f"[Files {offset + 1}-{offset + len(page)} of {total}]\n", "\n".join(page), "\n" + footer)


def _too_many_files(call: Call, directory: Resolved, total: int, pattern: str, recursive: bool, use_regex: bool) -> str:
    at_root = _is_root(call, directory)
    if recursive:
        mode = "recursively"
    elif at_root:
        mode = "in current directory"
    else:
        mode = f"in directory '{directory.display}'"
    args = [f"'{pattern}'"]
    if recursive:
        args.append("recursive=True")
    if use_regex:
        args.append("use_regex=True")
    if not at_root:
        args.append(f"path='{directory.display}'")
    args.append("offset=0, limit=20")
    return (
        f"Warning: {total} files match pattern '{pattern}' {mode}.\n"
        "Listing all would overwhelm the context window.\n\n"
        "Options:\n"
        "1. Use count_files() to see breakdown by extension\n"
        "2. Use a more specific pattern (e.g., '*.py' instead of '*')\n"
        f"3. Use list_files with pagination: list_files({', '.join(args)})\n"
    )


def count_files(call: Call, pattern: str, recursive: bool, use_regex: bool, path: str) -> str:
    directory, files = _matching_files(call, pattern, recursive, use_regex, path)
    if not files:
        return call.answer("No files found matching the criteria.")
    extensions = Counter(os.path.splitext(file.rsplit("/", 1)[-1])[1].lower() or "(no extension)" for file in files)
    breakdown = sorted(extensions.items(), key=lambda item: (-item[1], item[0]))
    return call.answer(
        f"Directory: {directory.display}\n"
        f"Pattern: {pattern}{' (regex)' if use_regex else ''}\n"
        f"Total files {'recursively' if recursive else 'in directory'}: {len(files)}\n\n"
        "By extension:\n" + "\n".join(f"  {ext}: {count}" for ext, count in breakdown)
    )


class QQ(Profile):
    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        arguments: dict[str, Any] = {"path": path}
        if shown is not None:
            arguments["start_line"] = shown.top
        return "read_file", arguments

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        if tool != "read_file":
            return None
        first = arguments["start_line"]
        return lines_covered(
            arguments["path"], first, first + min(arguments["num_lines"], MAX_LINES_PER_READ) - 1, open_text
        )

    def text_offset(self, tool: str, arguments: dict[str, Any], output: str) -> int | None:
        """After the header's rule line."""
        if tool != "read_file" or not output.startswith("[File: "):
            return None
        found = output.find(f"\n{RULE}\n")
        return None if found < 0 else found + len(RULE) + 2

    def listing_call(self, path: str, offset: int | None) -> tuple[str, dict[str, Any]] | None:
        if offset is None:
            return "list_files", {"path": path}
        return "list_files", {"path": path, "offset": offset, "limit": MAX_FILES_PER_LIST}

    def claim(self, recorded: RecordedCall) -> Claim | None:
        """Its own calls; a ``read_file`` with only a path only when its output has qq's shape (vault's has none)."""
        only_path = recorded.tool == "read_file" and set(recorded.arguments) == {"path"}
        if only_path and recorded.output is not None and not recorded.output.startswith(_OUTPUT_STARTS):
            return None
        return super().claim(recorded)


_OUTPUT_STARTS = ("[File: ", "Start line ", "Error: ")
_PATH = Param("path", "string", "File path, relative to the workspace root or absolute inside it.", is_path=True)
_PATTERN = Param(
    "pattern", "string", "Glob matched against each file's path relative to the directory, or a regex.", "*"
)
_RECURSIVE = Param("recursive", "boolean", "Include files in subdirectories.", False)
_USE_REGEX = Param("use_regex", "boolean", "Treat pattern as a Python regular expression (re.search).", False)
_DIRECTORY = Param("path", "string", "Directory to list, relative to the workspace root.", ".", is_path=True)

PROFILE = QQ(
    name="qq",
    description="A 200-line sliding window over files, file listings with a warning past 20 files "
    "and pages of 100, and an output guard at 28,000 characters.",
    error_form=error_with_prefix,
    listing_page_size=MAX_FILES_PER_LIST,
    listing_warning_threshold=MAX_FILES_WARNING_THRESHOLD,
    tools=(
        Tool(
            ToolSpec(
                "read_file",
                "Read a text file (or a PDF/DOCX/PPTX/XLSX converted to Markdown) in windows of at "
                "most 200 lines. The header gives the line range and the total; the footer says "
                "which start_line reads on.",
                (
                    _PATH,
                    Param("start_line", "integer", "First line to read (1-based).", 1, minimum=1),
                    Param(
                        "num_lines",
                        "integer",
                        "Number of lines to read (at most 200 are returned).",
                        MAX_LINES_PER_READ,
                        minimum=1,
                    ),
                ),
            ),
            read_file,
        ),
        Tool(
            ToolSpec(
                "list_files",
                "List files matching a pattern. With more than 20 matches and no limit it returns a "
                "warning instead; use offset and limit (at most 100 per page) to page through.",
                (
                    _PATTERN,
                    _RECURSIVE,
                    _USE_REGEX,
                    Param("offset", "integer", "Number of matching files to skip.", 0, minimum=0),
                    Param("limit", "integer", "Files per page (at most 100); 0 lists all or warns.", 0, minimum=0),
                    _DIRECTORY,
                ),
            ),
            list_files,
        ),
        Tool(
            ToolSpec(
                "count_files",
                "Count files matching a pattern, with a breakdown by extension.",
                (_PATTERN, _RECURSIVE, _USE_REGEX, _DIRECTORY),
            ),
            count_files,
        ),
    ),
)

PROFILES = (PROFILE,)
