"""What the TUI tests share: waiting until the app has done what it was asked."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual import events
from textual.pilot import Pilot
from textual.widgets import Select
from textual.worker import WorkerCancelled
from waiting import HANG


async def settle(pilot: Pilot, rounds: int = 5) -> None:
    """Let workers finish and the messages they posted be handled: up to ``rounds`` times, and no
    more once a round ends with no worker running (what those posted is handled: the next rounds
    found nothing to do, and took a quarter of the TUI tests' time)."""
    for done in range(1, rounds + 1):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            pass  # an exclusive worker replaced by a newer one
        await pilot.pause()
        if done >= 2 and not any(worker.is_running for worker in pilot.app.workers):
            return


async def until(pilot: Pilot, condition: Callable[[], bool], what: str) -> None:
    """Let the app run until ``condition()`` holds: what a timer or a worker brings, at its own pace."""
    deadline = time.monotonic() + HANG
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        await pilot.pause(0.05)


async def type_ahead(pilot: Pilot, *keys: str) -> None:
    """Send ``keys`` to the app all at once, as a terminal does with fast typing or a paste (``pilot.press``
    waits for the app to be idle after each key), and let the app handle them."""
    for key in keys:
        pilot.app.post_message(events.Key(key, "\r" if key == "enter" else None))
    await pilot.pause()


async def choose_profile(pilot: Pilot, name: str) -> None:
    """Choose a profile in the tool panel as a person does: the chooser is focused first (it lists
    every profile only then), then the profile picked."""
    chooser = pilot.app.query_one("#profile", Select)
    chooser.focus()
    await pilot.pause()
    chooser.value = name
