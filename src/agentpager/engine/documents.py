"""PDF, DOCX, PPTX and XLSX to Markdown with markitdown, always in a child process with limits.

A document can be a bomb: a 709 KB PDF whose stream inflates to 200 MB ran out of 8 GB, a 480 KB
DOCX of 200 MB of XML took 1.98 GB and 80 s, a 3,000-page PDF 287 s. So markitdown runs in a child
(``python -m agentpager.engine.documents``), killed when its memory (resident, anonymous: what it
allocated, as /proc tells every 50 ms) or its time passes a limit, or when the caller cancels; past
a limit the conversion fails with a reason that says so. An address-space limit would not do:
onnxruntime reserves address space per core, so the same file would convert on one machine only.
The child is given the file as an open descriptor, so it converts the file the caller opened and
checked. It also keeps markitdown's imports (1.7 s, 175 MB) out of the caller.
"""

from __future__ import annotations

import errno
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentpager.engine.lineindex import Cancelled

if TYPE_CHECKING:
    import subprocess

MEMORY_ENV = "AGENTPAGER_CONVERT_MEMORY_MB"
SECONDS_ENV = "AGENTPAGER_CONVERT_SECONDS"
_FAILED = 3
"""The child's exit status when the converter failed; its stdout holds the reason."""
_OUT_OF_MEMORY = 4


class ConversionError(Exception):
    """A document could not be converted; ``reason`` is short human text for the tool message."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ConversionLimits:
    memory_mb: int = 1024
    """Memory of the child (markitdown's imports take about 160 MB)."""
    seconds: float = 120.0
    """Wall-clock time of the child, imports included (a 200-page PDF takes about 15 s)."""

    @classmethod
    def from_env(cls) -> ConversionLimits:
        """The defaults, or ``$AGENTPAGER_CONVERT_MEMORY_MB`` and ``$AGENTPAGER_CONVERT_SECONDS``."""
        default = cls()
        return cls(
            int(_positive(os.environ.get(MEMORY_ENV)) or default.memory_mb),
            _positive(os.environ.get(SECONDS_ENV)) or default.seconds,
        )


def _positive(text: str | None) -> float | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if 0 < value < float("inf") else None


def convert_document(
    fd: int,
    document_type: str,
    cancel: threading.Event | None = None,
    limits: ConversionLimits | None = None,
) -> str:
    """The Markdown markitdown 0.1.8 gives for the document open as ``fd`` (the caller's descriptor,
    opened beneath the workspace root: the child converts that file, never a path).

    ConversionError when it fails or passes a limit; Cancelled (the child killed) when ``cancel``
    is set.
    """
    import subprocess

    limits = limits or ConversionLimits.from_env()
    child = subprocess.Popen(
        [sys.executable, "-m", "agentpager.engine.documents", str(fd), document_type],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        pass_fds=(fd,),
    )
    name = document_type.upper()
    too_large = ConversionError(f"the {name} is too large to convert (it needs more than {limits.memory_mb} MB)")
    deadline = time.monotonic() + limits.seconds
    while True:
        try:
            out, _ = child.communicate(timeout=0.05)
            break
        except subprocess.TimeoutExpired:
            if cancel is not None and cancel.is_set():
                _kill(child)
                raise Cancelled() from None
            if time.monotonic() > deadline:
                _kill(child)
                raise ConversionError(
                    f"the {name} took longer than {limits.seconds:g} s to convert (it may be too large)"
                ) from None
            if _allocated(child.pid) > limits.memory_mb << 20:
                _kill(child)
                raise too_large from None
    if child.returncode == 0:
        return out.decode("utf-8", "replace")
    if child.returncode == _FAILED:
        raise ConversionError(out.decode("utf-8", "replace"))
    raise too_large  # a MemoryError, or a library that aborts when an allocation fails


def _allocated(pid: int) -> int:
    """The memory a process allocated (RssAnon), or 0 where /proc does not say."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"RssAnon:"):
                    return int(line.split()[1]) << 10
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _kill(child: subprocess.Popen[bytes]) -> None:
    child.kill()
    child.communicate()


# -- the child ------------------------------------------------------------------------------------


def _markdown(fd: int, document_type: str) -> str:
    from markitdown import MarkItDown, MarkItDownException, UnsupportedFormatException

    with os.fdopen(fd, "rb") as stream:
        try:
            return MarkItDown().convert_stream(stream, file_extension="." + document_type).markdown
        except UnsupportedFormatException:
            raise ConversionError(f"the {document_type.upper()} format is not supported") from None
        except MarkItDownException as error:
            cause = _root_cause(error)
        except Exception as error:  # a converter library failing on a damaged file (or memory)
            cause = error
    if isinstance(cause, MemoryError) or (isinstance(cause, OSError) and cause.errno == errno.ENOMEM):
        raise MemoryError
    raise ConversionError(_reason(document_type, cause))


def _root_cause(error: BaseException) -> BaseException:
    """The converter's own exception inside markitdown's FileConversionException."""
    for attempt in getattr(error, "attempts", None) or ():
        if attempt.exc_info and attempt.exc_info[1] is not None:
            return attempt.exc_info[1]
    return error


def _reason(document_type: str, error: BaseException) -> str:
    name = type(error).__name__
    detail = " ".join(str(error).split())
    if "password" in name.lower() or "encrypt" in (name + detail).lower():
        return f"the {document_type.upper()} is encrypted"
    if len(detail) > 120:
        detail = detail[:117] + "..."
    cause = f"{name}: {detail}" if detail else name
    return f"the {document_type.upper()} is damaged or unreadable ({cause})"


def _child_main(argv: list[str]) -> int:
    """``python -m agentpager.engine.documents FD TYPE``: the Markdown on stdout."""
    fd, document_type = int(argv[0]), argv[1]
    out = sys.stdout.buffer
    try:
        markdown = _markdown(fd, document_type)
    except ConversionError as error:
        out.write(error.reason.encode("utf-8"))
        return _FAILED
    except MemoryError:
        return _OUT_OF_MEMORY
    out.write(markdown.encode("utf-8", "replace"))
    return 0


if __name__ == "__main__":
    raise SystemExit(_child_main(sys.argv[1:]))
