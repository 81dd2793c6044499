"""A first listing told batch by batch (what the session browser shows while it fills)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_sessions import claude_session

from agentpager.sessions_index import listing
from agentpager.sessions_index.listing import home_key, list_sessions, refresh
from agentpager.sessions_index.store import IndexStore


def test_refresh_tells_of_each_batch_written_while_others_are_to_come(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(5):
        claude_session(tmp_path, "/home/me/shop", f"s{n}", 1, started=f"2026-01-01T09:0{n}:00.000Z")
    monkeypatch.setattr(listing, "WRITE_BATCH", 2)
    store = IndexStore()
    told: list[tuple[int, int, int]] = []

    def saved(looked: int, changed: int) -> None:
        told.append((looked, changed, len(store.sessions(home_key(str(tmp_path))))))

    refresh(str(tmp_path), store, workers=0, saved=saved)
    assert told == [(2, 5, 2), (4, 5, 4)], "told once each batch is written; the last batch is the listing's own"
    assert [Path(info.path).stem for info in list_sessions(str(tmp_path), store)] == ["s4", "s3", "s2", "s1", "s0"]
    told.clear()
    refresh(str(tmp_path), store, workers=0, saved=saved)
    assert told == [], "nothing to sum up: nothing told"
