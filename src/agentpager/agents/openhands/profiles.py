"""Profile ``openhands``: the ``view`` command of OpenHands' file editor, as openhands-tools 1.58 answers it.

The tool is ``file_editor`` (``str_replace_editor`` in OpenHands before V1, whose recorded views this
profile also replays). Followed from openhands-tools 1.58.0 (the same file editor as 1.58.2), in
``openhands/tools/file_editor/``, and openhands-sdk 1.58.0:

- ``editor.py`` 283-430 ``view``: a directory lists its entries and theirs (2 levels), hidden ones
  left out and counted (432-460 for the order and the ``/`` after directories); images answer with
  a text block and the image (only the text is shown here); ``view_range`` is ``[start, end]``,
  ``end`` -1 for the end of the file, an ``end`` past it noted and clamped.
- ``editor.py`` 624-669 ``validate_path`` and 694-742 ``validate_file``: a missing path, files over
  10 MB, and files that binaryornot calls binary unless they decode to clean text.
- ``utils/encoding.py`` 59-188: the codec (UTF-8 when the first MB decodes, else charset_normalizer
  above 0.9 confidence, and for UTF-8 a recovery that tries ``cp1252``, ``latin-1``, ``cp1251``).
- ``editor.py`` 161-175 and 745-786: lines as Python's text mode reads them (universal newlines).
- ``editor.py`` 799-840 ``_make_output``: the text clipped to 16,000 characters (``utils/constants.py``
  1-9), then numbered ``{n:6}\\t``, from ``start`` on, under "Here's the result of running `cat -n`".
- sdk ``utils/truncate.py`` 50-117 ``maybe_truncate``: a clipped text keeps its head and its tail
  around the notice; sdk ``llm/message.py`` 482-490 clips each tool text over 50,000 characters again.
- sdk ``tool/schema.py`` 368 and 412-427: an error is its message after
  ``[An error occurred during execution.]\\n`` (two text blocks, shown here joined).

Paths: OpenHands takes absolute paths of the machine it runs on. The workspace root plays its working
directory (setting ``working_dir``: the absolute path that directory had for the agent, by default
the root's own). Absolute paths under it are read in the workspace; relative paths, which OpenHands
refuses ("The path should be an absolute path. Maybe you meant ...?"), are taken as the absolute
path it suggests. Either way the answer names the absolute path. Paths that leave the workspace are
refused.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import PurePosixPath
from typing import Any

from agentpager.engine.pytext import text_lines
from agentpager.engine.textfile import path_of
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import Call, Claim, Coverage, Opener, Profile, RecordedCall, Shown, Tool, lines_covered
from agentpager.tools.errors import ToolError
from agentpager.tools.listing import read_entries, read_subdirectory
from agentpager.tools.paths import Placed, Root, agent_path

MAX_RESPONSE_CHARS = 16000
MAX_TOOL_TEXT_CHARS = 50_000
MAX_FILE_BYTES = 10 * 1024 * 1024
_PIECE = 1 << 20
ENCODING_SAMPLE_BYTES = 1024 * 1024
ERROR_HEADER = "[An error occurred during execution.]\n"
IMAGE_EXTENSIONS = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"}
TEXT_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you. "
    "You should retry this tool after you have searched inside the file with `grep -n` in order to find the "
    "line numbers of what you are looking for.</NOTE>"
)
DIRECTORY_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of this directory has been shown to you. "
    "You should use `ls -la` instead to view large directories incrementally.</NOTE>"
)
MESSAGE_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to you.</NOTE>"
)
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_DECODE_CANDIDATES = ("utf-8", "cp1252", "latin-1", "cp1251")
_DECODE_ALIASES = {
    "windows-1251": "cp1251",
    "windows-1252": "cp1252",
    "iso-8859-1": "latin-1",
    "iso-8859-15": "latin-1",
}
_EDIT_COMMANDS = ("create", "str_replace", "insert", "undo_edit")
TOOL_NAMES = ("file_editor", "str_replace_editor")


def clip(text: str, limit: int, notice: str) -> str:
    """``text`` cut to ``limit`` characters around ``notice``, keeping its head and its tail."""
    if len(text) <= limit:
        return text
    if len(notice) >= limit:
        return notice[:limit]
    available = limit - len(notice)
    head = available // 2 + available % 2
    tail = available - head
    return text[:head] + notice + (text[-tail:] if tail > 0 else "")


def _invalid(parameter: str, value: Any, hint: str) -> ToolError:
    return ToolError(f"Invalid `{parameter}` parameter: {value}. {hint}")


def view(call: Call, command: str, path: str, view_range: list[int] | None) -> str:
    if command in _EDIT_COMMANDS:
        raise ToolError(f"The `{command}` command edits files: agentpager runs only `view`.")
    if command != "view":
        raise ToolError(
            f"Unrecognized command {command}. The allowed commands for FileEditor tool are: "
            "view, create, str_replace, insert, undo_edit"
        )
    agent, local = agent_path(call.root, path, call.settings.get("working_dir") or call.root.path)
    shown = str(PurePosixPath(agent))
    placed = call.place(local, path)
    if placed.st is None:
        raise _invalid("path", shown, f"The path {shown} does not exist. Please provide a valid path.")
    if stat.S_ISDIR(placed.st.st_mode):
        if view_range:
            hint = "The `view_range` parameter is not allowed when `path` points to a directory."
            raise _invalid("view_range", view_range, hint)
        return _listing(call.root, placed, shown)
    if PurePosixPath(shown).suffix.lower() in IMAGE_EXTENSIONS:
        return f"Image file {shown} read successfully. Displaying image content."
    fd = _readable(placed, shown)
    encoding = _validated_encoding(fd, placed.st.st_size, local, shown)
    try:
        total = sum(1 for _ in text_lines(fd, encoding))
    except UnicodeDecodeError as error:
        raise ToolError(
            f"Cannot view {shown}: file contains binary content that cannot be decoded as text. Error: {error}"
        ) from None
    if not view_range:
        return _answer(_numbered(_read(fd, encoding, shown, 1, total), shown, 1))
    if len(view_range) != 2:
        raise _invalid("view_range", view_range, "It should be a list of two integers.")
    start, end = view_range
    if start < 1 or start > total:
        hint = f"Its first element `{start}` should be within the range of lines of the file: {[1, total]}."
        raise _invalid("view_range", view_range, hint)
    note = ""
    if end == -1:
        end = total
    elif end > total:
        note = f"NOTE: We only show up to {total} since there're only {total} lines in this file.\n"
        end = total
    if end < start:
        hint = f"Its second element `{end}` should be greater than or equal to the first element `{start}`."
        raise _invalid("view_range", view_range, hint)
    return _answer(note + _numbered(_read(fd, encoding, shown, start, end), shown, start))


def _answer(text: str) -> str:
    """The text as the model receives it: clipped again when it is over the SDK's limit for a tool text."""
    return clip(text, MAX_TOOL_TEXT_CHARS, MESSAGE_NOTICE)


