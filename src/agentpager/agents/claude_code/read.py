"""Claude Code's ``Read``, equal to what the real programs sent their model (``tests/goldens/claude-code``).

All versions split lines on ``\\r?\\n`` (a final newline gives one more, empty, numbered line), number
from ``offset`` (0 reads from line 1 but numbers from 0), cap neither lines nor their length
(offline defaults), refuse files over 256 KB read without ``offset`` and ``limit``, and decide
images, PDFs, notebooks and binary files by extension. Where they differ, a ``Behaviour`` says so;
the texts follow Claude Code 2.0.21's ``cli.js`` (the Read tool's ``call`` and
``mapToolResultToToolResultBlockParam``) and what 2.1.84 and 2.1.330 answered.

Settings (``Workspace(settings=...)``): ``model`` (newest version: the models that get the token
countdown, below; default its default model, claude-opus-5-5), ``tokens_left`` (the countdown's
number, default 15,000,000), and ``line_format`` / ``reminder``, which a transcript's own output
overrides on replay.
"""

from __future__ import annotations

import base64
import functools
import json
import math
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from agentpager.engine.textfile import TextFile, TextReader, path_of
from agentpager.engine.tokens import count_tokens
from agentpager.tools.base import Call
from agentpager.tools.errors import ToolError
from agentpager.tools.js.diff_hunks import hunks_of_window
from agentpager.tools.js.strings import js_length, js_trim
from agentpager.tools.paths import Resolved

MAX_SIZE_BYTES = 256 * 1024
MAX_TOKENS = 25000
BUILD_LIMIT = 32 << 20
"""A selection of more bytes is never built (a 2 GB line took 4.2 GB and aborted in tiktoken): every
version refuses it, and its token count is estimated from its first TOKEN_SAMPLE_BYTES."""
TOKEN_SAMPLE_BYTES = 256 * 1024
TOKEN_BUDGET = 15_000_000
"""Where Claude Code's ``<total_tokens>`` countdown starts (it subtracts the tokens the API reports used)."""
COUNTDOWN_MODELS = frozenset(
    ("claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-4-6", "claude-sonnet-4-0")
)
"""Models 2.1.330 gave the countdown offline (claude-opus-5-5, its default, got none)."""
TOKENIZER_MARGIN = 0.3
"""Claude Code's token limit is counted by Anthropic's API with Claude's tokenizer, which cl100k only
approximates: within this fraction of the limit, either answer may be the real one."""
IMAGE_EXTENSIONS = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
}
IMAGE_PASSTHROUGH_BYTES = 150_000
"""Images up to about this size go to the model as they are; larger ones are re-encoded (sharp)."""
_BINARY_EXTENSION_WORDS = (
    "mp3 wav flac ogg aac m4a wma aiff opus mp4 avi mov wmv flv mkv webm m4v mpeg mpg zip rar tar gz bz2 7z xz z "
    "tgz iso exe dll so dylib app msi deb rpm bin dat db sqlite sqlite3 mdb idx doc docx xls xlsx ppt pptx odt ods "
    "odp ttf otf woff woff2 eot psd ai eps sketch fig xd blend obj 3ds max class jar war pyc pyo rlib swf fla"
)
BINARY_EXTENSIONS = frozenset(_BINARY_EXTENSION_WORDS.split())
"""Claude Code 2.0.21's ``gN8``: extensions it refuses to read as text."""
_REMINDER_START, _REMINDER_END = "\n\n<system-reminder>\n", "\n</system-reminder>\n"
_ARROW_LINE = re.compile(r" *\d+→")
_TAB_LINE = re.compile(r"\d+\t")
_REMINDER_BEFORE_NOTE = re.compile(
    r"\n\n<system-reminder>\n((?:(?!</system-reminder>).)*)\n</system-reminder>\n\n<system-reminder>\nNote: ", re.DOTALL
)
_COUNTDOWN = re.compile(r"\n\n<system-reminder>\n<total_tokens>(\d+) tokens left</total_tokens>\n</system-reminder>$")
_ADVICE_2_0 = "Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content."
_ADVICE = (
    "Use offset and limit parameters to read specific portions of the file, "
    "or search for specific content instead of reading the whole file."
)
_ALLOW_LARGE = (
    " To read it anyway, up to what still fits in your context, call Read again with allow_large: true "
    "\u2014 only if you genuinely need all of it or the user asked for the whole file."
)
MALWARE_2_0 = (
    "Whenever you read a file, you should consider whether it looks malicious. If it does, you MUST refuse to "
    "improve or augment the code. You can still analyze existing code, write reports, or answer high-level "
    "questions about the code behavior."
)
MALWARE_2_1 = (
    "Whenever you read a file, you should consider whether it would be considered malware. You CAN and SHOULD "
    "provide analysis of malware, what it is doing. But you MUST refuse to improve or augment the code. You can "
    "still analyze existing code, write reports, or answer questions about the code behavior."
)
NUL_NOTE = (
    "\n\n[This file has NUL bytes in its first 8 KB: binary data, UTF-16/UTF-32 without a byte-order mark, or "
    "text with embedded NULs. Edit and Write will refuse it: change it with a shell command that keeps its "
    "encoding, or ask the user whether to convert it to UTF-8.]"
)
LEGACY_ENCODING_NOTE = (
    "\n\n[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it "
    "is binary. Its undecodable bytes show above as U+FFFD. Edit and Write will refuse it: change it with a shell "
    "command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"
)
_CHANGED_NOTE = (
    "<system-reminder>\nNote: {path} was modified, either by the user or by a linter. This change was intentional, "
    "so make sure to take it into account as you proceed (ie. don't revert it unless the user asks you to). Don't "
    "tell the user this, since they are already aware. Here are the relevant changes (shown with line numbers):\n"
    "{snippet}\n</system-reminder>"
)


