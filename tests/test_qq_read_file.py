"""qq read_file: the 200-line window, exact to contract sections 2, 3 and 5."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from samples import pdf_bytes, png_bytes, write_docx

RULE = "-" * 40
NOTE = "[Note: Output limited to 200 lines max per request.]"


def window(name: str, first: int, last: int, total: int, body: str) -> str:
    if last < total:
        footer = (
            f"[Note: to read more of the file, request this again with start_line={last + 1}; total lines: {total}]"
        )
    else:
        footer = f"[File read completed. Total lines: {total}]"
    return f"[File: {name} | Lines {first}-{last} of {total}]\n{NOTE}\n{RULE}\n{body}\n{RULE}\n{footer}"


def test_small_file_literal(root: Path, call) -> None:
    (root / "a.txt").write_text("alpha\nbeta\ngamma\n")
    result = call("read_file", path="a.txt")
    assert result.text == (
        "[File: a.txt | Lines 1-3 of 3]\n"
        "[Note: Output limited to 200 lines max per request.]\n"
        "----------------------------------------\n"
        "alpha\nbeta\ngamma\n"
        "----------------------------------------\n"
        "[File read completed. Total lines: 3]"
    )
    assert not result.is_error


def test_window_in_the_middle_has_continuation_footer(root: Path, call) -> None:
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 1001)))
    result = call("read_file", path="big.txt", start_line=450)
    body = "\n".join(f"line {n}" for n in range(450, 650))
    assert result.text == window("big.txt", 450, 649, 1000, body)
    assert result.text.endswith(
        "[Note: to read more of the file, request this again with start_line=650; total lines: 1000]"
    )


def test_num_lines_is_capped_at_200(root: Path, call) -> None:
    (root / "t.txt").write_text("x\n" * 300)
    result = call("read_file", path="t.txt", num_lines=500)
    assert result.text.startswith("[File: t.txt | Lines 1-200 of 300]\n")


def test_last_window_is_complete(root: Path, call) -> None:
    (root / "t.txt").write_text("".join(f"{n}\n" for n in range(1, 301)))
    result = call("read_file", path="t.txt", start_line=201, num_lines=200)
    assert result.text == window("t.txt", 201, 300, 300, "\n".join(str(n) for n in range(201, 301)))


def test_start_line_past_the_end(root: Path, call) -> None:
    (root / "t.txt").write_text("a\nb\n")
    result = call("read_file", path="t.txt", start_line=3)
    assert result.text == "Start line 3 is out of bounds. Total lines: 2."
    assert not result.is_error


def test_empty_file(root: Path, call) -> None:
    (root / "empty.txt").write_bytes(b"")
    result = call("read_file", path="empty.txt")
    assert result.text == "[File: empty.txt is empty]"
    assert not result.is_error


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ({"start_line": 0}, "Error: start_line must be >= 1 (got 0)."),
        ({"start_line": "-4"}, "Error: start_line must be >= 1 (got -4)."),
        ({"num_lines": 0}, "Error: num_lines must be >= 1 (got 0)."),
    ],
)
def test_bad_ranges(root: Path, call, argument: dict, message: str) -> None:
    (root / "t.txt").write_text("a\n")
    result = call("read_file", path="t.txt", **argument)
    assert (result.text, result.is_error) == (message, True)


def test_range_checks_come_before_path_checks(call) -> None:
    assert call("read_file", path="missing", start_line=0).text == "Error: start_line must be >= 1 (got 0)."


# -- section 3: what a line is ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "lines"),
    [
        (b"a\r\nb\r\n", ["a", "b"]),
        (b"a\r\nb", ["a", "b"]),
        (b"a\rb\rc\n", ["a\rb\rc"]),  # a lone CR is not a line break
        (b"a\r\r\nb", ["a\r", "b"]),  # one CR before the LF goes
        (b"a\nb\r", ["a", "b\r"]),  # a CR at the very end stays
        (b"page1\x0cpage2\nz", ["page1\x0cpage2", "z"]),  # form feed stays inside the line
        (b"no final newline", ["no final newline"]),
        (b"\n\n", ["", ""]),
        (b"a\xe2\x80\xa8b\n", ["a\u2028b"]),  # U+2028 is not a line break
    ],
)
def test_lines_agree_with_grep(root: Path, call, content: bytes, lines: list[str]) -> None:
    (root / "f.txt").write_bytes(content)
    result = call("read_file", path="f.txt")
    assert result.text == window("f.txt", 1, len(lines), len(lines), "\n".join(lines))


# -- section 2: what a file holds -----------------------------------------------------------------


def test_utf8_bom_is_not_content(root: Path, call) -> None:
    (root / "bom.txt").write_bytes(b"\xef\xbb\xbfhello\nworld\n")
    assert call("read_file", path="bom.txt").text == window("bom.txt", 1, 2, 2, "hello\nworld")


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_with_bom(root: Path, call, encoding: str) -> None:
    bom = {
        "utf-16-le": b"\xff\xfe",
        "utf-16-be": b"\xfe\xff",
        "utf-32-le": b"\xff\xfe\x00\x00",
        "utf-32-be": b"\x00\x00\xfe\xff",
    }[encoding]
    (root / "wide.txt").write_bytes(bom + "héllo\r\nwörld 🎉\n".encode(encoding))
    assert call("read_file", path="wide.txt").text == window("wide.txt", 1, 2, 2, "héllo\nwörld 🎉")


def test_invalid_utf8_becomes_replacement_characters(root: Path, call) -> None:
    (root / "bad.txt").write_bytes(b"ok \xff\xfe end\ntruncated \xe2\x82\ncut \xf0\x9f\x8e")
    expected = b"ok \xff\xfe end\ntruncated \xe2\x82\ncut \xf0\x9f\x8e".decode("utf-8", "replace")
    assert call("read_file", path="bad.txt").text == window("bad.txt", 1, 3, 3, expected)
    assert "ok \ufffd\ufffd end" in expected and expected.endswith("cut \ufffd")


def test_latin1_bytes_become_replacement_characters(root: Path, call) -> None:
    (root / "latin.txt").write_bytes("café\nnaïve\n".encode("latin-1"))
    assert call("read_file", path="latin.txt").text == window("latin.txt", 1, 2, 2, "caf\ufffd\nna\ufffdve")


def test_nul_byte_makes_a_file_binary(root: Path, call) -> None:
    (root / "nul.dat").write_bytes(b"text\x00more text\n")
    result = call("read_file", path="nul.dat")
    assert result.text == (
        "Error: Binary files are not supported. File detected as application/octet-stream. "
        "Please use another tool or method to process this file."
    )
    assert result.is_error


def test_png_is_binary_with_its_mime(root: Path, call) -> None:
    (root / "image.png").write_bytes(png_bytes())
    assert call("read_file", path="image.png").text == (
        "Error: Binary files are not supported. File detected as image/png. "
        "Please use another tool or method to process this file."
    )


def test_many_control_bytes_make_a_file_binary(root: Path, call) -> None:
    (root / "ctl.txt").write_bytes(b"\x01\x02\x03" + b"a" * 20)  # 3 of 23 bytes: over 10%
    assert call("read_file", path="ctl.txt").is_error
    (root / "esc.txt").write_bytes(b"\x1b[31mred\x1b[0m\n\x08\t\x0b\x0c\n")  # ANSI escapes are text
    assert not call("read_file", path="esc.txt").is_error


def test_filetype_false_positive_is_still_text(root: Path, call) -> None:
    (root / "notes.txt").write_bytes(b"BM is how this note starts\n")  # filetype says image/bmp
    assert call("read_file", path="notes.txt").text == window("notes.txt", 1, 1, 1, "BM is how this note starts")


def test_a_100k_character_line_is_guarded(root: Path, call) -> None:
    (root / "long.txt").write_text("x" * 100_000 + "\nshort\n")
    result = call("read_file", path="long.txt")
    header = f"[File: long.txt | Lines 1-2 of 2]\n{NOTE}\n{RULE}\n"
    full_length = len(header) + 100_000 + len("\nshort\n") + len(RULE) + len("\n[File read completed. Total lines: 2]")
    cut = (header + "x" * 100_000)[:28000]
    assert result.text == (
        f"{cut}\n\n[OUTPUT TRUNCATED]\nTool 'read_file' returned ~{int(full_length / 3.5)} tokens, "
        f"showing first ~{int(28000 / 3.5)}.\nUse more specific parameters or pagination to get remaining data."
    )
    assert result.truncated and not result.is_error


def test_docx_is_converted_to_markdown(root: Path, call) -> None:
    write_docx(root / "report.docx", ["Hello DOCX", "Second paragraph"])
    result = call("read_file", path="report.docx")
    assert result.text == window("report.docx", 1, 3, 3, "Hello DOCX\n\nSecond paragraph")


def test_docx_found_by_extension_when_magic_numbers_miss_it(root: Path, call) -> None:
    write_docx(root / "late.docx", ["Late entry"], first_entry="aaa/padding.bin")
    assert call("read_file", path="late.docx").text == window("late.docx", 1, 1, 1, "Late entry")


def test_pdf_is_converted_to_markdown(root: Path, call) -> None:
    (root / "paper.pdf").write_bytes(pdf_bytes(["Hello PDF page one", "Second page text"]))
    result = call("read_file", path="paper.pdf")
    assert result.text == window("paper.pdf", 1, 4, 4, "Hello PDF page one\n\n\x0cSecond page text\n")


def test_second_read_of_a_document_uses_the_cache(root: Path, call, isolated_cache: Path) -> None:
    (root / "paper.pdf").write_bytes(pdf_bytes(["Cached"]))
    first = call("read_file", path="paper.pdf").text
    assert list((isolated_cache / "documents").glob("*.md"))
    assert call("read_file", path="paper.pdf", start_line=1).text == first


def test_corrupt_pdf_is_a_conversion_error(root: Path, call) -> None:
    (root / "broken.pdf").write_bytes(pdf_bytes(["Hello"])[:150])
    result = call("read_file", path="broken.pdf")
    assert result.is_error
    assert result.text.startswith("Error: Could not convert 'broken.pdf' to text: the PDF is damaged")
    assert result.text.endswith(".")


def test_missing_file(call) -> None:
    assert call("read_file", path="nope.txt").text == "Error: File 'nope.txt' does not exist."


def test_directory(root: Path, call) -> None:
    (root / "sub").mkdir()
    assert call("read_file", path="sub").text == "Error: 'sub' is a directory."


def test_an_edited_document_is_converted_again(root: Path, call) -> None:
    document = write_docx(root / "notes.docx", ["First version"])
    assert "First version" in call("read_file", path="notes.docx").text
    write_docx(document, ["Second version", "with more"])
    os.utime(document, ns=(1, 10**18))  # a different mtime even on coarse clocks
    assert call("read_file", path="notes.docx").text == window("notes.docx", 1, 3, 3, "Second version\n\nwith more")


def test_xlsx_is_converted_to_a_markdown_table(root: Path, call) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.active.title = "Prices"
    book.active.append(["item", "price"])
    book.active.append(["tea", 3])
    book.save(root / "prices.xlsx")
    text = call("read_file", path="prices.xlsx").text
    assert text.startswith("[File: prices.xlsx | Lines 1-")
    assert "## Prices" in text and "| tea | 3 |" in text