def _readable(placed: Placed, shown: str) -> int:
    """The descriptor to read a file with. The real editor would wait forever on a FIFO: here it is refused."""
    if placed.fd is not None:
        return placed.fd
    assert placed.st is not None
    if not stat.S_ISREG(placed.st.st_mode):
        raise ToolError(f"File validation failed for {shown}: it is not a regular file (a FIFO, socket or device).")
    raise PermissionError(placed.error, os.strerror(placed.error))


def _read(fd: int, encoding: str, shown: str, start: int, end: int) -> str:
    try:
        return "".join(line for number, line in enumerate(text_lines(fd, encoding), 1) if start <= number <= end)
    except Exception as error:  # as the editor words any failure to read
        raise ToolError(f"Ran into {error} while trying to read {shown}") from None


def _numbered(content: str, shown: str, start: int) -> str:
    lines = clip(content, MAX_RESPONSE_CHARS, TEXT_NOTICE).split("\n")
    if lines[-1] == "":
        lines.pop()
    header = f"Here's the result of running `cat -n` on {shown}:\n"
    return header + "".join(f"{number:6}\t{line}\n" for number, line in enumerate(lines, start))


# -- files the editor refuses, and the codec it reads the others with --------------------------------


def _validated_encoding(fd: int, size: int, local: str, shown: str) -> str:
    """The codec the editor reads the file with; ToolError when it refuses the file."""
    if size > MAX_FILE_BYTES:
        raise ToolError(
            f"File validation failed for {shown}: File is too large ({size / 1024 / 1024:.1f}MB). "
            f"Maximum allowed size is {MAX_FILE_BYTES // 1024 // 1024}MB."
        )
    encoding = _encoding(fd)
    if _is_binary(fd, local) and not _is_clean_text(fd, encoding):
        raise ToolError(
            f"File validation failed for {shown}: File appears to be binary and this file type cannot be read "
            "or edited by this tool."
        )
    return encoding


def _is_binary(fd: int, local: str) -> bool:
    """binaryornot's ``is_binary(local)`` (check.py 17-33), its start read from the open file."""
    from binaryornot.helpers import CHUNK_SIZE, has_binary_extension, is_binary_string  # only this profile

    return has_binary_extension(local) or is_binary_string(os.pread(fd, CHUNK_SIZE, 0))


def _detected(sample: bytes) -> dict[str, Any]:
    import charset_normalizer  # only for text that is not UTF-8

    return dict(charset_normalizer.detect(sample) or {})


def _encoding(fd: int) -> str:
    sample = os.pread(fd, ENCODING_SAMPLE_BYTES, 0)
    if sample.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    try:
        sample.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:
        found = _detected(sample)
        confident = found.get("confidence") and found["confidence"] > 0.9 and found.get("encoding")
        encoding = str(found["encoding"]) if confident else "utf-8"
        if encoding.lower() == "ascii":
            encoding = "utf-8"
    if encoding == "utf-8":
        return _recovered_encoding(fd, sample) or encoding
    return encoding