@dataclass(frozen=True)
class Behaviour:
    """What one Claude Code version's Read does where the versions differ."""

    version: str
    line_format: str
    reminder: str | None
    """The malware reminder appended to every text result, or None."""
    empty: str
    """``shorter``: an empty selection gets the shorter-than-offset warning (2.0, 2.1.84); ``lines``:
    only an offset past the end does, an empty file gets its own warning (2.1.330)."""
    advice: str
    wrapped_size_error: bool
    """The over-256-KB error inside ``<tool_use_error>`` (2.0)."""
    missing_shows_cwd: bool
    directory_shows_path: bool
    binary_advice: str
    keeps_bom: bool
    decodes_utf16: bool
    notes_legacy_encoding: bool
    """A note after text that is not UTF-8, or that has NUL bytes in its first 8 KB (2.1.330)."""
    notes_changes_after_partial_reads: bool
    """2.0's next turn reports a file read in part as changed (its mtime has more precision than the
    millisecond it stored), with the diff hunks, merged into the result."""
    default_model: str
    has_countdown: bool
    """Whether models with the capability get the ``<total_tokens>`` countdown (2.1.330)."""
    final_crs: str
    """What the end of a file that ends in CRs (no LF) loses: ``keep`` nothing (2.0.21), ``one`` CR
    (2.1.84), ``all`` of them (2.1.330, 2.1.332)."""
    cuts_over_token_limit: bool = False
    """Over 25,000 tokens, show the part that fits (2.1.330) instead of refusing."""
    checks_selection_size: bool = False
    """The lines read, not only the file, must be under 256 KB (2.0.21's ``V.length > W``)."""
    size_error_suffix: str = ""


NEWEST = Behaviour(
    version="2.1.332",
    line_format="tab",
    reminder=None,
    empty="lines",
    advice=_ADVICE,
    wrapped_size_error=False,
    missing_shows_cwd=True,
    directory_shows_path=True,
    binary_advice="Use a skill for this file type if one is available, or a shell command or script that can read the format.",
    keeps_bom=False,
    decodes_utf16=True,
    notes_legacy_encoding=True,
    notes_changes_after_partial_reads=False,
    default_model="claude-opus-5-5",
    has_countdown=True,
    final_crs="all",
    size_error_suffix=_ALLOW_LARGE,
    cuts_over_token_limit=True,
)
V2_1_84 = replace(
    NEWEST,
    version="2.1.84",
    line_format="arrow",
    reminder=MALWARE_2_1,
    empty="shorter",
    binary_advice="Please use appropriate tools for binary file analysis.",
    keeps_bom=False,
    decodes_utf16=False,
    notes_legacy_encoding=False,
    default_model="claude-sonnet-4-5",
    has_countdown=False,
    final_crs="one",
    size_error_suffix="",
    cuts_over_token_limit=False,
)
V2_0 = replace(
    V2_1_84,
    version="2.0.21",
    reminder=MALWARE_2_0,
    advice=_ADVICE_2_0,
    wrapped_size_error=True,
    missing_shows_cwd=False,
    directory_shows_path=False,
    keeps_bom=True,
    notes_changes_after_partial_reads=True,
    checks_selection_size=True,
    final_crs="keep",
)


