"""The openhands profile: OpenHands' file editor ``view``, with the texts openhands-tools 1.58 gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentpager import Workspace
from agentpager.agents.openhands.profiles import PROFILE, TEXT_NOTICE, clip
from agentpager.tools.base import Coverage, RecordedCall

AGENT_ROOT = "/workspace/project"
ERROR = "[An error occurred during execution.]\n"


@pytest.fixture
def project(root: Path) -> Path:
    (root / "a.py").write_text("import os\n\ndef main():\n    pass\n")
    (root / "crlf.txt").write_bytes(b"one\r\ntwo\rthree")
    (root / "empty.txt").write_bytes(b"")
    (root / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (root / "blob.bin").write_bytes(bytes(range(256)) * 8)
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "deep.py").write_text("x\n")
    (root / "src" / "main.py").write_text("y\n")
    (root / "src" / ".cache").mkdir()
    (root / ".env").write_text("SECRET=1\n")
    return root


def view(root: Path, path: str, view_range: object = None) -> tuple[str, bool]:
    arguments: dict = {"command": "view", "path": path}
    if view_range is not None:
        arguments["view_range"] = view_range
    result = Workspace(root, "openhands", settings={"working_dir": AGENT_ROOT}).call("file_editor", arguments)
    return result.text, result.is_error


def test_a_file_as_cat_n(project: Path) -> None:
    assert view(project, f"{AGENT_ROOT}/a.py") == (
        f"Here's the result of running `cat -n` on {AGENT_ROOT}/a.py:\n"
        "     1\timport os\n     2\t\n     3\tdef main():\n     4\t    pass\n",
        False,
    )


def test_a_relative_path_is_read_as_the_absolute_path_openhands_suggests(project: Path) -> None:
    assert view(project, "./a.py", [4, -1]) == (
        f"Here's the result of running `cat -n` on {AGENT_ROOT}/a.py:\n     4\t    pass\n",
        False,
    )


def test_view_ranges(project: Path) -> None:
    path = f"{AGENT_ROOT}/a.py"
    assert view(project, path, [3, 9]) == (
        "NOTE: We only show up to 4 since there're only 4 lines in this file.\n"
        f"Here's the result of running `cat -n` on {path}:\n     3\tdef main():\n     4\t    pass\n",
        False,
    )
    assert view(project, path, [5, 5]) == (
        f"{ERROR}Invalid `view_range` parameter: [5, 5]. Its first element `5` should be within the range of "
        "lines of the file: [1, 4].",
        True,
    )
    assert view(project, path, [3, 2]) == (
        f"{ERROR}Invalid `view_range` parameter: [3, 2]. Its second element `2` should be greater than or equal to "
        "the first element `3`.",
        True,
    )
    assert view(project, path, [1]) == (
        f"{ERROR}Invalid `view_range` parameter: [1]. It should be a list of two integers.",
        True,
    )
    assert view(project, path, []) == view(project, path)


def test_lines_end_at_crlf_and_at_a_lone_cr(project: Path) -> None:
    assert view(project, f"{AGENT_ROOT}/crlf.txt")[0].endswith("     1\tone\n     2\ttwo\n     3\tthree\n")


def test_an_empty_file(project: Path) -> None:
    path = f"{AGENT_ROOT}/empty.txt"
    assert view(project, path) == (f"Here's the result of running `cat -n` on {path}:\n", False)
    assert view(project, path, [1, 1])[0].endswith(
        "Its first element `1` should be within the range of lines of the file: [1, 0]."
    )


def test_a_directory_two_levels_deep_without_hidden_entries(project: Path) -> None:
    assert view(project, AGENT_ROOT) == (
        f"Here's the files and directories up to 2 levels deep in {AGENT_ROOT}, excluding hidden items:\n"
        f"{AGENT_ROOT}/\n{AGENT_ROOT}/a.py\n{AGENT_ROOT}/blob.bin\n{AGENT_ROOT}/crlf.txt\n{AGENT_ROOT}/empty.txt\n"
        f"{AGENT_ROOT}/latin1.txt\n{AGENT_ROOT}/src/\n{AGENT_ROOT}/src/main.py\n{AGENT_ROOT}/src/pkg/\n\n"
        f"1 hidden files/directories in this directory are excluded. You can use 'ls -la {AGENT_ROOT}' to see them.",
        False,
    )
    assert view(project, f"{AGENT_ROOT}/src/", [1, 2]) == (
        f"{ERROR}Invalid `view_range` parameter: [1, 2]. The `view_range` parameter is not allowed when `path` "
        "points to a directory.",
        True,
    )


def test_paths_that_do_not_exist_or_leave_the_workspace(project: Path) -> None:
    assert view(project, f"{AGENT_ROOT}/nope.py") == (
        f"{ERROR}Invalid `path` parameter: {AGENT_ROOT}/nope.py. The path {AGENT_ROOT}/nope.py does not exist. "
        "Please provide a valid path.",
        True,
    )
    assert view(project, "/etc/passwd") == (f"{ERROR}Path '/etc/passwd' is outside the workspace.", True)
    assert view(project, "../x") == (f"{ERROR}Path '../x' is outside the workspace.", True)


def test_files_it_refuses_and_files_it_decodes(project: Path) -> None:
    (project / "big.log").write_bytes(b"x" * (10 * 1024 * 1024 + 1))
    assert view(project, f"{AGENT_ROOT}/big.log") == (
        f"{ERROR}File validation failed for {AGENT_ROOT}/big.log: File is too large (10.0MB). "
        "Maximum allowed size is 10MB.",
        True,
    )
    assert view(project, f"{AGENT_ROOT}/blob.bin") == (
        f"{ERROR}File validation failed for {AGENT_ROOT}/blob.bin: File appears to be binary and this file type "
        "cannot be read or edited by this tool.",
        True,
    )
    assert view(project, f"{AGENT_ROOT}/latin1.txt")[0].endswith("     1\tcafé\n")


def test_an_image_answers_with_its_text_block(project: Path) -> None:
    (project / "shot.PNG").write_bytes(b"\x89PNG\r\n\x1a\n")
    assert view(project, f"{AGENT_ROOT}/shot.PNG") == (
        f"Image file {AGENT_ROOT}/shot.PNG read successfully. Displaying image content.",
        False,
    )


def test_a_long_file_keeps_its_head_and_tail_and_numbers_on(project: Path) -> None:
    (project / "long.txt").write_text("".join(f"{n:04}\n" for n in range(5000)))
    text, _ = view(project, f"{AGENT_ROOT}/long.txt")
    head, tail = text.split(TEXT_NOTICE)
    # 16,000 characters less the 250 of the notice, half before it and half after; the lines after it
    # are numbered on from the head's (as openhands-tools 1.58.0 does).
    assert head.endswith("  1574\t1573\n  1575\t1574\n  1576\t")
    assert tail.startswith("3425\n  1577\t3426\n")
    assert tail.endswith("  3149\t4998\n  3150\t4999\n")


def test_edits_are_not_run(project: Path) -> None:
    assert view_command(project, "create") == (
        f"{ERROR}The `create` command edits files: agentpager runs only `view`.",
        True,
    )
    assert view_command(project, "cat") == (
        f"{ERROR}Unrecognized command cat. The allowed commands for FileEditor tool are: view, create, "
        "str_replace, insert, undo_edit",
        True,
    )


def view_command(root: Path, command: str) -> tuple[str, bool]:
    result = Workspace(root, "openhands").call("file_editor", {"command": command, "path": "a.py"})
    return result.text, result.is_error


@given(text=st.text(max_size=300), limit=st.integers(1, 200), notice=st.text(min_size=1, max_size=50))
def test_clip_keeps_head_and_tail_within_the_limit(text: str, limit: int, notice: str) -> None:
    clipped = clip(text, limit, notice)
    if len(text) <= limit:
        assert clipped == text
    elif len(notice) >= limit:
        assert clipped == notice[:limit]
    else:
        assert len(clipped) == limit
        head = (limit - len(notice) + 1) // 2
        assert clipped == text[:head] + notice + text[len(text) - (limit - len(notice) - head) :]


def test_the_call_for_the_lines_on_screen_and_what_it_covers(project: Path) -> None:
    workspace = Workspace(project, "openhands")
    assert workspace.read_call("a.py", workspace.open_view("a.py"), (2, 3)) == (
        "file_editor",
        {"command": "view", "path": "a.py", "view_range": [2, 3]},
    )
    assert workspace.coverage("file_editor", {"command": "view", "path": "a.py", "view_range": [2, -1]}) == (
        Coverage("a.py", 2, 4)
    )
    assert workspace.coverage("file_editor", {"command": "view", "path": "src"}) is None
    assert workspace.listing_call("src", 100) == ("file_editor", {"command": "view", "path": "src"})


def test_which_recorded_calls_it_replays() -> None:
    recorded = RecordedCall(
        "str_replace_editor",
        {"command": "view", "path": "/workspace/app/a.py", "view_range": [1, 5], "file_text": None},
        None,
        cwd="/workspace/app",
    )
    claim = PROFILE.claim(recorded)
    assert claim is not None
    assert (claim.tool, claim.arguments, claim.settings) == (
        "file_editor",
        {"command": "view", "path": "/workspace/app/a.py", "view_range": [1, 5]},
        {"working_dir": "/workspace/app"},
    )
    assert PROFILE.claim(RecordedCall("file_editor", {"command": "str_replace", "path": "/a"}, None)) is None
