"""How Gemini CLI 0.61.0 reads one file: its type, its text, the lines it shows (``processSingleFileContent``).

Followed from google-gemini/gemini-cli ``packages/core/src/utils/fileUtils.ts`` (0.61.0's bundle,
``chunk-JDPZ4CE3.js`` 253665-254090): ``detectBOM`` and ``readFileWithEncoding`` (a UTF-8, UTF-16 or
UTF-32 byte-order mark decides the codec, else UTF-8 with U+FFFD), ``detectFileType`` (``.ts`` is
text, ``.svg`` is SVG text, the ``mime`` package's type by extension for images, audio, video and
PDFs, then ``BINARY_EXTENSIONS``, then the ``isbinaryfile`` package on the first 512 bytes), and
``processSingleFileContent``: the 20 MB limit, lines split on ``\\r?\\n``, at most 2,000 of them
(``DEFAULT_MAX_LINES_TEXT_FILE``), each cut after 2,000 UTF-16 code units with ``... [truncated]``
(``MAX_LINE_LENGTH_TEXT_FILE``, ``utils/constants.ts``). Strings are JavaScript's: lengths count
UTF-16 code units, so a cut can split a surrogate pair (the lone half is kept, as Node sends it).
"""

from __future__ import annotations

import base64
import functools
import os
import re
import stat
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from agentpager.tools.js.strings import js_length, js_prefix
from agentpager.tools.paths import Placed

MAX_LINES = 2000
MAX_LINE_LENGTH = 2000
MAX_FILE_SIZE_MB = 20
SVG_MAX_BYTES = 1024 * 1024
TRUNCATED_LINE = "... [truncated]"
_SCRIPT_EXTENSIONS = (".ts", ".mts", ".cts")
_BINARY_EXTENSION_WORDS = (
    ".7z .a .bin .bmp .bz2 .class .dat .dll .doc .docx .dylib .exe .gif .gz .jar .jpeg .jpg .lib .o .obj .odp "
    ".ods .odt .pak .pdf .png .ppt .pptx .pyc .pyo .rar .rpa .so .svg .tar .war .wasm .webp .xls .xlsx .zip"
)
BINARY_EXTENSIONS = frozenset(_BINARY_EXTENSION_WORDS.split())
"""``BINARY_EXTENSIONS`` (``utils/ignorePatterns.ts``): from its binary, media and Python patterns, plus
``.dat .obj .o .a .lib .wasm``."""
_MIME_WORDS = (
    "pdf:application/pdf adts:audio/aac aac:audio/aac adp:audio/adpcm amr:audio/amr au:audio/basic "
    "snd:audio/basic mid:audio/midi midi:audio/midi kar:audio/midi rmi:audio/midi mxmf:audio/mobile-xmf "
    "m4a:audio/mp4 mp4a:audio/mp4 m4b:audio/mp4 mpga:audio/mpeg mp2:audio/mpeg mp2a:audio/mpeg mp3:audio/mpeg "
    "m2a:audio/mpeg m3a:audio/mpeg oga:audio/ogg ogg:audio/ogg spx:audio/ogg opus:audio/ogg s3m:audio/s3m "
    "sil:audio/silk wav:audio/wav weba:audio/webm xm:audio/xm exr:image/aces apng:image/apng avci:image/avci "
    "avcs:image/avcs avif:image/avif bmp:image/bmp dib:image/bmp cgm:image/cgm drle:image/dicom-rle dpx:image/dpx "
    "emf:image/emf fits:image/fits g3:image/g3fax gif:image/gif heic:image/heic heics:image/heic-sequence "
    "heif:image/heif heifs:image/heif-sequence hej2:image/hej2k ief:image/ief jaii:image/jaii jais:image/jais "
    "jls:image/jls jp2:image/jp2 jpg2:image/jp2 jpg:image/jpeg jpeg:image/jpeg jpe:image/jpeg jph:image/jph "
    "jhc:image/jphc jpm:image/jpm jpgm:image/jpm jpx:image/jpx jpf:image/jpx jxl:image/jxl jxr:image/jxr "
    "jxra:image/jxra jxrs:image/jxrs jxs:image/jxs jxsc:image/jxsc jxsi:image/jxsi jxss:image/jxss ktx:image/ktx "
    "ktx2:image/ktx2 jfif:image/pjpeg png:image/png sgi:image/sgi svg:image/svg+xml svgz:image/svg+xml "
    "t38:image/t38 tif:image/tiff tiff:image/tiff tfx:image/tiff-fx webp:image/webp wmf:image/wmf 3gp:video/3gpp "
    "3gpp:video/3gpp 3g2:video/3gpp2 h261:video/h261 h263:video/h263 h264:video/h264 m4s:video/iso.segment "
    "jpgv:video/jpeg mj2:video/mj2 mjp2:video/mj2 ts:video/mp2t m2t:video/mp2t m2ts:video/mp2t mts:video/mp2t "
    "mp4:video/mp4 mp4v:video/mp4 mpg4:video/mp4 mpeg:video/mpeg mpg:video/mpeg mpe:video/mpeg m1v:video/mpeg "
    "m2v:video/mpeg ogv:video/ogg qt:video/quicktime mov:video/quicktime webm:video/webm"
)
MEDIA_TYPES = dict(word.split(":", 1) for word in _MIME_WORDS.split())
"""The ``mime`` package's standard types (extension to type) that are images, audio, video or PDF:
the only ones ``detectFileType`` acts on (starred extensions, which never map back, left out)."""
_AUDIO_BY_EXTENSION = {
    ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
    ".aiff": "audio/aiff",
    ".aif": "audio/aiff",
    ".aac": "audio/aac",
    ".ogg": "audio/ogg",
    ".flac": "audio/flac",
}
_AUDIO_ALIASES = {
    "audio/mp3": "audio/mpeg",
    "audio/x-mp3": "audio/mpeg",
    "audio/wave": "audio/wav",
    "audio/x-wav": "audio/wav",
    "audio/vnd.wave": "audio/wav",
    "audio/x-pn-wav": "audio/wav",
    "audio/x-aiff": "audio/aiff",
    "audio/aif": "audio/aiff",
    "audio/x-aac": "audio/aac",
}
AUDIO_FORMATS = "MP3, WAV, AIFF, AAC, OGG, and FLAC"
_LINE_BREAK = re.compile(r"\r?\n")


