"""forge fs_read: byte ranges aligned to UTF-8 characters, as JSON (contract section 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from samples import pdf_bytes, png_bytes


def fs_read(call, **arguments):
    return call("fs_read", profile="forge", **arguments)


def test_whole_small_file_literal(root: Path, call) -> None:
    (root / "a.txt").write_text("héllo\n", encoding="utf-8")
    result = fs_read(call, path="a.txt")
    assert (
        result.text
        == """{
  "path": "a.txt",
  "content": "héllo\\n",
  "metadata": {
    "file_size": 7,
    "requested_range": {
      "start_byte": null,
      "end_byte": null
    },
    "actual_range": {
      "start_byte": 0,
      "end_byte": 7
    },
    "boundary_adjustments": {
      "start_adjusted": false,
      "start_adjustment_reason": null,
      "end_adjusted": false,
      "end_adjustment_reason": null
    },
    "is_partial": false,
    "percent_of_file": 100.0,
    "valid_utf8": true
  }
}"""
    )
    assert not result.is_error


def metadata(result) -> dict:
    return json.loads(result.text)["metadata"]


def test_ranges_that_split_a_four_byte_character(root: Path, call) -> None:
    data = "ab🎉cd".encode()  # the emoji is bytes 2..5
    (root / "e.txt").write_bytes(data)
    for start, end in [(3, 4), (4, 5), (5, 6), (2, 3)]:
        result = json.loads(fs_read(call, path="e.txt", start_byte=start, end_byte=end).text)
        assert result["content"] == "🎉"
        assert result["metadata"]["actual_range"] == {"start_byte": 2, "end_byte": 6}
        adjustments = result["metadata"]["boundary_adjustments"]
        assert adjustments["start_adjusted"] == (start != 2)
        assert adjustments["start_adjustment_reason"] == ("UTF-8 character boundary alignment" if start != 2 else None)
        assert adjustments["end_adjusted"] == (end != 6)
        assert result["metadata"]["is_partial"] is True
        assert result["metadata"]["percent_of_file"] == round(4 * 100 / 8, 1)


def test_empty_range_inside_a_character_widens_to_it(root: Path, call) -> None:
    (root / "e.txt").write_bytes("ab🎉cd".encode())
    result = json.loads(fs_read(call, path="e.txt", start_byte=4, end_byte=4).text)
    assert (result["content"], result["metadata"]["actual_range"]) == ("🎉", {"start_byte": 2, "end_byte": 6})


def test_end_past_the_file_is_clamped(root: Path, call) -> None:
    (root / "a.txt").write_bytes(b"0123456789")
    result = json.loads(fs_read(call, path="a.txt", start_byte=5, end_byte=100).text)
    assert result["content"] == "56789"
    assert result["metadata"]["requested_range"] == {"start_byte": 5, "end_byte": 100}
    assert result["metadata"]["boundary_adjustments"] == {
        "start_adjusted": False,
        "start_adjustment_reason": None,
        "end_adjusted": True,
        "end_adjustment_reason": "Clamped to file size",
    }
    assert result["metadata"]["percent_of_file"] == 50.0


def test_empty_file(root: Path, call) -> None:
    (root / "empty.txt").write_bytes(b"")
    result = json.loads(fs_read(call, path="empty.txt").text)
    assert result["content"] == ""
    assert result["metadata"]["percent_of_file"] == 100.0
    assert result["metadata"]["is_partial"] is False


def test_utf8_bom_is_part_of_the_bytes(root: Path, call) -> None:
    (root / "bom.txt").write_bytes(b"\xef\xbb\xbfhi")
    result = json.loads(fs_read(call, path="bom.txt").text)
    assert result["content"] == "\ufeffhi"


def test_invalid_utf8_is_replaced_and_reported(root: Path, call) -> None:
    (root / "bad.txt").write_bytes(b"caf\xe9 ok")
    result = json.loads(fs_read(call, path="bad.txt").text)
    assert (result["content"], result["metadata"]["valid_utf8"]) == ("caf\ufffd ok", False)


def test_range_limit(root: Path, call) -> None:
    (root / "big.txt").write_bytes(b"x" * 70000)
    assert fs_read(call, path="big.txt").text == json.dumps(
        {
            "error": "Requested range is 70000 bytes; the maximum per read is 65536 bytes. Use start_byte "
            "and end_byte to read a smaller range (file size 70000)."
        },
        indent=2,
    )
    assert json.loads(fs_read(call, path="big.txt", start_byte=4464).text)["metadata"]["actual_range"] == {
        "start_byte": 4464,
        "end_byte": 70000,
    }


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"start_byte": -1}, "Invalid range specified: start_byte (-1) must be >= 0."),
        ({"end_byte": -5}, "Invalid range specified: end_byte (-5) must be >= 0."),
        ({"start_byte": 9, "end_byte": 4}, "Invalid range specified: start_byte (9) is greater than end_byte (4)."),
        ({"start_byte": 11}, "Invalid range specified: start_byte (11) is beyond the end of the file (file size 10)."),
        ({"start_byte": "x"}, "Invalid value for 'start_byte': expected integer, got \"x\"."),
        ({"start_byte": 1.0}, "Invalid value for 'start_byte': expected integer, got 1.0."),
        ({"nope": 1}, "Unknown argument 'nope'. Valid arguments: path, start_byte, end_byte."),
        (
            {"start_byte": "x" * 198},
            f"Invalid value for 'start_byte': expected integer, got \"{'x' * 198}\".",
        ),
        (
            {"start_byte": "x" * 50000},
            f"Invalid value for 'start_byte': expected integer, got \"{'x' * 199}… (50,002 characters).",
        ),
        (
            {"y" * 50000: 1},
            f"Unknown argument '{'y' * 200}… (50,000 characters)'. Valid arguments: path, start_byte, end_byte.",
        ),
    ],
)
def test_errors_are_json_objects(root: Path, call, arguments: dict, message: str) -> None:
    (root / "a.txt").write_bytes(b"0123456789")
    result = fs_read(call, path="a.txt", **arguments)
    assert result.text == '{\n  "error": ' + json.dumps(message, ensure_ascii=False) + "\n}"
    assert result.is_error


def test_null_means_absent(root: Path, call) -> None:
    (root / "a.txt").write_bytes(b"0123456789")
    result = json.loads(fs_read(call, path="a.txt", start_byte=None, end_byte=None).text)
    assert result["metadata"]["actual_range"] == {"start_byte": 0, "end_byte": 10}


def test_binary_documents_and_utf16_are_refused(root: Path, call) -> None:
    (root / "i.png").write_bytes(png_bytes())
    (root / "d.pdf").write_bytes(pdf_bytes(["x"]))
    (root / "w.txt").write_bytes(b"\xff\xfeh\x00i\x00")
    assert json.loads(fs_read(call, path="i.png").text) == {
        "error": "Binary files are not supported. File detected as image/png. "
        "Please use another tool or method to process this file."
    }
    assert "File detected as application/pdf." in fs_read(call, path="d.pdf").text
    assert json.loads(fs_read(call, path="w.txt").text) == {
        "error": "Only UTF-8 text files are supported; 'w.txt' is utf-16-le."
    }


def test_no_output_guard(root: Path, call) -> None:
    (root / "a.txt").write_bytes(b"y" * 60000)
    result = fs_read(call, path="a.txt")
    assert not result.truncated and len(json.loads(result.text)["content"]) == 60000
