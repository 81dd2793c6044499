"""Why a command cannot be replayed."""

from __future__ import annotations


class Unsupported(Exception):
    """Raised anywhere in parsing or emulation; ``emulate`` answers it as NotReplayable."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