def node_extname(path: str) -> str:
    """Node's ``path.extname``: from the last dot of the base name; '' when that dot starts the name, or for ``..``."""
    base = path.rstrip("/").rsplit("/", 1)[-1]
    dot = base.rfind(".")
    return "" if dot <= 0 or base == ".." else base[dot:]


def media_type(path: str) -> str | None:
    """The ``mime`` package's ``getType`` for the types above: by the text after the last dot."""
    name = path[max(path.rfind("/"), path.rfind("\\")) + 1 :].lower()
    extension = name.rsplit(".", 1)[-1]
    has_dot = len(extension) < len(name) - 1
    if not has_dot and len(name) < len(path):
        return None
    return MEDIA_TYPES.get(extension)


def _audio_type(found: str | None, extension: str) -> str | None:
    """``getSupportedAudioMimeTypeForFile`` of a path whose ``media_type`` is ``found`` and lower-case
    ``node_extname`` is ``extension``."""
    normal = _AUDIO_ALIASES.get(found, found) if found else None
    if normal and normal in _AUDIO_BY_EXTENSION.values():
        return normal
    return _AUDIO_BY_EXTENSION.get(extension)




# -- isbinaryfile 5 (node_modules/isbinaryfile/lib/index.js) ------------------------------------------


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


class _Reader:
    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size, self.offset, self.error = data, size, 0, False

    def next_byte(self) -> int:
        if self.offset == self.size or self.error:
            self.error = True
            return 255
        self.offset += 1
        return self.data[self.offset - 1]

    def skip(self, count: int) -> None:
        for _ in range(max(count, 0)):
            if self.error:
                return
            self.next_byte()

    def varint(self) -> int:
        index = value = 0
        while not self.error:
            byte = self.next_byte()
            value = _int32(value | _int32((byte & 127) << ((7 * index) % 32)))
            if byte & 128 == 0:
                break
            if index >= 10:
                self.error = True
                break
            index += 1
        return value

    def message(self) -> bool:
        wire_type = self.varint() & 7
        if wire_type == 0:
            self.varint()
        elif wire_type == 1:
            self.skip(8)
        elif wire_type == 2:
            self.skip(self.varint())
        elif wire_type == 5:
            self.skip(4)
        else:
            return False
        return True


def _looks_like_protobuf(data: bytes, size: int) -> bool:
    reader, messages = _Reader(data, size), 0
    while True:
        if not reader.message() and not reader.error:
            return False
        if reader.error:
            return messages > 0
        messages += 1


