"""Copying to the system clipboard with pyperclip, with nothing painted over the screen.

pyperclip runs helpers (xclip, xsel, wl-copy) that inherit the terminal: with a stale DISPLAY,
xclip prints its error across the TUI. So the copy runs in a child process whose output goes
nowhere, and reads the text back to know it really worked. When no helper works, the app falls
back to Textual's OSC 52 escape, which most terminals (also over SSH) honour.
"""

from __future__ import annotations

import functools
import subprocess
import sys

_COPY = """
import sys, pyperclip
text = sys.stdin.read()
pyperclip.copy(text)
sys.exit(0 if pyperclip.paste() == text else 1)
"""


@functools.cache
def system_clipboard() -> str | None:
    """The name of the clipboard mechanism pyperclip would use, or None when it has none."""
    try:
        import pyperclip

        copy, _ = pyperclip.determine_clipboard()
    except Exception:  # pyperclip raises its own errors on odd platforms
        return None
    if not copy:
        return None
    name = getattr(copy, "__name__", "")
    return name.removeprefix("copy_").removesuffix("_clipboard") or "pyperclip"


def copy_with_pyperclip(text: str, timeout: float = 5.0) -> bool:
    """Copy ``text`` with pyperclip in a silent child process; whether it verifiably worked."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _COPY],
            input=text.encode("utf-8", "surrogatepass"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0
