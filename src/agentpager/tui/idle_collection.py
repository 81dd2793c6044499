"""Full garbage collections while the user is idle, not between a key and what it shows.

Textual's strips keep themselves in their own caches (``Strip.adjust_cell_length`` and ``divide``
store ``self``), so a strip that lived through two young collections in a widget's cache is a cycle
only a full collection frees. Python starts those when it likes: 20-25 ms on the UI's loop every
few jumps of the viewer, the longest stall while jumping 54-66 ms (``benchmarks/tui.py``). Here they
run once nothing happened for IDLE_SECONDS (no key or mouse event; the app adds what else moves the
screen, such as the viewer scrolling), and after LONGEST_SECONDS of activity at the latest, so what
they free stays bounded while a key is held down. What exists once the first screen
is up is frozen first: those long-lived objects are never looked at again.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from functools import cached_property

from textual import events
from textual.app import App

IDLE_SECONDS = 0.5
LONGEST_SECONDS = 10.0
CHECK_SECONDS = 0.25
NEVER = 1 << 30
"""Young collections before Python would start a full one itself."""


class IdleCollections:
    """When to collect, on a clock: after IDLE_SECONDS without activity, or LONGEST_SECONDS at most."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, collect: Callable[[], object] = gc.collect) -> None:
        self.clock, self.collect = clock, collect
        self.active_at = self.collected_at = clock()
        self._thresholds: tuple[int, int, int] | None = None

    def take_over(self) -> None:
        """Freeze what exists and stop Python from starting full collections."""
        gc.freeze()
        self._thresholds = young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, NEVER)

    def give_back(self) -> None:
        """Python starts full collections again (an app ends; tests run many in one process)."""
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def saw_activity(self) -> None:
        self.active_at = self.clock()

    def check(self) -> None:
        """Collect when it is time: still for IDLE_SECONDS once as many young collections moved
        objects to the old generation as Python waits for (a thread reading meanwhile allocates
        without end), or busy for LONGEST_SECONDS once one did."""
        now = self.clock()
        moved = gc.get_count()[2]
        waits = (self._thresholds or gc.get_threshold())[2]
        still = now - self.active_at >= IDLE_SECONDS and moved >= waits
        if still or (moved and now - self.collected_at >= LONGEST_SECONDS):
            self.collect()
            self.collected_at = now


class CollectsWhenIdle(App[None]):
    """An app that makes its full garbage collections itself, while the user is idle."""

    @cached_property
    def idle_collections(self) -> IdleCollections:
        return IdleCollections()

    def _on_mount(self, event: events.Mount) -> None:
        self.call_after_refresh(self.idle_collections.take_over)
        self.set_interval(CHECK_SECONDS, self.idle_collections.check)

    def _on_unmount(self, event: events.Unmount) -> None:
        self.idle_collections.give_back()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):
            self.idle_collections.saw_activity()
        await super().on_event(event)