def is_binary_head(data: bytes) -> bool:
    """``isBinaryCheck`` on the first 515 bytes of a file (it scans 512, the rest finishes UTF-8)."""
    total = len(data)
    if total == 0:
        return False
    scan = min(total, 512)
    if data[:3] == b"\xef\xbb\xbf" or data[:4] in (b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00", b"\x84\x31\x95\x33"):
        return False
    if data[:5] == b"%PDF-":
        return True
    if data[:2] in (b"\xfe\xff", b"\xff\xfe"):
        return False
    padded = data + bytes(4)  # Buffer.alloc: zeros past what was read
    suspicious = 0
    i = 0
    while i < scan:
        byte = data[i]
        if byte == 0:
            return True
        if (byte < 7 or byte > 14) and (byte < 32 or byte > 127):
            if 192 <= byte <= 223 and i + 1 < total:
                i += 1
                if 128 <= padded[i] <= 191:
                    i += 1
                    continue
            elif 224 <= byte <= 239 and i + 2 < total:
                i += 1
                if 128 <= padded[i] <= 191 and 128 <= padded[i + 1] <= 191:
                    i += 2
                    continue
            elif 240 <= byte <= 247 and i + 3 < total:
                i += 1
                if all(128 <= padded[i + k] <= 191 for k in range(3)):
                    i += 3
                    continue
            suspicious += 1
            if i >= 32 and suspicious * 100 / scan > 10:
                return True
        i += 1
    if suspicious * 100 / scan > 10:
        return True
    return suspicious > 1 and _looks_like_protobuf(data, scan)


def file_type(path: str, head: bytes) -> str:
    """``detectFileType`` of the file ``path`` names, whose first 515 bytes are ``head``: text, svg,
    image, audio, video, pdf or binary."""
    extension = node_extname(path).lower()
    if extension in _SCRIPT_EXTENSIONS:
        return "text"
    if extension == ".svg":
        return "svg"
    found = media_type(path)
    if found:
        if found.startswith("image/"):
            return "image"
        if found.startswith(("audio/", "video/")):
            return found.split("/")[0] if is_binary_head(head) else "text"
        if found == "application/pdf":
            return "pdf"
    if _audio_type(found, extension):
        return "audio" if is_binary_head(head) else "text"
    if extension in BINARY_EXTENSIONS or is_binary_head(head):
        return "binary"
    return "text"


# -- decoding (readFileWithEncoding) -------------------------------------------------------------------


def _utf32(data: bytes, little: bool) -> str:
    usable = len(data) - len(data) % 4
    chars = []
    for start in range(0, usable, 4):
        code = int.from_bytes(data[start : start + 4], "little" if little else "big")
        chars.append(chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd")
    return "".join(chars)


def decode(data: bytes) -> str:
    """The text Node makes of the bytes: by their byte-order mark, else UTF-8 (U+FFFD for bad bytes)."""
    if data[:4] == b"\xff\xfe\x00\x00":
        return _utf32(data[4:], True)
    if data[:4] == b"\x00\x00\xfe\xff":
        return _utf32(data[4:], False)
    if data[:3] == b"\xef\xbb\xbf":
        return data[3:].decode("utf-8", "replace")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        body = data[2 : len(data) - len(data) % 2]  # Node drops an odd last byte
        return body.decode("utf-16-le" if data[0] == 0xFF else "utf-16-be", "surrogatepass")
    return data.decode("utf-8", "replace")


# -- processSingleFileContent --------------------------------------------------------------------------


@dataclass(frozen=True)
class TextRead:
    """A text file's lines as the tool shows them."""

    text: str
    truncated: bool
    total: int
    """Its line count: the pieces of splitting on ``\\r?\\n`` (a final newline ends one more, empty line)."""
    first: int
    last: int
    """``linesShown``: ``first`` is one past ``last`` when nothing is shown."""


@dataclass(frozen=True)
class Inline:
    """An image, PDF, audio or video file, sent to the model as base64 data."""

    mime: str
    data: bytes


class ReadFailure(Exception):
    """What the tool answers with an error: the message the model receives."""

    def __init__(self, message: str, kind: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


def size_error(path: str, size: int) -> ReadFailure | None:
    megabytes = Decimal(size) / Decimal(1024 * 1024)
    if megabytes <= MAX_FILE_SIZE_MB:
        return None
    shown = megabytes.quantize(Decimal("0.01"), ROUND_HALF_UP)  # Number.toFixed(2) rounds halves up
    return ReadFailure(f"File size exceeds the {MAX_FILE_SIZE_MB}MB limit: {path} ({shown}MB)", "too_large")


def text_lines(text: str, start_line: int | None, end_line: int | None) -> TextRead:
    """The lines ``start_line..end_line`` (1-based, inclusive) as ``processSingleFileContent`` shows them."""
    lines = _LINE_BREAK.split(text)
    total = len(lines)
    if start_line is not None or end_line is not None:
        start = start_line - 1 if start_line else 0
        end = min(end_line, total) if end_line else min(start + MAX_LINES, total)
    else:
        start, end = 0, min(MAX_LINES, total)
    first = min(start, total)
    shown, cut = [], False
    for line in lines[first:end]:
        if len(line) > MAX_LINE_LENGTH // 2 and js_length(line) > MAX_LINE_LENGTH:
            line, cut = js_prefix(line, MAX_LINE_LENGTH) + TRUNCATED_LINE, True
        shown.append(line)
    truncated = first > 0 or end < total or cut
    return TextRead("\n".join(shown), truncated, total, first + 1, end)


def read_content(
    placed: Placed,
    real: str,
    relative: str,
    start_line: int | None = None,
    end_line: int | None = None,
    kind: str | None = None,
) -> str | TextRead | Inline:
    """A file's content as the tool reads it: a message (a binary file), its lines, or its data.

    ``placed`` is the file opened beneath the root, ``real`` the path the tool resolved (shown in
    errors), ``relative`` the same path relative to the project (shown in messages), ``kind`` its
    ``file_type`` when the caller has told it already (else told here from its first bytes). Raises
    ReadFailure with the error the model receives. A FIFO or a device, which Node would wait on, is
    refused.
    """
    if placed.st is None:
        raise ReadFailure(f"File not found: {real}", "missing")
    try:
        st = placed.st
        if stat.S_ISDIR(st.st_mode):
            raise ReadFailure(f"Path is a directory, not a file: {real}", "directory")
        failure = size_error(real, st.st_size)
        if failure:
            raise failure
        if placed.fd is None:
            if not stat.S_ISREG(st.st_mode):
                raise ReadFailure(f"Error reading file {real}: not a regular file (a FIFO, socket or device)")
            raise PermissionError(placed.error, os.strerror(placed.error))
        kind = kind or file_type(real, os.pread(placed.fd, 515, 0))
        data = b"" if _shown_unread(kind, st.st_size) else _read_all(placed.fd)
    except PermissionError:
        raise ReadFailure(f"Error reading file {real}: EACCES: permission denied, open '{real}'") from None
    except OSError as error:
        raise ReadFailure(f"Error reading file {real}: {error.strerror}") from None
    return content_of(kind, data, st.st_size, real, relative, start_line, end_line)


def _shown_unread(kind: str, size: int) -> bool:
    """Whether the tool answers for a file of this type and size without reading it."""
    return kind == "binary" or (kind == "svg" and size > SVG_MAX_BYTES)


def content_of(
    kind: str,
    data: bytes,
    size: int,
    real: str,
    relative: str,
    start_line: int | None = None,
    end_line: int | None = None,
) -> str | TextRead | Inline:
    """What ``read_content`` answers for a readable regular file of type ``kind`` and ``size`` bytes
    that holds ``data`` (b'' when ``_shown_unread``): a file known to be empty needs no open."""
    if kind == "binary":
        return f"Cannot display content of binary file: {relative}"
    if kind == "svg":
        return f"Cannot display content of SVG file larger than 1MB: {relative}" if size > SVG_MAX_BYTES else decode(data)
    if kind == "text":
        return text_lines(decode(data), start_line, end_line)
    found = media_type(real)
    if kind == "audio":
        mime = _audio_type(found, node_extname(real).lower())
        if mime is None:
            raise ReadFailure(f"Unsupported audio file format for {real}. Supported audio formats are {AUDIO_FORMATS}.")
        return Inline(mime, data)
    return Inline(found or "application/octet-stream", data)


def empty_content(path: str, relative: str) -> tuple[str, str | TextRead | Inline | None]:
    """The ``file_type`` of a readable empty regular file and what ``read_content`` answers for it
    (None: a ReadFailure), without opening it: they follow from its name alone, and from its
    lower-case ``node_extname`` alone when the base name holds no backslash (``media_type`` then reads
    the same extension), so they are told once per extension."""
    base = path[path.rfind("/") + 1 :]
    if "\\" in base:
        kind = file_type(path, b"")
        return kind, _empty_answer(kind, path, relative)
    kind, content = _empty_of_extension(node_extname(base).lower())
    if kind == "binary":  # the one answer that names the file
        content = _empty_answer(kind, path, relative)
    return kind, content


@functools.lru_cache(maxsize=1024)  # a directory may hold a million extensions
def _empty_of_extension(extension: str) -> tuple[str, str | TextRead | Inline | None]:
    path = f"/name{extension}"
    kind = file_type(path, b"")
    return kind, _empty_answer(kind, path, "")


def _empty_answer(kind: str, path: str, relative: str) -> str | TextRead | Inline | None:
    try:
        return content_of(kind, b"", 0, path, relative)
    except ReadFailure:
        return None


def _read_all(fd: int) -> bytes:
    """The file open as ``fd``, from its start to its end now, but no more than the size limit (it may
    have grown since its size was checked)."""
    limit = MAX_FILE_SIZE_MB * 1024 * 1024
    chunks, offset = [], 0
    while offset < limit:
        chunk = os.pread(fd, min(1 << 20, limit - offset), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def base64_text(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
