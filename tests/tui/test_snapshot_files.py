"""Every SVG in ``__snapshots__`` is the snapshot of a test that exists. syrupy finds unused snapshots
only in a run without workers; the test command runs with ``-n auto``."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

TUI = Path(__file__).parent
SNAPSHOTS = TUI / "__snapshots__"


def test_every_snapshot_has_its_test(request: pytest.FixtureRequest) -> None:
    collected: dict[tuple[str, str], set[str]] = defaultdict(set)
    for item in request.session.items:  # in a worker too: each collects every test
        collected[(item.path.stem, item.name.split("[")[0])].add(item.name)
    svgs = sorted(SNAPSHOTS.glob("*/*.svg"))
    assert len(svgs) >= 20, "the snapshots are where this test looks"
    stale = []
    for svg in svgs:
        module, name = svg.parent.name, svg.stem
        function = name.split("[")[0]
        source = TUI / f"{module}.py"
        if not source.is_file() or not re.search(rf"^(async )?def {function}\(", source.read_text(), re.MULTILINE):
            stale.append(svg.relative_to(TUI))  # the module or the function is gone
        elif (module, function) in collected and name not in collected[(module, function)]:
            stale.append(svg.relative_to(TUI))  # the function is there, not with these parameters
    assert stale == []