def _recovered_encoding(fd: int, sample: bytes) -> str | None:
    """The first codec that reads the whole file as text without control characters: UTF-8, the
    detector's guess when it is one of the candidates, then the candidates in order."""
    if _is_clean_text(fd, "utf-8"):
        return "utf-8"
    guess = str(_detected(sample).get("encoding") or "").lower().replace("_", "-")
    guess = _DECODE_ALIASES.get(guess, guess if guess in _DECODE_CANDIDATES else "")
    for candidate in dict.fromkeys(c for c in (guess, *_DECODE_CANDIDATES) if c and c != "utf-8"):
        if _is_clean_text(fd, candidate):
            return candidate
    return None


def _is_clean_text(fd: int, encoding: str) -> bool:
    """Whether the file decodes as ``encoding`` with no control character, read a MiB at a time (a
    control character is one character: no match spans two pieces)."""
    try:
        with open(path_of(fd), encoding=encoding) as file:
            while piece := file.read(_PIECE):
                if _CONTROL.search(piece) is not None:
                    return False
            return True
    except (UnicodeDecodeError, LookupError):
        return False


# -- directories -------------------------------------------------------------------------------------


def _listing(root: Root, placed: Placed, shown: str) -> str:
    """Two levels of entries, read beneath the root: a symlink that leads out of it is listed, never followed."""
    try:
        if placed.fd is None:
            raise OSError(placed.error, os.strerror(placed.error))
        entries = read_entries(root, placed.fd, placed.real)
    except OSError as error:
        raise ToolError(f"[Errno {error.errno}] {error.strerror}: {shown!r}") from None
    names = entries.files + entries.directories + entries.linked_directories + entries.others
    hidden = sum(name.startswith(".") for name in names)
    directories = set(entries.directories + entries.linked_directories)
    lines = [shown + "/"]
    for name in sorted(name for name in names if not name.startswith(".")):
        is_directory = name in directories
        lines.append(f"{shown}/{name}/" if is_directory else f"{shown}/{name}")
        if is_directory:
            children = read_subdirectory(root, placed.real, name)
            below = set(children.directories + children.linked_directories)
            for child in sorted(children.files + children.others + list(below)):
                if not child.startswith("."):
                    lines.append(f"{shown}/{name}/{child}{'/' if child in below else ''}")
    text = f"Here's the files and directories up to 2 levels deep in {shown}, excluding hidden items:\n" + "\n".join(
        lines
    )
    if hidden:
        text += (
            f"\n\n{hidden} hidden files/directories in this directory are excluded. "
            f"You can use 'ls -la {shown}' to see them."
        )
    return _answer(clip(text, MAX_RESPONSE_CHARS, DIRECTORY_NOTICE))


class OpenHands(Profile):
    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        arguments: dict[str, Any] = {"command": "view", "path": path}
        if shown is not None:
            arguments["view_range"] = [shown.top, shown.bottom]
        return "file_editor", arguments

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        view_range = arguments["view_range"]
        if arguments["command"] != "view" or (view_range and len(view_range) != 2):
            return None
        first, last = view_range or (1, -1)
        return lines_covered(arguments["path"], first, None if last == -1 else last, open_text)

    def listing_call(self, path: str, offset: int | None) -> tuple[str, dict[str, Any]] | None:
        return "file_editor", {"command": "view", "path": path}

    def claim(self, recorded: RecordedCall) -> Claim | None:
        arguments = recorded.arguments
        if recorded.tool not in TOOL_NAMES or arguments.get("command") != "view" or "path" not in arguments:
            return None
        claimed = {"command": "view", "path": arguments["path"]}
        if arguments.get("view_range") is not None:
            claimed["view_range"] = arguments["view_range"]
        return Claim("file_editor", claimed, {"working_dir": recorded.cwd} if recorded.cwd else {})


PROFILE = OpenHands(
    name="openhands",
    description="OpenHands' file editor, view command: `cat -n` numbering, 2-level directory listings, 16,000 chars.",
    error_form=lambda message: ERROR_HEADER + message,
    guarded=False,
    ground_truth="its oracle is OpenHands' own file editor, Python code the tests run (tests/python_oracles.py)",
    tools=(
        Tool(
            ToolSpec(
                "file_editor",
                "Custom editing tool for viewing, creating and editing files in plain-text format. If `path` is a "
                "text file, `view` displays the result of applying `cat -n`. If `path` is a directory, `view` lists "
                "non-hidden files and directories up to 2 levels deep. A long output is truncated and marked with "
                "`<response clipped>`. agentpager runs only `view`.",
                (
                    Param("command", "string", "The command to run; only `view` is run here."),
                    Param("path", "string", "Absolute path to file or directory.", is_path=True),
                    Param(
                        "view_range",
                        "integers",
                        "Optional for `view` of a file: the line range to show, e.g. [11, 12]; [start_line, -1] "
                        "shows all lines from start_line to the end of the file.",
                        None,
                    ),
                ),
            ),
            view,
        ),
    ),
)

PROFILES = (PROFILE,)
