"""Documents convert in a child process with memory and time limits, from the descriptor given."""

from __future__ import annotations

import os
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from samples import _CONTENT_TYPES, _RELS, pdf_bytes, write_docx

from agentpager import Workspace
from agentpager.engine import content, documents
from agentpager.engine.documents import ConversionError, ConversionLimits, convert_document
from agentpager.engine.lineindex import Cancelled


def write_docx_bomb(path: Path, xml_mb: int) -> Path:
    """A DOCX of a few tens of KB whose document.xml inflates to ``xml_mb`` MB."""
    paragraph = "<w:p><w:r><w:t>" + "bomb " * 20 + "</w:t></w:r></w:p>"
    document = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
        + paragraph * (xml_mb * 1_000_000 // len(paragraph))
        + "</w:body></w:document>"
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("word/document.xml", document)
    return path


@contextmanager
def opened(path: Path) -> Iterator[int]:
    fd = os.open(path, os.O_RDONLY)
    try:
        yield fd
    finally:
        os.close(fd)


@pytest.mark.slow
def test_a_docx_bomb_is_too_large(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(documents.MEMORY_ENV, "300")
    bomb = write_docx_bomb(root / "bomb.docx", 10)
    assert bomb.stat().st_size < 100_000
    workspace = Workspace(root)
    result = workspace.call("read_file", {"path": "bomb.docx"})
    assert result.is_error
    assert result.text == (
        "Error: Could not convert 'bomb.docx' to text: the DOCX is too large to convert (it needs more than 300 MB)."
    )
    # The failure is cached: the next read converts nothing.
    monkeypatch.setattr(content, "convert_document", lambda *args: pytest.fail("converted again"))
    assert workspace.call("read_file", {"path": "bomb.docx", "start_line": 2}).text == result.text


def test_a_conversion_past_the_time_limit(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(documents.SECONDS_ENV, "0.2")  # markitdown's imports alone take longer
    (root / "paper.pdf").write_bytes(pdf_bytes(["Hello"]))
    assert Workspace(root).call("read_file", {"path": "paper.pdf"}).text == (
        "Error: Could not convert 'paper.pdf' to text: the PDF took longer than 0.2 s to convert (it may be too large)."
    )


@pytest.mark.slow
def test_the_child_converts_the_open_descriptor(root: Path) -> None:
    """What the caller opened (and checked) is what is converted, whatever the path names later."""
    path = root / "paper.pdf"
    path.write_bytes(pdf_bytes(["Opened first"]))
    fd = os.open(path, os.O_RDONLY)
    try:
        path.unlink()
        write_docx(path, ["Swapped in"])
        assert convert_document(fd, "pdf") == "Opened first\n\n"
        assert convert_document(fd, "pdf") == "Opened first\n\n", "the descriptor's offset does not matter"
    finally:
        os.close(fd)
    with opened(path) as fd:
        assert convert_document(fd, "docx") == "Swapped in"


def test_a_damaged_document_gives_the_converters_reason(root: Path) -> None:
    (root / "broken.pdf").write_bytes(pdf_bytes(["Hello"])[:150])
    with opened(root / "broken.pdf") as fd, pytest.raises(ConversionError) as caught:
        convert_document(fd, "pdf")
    assert caught.value.reason.startswith("the PDF is damaged or unreadable (")


def test_cancel_kills_the_child(root: Path) -> None:
    (root / "paper.pdf").write_bytes(pdf_bytes(["Hello"]))
    cancel = threading.Event()
    cancel.set()
    with opened(root / "paper.pdf") as fd, pytest.raises(Cancelled):
        convert_document(fd, "pdf", cancel, ConversionLimits(seconds=60))


def test_limits_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ConversionLimits.from_env() == ConversionLimits(1024, 120.0)
    monkeypatch.setenv(documents.MEMORY_ENV, "512")
    monkeypatch.setenv(documents.SECONDS_ENV, "nope")
    assert ConversionLimits.from_env() == ConversionLimits(512, 120.0)
