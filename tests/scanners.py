"""The three ways newlines are counted and found (``engine.newline_scan``), and the two ways a
directory is read (``engine.filesystem.scan_directory``), for tests to run each."""

from __future__ import annotations

import shlex
import shutil
import sysconfig
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from unittest import mock

import pytest

from agentpager.engine import filesystem, newline_scan

SCANNERS = ["c", "numpy", "bytes"]
"""c: the C module built with the package; numpy: numpy for every buffer; bytes: bytes methods
for small buffers (numpy only past NUMPY_MIN_BYTES)."""


DIRECTORY_SCANS = ["c", "python"]
"""c: the C module built with the package (``_dirscan``); python: ``os.scandir``."""


def _native_missing(what: str) -> None:
    """Skips a test of a C module that no compiler here could build; fails when one could have."""
    compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler here: the package was built without its {what}")
    raise AssertionError(f"{compiler} is here but the {what} was not built (hatch_build.py)")


@contextmanager
def directory_scan(name: str) -> Iterator[None]:
    if name == "c" and filesystem._native is None:
        _native_missing("C directory scan")
    with ExitStack() as stack:
        if name != "c":
            stack.enter_context(mock.patch.object(filesystem, "_native", None))
        yield


@contextmanager
def scanner(name: str) -> Iterator[None]:
    with ExitStack() as stack:
        if name == "c" and not newline_scan.native():
            _native_missing("C newline counter")
        if name != "c":
            stack.enter_context(mock.patch.object(newline_scan, "_native", None))
        if name == "numpy":
            stack.enter_context(mock.patch.object(newline_scan, "NUMPY_MIN_BYTES", 0))
            stack.enter_context(mock.patch.object(newline_scan, "SPARSE_NEWLINES", 1))
        yield
