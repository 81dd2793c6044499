"""Text derived from a file (a converted document, re-encoded UTF-16) kept in the user's cache dir.

An entry is keyed by the file's real path, size and mtime, so an edited file is derived again and a
second read of an unchanged one costs a ``stat``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from agentpager.engine.lineindex import Stamp

CACHE_ENV = "AGENTPAGER_CACHE_DIR"


def cache_root() -> Path:
    """``$AGENTPAGER_CACHE_DIR``, else the platform's user cache dir for agentpager."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    import platformdirs

    return Path(platformdirs.user_cache_dir("agentpager", appauthor=False))


def entry_path(root: Path, kind: str, real_path: str, stamp: Stamp, suffix: str) -> Path:
    key = f"{real_path}\0{stamp.size}\0{stamp.mtime_ns}".encode("utf-8", "surrogateescape")
    return root / kind / (hashlib.sha256(key).hexdigest() + suffix)


def write_atomically(path: Path, chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` to ``path`` so that readers never see a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".partial-")
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
