"""Confinement and display paths (contract section 1), with the attacks that broke other servers."""

from __future__ import annotations

import functools
import json
import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from agentpager import Workspace


def first_line(text: str) -> str:
    return text.split("\n", 1)[0]


@pytest.fixture
def outside(root: Path) -> Path:
    """A sibling of the root whose name starts with the root's name."""
    sibling = root.parent / (root.name + "2")
    sibling.mkdir()
    (sibling / "secret.txt").write_text("secret\n")
    return sibling


def test_sibling_sharing_the_roots_prefix_is_outside(root: Path, outside: Path, call) -> None:
    for argument in ("../proj2/secret.txt", str(outside / "secret.txt")):
        result = call("read_file", path=argument)
        assert (result.text, result.is_error) == (f"Error: Path '{argument}' is outside the workspace.", True)


def test_symlink_inside_pointing_outside_is_outside(root: Path, outside: Path, call) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside)
    assert call("read_file", path="link.txt").text == "Error: Path 'link.txt' is outside the workspace."
    assert call("read_file", path="linkdir/secret.txt").text == (
        "Error: Path 'linkdir/secret.txt' is outside the workspace."
    )
    assert call("list_files", path="linkdir").text == "Error: Path 'linkdir' is outside the workspace."


def test_symlink_pointing_outside_is_left_out_of_listings(root: Path, outside: Path, call) -> None:
    (root / "inside.txt").write_text("in\n")
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "alias.txt").symlink_to(root / "inside.txt")
    assert call("list_files").text == "alias.txt\ninside.txt"


def test_symlink_inside_pointing_inside_keeps_its_name(root: Path, call) -> None:
    (root / "real.txt").write_text("x\n")
    (root / "alias.txt").symlink_to("real.txt")
    assert call("read_file", path="alias.txt").text.startswith("[File: alias.txt | Lines 1-1 of 1]")


def test_dotdot_back_into_the_root_is_folded(root: Path, call) -> None:
    (root / "a.txt").write_text("x\n")
    assert call("read_file", path="../proj/a.txt").text.startswith("[File: a.txt | ")
    assert call("read_file", path="./sub/../a.txt").text.startswith("[File: a.txt | ")
    assert call("read_file", path=str(root / "a.txt")).text.startswith("[File: a.txt | ")


def test_dotdot_out_of_the_root_is_outside(call) -> None:
    assert call("read_file", path="../../etc/passwd").text == (
        "Error: Path '../../etc/passwd' is outside the workspace."
    )
    assert call("read_file", path="/etc/passwd").text == "Error: Path '/etc/passwd' is outside the workspace."


def test_root_given_through_a_symlink(root: Path) -> None:
    (root / "a.txt").write_text("x\n")
    link = root.parent / "rootlink"
    link.symlink_to(root)
    workspace = Workspace(link)
    for argument in ("a.txt", str(link / "a.txt"), str(root / "a.txt")):
        assert first_line(workspace.call("read_file", {"path": argument}).text) == "[File: a.txt | Lines 1-1 of 1]"


def test_empty_and_nul_paths(call) -> None:
    assert call("read_file", path="").text == "Error: path must not be empty."
    assert call("read_file", path="a\0b").text == "Error: Path contains a NUL byte."
    assert call("list_files", path="").text == "Error: path must not be empty."


def test_unresolvable_paths_count_as_missing(root: Path, call) -> None:
    (root / "file.txt").write_text("x\n")
    (root / "loop1").symlink_to("loop2")
    (root / "loop2").symlink_to("loop1")
    assert call("read_file", path="file.txt/x").text == "Error: File 'file.txt/x' does not exist."
    assert call("read_file", path="loop1").text == "Error: File 'loop1' does not exist."
    assert call("read_file", path="a" * 5000).text == f"Error: File '{'a' * 5000}' does not exist."[:28000]
    assert call("list_files", path="nodir").text == "Error: Directory 'nodir' does not exist."
    assert call("list_files", path="file.txt").text == "Error: 'file.txt' is not a directory."


def run_briefly(function, *args):
    """Run ``function`` in a thread and fail if it blocks (opening a FIFO would)."""
    results = []
    worker = threading.Thread(target=lambda: results.append(function(*args)), daemon=True)
    worker.start()
    worker.join(10)
    assert results, "the call blocked"
    return results[0]


def test_fifo_is_refused_without_blocking(root: Path, call) -> None:
    os.mkfifo(root / "pipe")
    for profile, tool, key in (
        ("qq", "read_file", "path"),
        ("forge", "fs_read", "path"),
        ("crush", "file_read", "filename"),
        ("vault", "read_file", "path"),
    ):
        result = run_briefly(functools.partial(call, tool, profile=profile, **{key: "pipe"}))
        assert "'pipe' is not a regular file." in result.text
        assert result.is_error


