"""The contract's error answers, before a profile gives them its form."""

from __future__ import annotations


class ToolError(Exception):
    """An answer that is one of the contract's error texts, before the profile gives it its form.

    ``whole`` marks a message that already is the entire output (some agents' errors have no form).
    ``reason`` names a path check that failed (``missing``, ``directory``, ``denied``), for the agent
    profiles whose own tools word those failures differently, and for the tree's short labels.
    """

    def __init__(self, message: str, whole: bool = False, reason: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.whole = whole
        self.reason = reason


def binary_message(mime: str) -> str:
    return (
        f"Binary files are not supported. File detected as {mime}. "
        "Please use another tool or method to process this file."
    )