def error_form(message: str) -> str:
    return f"<tool_use_error>{message}</tool_use_error>"


def size_text(size: int) -> str:
    """Claude Code's ``FX``: ``858 bytes``, ``295.9KB``, ``256KB``, ``1.5MB``."""
    if size < 1024:
        return f"{size} bytes"
    scaled, unit = size / 1024, "KB"
    for bigger in ("MB", "GB"):
        if scaled < 1024:
            break
        scaled, unit = scaled / 1024, bigger
    return f"{scaled:.1f}".removesuffix(".0") + unit


def number_lines(lines: list[str], first: int, line_format: str) -> str:
    if line_format == "arrow":
        return "\n".join(f"{n:>6}→{line}" for n, line in enumerate(lines, first))
    return "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, first))


def countdown(left: int) -> str:
    """The ``<total_tokens>`` reminder with ``left`` tokens."""
    return f"<system-reminder>\n<total_tokens>{left} tokens left</total_tokens>\n</system-reminder>"


def gets_countdown(behaviour: Behaviour, model: str) -> bool:
    """Whether ``model`` gets the countdown (and the trim and the other reminders that come with it)."""
    return behaviour.has_countdown and model in COUNTDOWN_MODELS


class Answer:
    """How a result is finished: the countdown (and the trim it brings) when the model gets one."""

    def __init__(self, call: Call, behaviour: Behaviour) -> None:
        model = str(call.settings.get("model") or behaviour.default_model)
        left = call.settings.get("tokens_left")
        self.countdown: str | None = None
        if behaviour.has_countdown and (left is not None or model in COUNTDOWN_MODELS):
            self.countdown = countdown(TOKEN_BUDGET if left is None else left)
            if left is None:
                call.uncertain = "the <total_tokens> countdown depends on the tokens the model's server reported used"
        elif behaviour.has_countdown and model != behaviour.default_model:
            call.uncertain = f"whether Claude Code gives {model} its <total_tokens> countdown is not known"

    def text(self, text: str, *reminders: str) -> str:
        """The result as the model receives it: with the countdown, trimmed, and the ``reminders``
        (in their ``<system-reminder>``) and the countdown after it; without, as it is."""
        if self.countdown is None:
            return text
        return js_trim(text) + "".join("\n\n" + reminder for reminder in (*reminders, self.countdown))

    def blocks(self, blocks: list[dict[str, Any]]) -> str:
        if self.countdown is not None:
            if blocks[-1]["type"] == "text":  # a last text block ends with one more newline (a notebook's did)
                blocks = [*blocks[:-1], {**blocks[-1], "text": blocks[-1]["text"] + "\n"}]
            blocks = [*blocks, {"type": "text", "text": self.countdown}]
        return json.dumps(blocks, ensure_ascii=False)

    def error(self, text: str, *reminders: str) -> ToolError:
        return ToolError(self.text(text, *reminders), whole=True)


def _check_tokens(call: Call, answer: Answer, behaviour: Behaviour, text: str) -> None:
    """Refuse a selection over the token limit; the count is Claude's, so say when it is too close to tell."""
    if math.ceil(js_length(text) / 4) <= MAX_TOKENS / 4:
        return  # Claude Code does not ask the API to count below this
    tokens = count_tokens(text)
    if abs(tokens - MAX_TOKENS) <= MAX_TOKENS * TOKENIZER_MARGIN:
        call.uncertain = (
            f"about {tokens:,} tokens (cl100k) against Claude Code's {MAX_TOKENS:,}-token limit, which the "
            "model's server counts with Claude's own tokenizer"
        )
    if tokens <= MAX_TOKENS:
        return
    call.uncertain = call.uncertain or "the token count in this answer is the model's server's (cl100k here)"
    if behaviour.cuts_over_token_limit:  # shows a part that fits instead, cut where the server's count says
        call.uncertain = "Claude Code cuts a read over 25,000 tokens where the model's server count says it fits"
        return
    raise answer.error(
        f"File content ({tokens} tokens) exceeds maximum allowed tokens ({MAX_TOKENS}). {behaviour.advice}"
    )


def _text_file(call: Call, resolved: Resolved, behaviour: Behaviour) -> TextFile:
    """The file's text as the version decodes it: a UTF-8 BOM kept or skipped, UTF-16 decoded or not."""
    head = os.pread(resolved.fd, 3, 0)
    if behaviour.decodes_utf16 and head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return call.text_of(resolved).file
    base = 3 if head == b"\xef\xbb\xbf" and not behaviour.keeps_bom else 0
    return call.store.utf8_file(resolved.real, functools.partial(os.dup, resolved.fd), base)


