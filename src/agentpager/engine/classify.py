"""What a file holds, decided from its first 8192 bytes (contract section 2)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

import filetype

HEAD_SIZE = 8192

# Longest first: the UTF-32-LE mark begins with the UTF-16-LE one.
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)

DOCUMENT_MIMES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
_ZIP_DOCUMENT_FOLDERS = {"docx": "word/", "pptx": "ppt/", "xlsx": "xl/"}

# C0 controls that are not text: everything below 0x20 except \b \t \n \v \f \r and ESC; plus DEL.
_TEXT_CONTROLS = {0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B}
_NOT_CONTROL = bytes(b for b in range(256) if (b >= 0x20 and b != 0x7F) or b in _TEXT_CONTROLS)

Kind = Literal["text", "document", "binary"]


@dataclass(frozen=True)
class Classification:
    kind: Kind
    encoding: str = "utf-8"
    """Text encoding; only meaningful for text."""
    bom_length: int = 0
    mime: str = ""
    """The detected type for documents and binary files."""
    document_type: str = ""
    """``pdf``, ``docx``, ``pptx`` or ``xlsx`` for documents."""


def classify(head: bytes, fd: int, display_name: str) -> Classification:
    """Classify a file from ``head`` (its first 8192 bytes).

    The file open as ``fd`` is read further only to look inside a zip whose ``display_name`` has an
    Office extension.
    """
    if not head:
        return Classification("text")
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return Classification("text", encoding=encoding, bom_length=len(bom))
    kind = filetype.guess(head)
    document = _document_type(kind, fd, display_name)
    if document:
        return Classification("document", mime=DOCUMENT_MIMES[document], document_type=document)
    mime = kind.mime if kind else "application/octet-stream"
    if b"\x00" in head:
        return Classification("binary", mime=mime)
    controls = len(head.translate(None, _NOT_CONTROL))
    if controls * 10 > len(head):
        return Classification("binary", mime=mime)
    return Classification("text")


def _document_type(kind: filetype.Type | None, fd: int, display_name: str) -> str:
    if kind is None:
        return ""
    for document, mime in DOCUMENT_MIMES.items():
        if kind.mime == mime:
            return document
    if kind.mime == "application/zip":
        extension = display_name.rsplit(".", 1)[-1].lower() if "." in display_name else ""
        folder = _ZIP_DOCUMENT_FOLDERS.get(extension)
        if folder and _zip_has_folder(fd, folder):
            return extension
    return ""


def _zip_has_folder(fd: int, folder: str) -> bool:
    import zipfile

    try:
        with os.fdopen(os.dup(fd), "rb") as file, zipfile.ZipFile(file) as archive:
            return any(name.startswith(folder) for name in archive.namelist())
    except (OSError, zipfile.BadZipFile, ValueError):
        return False
    finally:
        os.lseek(fd, 0, os.SEEK_SET)  # the copy shares the offset: leave it where readers expect it