def test_socket_is_refused(root: Path, call) -> None:
    os.chdir(root)  # AF_UNIX paths are short; bind relative to the root
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind("sock")
        assert call("read_file", path="sock").text == "Error: 'sock' is not a regular file."
    finally:
        server.close()


def test_device_is_refused(root: Path, call) -> None:
    try:
        os.mknod(root / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("creating a device node needs root")
    assert call("read_file", path="null").text == "Error: 'null' is not a regular file."


def test_unreadable_file_and_directory(public_root: Path, unprivileged) -> None:
    (public_root / "locked.txt").write_text("secret\n")
    (public_root / "locked.txt").chmod(0)
    (public_root / "lockeddir").mkdir(mode=0)
    workspace = Workspace(public_root)
    output = unprivileged(
        lambda: (
            workspace.call("read_file", {"path": "locked.txt"}).text
            + "|"
            + workspace.call("list_files", {"path": "lockeddir"}).text
        )
    )
    assert output == "Error: Permission denied: 'locked.txt'.|Error: Permission denied: 'lockeddir'."


@pytest.mark.parametrize(
    ("argument", "display"),
    [(".", "."), ("", "."), ("sub/../a.txt", "a.txt"), ("./a.txt", "a.txt"), ("../x/y", "../x/y")],
)
def test_display_path(root: Path, argument: str, display: str) -> None:
    assert Workspace(root).root.display(argument) == display


def test_a_trailing_slash_names_a_directory(root: Path, call) -> None:
    (root / "a.txt").write_text("x\n")
    (root / "sub").mkdir()
    for argument in ("a.txt/", "a.txt/.", "a.txt//", "./a.txt/"):
        assert call("read_file", path=argument).text == f"Error: File '{argument}' does not exist."
        assert call("file_read", profile="crush", filename=argument).text == (
            f"Error: File '{argument}' does not exist."
        )
    assert call("read_file", path="sub/").text == "Error: 'sub/' is a directory."
    assert call("list_files", path="a.txt/").text == "Error: Directory 'a.txt/' does not exist."
    assert call("list_files", path="sub/").text == "No files found matching the criteria."


def make_deep_file(root: Path, depth: int, content: str) -> str:
    """A file below ``depth`` directories of 200 characters, made through descriptors (its path is too long
    for the system calls that take one); returns its path relative to ``root``."""
    names = [f"{level:03d}" + "d" * 197 for level in range(depth)]
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in names:
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        out = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, content.encode())
        os.close(out)
    finally:
        os.close(fd)
    return "/".join([*names, "deep.txt"])


def test_paths_longer_than_path_max_are_read_and_listed(root: Path, call) -> None:
    deep = make_deep_file(root, 25, "deep line\n")
    assert len(str(root / deep).encode()) > os.pathconf("/", "PC_PATH_MAX")
    assert call("read_file", path=deep).text == (
        f"[File: {deep} | Lines 1-1 of 1]\n[Note: Output limited to 200 lines max per request.]\n"
        f"{'-' * 40}\ndeep line\n{'-' * 40}\n[File read completed. Total lines: 1]"
    )
    assert call("read_file", path=str(root / deep)).text.startswith(f"[File: {deep} | Lines 1-1 of 1]")
    assert json.loads(call("fs_read", profile="forge", path=deep).text)["content"] == "deep line\n"
    assert call("list_files", recursive=True).text == deep
    assert call("count_files", recursive=True).text.endswith("Total files recursively: 1\n\nBy extension:\n  .txt: 1")
    assert call("list_files", path=deep.rsplit("/", 1)[0]).text == deep


def test_an_agent_listing_never_follows_a_symlink_out_of_the_root(root: Path, outside: Path) -> None:
    """OpenHands lists two levels: a symlink to a directory inside is one, a symlink out is an entry."""
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_text("a\n")
    (root / "insub").symlink_to("sub")
    (root / "outdir").symlink_to(outside)
    listed = Workspace(root, "openhands").call("file_editor", {"command": "view", "path": str(root)}).text
    assert listed == (
        f"Here's the files and directories up to 2 levels deep in {root}, excluding hidden items:\n"
        f"{root}/\n{root}/insub/\n{root}/insub/a.txt\n{root}/outdir\n{root}/sub/\n{root}/sub/a.txt"
    )


def test_gemini_context_files_are_read_beneath_the_root(root: Path, outside: Path) -> None:
    """Gemini CLI appends the GEMINI.md of a file's directory: one that links out of the workspace is skipped."""
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_text("a\n")
    (root / "sub" / "GEMINI.md").symlink_to(outside / "secret.txt")
    (root / "other").mkdir()
    (root / "other" / "b.txt").write_text("b\n")
    (root / "other" / "GEMINI.md").write_text("inside context\n")
    workspace = Workspace(root, "gemini-cli")
    assert "secret" not in workspace.call("read_file", {"file_path": "sub/a.txt"}).text
    assert "inside context" in workspace.call("read_file", {"file_path": "other/b.txt"}).text
