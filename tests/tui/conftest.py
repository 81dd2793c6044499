"""What every TUI test gets."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from waiting import HANG


@pytest.fixture(autouse=True)
def patient_pilot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's pilot fails a step whose messages take over 30 s to be handled (WaitForScreenTimeout);
    on a loaded machine a step can take that long with nothing wrong: it is given waiting.HANG."""
    wait = Pilot._wait_for_screen

    async def patient(self: Pilot, timeout: float = HANG) -> bool:
        return await wait(self, timeout)

    monkeypatch.setattr(Pilot, "_wait_for_screen", patient)
