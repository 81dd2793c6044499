"""A first listing told batch by batch (what the session browser shows while it fills), and the
listing's order kept outside the index."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_sessions import claude_session

from agentpager.sessions import SessionInfo
from agentpager.sessions_index import listing
from agentpager.sessions_index.listing import home_key, in_listing_order, list_sessions, refresh
from agentpager.sessions_index.store import IndexStore


def test_refresh_tells_of_each_batch_written_while_others_are_to_come(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(5):
        claude_session(tmp_path, "/home/me/shop", f"s{n}", 1, started=f"2026-01-01T09:0{n}:00.000Z")
    monkeypatch.setattr(listing, "WRITE_BATCH", 2)
    store = IndexStore()
    told: list[tuple[list[str], int, int, int]] = []

    def saved(batch: list[SessionInfo], looked: int, changed: int) -> None:
        written = len(store.sessions(home_key(str(tmp_path))))
        told.append(([Path(info.path).stem for info in batch], looked, changed, written))

    refresh(str(tmp_path), store, workers=0, saved=saved)
    assert [(len(names), looked, changed, written) for names, looked, changed, written in told] == [
        (2, 2, 5, 2),
        (2, 4, 5, 4),
    ], "told once each batch is written; the last batch is the listing's own"
    told_names = [name for names, *_ in told for name in names]
    assert len(set(told_names)) == 4 and set(told_names) < {f"s{n}" for n in range(5)}
    assert [Path(info.path).stem for info in list_sessions(str(tmp_path), store)] == ["s4", "s3", "s2", "s1", "s0"]
    told.clear()
    refresh(str(tmp_path), store, workers=0, saved=saved)
    assert told == [], "nothing to sum up: nothing told"


def test_the_listing_order_is_the_index_order() -> None:
    times = ["", "2026-01-01T09:00:00.000Z", "2026-01-01T10:00:00.000Z", "2026-01-02T08:00:00.000Z"]
    sessions = [
        SessionInfo(f"/logs/{name}/{started}-{ended}.jsonl", "claude-code", "/home/me", started=started, ended=ended)
        for name in ("b", "a", "c")  # the same times: by path
        for started in times
        for ended in times  # not ended (""), or ended before, when or after it started
    ]
    store = IndexStore()
    store.save_summaries("home", [(info, (0, n, 0, 0)) for n, info in enumerate(sessions)])
    random.Random(7).shuffle(sessions)
    assert [info.path for info in in_listing_order(sessions)] == [info.path for info in store.sessions("home")]
