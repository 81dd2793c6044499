"""Failures of background jobs are reported, not fatal.

The app's workers are started with ``exit_on_error=False``: a bug met while reading one file must
not take the whole app down. Worker state messages do not bubble, so each widget that starts
workers mixes this in.
"""

from __future__ import annotations

from textual.worker import Worker, WorkerState


class ReportsFailures:
    """Mixed into the app and the widgets that start workers (before the Textual base class)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.notify(  # type: ignore[attr-defined]
                f"{event.worker.name} failed: {event.worker.error!r}", severity="error", timeout=10
            )
