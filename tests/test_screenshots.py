"""scripts/screenshots.py writes every screen as a non-trivial SVG showing what it is meant to show."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "screenshots.py"
EXPECTED = {
    "file-open": ["logs/app.log", "[File: logs/app.log | Lines 236-435 of", "cut by the output guard"],
    "warning-directory": ["orders/", "180 files", "⚠", "Warning: 180 files match pattern '*'"],
    "transcript": ["9 tool calls", "differs", "line │ recorded", "replayed now", "PAYMENT_TIMEOUT_S = 30.0"],
    "help": ["go to a line", "search the whole file"],
    "narrow-80x24": ["logs/app.log", "read_file"],
    "theme-paper": ["logs/app.log", "Lines 236-435"],
}


def text_of(svg: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


@pytest.mark.slow
def test_the_script_writes_every_screen(tmp_path: Path) -> None:
    temp = tmp_path / "temp"  # where the script builds its demo: the test's own
    temp.mkdir()
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path), "--size", "3M"],
        capture_output=True,
        text=True,
        timeout=HANG,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    assert done.returncode == 0, done.stderr
    assert sorted(path.stem for path in tmp_path.glob("*.svg")) == sorted(EXPECTED)
    for name, phrases in EXPECTED.items():
        svg = (tmp_path / f"{name}.svg").read_text()
        assert svg.startswith("<svg") and len(svg) > 20_000, name
        shown = text_of(svg)
        for phrase in phrases:
            assert phrase in shown, (name, phrase)


def test_the_committed_screenshots_are_the_screens_the_script_makes() -> None:
    committed = Path(__file__).resolve().parents[1] / "screenshots"
    assert sorted(path.stem for path in committed.glob("*.svg")) == sorted(EXPECTED)