def _not_utf8(reader: TextReader, text: str, first: int, last: int) -> bool:
    if "\ufffd" not in text:
        return False
    start, end = reader.line_span(first, last)
    try:
        reader.read_at(start, end - start).decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


class _TooLarge(Exception):
    """A selection past BUILD_LIMIT: its estimated tokens, and its ``length`` in JavaScript (when asked)."""

    def __init__(self, tokens: int, length: int) -> None:
        super().__init__(tokens, length)
        self.tokens, self.length = tokens, length


def _selection(
    call: Call, behaviour: Behaviour, resolved: Resolved, offset: int | None, limit: int | None
) -> tuple[list[str], int, str]:
    """The lines read (none when ``offset`` is past the end), the file's line count, and the note after them."""
    start = offset or 1
    with _text_file(call, resolved, behaviour).open() as reader:
        total = reader.line_count()
        lines = total + (total == 0 or reader.ends_with_newline())  # split on \n: one more
        last = lines if limit is None else min(lines, start + limit - 1)
        if start > lines:
            return [], lines, ""
        last_real = min(last, total)
        if start <= last_real:
            span_start, span_end = reader.line_span(start, last_real)
            if span_end - span_start > BUILD_LIMIT:
                sample = reader.sample(span_start, TOKEN_SAMPLE_BYTES)
                tokens = count_tokens(sample) * (span_end - span_start) // max(len(sample.encode()), 1)
                length = 0
                if behaviour.checks_selection_size:  # its size in the message: counted a block at a time
                    length = sum(map(js_length, reader.lines_text(start, last_real))) + last - last_real
                raise _TooLarge(tokens, length)
        texts = str(reader.lines_text(start, last_real)).split("\n") if start <= last_real else []
        texts = _without_line_end_crs(texts, start, total, reader.ends_with_newline(), behaviour.final_crs)
        texts += [""] * (last - max(last_real, start - 1))
        note = ""
        if behaviour.notes_legacy_encoding and b"\0" in reader.read_at(0, 8192):
            note = NUL_NOTE
        elif (
            behaviour.notes_legacy_encoding
            and start <= last_real
            and _not_utf8(reader, "\n".join(texts), start, last_real)
        ):
            note = LEGACY_ENCODING_NOTE
    return texts, lines, note


def _without_line_end_crs(texts: list[str], first: int, total: int, terminated: bool, final_crs: str) -> list[str]:
    """Lines ``first``.. of ``total`` as Claude Code reads them: it turns each CRLF into LF, then splits
    on ``\r?\n``, so a line ending in two CRs before its LF loses both (the engine's lines have lost
    one); the end of an unterminated last line loses one CR (``final_crs`` ``one``), all (``all``) or
    none (``keep``)."""
    out = []
    for number, text in enumerate(texts, first):
        if number < total or terminated or final_crs == "one":
            text = text.removesuffix("\r")
        elif final_crs == "all":
            text = text.rstrip("\r")
        out.append(text)
    return out


def _changes_note(resolved: Resolved, behaviour: Behaviour, call: Call, read: str, first: int) -> str:
    """2.0's "was modified" note for a read of part of a file: the diff hunks from what it read to the whole."""
    if resolved.st.st_mtime_ns % 1_000_000 == 0 or resolved.st.st_size > MAX_SIZE_BYTES:
        return ""  # an mtime on a whole millisecond looks unchanged; a big file cannot be read again whole
    with _text_file(call, resolved, behaviour).open() as reader:
        whole = str(reader.lines_text(1, reader.line_count())) if reader.line_count() else ""
        if reader.ends_with_newline():
            whole += "\n"
    if math.ceil(js_length(whole) / 4) > MAX_TOKENS / 4:
        tokens = count_tokens(whole)
        if tokens > MAX_TOKENS * (1 + TOKENIZER_MARGIN):
            return ""  # its read of the whole file fails: no note
        if tokens > MAX_TOKENS * (1 - TOKENIZER_MARGIN):
            call.uncertain = "whether Claude Code can read the whole file again turns on the server's token count"
    hunks = hunks_of_window(read, whole, first, context=8)
    snippets = []
    for hunk in hunks:
        shown = [line[1:] for line in hunk.lines if not line.startswith(("-", "\\"))]
        snippets.append(number_lines(re.split(r"\r?\n", "\n".join(shown)), hunk.old_start, "arrow") if shown else "")
    snippet = "\n...\n".join(snippets)
    if not snippet:
        return ""
    return _CHANGED_NOTE.format(path=os.path.normpath(os.path.join(call.root.path, resolved.argument)), snippet=snippet)


