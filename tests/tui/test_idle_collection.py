"""Full garbage collections wait until nothing moves on screen (``tui/idle_collection.py``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from pilot_helpers import settle, until

from agentpager import Workspace
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.idle_collection import IDLE_SECONDS, LONGEST_SECONDS, NEVER, IdleCollections


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    """Python's thresholds, as they were before the test (and are again after it)."""
    before = gc.get_threshold()
    yield before
    gc.set_threshold(*before)


@pytest.fixture
def no_automatic_collections() -> Iterator[None]:
    """Only the test's collections change the generations' counts."""
    gc.disable()
    yield
    gc.enable()


def collections_on(clock: Clock) -> tuple[IdleCollections, list[float]]:
    collected: list[float] = []
    return IdleCollections(clock, lambda: collected.append(clock.now)), collected


@pytest.mark.usefixtures("no_automatic_collections")
def test_a_collection_waits_for_a_still_moment_and_comes_at_the_latest_after_a_long_busy_one() -> None:
    clock = Clock()
    collections, collected = collections_on(clock)
    for _ in range(gc.get_threshold()[2]):  # as many young collections as Python waits for
        gc.collect(1)
    collections.check()
    assert collected == [], "right after activity"
    for _ in range(int(LONGEST_SECONDS / 0.25) - 1):
        clock.now += 0.25
        collections.saw_activity()
        collections.check()
    assert collected == [], "busy all along, not long enough yet"
    clock.now += 0.25
    collections.saw_activity()
    collections.check()
    assert collected == [100.0 + LONGEST_SECONDS], "busy for LONGEST_SECONDS: collected anyway"
    clock.now += IDLE_SECONDS / 2
    collections.check()
    assert len(collected) == 1
    clock.now += IDLE_SECONDS / 2
    collections.check()
    assert collected[1:] == [clock.now], "still for IDLE_SECONDS"
    clock.now += 2 * IDLE_SECONDS
    gc.collect()  # Python's own: none moved since
    gc.collect(1)
    collections.check()
    assert len(collected) == 2, "still, but fewer young collections than Python waits for"
    collections.saw_activity()
    clock.now += LONGEST_SECONDS
    collections.check()
    assert len(collected) == 3, "busy for LONGEST_SECONDS: one young collection is enough"


@pytest.mark.usefixtures("no_automatic_collections")
def test_nothing_is_collected_when_no_young_collection_happened_since_the_last_full_one() -> None:
    clock = Clock()
    collections, collected = collections_on(clock)
    gc.collect()
    clock.now += 2 * LONGEST_SECONDS
    collections.check()
    assert collected == []


async def test_python_starts_no_full_collection_while_the_app_runs_and_does_again_after(
    root: Path, thresholds: tuple[int, int, int]
) -> None:
    (root / "notes.txt").write_text("".join(f"line {n}\n" for n in range(1, 500)))
    young, middle, old = thresholds
    assert old != NEVER

    app = AgentPagerApp(Workspace(root), "notes.txt")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: gc.get_threshold() == (young, middle, NEVER), "the app took over")
        collections = app.idle_collections
        collections.active_at = 0.0
        await pilot.press("j")
        assert collections.active_at > 0.0, "a key is activity"
        await settle(pilot)
        collections.active_at = 0.0
        app.viewer.go_to_line(300)
        await settle(pilot)
        assert collections.active_at > 0.0, "the viewer scrolling is activity"
    assert gc.get_threshold() == thresholds
