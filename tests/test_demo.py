"""``agentpager demo``: what it builds, that its documents convert and its session replays, and reuse."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from agentpager import Workspace
from agentpager.cli import main
from agentpager.demo import BUILDING, LOG, MARKER, SESSION, DemoError, build_demo, parse_size
from agentpager.demo.documents import docx_bytes, pdf_bytes
from agentpager.transcripts import open_transcript
from agentpager.transcripts.replay import Replayer

SIZE = 3_000_000  # the size of the demo conftest.py builds (demo_root)
STAMP = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO |WARN |ERROR) ")


def test_the_log_is_whole_lines_of_rising_timestamps_with_errors_and_long_lines(demo_root: Path) -> None:
    data = (demo_root / LOG).read_bytes()
    assert SIZE - 40_000 < len(data) <= SIZE and data.endswith(b"\n")
    lines = data.split(b"\n")[:-1]
    assert all(STAMP.match(line) for line in lines)
    stamps = [line[:24] for line in lines]
    assert stamps == sorted(stamps), "timestamps rise through the file"
    assert sum(b" ERROR " in line[:32] for line in lines) >= 5
    assert max(len(line) for line in lines) > 28_000, "one line is longer than the output guard lets through"
    assert sum(len(line) > 1000 for line in lines) > 10


def test_the_log_reaches_the_size_asked_for_quickly_by_repeating_hours(tmp_path: Path) -> None:
    from agentpager.demo.log import write_log

    facts = write_log(tmp_path / "big.log", 20_000_000)
    data = (tmp_path / "big.log").read_bytes()
    assert facts.size == len(data) and facts.lines == data.count(b"\n")
    assert {line[:13] for line in data.split(b"\n")[:-1:5000]} >= {b"2026-11-20T00", b"2026-11-20T01", b"2026-11-20T02"}
    line, text = facts.errors[7]
    assert data.split(b"\n")[line - 1].decode() == text, "the error lines the session quotes are where it says"


def test_250_fixtures_in_subfolders_and_a_listing_that_warns(demo_root: Path) -> None:
    fixtures = [path for path in (demo_root / "fixtures").rglob("*") if path.is_file()]
    assert len(fixtures) == 250
    assert {path.parent.name for path in fixtures} == {"orders", "customers", "products"}
    workspace = Workspace(demo_root)
    listing = workspace.call("list_files", {"path": "fixtures/orders"})
    assert listing.text.startswith("Warning: 180 files match pattern '*' in directory 'fixtures/orders'.")
    assert workspace.call("list_files", {"path": "fixtures/orders", "limit": 100}).text.startswith(
        "[Files 1-100 of 180]"
    )


@pytest.mark.slow
def test_the_docx_and_pdf_convert_to_real_text(demo_root: Path) -> None:
    workspace = Workspace(demo_root)
    report = workspace.call("read_file", {"path": "docs/incident-report.docx"})
    assert not report.is_error, report.text
    assert "# Incident report: nightly export failed" in report.text
    assert "## Timeline" in report.text
    assert "| Time (UTC) | Event |" in report.text and "| 02:03 | First 'charge failed'" in report.text
    architecture = workspace.call("read_file", {"path": "docs/architecture.pdf"})
    assert not architecture.is_error, architecture.text
    assert "Shop architecture" in architecture.text
    assert "A charge is tried up to PAYMENT_RETRIES (3) times, each waiting PAYMENT_TIMEOUT_S." in architecture.text


def test_documents_escape_what_their_formats_reserve(tmp_path: Path) -> None:
    from markitdown import MarkItDown

    (tmp_path / "a.docx").write_bytes(docx_bytes([("p", 'R&D <draft> "quoted"')]))
    (tmp_path / "a.pdf").write_bytes(pdf_bytes([["Title (v2)", "a \\ backslash and (parentheses)"]]))
    converter = MarkItDown()
    assert 'R&D <draft> "quoted"' in converter.convert_local(str(tmp_path / "a.docx")).text_content
    text = converter.convert_local(str(tmp_path / "a.pdf")).text_content
    assert "Title (v2)" in text and "a \\ backslash and (parentheses)" in text


def test_the_session_replays_same_but_for_the_file_edited_after_it(demo_root: Path) -> None:
    transcript = open_transcript(str(demo_root / SESSION))
    assert (transcript.format, transcript.cwd, transcript.problems) == ("claude-code", str(demo_root), [])
    replayer = Replayer(transcript, str(demo_root))  # the demo's TUI replays against the demo dir it opened
    statuses = {(call.tool, json.dumps(call.arguments)): replayer.replay(call).status for call in transcript.calls}
    differs = [key for key, status in statuses.items() if status == "differs"]
    assert len(differs) == 1 and "src/shop/config.py" in differs[0][1] and differs[0][0] == "Read"
    same = [key for key, status in statuses.items() if status == "same"]
    assert len(same) >= 6 and {tool for tool, _ in same} == {"Read", "Bash"}
    assert any('"offset"' in arguments and "app.log" in arguments for _, arguments in same)
    assert {tool for (tool, _), status in statuses.items() if status == "not replayable"} == {"Grep", "Edit"}


def test_a_complete_demo_is_reused_and_a_different_size_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    first = build_demo(root, 1_000_000)
    assert not first.reused and (root / MARKER).exists() and not (root / BUILDING).exists()
    stamp = (root / LOG).stat().st_mtime_ns
    (root / "mine.txt").write_text("kept")
    again = build_demo(root, 1_000_000)
    assert again.reused and (root / LOG).stat().st_mtime_ns == stamp and (root / "mine.txt").exists()
    bigger = build_demo(root, 2_000_000)
    assert not bigger.reused and (root / LOG).stat().st_size > 1_000_000


def test_a_half_built_demo_is_built_again(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    root.mkdir()
    (root / BUILDING).touch()
    (root / "logs").mkdir()
    (root / "logs" / "app.log").write_text("cut short\n")
    demo = build_demo(root, 1_000_000)
    assert not demo.reused and (root / LOG).stat().st_size > 900_000 and not (root / BUILDING).exists()


def test_a_truncated_log_makes_the_demo_incomplete(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    build_demo(root, 1_000_000)
    os.truncate(root / LOG, 10)
    assert not build_demo(root, 1_000_000).reused


def test_a_dir_holding_something_else_is_never_touched(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("mine")
    with pytest.raises(DemoError, match="not empty and holds no agentpager demo"):
        build_demo(root, 1_000_000)
    assert [path.name for path in root.iterdir()] == ["notes.txt"]
    (tmp_path / "file").write_text("x")
    with pytest.raises(DemoError, match="is not a directory"):
        build_demo(tmp_path / "file", 1_000_000)


@pytest.mark.parametrize(
    ("text", "size"),
    [("200M", 200_000_000), ("1.5G", 1_500_000_000), ("50MB", 50_000_000), ("800k", 800_000), ("4096", 4096)],
)
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "12x", "-5M", "10"])
def test_bad_sizes(text: str) -> None:
    with pytest.raises(ValueError, match="is not a size|too small"):
        parse_size(text)


def test_the_command_builds_and_prints_the_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "demo"
    assert main(["demo", "--no-open", "--dir", str(root), "--size", "1M"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{root}\n" and "demo workspace built in" in captured.err
    assert main(["demo", "--no-open", "--dir", str(root), "--size", "1M"]) == 0
    assert "demo workspace reused" in capsys.readouterr().err
    assert main(["demo", "--no-open", "--dir", str(root), "--size", "huge"]) == 2
    assert "'huge' is not a size" in capsys.readouterr().err
    assert main(["demo", "--no-open", "--dir", str(tmp_path), "--size", "1M"]) == 2
    assert "holds no agentpager demo" in capsys.readouterr().err
