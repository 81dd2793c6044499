"""The descriptor-based resolver against a reference model of contract section 1, on random trees.

The model is the contract read literally, by name: R/path resolved as ``os.path.realpath`` resolves
it (checked against it) decides outside or inside, ``os.stat`` of that real path decides missing
and what is there; a symlink loop (more than 40 symlinks, the kernel's limit) is missing, and a path
ending in ``/``, ``/.`` or ``/..`` names a directory. Trees mix files, directories, FIFOs and
symlinks that stay inside, leave, come back, dangle or loop. Every descriptor the resolver opens is
checked to lie inside the root.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from examples import examples
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agentpager.engine import beneath
from agentpager.tools.errors import ToolError
from agentpager.tools.paths import Root, is_within, resolve

NAMES = ["a", "b.txt", "d", "e"]
COMPONENTS = [*NAMES, "..", ".", "", "missing", "proj", "outside", "back"]
PLACES = {"ROOT": "proj", "OUTSIDE": "outside", "BASE": ""}

relative_paths = st.lists(st.sampled_from(COMPONENTS), min_size=1, max_size=5).map("/".join)
targets = st.one_of(
    relative_paths.filter(bool),
    st.sampled_from(NAMES),
    st.tuples(st.sampled_from(sorted(PLACES)), relative_paths).map(lambda pair: f"{pair[0]}/{pair[1]}"),
)
entries = st.lists(
    st.tuples(
        st.integers(0, 7),  # the parent: the root or one of the directories made before
        st.sampled_from(NAMES),
        st.sampled_from(["file", "directory", "fifo", "symlink"]),
        targets,
    ),
    max_size=10,
)
arguments = st.one_of(
    relative_paths,
    st.tuples(st.sampled_from(["ROOT", "ROOTLINK", "OUTSIDE", "BASE"]), relative_paths).map(
        lambda pair: f"{pair[0]}/{pair[1]}"
    ),
)


def build(base: Path, tree: list[tuple[int, str, str, str]]) -> None:
    """The root ``base/proj`` with ``tree`` in it; ``base/outside`` holds a file, a directory and a way back."""
    (base / "proj").mkdir()
    (base / "outside" / "d").mkdir(parents=True)
    (base / "outside" / "a").write_text("outside\n")
    (base / "outside" / "d" / "a").write_text("outside\n")
    (base / "outside" / "back").symlink_to(base / "proj")
    (base / "rootlink").symlink_to("proj")
    directories = [base / "proj"]
    for parent_number, name, kind, target in tree:
        path = directories[parent_number % len(directories)] / name
        if os.path.lexists(path):
            continue
        if kind == "file":
            path.write_text(f"{name}\n")
        elif kind == "directory":
            path.mkdir()
            directories.append(path)
        elif kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to(expand(base, target))


def expand(base: Path, text: str) -> str:
    for place, relative in {**PLACES, "ROOTLINK": "rootlink"}.items():
        if text.startswith(place + "/"):
            return str(base / relative) + text[len(place) :]
    return text


def resolve_by_name(path: str) -> str | None:
    """``path`` with its symlinks resolved the classic way, by name (lstat and readlink), as realpath
    does; None when following it takes more than 40 symlinks (a loop)."""
    resolved: list[str] = []
    todo = [part for part in path.split("/") if part not in ("", ".")][::-1]
    hops = 0
    while todo:
        name = todo.pop()
        if name == "..":
            resolved = resolved[:-1]
            continue
        candidate = "/" + "/".join([*resolved, name])
        try:
            is_link = stat.S_ISLNK(os.lstat(candidate).st_mode)
        except OSError:
            is_link = False  # missing, or under something that is not a directory: kept as written
        if not is_link:
            resolved.append(name)
            continue
        hops += 1
        if hops > 40:
            return None
        target = os.readlink(candidate)
        if target.startswith("/"):
            resolved = []
        todo.extend([part for part in target.split("/") if part not in ("", ".")][::-1])
    return "/" + "/".join(resolved)


def model(root: Root, argument: str, want: str) -> str:
    """Contract section 1, checks 1 to 5 (the tests run as a user who may read everything here)."""
    if argument == "":
        return "path must not be empty."
    noun = "File" if want == "file" else "Directory"
    path = os.path.join(root.path, argument)
    real = resolve_by_name(path)
    if real is None:  # a symlink loop counts as missing
        return f"{noun} '{argument}' does not exist."
    assert real == os.path.realpath(path), "the model resolves as realpath does"
    if not is_within(real, root.real):
        return f"Path '{argument}' is outside the workspace."
    try:
        st_mode = os.stat(real).st_mode
    except OSError:
        return f"{noun} '{argument}' does not exist."
    last = argument.rstrip("/").rsplit("/", 1)[-1]
    if (argument.endswith("/") or last in (".", "..")) and not stat.S_ISDIR(st_mode):
        return f"{noun} '{argument}' does not exist."
    if want == "file":
        if stat.S_ISDIR(st_mode):
            return f"'{argument}' is a directory."
        if not stat.S_ISREG(st_mode):
            return f"'{argument}' is not a regular file."
    elif not stat.S_ISDIR(st_mode):
        return f"'{argument}' is not a directory."
    return f"opened {root.display(argument)} at {real}"


@contextmanager
def every_open_checked(root: Root) -> Iterator[None]:
    """Fail if the resolver opens anything outside the root (by name, relative to a descriptor, or openat2)."""
    open_file, openat2 = os.open, beneath._openat2

    def inside(fd: int) -> int:
        where = os.readlink(f"/proc/self/fd/{fd}")
        assert is_within(where, root.real), f"opened {where}, outside {root.real}"
        return fd

    with (
        mock.patch.object(os, "open", lambda *args, **kwargs: inside(open_file(*args, **kwargs))),
        mock.patch.object(beneath, "_openat2", lambda *args: inside(openat2(*args))),
    ):
        yield


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tree=entries,
    argument=arguments,
    want=st.sampled_from(["file", "directory"]),
    through_link=st.booleans(),
    kernel=st.booleans(),
)
def test_the_resolver_gives_the_contracts_answer_and_opens_nothing_outside(
    tree: list[tuple[int, str, str, str]], argument: str, want: str, through_link: bool, kernel: bool
) -> None:
    if kernel and not beneath._openat2_works():
        kernel = False
    with tempfile.TemporaryDirectory() as directory:
        base = Path(directory).resolve()
        build(base, tree)
        root = Root.of(base / ("rootlink" if through_link else "proj"))
        argument = expand(base, argument)
        expected = model(root, argument, want)
        with mock.patch.object(beneath, "_openat2_works", lambda: kernel), every_open_checked(root):
            try:
                with resolve(root, argument, want) as resolved:  # type: ignore[arg-type]
                    opened = os.fstat(resolved.fd)
                    answer = f"opened {resolved.display} at {resolved.real}"
            except ToolError as error:
                answer = error.message
        assert answer == expected
        event(
            next(
                kind
                for kind in ("opened", "outside", "not exist", "is a directory", "not a", "empty")
                if kind in answer
            )
        )
        if answer.startswith("opened"):
            target = os.stat(resolved.real)
            assert (opened.st_dev, opened.st_ino) == (target.st_dev, target.st_ino)