def _notebook(fd: int, answer: Answer) -> str:
    """Cells as 2.0.21's ``mRQ``/``vN8``/``bN8`` show them, text blocks merged with a newline."""
    with open(path_of(fd), encoding="utf-8") as file:
        notebook = json.load(file)
    language = (notebook.get("metadata", {}).get("language_info") or {}).get("name") or "python"
    blocks: list[dict[str, Any]] = []
    for index, cell in enumerate(notebook.get("cells", [])):
        source = "".join(cell["source"]) if isinstance(cell.get("source"), list) else cell.get("source", "")
        cell_id = cell.get("id") or f"cell-{index}"
        tags = "" if cell.get("cell_type") == "code" else f"<cell_type>{cell.get('cell_type')}</cell_type>"
        if cell.get("cell_type") == "code" and language != "python":
            tags += f"<language>{language}</language>"
        blocks.append({"text": f'<cell id="{cell_id}">{tags}{source}</cell id="{cell_id}">', "type": "text"})
        for output in cell.get("outputs") or [] if cell.get("cell_type") == "code" else []:
            blocks += _notebook_output(output)
    merged: list[dict[str, Any]] = []
    for block in blocks:
        if merged and merged[-1]["type"] == "text" and block["type"] == "text":
            merged[-1] = {**merged[-1], "text": merged[-1]["text"] + "\n" + block["text"]}
        else:
            merged.append(block)
    if answer.countdown is None and len(merged) == 1:
        return str(merged[0]["text"])
    return answer.blocks(merged)


def _notebook_output(output: Mapping[str, Any]) -> list[dict[str, Any]]:
    kind = output.get("output_type")
    data = output.get("data") or {}
    if kind == "stream":
        text = output.get("text")
    elif kind in ("execute_result", "display_data"):
        text = data.get("text/plain")
    elif kind == "error":
        text = f"{output.get('ename')}: {output.get('evalue')}\n" + "\n".join(output.get("traceback") or [])
    else:
        return []
    text = "".join(text) if isinstance(text, list) else text or ""
    blocks: list[dict[str, Any]] = [{"text": "\n" + text, "type": "text"}] if text else []
    for media in ("image/png", "image/jpeg"):
        if isinstance(data.get(media), str):
            image = re.sub(r"\s", "", data[media])
            blocks.append({"type": "image", "source": {"data": image, "media_type": media, "type": "base64"}})
            break
    return blocks


def _absolute(call: Call, file_path: str) -> str:
    return os.path.normpath(os.path.join(call.root.path, file_path))


def _similar(call: Call, missing: str) -> str | None:
    """2.0.21's ``Jm1``: a file beside the missing one with the same name but another extension (its
    folder listed beneath the root, never through a symlink out of it)."""
    folder, name = os.path.split(missing)
    stem = os.path.splitext(name)[0]
    try:
        placed = call.place(folder, folder)
        if placed.fd is None or placed.st is None or not stat.S_ISDIR(placed.st.st_mode):
            return None
        entries = sorted(os.listdir(placed.fd))
    except (ToolError, OSError):
        return None
    return next((entry for entry in entries if os.path.splitext(entry)[0] == stem and entry != name), None)


