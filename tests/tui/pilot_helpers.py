"""What the TUI tests share: waiting until the app has done what it was asked."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.worker import WorkerCancelled


async def settle(pilot: Pilot, rounds: int = 5) -> None:
    """Let workers finish and the messages they posted be handled."""
    for _ in range(rounds):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            pass  # an exclusive worker replaced by a newer one
        await pilot.pause()
