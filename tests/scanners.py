"""The three ways newlines are counted and found (``engine.newline_scan``), for tests to run each."""

from __future__ import annotations

import shlex
import shutil
import sysconfig
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from unittest import mock

import pytest

from agentpager.engine import newline_scan

SCANNERS = ["c", "numpy", "bytes"]
"""c: the C module built with the package; numpy: numpy for every buffer; bytes: bytes methods
for small buffers (numpy only past NUMPY_MIN_BYTES)."""


@contextmanager
def scanner(name: str) -> Iterator[None]:
    with ExitStack() as stack:
        if name == "c" and not newline_scan.native():
            compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")[0]
            if shutil.which(compiler) is None:
                pytest.skip("no C compiler here: the package was built without its C newline counter")
            raise AssertionError(f"{compiler} is here but the C newline counter was not built (hatch_build.py)")
        if name != "c":
            stack.enter_context(mock.patch.object(newline_scan, "_native", None))
        if name == "numpy":
            stack.enter_context(mock.patch.object(newline_scan, "NUMPY_MIN_BYTES", 0))
            stack.enter_context(mock.patch.object(newline_scan, "SPARSE_NEWLINES", 1))
        yield