def read_as(behaviour: Behaviour):  # noqa: ANN201 - the tool's run function
    def read(call: Call, file_path: str, offset: int | None, limit: int | None) -> str:
        answer = Answer(call, behaviour)
        if offset is not None and offset < 0:
            raise ToolError(f"offset must be >= 0 (got {offset}).")
        if limit is not None and limit < 1:
            raise ToolError(f"limit must be >= 1 (got {limit}).")
        try:
            resolved = call.resolve(file_path, "file")
        except ToolError as error:
            if error.reason == "missing":
                text = "File does not exist."
                similar = _similar(call, _absolute(call, file_path))
                if behaviour.missing_shows_cwd:
                    text += f" Note: your current working directory is {call.root.path}."
                if similar:
                    text += f" Did you mean {similar}?"
                raise answer.error(text if behaviour.missing_shows_cwd else error_form(text)) from None
            if error.reason == "directory":
                text = "EISDIR: illegal operation on a directory, read"
                if behaviour.directory_shows_path:
                    text += f" '{_absolute(call, file_path)}'"
                raise answer.error(text) from None
            raise
        extension = os.path.splitext(resolved.real)[1].lower().lstrip(".")
        if extension in BINARY_EXTENSIONS:
            text = f"This tool cannot read binary files. The file appears to be a binary .{extension} file. "
            raise answer.error(error_form(text + behaviour.binary_advice))
        size = resolved.st.st_size
        if extension in IMAGE_EXTENSIONS:
            if size == 0:
                raise answer.error(error_form("Empty image files cannot be processed."))
            if size > IMAGE_PASSTHROUGH_BYTES:
                call.uncertain = "Claude Code re-encodes large images (sharp) before it sends them"
            with open(path_of(resolved.fd), "rb") as file:
                data = base64.b64encode(file.read()).decode()
            source = {"type": "base64", "data": data, "media_type": IMAGE_EXTENSIONS[extension]}
            return answer.blocks([{"type": "image", "source": source}])
        if extension == "pdf":
            with open(path_of(resolved.fd), "rb") as file:
                data = base64.b64encode(file.read()).decode()
            text = f"PDF file read: {_absolute(call, file_path)} ({size_text(size)})"
            document = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": data}}
            return answer.blocks([{"type": "text", "text": text}, document])
        if extension == "ipynb":
            return _notebook(resolved.fd, answer)
        if offset is None and limit is None and size > MAX_SIZE_BYTES:
            text = f"File content ({size_text(size)}) exceeds maximum allowed size (256KB). {behaviour.advice}"
            text += behaviour.size_error_suffix
            raise answer.error(error_form(text) if behaviour.wrapped_size_error else text)
        try:
            lines, total, note = _selection(call, behaviour, resolved, offset, limit)
        except _TooLarge as large:
            call.uncertain = f"a selection over {BUILD_LIMIT >> 20} MB is not built: its token count is estimated"
            if behaviour.checks_selection_size:
                raise answer.error(
                    f"File content ({size_text(large.length)}) exceeds maximum allowed size (256KB). {behaviour.advice}"
                ) from None
            raise answer.error(
                f"File content ({large.tokens} tokens) exceeds maximum allowed tokens ({MAX_TOKENS}). {behaviour.advice}"
            ) from None
        first = 1 if offset is None else offset
        content = "\n".join(lines)
        if behaviour.checks_selection_size and js_length(content) > MAX_SIZE_BYTES:
            text = f"File content ({size_text(js_length(content))}) exceeds maximum allowed size (256KB). {behaviour.advice}"
            raise answer.error(text)
        _check_tokens(call, answer, behaviour, content)
        if behaviour.empty == "lines" and size == 0:
            text = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
        elif not lines or (behaviour.empty == "shorter" and content == ""):
            text = (
                f"<system-reminder>Warning: the file exists but is shorter than the provided offset ({first}). "
                f"The file has {total} lines.</system-reminder>"
            )
        else:
            text = number_lines(lines, first, call.settings.get("line_format") or behaviour.line_format) + note
            reminder = call.settings.get("reminder", behaviour.reminder)
            text += f"{_REMINDER_START}{reminder}{_REMINDER_END}" if reminder else ""
        if behaviour.notes_changes_after_partial_reads and (offset is not None or limit is not None):
            changed = _changes_note(resolved, behaviour, call, content, max(first, 1))
            if changed:
                text = js_trim(text) + "\n\n" + changed
        return answer.text(text)

    return read


def settings_shown_by(recorded: str | None) -> dict[str, Any]:
    """The settings that reproduce what a recorded Read shows: line format, reminder, countdown."""
    settings: dict[str, Any] = {}
    if recorded is None:
        return settings
    countdown = _COUNTDOWN.search(recorded)
    if countdown:
        settings["tokens_left"] = int(countdown.group(1))
        recorded = recorded[: countdown.start()]
    if _ARROW_LINE.match(recorded):
        settings["line_format"] = "arrow"
    elif _TAB_LINE.match(recorded):
        settings["line_format"] = "tab"
    before_note = _REMINDER_BEFORE_NOTE.search(recorded)
    if recorded.endswith(_REMINDER_END) and _REMINDER_START in recorded:
        start = recorded.rindex(_REMINDER_START) + len(_REMINDER_START)
        settings["reminder"] = recorded[start : -len(_REMINDER_END)]
    elif before_note:
        settings["reminder"] = before_note.group(1)
    elif "line_format" in settings:
        settings["reminder"] = None  # numbered lines and no reminder: the model got none
    return settings
