"""The gemini-cli profile: literal answers recorded from Gemini CLI 0.61.0 with ``agentpager probe`` (on the
trees built here), its invariants, and the replay of a Gemini CLI session."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from scanners import DIRECTORY_SCANS, directory_scan

from agentpager import Workspace
from agentpager.agents.gemini_cli.content import is_binary_head, text_lines
from agentpager.tools.js.collation import ascii_locale_order, locale_sorted, sort_key
from agentpager.tools.js.ignore import Ignore
from agentpager.transcripts import open_transcript
from agentpager.transcripts.replay import Replayer

HEADER = (
    "\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines {0}-{1} of {2} total lines.\n"
    "Action: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent "
    "'read_file' call. For example, to read the next section of the file, use start_line: {3}.\n\n"
    "--- FILE CONTENT (truncated) ---\n"
)


def write(root: Path, name: str, data: bytes) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture(autouse=True, params=DIRECTORY_SCANS)
def scan(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test with each way a directory is read: the C scan and ``os.scandir``."""
    with directory_scan(request.param):
        yield


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    root = tmp_path / "plain"
    for name in ["Upper.txt", "lower.txt", "_under.txt", "a.b", "a_b", "B.md", ".hidden", "a-b", "éclair.txt"]:
        write(root, name, b"x\n")
    write(root, "sound.mp3", bytes(range(256)))
    write(root, "text.mp3", b"just text\n")
    write(root, "tune.m4a", bytes(range(256)))
    write(root, "code.ts", b"abc\x00def\n")
    write(root, "ctl.txt", b"abc\x01def\x02ghi\n")
    write(root, "few_high.txt", b"hello world, this is mostly ascii text " * 3 + "w\xf6rld\n".encode("latin-1"))
    write(root, "surrogate.txt", ("a" * 1999 + "\U0001f600" + "tail\n").encode())
    write(root, "utf16be.txt", "\ufeffhi\nthere\n".encode("utf-16-be"))
    write(root, "pdf_magic.txt", b"%PDF-1.4 not really\n")
    write(root, "data.bin", b"plain text in a bin\n")
    write(root, "dir/sub/deep.txt", b"deep\n")
    write(root, "dir/node_modules/m.js", b"m\n")
    write(root, "dir/GEMINI.md", b"g\n")
    write(root, "dir/.env", b"E=1\n")
    write(root, "dir/c.pyc", b"c\n")
    write(root, "dir/pic.png", bytes.fromhex("89504e470d0a1a0a"))
    write(root, "dir/  padded.txt", b"\n\n  padded  \n\n")
    os.symlink("/etc/hostname", root / "out_link")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "git"
    (root / ".git").mkdir(parents=True)
    write(root, ".gitignore", b"*.log\nbuild/\n/secret.txt\n!keep.log\nCaseY.txt\n")
    write(root, ".geminiignore", b"private/\nsecret2.txt\n")
    for name in ["app.log", "keep.log", "build/out.txt", "secret.txt", "sub/secret.txt", "sub/x.tmp", "sub/y.txt"]:
        write(root, name, b"content\n")
    for name in ["private/p.txt", "secret2.txt", "casey.txt", "ok.txt"]:
        write(root, name, b"content\n")
    write(root, "sub/.gitignore", b"*.tmp\n")
    return root


def call(root: Path, tool: str, arguments: dict, **settings: object) -> tuple[str, bool]:
    result = Workspace(root, "gemini-cli", settings=settings).call(tool, arguments)
    return result.text.replace(str(root), "ROOT"), result.is_error


# -- read_file -----------------------------------------------------------------------------------------


def test_read_file_types_as_the_real_tool_decides(plain: Path) -> None:
    assert call(plain, "read_file", {"file_path": "text.mp3"}) == ("just text\n", False)
    assert call(plain, "read_file", {"file_path": "code.ts"}) == ("abc\x00def\n", False)  # .ts is always text
    assert call(plain, "read_file", {"file_path": "ctl.txt"}) == (
        "Cannot display content of binary file: ctl.txt",
        False,
    )
    assert call(plain, "read_file", {"file_path": "pdf_magic.txt"})[0].startswith("Cannot display content of binary")
    assert call(plain, "read_file", {"file_path": "data.bin"})[0] == "Cannot display content of binary file: data.bin"
    few = "hello world, this is mostly ascii text " * 3 + "w\ufffdrld\n"
    assert call(plain, "read_file", {"file_path": "few_high.txt"}) == (few, False)
    assert call(plain, "read_file", {"file_path": "utf16be.txt"}) == ("hi\nthere\n", False)
    assert call(plain, "read_file", {"file_path": "tune.m4a"}) == (
        "Unsupported audio file format for ROOT/tune.m4a. Supported audio formats are MP3, WAV, AIFF, AAC, OGG, "
        "and FLAC.",
        True,
    )


def test_audio_is_announced_for_the_next_turn(plain: Path) -> None:
    text, is_error = call(plain, "read_file", {"file_path": "sound.mp3"})
    parts = json.loads(text)
    assert not is_error and parts[0] == {
        "functionResponse": {
            "name": "read_file",
            "response": {
                "output": "Binary content (audio/mpeg) read successfully. Content will be injected for analysis in "
                "the next sequence."
            },
            "id": "agentpager_probe_01",
        }
    }
    assert parts[1]["inlineData"]["mimeType"] == "audio/mpeg"


def test_a_long_line_is_cut_in_utf16_units(plain: Path) -> None:
    text, _ = call(plain, "read_file", {"file_path": "surrogate.txt"})
    # Gemini CLI leaves half of the emoji's surrogate pair; outputs are valid UTF-8, so it shows as U+FFFD.
    assert text == HEADER.format(1, 2, 2, 3) + "a" * 1999 + "\ufffd... [truncated]\n"


def test_read_file_errors(plain: Path) -> None:
    assert call(plain, "read_file", {"file_path": ""}) == ("The 'file_path' parameter must be non-empty.", True)
    assert call(plain, "read_file", {"file_path": "lower.txt", "start_line": 0}) == (
        "params/start_line must be >= 1",
        True,
    )
    assert call(plain, "read_file", {"file_path": "lower.txt", "start_line": 3, "end_line": 2}) == (
        "start_line cannot be greater than end_line",
        True,
    )
    assert call(plain, "read_file", {"file_path": "missing.txt"}) == ("File not found: ROOT/missing.txt", True)
    assert call(plain, "read_file", {"file_path": "dir"}) == ("Path is a directory, not a file: ROOT/dir", True)
    assert call(plain, "read_file", {"file_path": "@lower.txt"}) == ("x\n", False)


def test_paths_outside_the_project(plain: Path) -> None:
    result = Workspace(plain, "gemini-cli", settings={"home": "/home/me"}).call("read_file", {"file_path": "../x.txt"})
    outside = os.path.dirname(plain.resolve())
    assert result.text == (
        f'Path not in workspace: Attempted path "{outside}/x.txt" resolves outside the allowed workspace '
        f"directories: {plain.resolve()} or the project temp directory: /home/me/.gemini/tmp/plain"
    )
    assert result.is_error and "registry" in result.uncertain
    assert call(plain, "read_file", {"file_path": "out_link"})[0].startswith(
        'Path not in workspace: Attempted path "/etc/hostname"'
    )
    assert call(plain, "read_file", {"file_path": "dir/.env"})[0].startswith("Path not in workspace")


def test_a_link_out_of_the_project_is_named_as_each_tool_names_it(plain: Path) -> None:
    """read_file checks ``resolveToRealPath(path)`` (read-file.ts ``validateToolParamValues``), so its
    error names where the link leads; list_directory checks ``path.resolve(targetDir, dir_path)``
    (ls.ts), so its error names the link."""
    os.symlink("/etc", plain / "etc_link")
    temp = "/home/me/.gemini/tmp/plain"
    workspace = Workspace(plain, "gemini-cli", settings={"home": "/home/me"})
    assert workspace.call("list_directory", {"dir_path": "etc_link"}).text == (
        f'Path not in workspace: Attempted path "{plain.resolve()}/etc_link" resolves outside the allowed '
        f"workspace directories: {plain.resolve()} or the project temp directory: {temp}"
    )
    assert workspace.call("read_file", {"file_path": "etc_link/hostname"}).text == (
        f'Path not in workspace: Attempted path "{os.path.realpath("/etc/hostname")}" resolves outside the '
        f"allowed workspace directories: {plain.resolve()} or the project temp directory: {temp}"
    )
    os.symlink("dir/node_modules", plain / "modules_link")
    assert workspace.call("list_directory", {"dir_path": "modules_link"}).text.startswith(
        f'Path not in workspace: Attempted path "{plain.resolve()}/modules_link" resolves outside'
    )


def test_the_project_dir_setting_names_the_paths(plain: Path) -> None:
    workspace = Workspace(plain, "gemini-cli", settings={"project_dir": "/home/me/proj"})
    assert workspace.call("read_file", {"file_path": "/home/me/proj/lower.txt"}).text == "x\n"
    assert workspace.call("read_file", {"file_path": "nope"}).text == "File not found: /home/me/proj/nope"


# -- list_directory ------------------------------------------------------------------------------------


def test_listing_order_hidden_names_and_links(plain: Path) -> None:
    text, _ = call(plain, "list_directory", {"dir_path": "."})
    assert text.splitlines()[:11] == [
        "Directory listing for ROOT:",
        "[DIR] dir",
        "_under.txt (2 bytes)",
        ".hidden (2 bytes)",
        "a_b (2 bytes)",
        "a-b (2 bytes)",
        "a.b (2 bytes)",
        "B.md (2 bytes)",
        "code.ts (8 bytes)",
        "ctl.txt (12 bytes)",
        "data.bin (20 bytes)",
    ]
    assert "éclair.txt (2 bytes)\nfew_high.txt" in text and text.endswith("\n\n(1 ignored)")  # the link out


def test_listing_a_subdirectory_adds_its_gemini_md_once(plain: Path) -> None:
    workspace = Workspace(plain, "gemini-cli")
    first = workspace.call("list_directory", {"dir_path": "dir"}).text.replace(str(plain.resolve()), "ROOT")
    assert first == (
        "Directory listing for ROOT/dir:\n[DIR] sub\n  padded.txt (14 bytes)\nc.pyc (2 bytes)\nGEMINI.md (2 bytes)\n"
        "pic.png (8 bytes)\n\n--- Newly Discovered Project Context ---\n--- Context from: ROOT/dir/GEMINI.md ---\ng\n"
        "--- End of Context from: ROOT/dir/GEMINI.md ---\n--- End Project Context ---"
    )
    assert workspace.call("list_directory", {"dir_path": "dir"}).text.endswith("pic.png (8 bytes)")


def test_listing_ignore_globs_match_names_case_sensitively(plain: Path) -> None:
    text, _ = call(plain, "list_directory", {"dir_path": ".", "ignore": ["*.md", "b*", "[a-z]*", "*.txt", "*.mp3"]})
    assert text.splitlines()[1:] == [
        "[DIR] dir",
        ".hidden (2 bytes)",
        "a_b (2 bytes)",
        "a-b (2 bytes)",
        "a.b (2 bytes)",
        "code.ts (8 bytes)",
        "data.bin (20 bytes)",
        "tune.m4a (256 bytes)",
        "",
        "(1 ignored)",
    ]


def test_listing_ignore_globs_run_in_linear_time(tmp_path: Path) -> None:
    """``*a*a...b`` against a long name of ``a`` backtracked for ever in ``re``; RE2 answers at once."""
    write(tmp_path, "a" * 200, b"")
    write(tmp_path, "a" * 20 + "b", b"")
    text, _ = call(tmp_path, "list_directory", {"dir_path": ".", "ignore": ["*a" * 12 + "b"]})
    assert text == "Directory listing for ROOT:\n" + "a" * 200 + " (0 bytes)"
    assert call(tmp_path, "list_directory", {"dir_path": ".", "ignore": ["*" * 600]}) == (
        "An ignore pattern is too long: 600 characters, 1,202 as a regex (at most 1,000).",
        True,
    )


def test_listing_errors(plain: Path) -> None:
    assert call(plain, "list_directory", {"dir_path": "nope"}) == (
        "Error listing directory: ENOENT: no such file or directory, stat 'ROOT/nope'",
        True,
    )
    assert call(plain, "list_directory", {"dir_path": "lower.txt"}) == (
        "Error: Path is not a directory: ROOT/lower.txt",
        True,
    )
    (plain / "empty").mkdir()
    assert call(plain, "list_directory", {"dir_path": "empty"}) == ("Directory ROOT/empty is empty.", False)


def test_ignore_files_in_a_git_repository(repo: Path) -> None:
    assert call(repo, "list_directory", {"dir_path": "."}) == (
        "Directory listing for ROOT:\n[DIR] build\n[DIR] private\n[DIR] sub\n.geminiignore (21 bytes)\n"
        ".gitignore (45 bytes)\nkeep.log (8 bytes)\nok.txt (8 bytes)\n\n(5 ignored)",
        False,
    )
    assert call(repo, "list_directory", {"dir_path": "sub"})[0].endswith("y.txt (8 bytes)\n\n(1 ignored)")
    assert (
        call(repo, "list_directory", {"dir_path": "build"})[0] == "Directory listing for ROOT/build:\n\n\n(1 ignored)"
    )
    unfiltered = call(
        repo, "list_directory", {"dir_path": ".", "file_filtering_options": {"respect_git_ignore": False}}
    )
    assert "app.log (8 bytes)\ncasey.txt" in unfiltered[0] and unfiltered[0].endswith("(1 ignored)")
    for ignored in ("app.log", "build/out.txt", "private/p.txt", "secret.txt", "sub/x.tmp", "casey.txt"):
        assert call(repo, "read_file", {"file_path": ignored}) == (
            f"File path 'ROOT/{ignored}' is ignored by configured ignore patterns.",
            True,
        )
    assert call(repo, "read_file", {"file_path": "keep.log"}) == ("content\n", False)
    assert call(repo, "read_file", {"file_path": "sub/secret.txt"}) == ("content\n", False)


# -- @path references (read_many_files) ----------------------------------------------------------------


def test_at_references(plain: Path, repo: Path) -> None:
    assert call(plain, "read_many_files", {"include": ["code.ts"]}) == (
        "\n--- Content from referenced files ---\nContent from @code.ts:\nabc\x00def\n--- End of content ---",
        False,
    )
    # A space ends a reference: "@dir/  padded.txt" names the directory.
    text, _ = call(plain, "read_many_files", {"include": ["dir/  padded.txt"]})
    assert text == (
        "\n--- Content from referenced files ---\nContent from @dir/  padded.txt:\npadded\n"
        "Content from @dir/sub/deep.txt:\ndeep\n\n--- Newly Discovered Project Context ---\n"
        "--- Context from: ROOT/dir/GEMINI.md ---\ng\n--- End of Context from: ROOT/dir/GEMINI.md ---\n"
        "--- End Project Context ---\n--- End of content ---"
    )
    assert call(plain, "read_many_files", {"include": [f"{plain}/lower.txt"]})[0] == (
        "\n--- Content from referenced files ---\nContent from @lower.txt:\nx\n--- End of content ---"
    )
    assert call(repo, "read_many_files", {"include": ["app.log", "ok.txt"]})[0] == (
        "\n--- Content from referenced files ---\nContent from @ok.txt:\ncontent\n--- End of content ---"
    )


def test_a_referenced_directory_follows_symlinks_inside_once_and_never_out(tmp_path: Path) -> None:
    """A symlinked directory inside is read under the name it was found by; one out of the root is not
    entered, and a loop (``loop -> ..``) only until it would enter a directory already on its way."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    write(root, "d/a.txt", b"a\n")
    write(root, "other/b.txt", b"b\n")
    write(outside, "secret.txt", b"SECRET\n")
    (root / "d" / "linked").symlink_to(root / "other")
    (root / "d" / "loop").symlink_to("..")
    (root / "d" / "out").symlink_to(outside)
    text, _ = call(root, "read_many_files", {"include": ["d"]})
    assert text == (
        "\n--- Content from referenced files ---\nContent from @d/a.txt:\na\nContent from @d/linked/b.txt:\nb\n"
        "Content from @d/loop/other/b.txt:\nb\n--- End of content ---"
    )


def test_a_missing_reference_is_uncertain(plain: Path) -> None:
    result = Workspace(plain, "gemini-cli").call("read_many_files", {"include": ["Upper"]})
    assert result.text == "" and "**/*Upper*" in result.uncertain


# -- the pieces, against their sources --------------------------------------------------------------------


def test_node_ignore_rules() -> None:
    ignore = Ignore().add(["*.log", "!keep.log", "build/", "/top.txt", "docs/**/*.md", "a?c"])
    assert [ignore.ignores(p) for p in ("x.log", "keep.log", "d/x.LOG", "build", "build/", "build/x")] == [
        True,
        False,
        True,
        False,
        True,
        True,
    ]
    assert [ignore.ignores(p) for p in ("top.txt", "d/top.txt", "docs/a/b/c.md", "docs/c.md", "abc", "a/c")] == [
        True,
        False,
        True,
        True,
        True,
        False,
    ]


def test_isbinaryfile_counts_suspicious_bytes_over_ten_percent() -> None:
    assert is_binary_head("café naïve\nfaçade über\n".encode("latin-1"))
    assert not is_binary_head("café naïve\nfaçade über\n".encode())
    assert not is_binary_head(b"\xff\xfeh\x00i\x00") and is_binary_head(b"%PDF-1.7")
    assert is_binary_head(b"abc\x00") and not is_binary_head(b"")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_sort_key_orders_as_node_local_compare() -> None:
    names = ["README.md", "readme.md", "_x", "a.b", "a_b", "a-b", "B", "é", "e", "f", "file10", "file2", "中", "~", "$"]
    script = "const n=JSON.parse(process.argv[1]); console.log(JSON.stringify(n.sort((a,b)=>a.localeCompare(b))))"
    node = subprocess.run(["node", "-e", script, json.dumps(names)], capture_output=True, text=True, check=True)
    assert sorted(names, key=sort_key) == json.loads(node.stdout)


@settings(max_examples=examples(200), deadline=None)
@given(
    lines=st.lists(st.text(alphabet="ab\r\t é😀", max_size=30), max_size=40),
    final_newline=st.booleans(),
    start=st.none() | st.integers(1, 50),
    length=st.none() | st.integers(0, 50),
)
def test_the_lines_shown_are_the_lines_asked_for(
    lines: list[str], final_newline: bool, start: int | None, length: int | None
) -> None:
    text = "\n".join(lines) + ("\n" if final_newline else "")
    end = None if start is None or length is None else start + length
    read = text_lines(text, start, end)
    pieces = re.split(r"\r?\n", text)
    assert read.total == len(pieces)
    assert read.first == min((start or 1) - 1, read.total) + 1
    assert read.last == (min(end, read.total) if end else min((start or 1) - 1 + 2000, read.total))
    assert read.text == "\n".join(pieces[read.first - 1 : read.last])
    assert read.truncated == (read.first > 1 or read.last < read.total)


@settings(max_examples=examples(60), deadline=None)
@given(count=st.integers(0, 60), start=st.none() | st.integers(1, 70), span=st.none() | st.integers(0, 70))
def test_the_header_numbers_say_what_is_shown(
    tmp_path_factory: pytest.TempPathFactory, count: int, start, span
) -> None:
    root = tmp_path_factory.mktemp("lines")
    (root / "f.txt").write_text("".join(f"line {n}\n" for n in range(1, count + 1)))
    arguments: dict = {"file_path": "f.txt"}
    end = None if start is None or span is None else start + span
    if start is not None:
        arguments["start_line"] = start
    if end is not None:
        arguments["end_line"] = end
    text = Workspace(root, "gemini-cli").call("read_file", arguments).text
    header = re.match(r"\nIMPORTANT: .*\nStatus: Showing lines (\d+)-(\d+) of (\d+) total lines\.", text)
    total = count + 1
    if header is None:
        assert start in (None, 1) and (end is None or end >= total)
        assert text == "".join(f"line {n}\n" for n in range(1, count + 1))
        return
    first, last, shown_total = map(int, header.groups())
    assert shown_total == total and first == min(start or 1, total + 1)
    body = text.split("--- FILE CONTENT (truncated) ---\n", 1)[1]
    expected = [f"line {n}" if n <= count else "" for n in range(first, last + 1)]
    assert body == "\n".join(expected)
    assert f"use start_line: {last + 1}." in text


# -- replay ---------------------------------------------------------------------------------------------


def test_a_gemini_session_replays_with_the_profile(tmp_path: Path, plain: Path) -> None:
    project = "/home/me/proj"
    chats = tmp_path / "home" / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text(project + "\n")
    write(plain, "pic.png", bytes.fromhex("89504e470d0a1a0a"))
    listing = Workspace(plain, "gemini-cli", settings={"project_dir": project}).call(
        "list_directory", {"dir_path": "."}
    )

    def tool_call(call_id: str, name: str, args: dict, output: str) -> dict:
        response = {"functionResponse": {"id": call_id, "name": name, "response": {"output": output}}}
        return {"id": call_id, "name": name, "args": args, "result": [response], "status": "success"}

    calls = [
        tool_call("r1", "read_file", {"file_path": f"{project}/lower.txt"}, "x\n"),
        tool_call("r2", "read_file", {"absolute_path": f"{project}/B.md"}, "x\n"),
        tool_call("r3", "list_directory", {"dir_path": project}, listing.text),
        tool_call("r4", "read_file", {"file_path": "pic.png"}, "Binary content provided (1 item(s))."),
        tool_call("r5", "read_file", {"file_path": "lower.txt", "start_line": 1, "end_line": 1}, "stale"),
    ]
    session = {
        "sessionId": "s1",
        "projectHash": "h",
        "startTime": "2026-03-01T00:00:00Z",
        "messages": [
            {"id": "1", "timestamp": "2026-03-01T00:00:00Z", "type": "user", "content": "look"},
            {"id": "2", "timestamp": "2026-03-01T00:00:01Z", "type": "gemini", "content": "", "toolCalls": calls},
        ],
    }
    path = chats / "session-2026-03-01T00-00-s1.json"
    path.write_text(json.dumps(session, indent=2))  # as Gemini CLI writes it
    transcript = open_transcript(str(path))
    assert transcript.cwd == project
    replayer = Replayer(transcript, str(plain))
    replays = [replayer.replay(call) for call in transcript.calls]
    assert [r.plan.profile if r.plan else None for r in replays] == ["gemini-cli"] * 5
    assert [r.status for r in replays] == ["same", "same", "same", "same", "differs"]


# -- big directories ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("many")
    (root / "d").mkdir()
    for n in range(5000):
        os.close(os.open(root / "d" / f"file_{n:07d}_name.txt", os.O_CREAT | os.O_WRONLY, 0o644))
    return root


@pytest.mark.parametrize(
    ("tool", "arguments"), [("list_directory", {"dir_path": "d"}), ("read_many_files", {"include": ["d"]})]
)
def test_a_big_directory_takes_memory_for_its_output_only(
    many: Path, monkeypatch: pytest.MonkeyPatch, tool: str, arguments: dict
) -> None:
    """A directory of a million entries took 1.4 GB to list and 1.5 GB to read (an object and a sort
    key per entry, each file's open kept until the end of the call): what is held now is about the
    output (here with runs of 500 entries, as a million are read and sorted in runs of 65,536)."""
    import tracemalloc

    from agentpager.agents.gemini_cli import profiles
    from agentpager.engine import runs

    monkeypatch.setattr(runs, "RUN_ROWS", 500)
    monkeypatch.setattr(profiles, "_LISTED_AT_ONCE", 500)
    workspace = Workspace(many, "gemini-cli")
    workspace.call("list_directory", {"dir_path": "."})  # the imports and the ignore files, first
    tracemalloc.start()
    try:
        text = workspace.call(tool, arguments).text
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    names = [f"file_{n:07d}_name.txt" for n in range(5000)]
    if tool == "list_directory":
        assert text == f"Directory listing for {many.resolve()}/d:\n" + "\n".join(f"{name} (0 bytes)" for name in names)
    else:
        assert text == (
            "\n--- Content from referenced files ---"
            + "".join(f"\nContent from @d/{name}:\n" for name in names)
            + "\n--- End of content ---"
        )
    assert peak < 10 * len(text)  # it was 40 to 50 times


@settings(max_examples=200, deadline=None)
@given(
    names=st.lists(st.text("aAbB_-.é É1\x01ß", min_size=1, max_size=4), min_size=1, max_size=40, unique=True),
    groups=st.lists(st.integers(0, 1), min_size=40, max_size=40),
)
def test_listing_order_in_runs_is_the_order_of_one_sort(names: list[str], groups: list[int]) -> None:
    """Sorted in runs and merged, the order is Node's: directories first, localeCompare, then strcmp."""
    from agentpager.engine import runs
    from agentpager.tools.js.collation import locale_sorted

    rows = [(group, name, f"{name}!") for group, name in zip(groups, names, strict=False)]
    expected = [
        row[2]
        for row in sorted(sorted(rows, key=lambda row: os.fsencode(row[1])), key=lambda row: (row[0], sort_key(row[1])))
    ]
    saved = runs.RUN_ROWS
    try:
        runs.RUN_ROWS = 3
        assert list(locale_sorted(rows)) == expected
    finally:
        runs.RUN_ROWS = saved


@settings(max_examples=examples(300), deadline=None)
@given(
    names=st.lists(st.text("aAbBzZ_-. 1~$", min_size=1, max_size=6), min_size=1, max_size=60, unique=True),
    groups=st.lists(st.integers(0, 1), min_size=60, max_size=60),
)
def test_printable_ascii_names_in_one_sort_are_in_node_order(names: list[str], groups: list[int]) -> None:
    """Names in printable ASCII are sorted as one key string each (group, primary ranks, upper case,
    name): the order of the whole ``sort_key``, then the bytes."""
    from agentpager.tools.js.collation import locale_sorted

    rows = [(group, name, f"{name}!") for group, name in zip(groups, names, strict=False)]
    expected = [
        row[2]
        for row in sorted(sorted(rows, key=lambda row: os.fsencode(row[1])), key=lambda row: (row[0], sort_key(row[1])))
    ]
    assert list(locale_sorted(rows)) == expected


@settings(max_examples=examples(300), deadline=None)
@given(name=st.text("ab.\\MP3pngPDFsvgtsexewavaiffAAC", max_size=10), nested=st.booleans())
def test_an_empty_file_is_answered_by_its_name_as_by_its_bytes(name: str, nested: bool) -> None:
    """``empty_content`` (once per extension, no open) says what ``file_type`` and ``content_of`` say
    of a file holding no bytes."""
    from agentpager.agents.gemini_cli.content import ReadFailure, content_of, empty_content, file_type

    path = ("/root/dir/" if nested else "/") + name
    kind = file_type(path, b"")
    try:
        answer = content_of(kind, b"", 0, path, name)
    except ReadFailure:
        answer = None
    assert empty_content(path, name) == (kind, answer)


def test_a_referenced_file_is_classified_once_and_an_empty_one_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file a directory reference read was opened (a million empty ones: 82 s), and its type told
    twice: before skipping an image not asked for, and again to read it. Now each is told once, and an
    empty regular file (stat'ed through its directory's descriptor) is answered by its name, unopened;
    a link is still opened beneath the root, and one that leads out is not read."""
    from collections import Counter

    from agentpager.agents.gemini_cli import content, profiles
    from agentpager.tools import paths

    root, outside = tmp_path / "root", tmp_path / "outside"
    for name in ["a.txt", "b.txt", "qq.png", "e.mp3", "f.svg", "g.wasm"]:  # images named as no path here is
        write(root, f"d/{name}", b"")
    write(root, "d/x.txt", b"x\n")
    write(root, "d/zz.png", bytes.fromhex("89504e470d0a1a0a"))
    write(outside, "empty.txt", b"")
    (root / "d" / "in.txt").symlink_to("a.txt")
    (root / "d" / "out.txt").symlink_to(outside / "empty.txt")
    told, opened = Counter[str](), Counter[str]()
    file_type, open_beneath = content.file_type, paths.open_beneath

    def counted_type(path: str, head: bytes) -> str:
        told[path] += 1
        return file_type(path, head)

    def counted_open(top: str, path: str, want: str) -> object:
        opened[os.path.basename(path)] += want == "any"  # what a tool reads is placed as "any"
        return open_beneath(top, path, want)

    monkeypatch.setattr(content, "file_type", counted_type)
    monkeypatch.setattr(profiles, "file_type", counted_type)
    monkeypatch.setattr(paths, "open_beneath", counted_open)
    text, _ = call(root, "read_many_files", {"include": ["d"]})
    assert text == (
        "\n--- Content from referenced files ---\nContent from @d/a.txt:\n\nContent from @d/b.txt:\n\n"
        "Content from @d/e.mp3:\n\nContent from @d/f.svg:\n\nContent from @d/g.wasm:\n"
        "Cannot display content of binary file: d/g.wasm\nContent from @d/in.txt:\n\nContent from @d/x.txt:\nx\n"
        "--- End of content ---"
    )
    assert +opened == Counter(["in.txt", "x.txt", "zz.png"])
    assert max(told.values()) == 1
    assert {os.path.basename(path) for path in told} >= {"in.txt", "x.txt", "zz.png"}


def _peak_of(workspace: Workspace, tool: str, arguments: dict) -> tuple[object, int]:
    import tracemalloc

    tracemalloc.start()
    try:
        result = workspace.call(tool, arguments)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_huge_ignore_file_is_read_in_part_and_said_so(tmp_path: Path) -> None:
    """A .geminiignore of 30 MB (15 million one-letter rules) was read whole and every line compiled
    as a rule. The first MiB, at most LINES_LIMIT lines, is used now, and the answer is uncertain."""
    from agentpager.agents.gemini_cli.discovery import LINES_LIMIT

    root = tmp_path / "p"
    root.mkdir()
    (root / "secret.txt").write_bytes(b"s\n")
    (root / "late.txt").write_bytes(b"l\n")
    with open(root / ".geminiignore", "wb") as file:
        file.write(b"secret.txt\n")
        for _ in range(30):
            file.write(b"z\n" * (1 << 19))
        file.write(b"late.txt\n")  # past the cut: not used
    workspace = Workspace(root, "gemini-cli")
    result, peak = _peak_of(workspace, "list_directory", {"dir_path": "."})
    assert result.text == (
        f"Directory listing for {root.resolve()}:\n.geminiignore (31457300 bytes)\nlate.txt (2 bytes)\n\n(1 ignored)"
    )
    assert result.uncertain == (
        "an ignore file is longer than agentpager reads (.geminiignore): its first 1 MiB, at most "
        f"{LINES_LIMIT:,} lines, are used; Gemini CLI reads it whole"
    )
    assert peak < 20_000_000
    read = workspace.call("read_file", {"file_path": "secret.txt"})
    assert read.is_error and "is ignored by configured ignore patterns" in read.text and read.uncertain


def test_a_huge_gemini_md_is_shown_in_part_and_said_so(tmp_path: Path) -> None:
    """A 40 MB GEMINI.md was read whole into the context a tool appends; its first MiB (to its last
    line break there) is shown now, and the answer is uncertain."""
    from agentpager.agents.gemini_cli.discovery import READ_LIMIT

    root = tmp_path / "p"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.txt").write_bytes(b"a\n")
    line = b"x" * 99 + b"\n"
    with open(root / "sub" / "GEMINI.md", "wb") as file:
        for _ in range(400):
            file.write(line * 1000)
    workspace = Workspace(root, "gemini-cli")
    result, peak = _peak_of(workspace, "read_file", {"file_path": "sub/a.txt"})
    where = f"{root.resolve()}/sub/GEMINI.md"
    shown = ("x" * 99 + "\n") * (READ_LIMIT // 100)
    assert result.text == (
        "a\n\n\n--- Newly Discovered Project Context ---\n"
        f"--- Context from: {where} ---\n{shown.rstrip()}\n--- End of Context from: {where} ---\n"
        "--- End Project Context ---"
    )
    assert result.uncertain == (
        f"a GEMINI.md is longer than agentpager reads ({where}): its first 1 MiB is shown; Gemini CLI shows it whole"
    )
    assert peak < 10 * READ_LIMIT


@settings(max_examples=examples(300), deadline=None)
@given(names=st.lists(st.text("aAbBzZ_-. 1~$", min_size=1, max_size=6), min_size=1, max_size=60, unique=True))
def test_printable_ascii_names_keyed_at_once_are_in_node_order(names: list[str]) -> None:
    """The keys of names in printable ASCII, made for all of them at once (their ranks, then their
    tertiary weights when a name has upper case), order them as the whole ``sort_key``, then the bytes."""
    expected = sorted(sorted(names, key=os.fsencode), key=sort_key)
    order = ascii_locale_order(names)
    assert order is not None
    assert [names[n] for n in order] == expected
    assert [names[n] for n in order] == list(locale_sorted((1, name, name) for name in names))


def test_names_not_in_printable_ascii_are_keyed_one_at_a_time() -> None:
    assert ascii_locale_order(["a", "é"]) is None
    assert ascii_locale_order(["a", "b\x01"]) is None
    assert ascii_locale_order([]) == []


def test_empty_files_of_one_extension_are_answered_as_when_each_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """read_many_files tells what an empty file adds once per extension (a million empty ``.txt``):
    the answer is the one every file gets when each is opened and read, names that differ only in
    case, a binary extension (whose answer names the file), a backslash and media included."""
    from agentpager.agents.gemini_cli import profiles

    root = tmp_path / "root"
    names = ["a.txt", "B.TXT", "c.Txt", "d.wasm", "e.wasm", "f\\g.txt", "named.png", "photo.jpg", "j.mp3", "k.mp3"]
    names += ["l.svg", "m.svg", "noext", "other", ".hidden", "x.txt.md", "y.md"]
    for name in names:
        write(root, f"d/{name}", b"")
    write(root, "d/full.txt", b"full\n")
    referenced = ["d", "d/named.png"]
    text, _ = call(root, "read_many_files", {"include": referenced})
    monkeypatch.setattr(profiles, "_empty", lambda scan, n: False)  # every file opened and read
    opened, _ = call(root, "read_many_files", {"include": referenced})
    assert text == opened
    parts = json.loads(text)  # with an image's data: the parts as JSON
    shown = [part["text"] for part in parts if "text" in part]
    assert shown[1:7] == ["\nContent from @d/.hidden:\n", "", "\nContent from @d/B.TXT:\n", "", "\nContent from @d/a.txt:\n", ""]
    assert "Cannot display content of binary file: d/d.wasm" in shown
    assert "Cannot display content of binary file: d/e.wasm" in shown
    assert [part["inlineData"]["mimeType"] for part in parts if "inlineData" in part] == ["image/png"]
    assert len(shown) == 2 + 2 * (len(names) + 1 - 2)  # the start, the end, two parts a file but the images'


def _tree(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        write(root, name, data)


def test_runs_of_plain_empty_files_read_as_rows_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A directory's plain empty files of one extension are joined as one run, merged with the other
    files by bisection: the answer is the one every file gets as a row of the one sort (references that
    name a file of a run, twice, by another label, with an image's data as JSON, names in upper case)."""
    from agentpager.agents.gemini_cli import profiles

    root = tmp_path / "root"
    files = {f"d/many/f{n:03d}.txt": b"" for n in range(40)}
    files |= {f"d/upper/F{n:03d}.{'TXT' if n % 2 else 'txt'}": b"" for n in range(30)}
    files |= {f"d/wasm/e{n:03d}.wasm": b"" for n in range(30)}  # binary: its answer names each file
    files |= {f"d/many.d/x{n}.md": b"" for n in range(20)}  # sorts between d/many's files and d/upper's
    files |= {"d/a.txt": b"hello\n", "d/pics/zz.png": bytes.fromhex("89504e470d0a1a0a"), "d/éte/x.txt": b""}
    _tree(root, files)
    cases = [
        ["d"],
        ["d/many", "./d/many/f007.txt", "d/many/f039.txt", "d/many"],
        [str(root / "d/many/f003.txt"), "d/many.d", "d/many"],
        ["d/pics/zz.png", "d/many/f005.txt", "d/upper", "d/many"],
        ["d/éte", "d/many"],  # a name not in ASCII: every file a row
    ]
    joined, run = [], profiles._Message.run

    def counted(message: profiles._Message, prefix: str, names: list[str], told: str) -> None:
        joined.append(prefix)
        run(message, prefix, names, told)

    monkeypatch.setattr(profiles._Message, "run", counted)
    monkeypatch.setattr(profiles, "_RUN_FILES", 10)
    as_runs = [call(root, "read_many_files", {"include": include})[0] for include in cases]
    assert set(joined) == {"d/many/", "d/many.d/", "d/upper/"}
    monkeypatch.setattr(profiles, "_RUN_FILES", 1 << 40)
    as_rows = [call(root, "read_many_files", {"include": include})[0] for include in cases]
    assert as_runs == as_rows
    assert "\nContent from @./d/many/f007.txt:\n\nContent from @d/many/f008.txt:\n" in as_runs[1]
    assert as_runs[1].count("Content from @d/many/f039.txt") == 1
    assert json.loads(as_runs[3])[1:5] == [
        {"text": "\nContent from @d/many/f000.txt:\n"},
        {"text": ""},
        {"text": "\nContent from @d/many/f001.txt:\n"},
        {"text": ""},
    ]


@settings(max_examples=examples(25), deadline=None)
@given(
    names=st.lists(
        st.text("aN.g~\\tTxX_é", min_size=1, max_size=6).filter(lambda name: name not in (".", "..")),
        min_size=1,
        max_size=30,
        unique=True,
    ),
    full=st.sets(st.integers(0, 29)),
)
def test_a_directory_read_as_a_run_or_as_rows_says_the_same(
    tmp_path_factory: pytest.TempPathFactory, names: list[str], full: set[int]
) -> None:
    """Whatever a directory's names and sizes, the answer with runs (of any length) is the one with rows."""
    from agentpager.agents.gemini_cli import profiles

    root = tmp_path_factory.mktemp("run")
    _tree(root, {f"d/{name}": b"x\n" if n in full else b"" for n, name in enumerate(names)})
    saved = profiles._RUN_FILES
    try:
        profiles._RUN_FILES = 1
        as_runs = call(root, "read_many_files", {"include": ["d"]})[0]
        profiles._RUN_FILES = 1 << 40
        assert call(root, "read_many_files", {"include": ["d"]})[0] == as_runs
    finally:
        profiles._RUN_FILES = saved


@settings(max_examples=examples(300), deadline=None)
@given(names=st.lists(st.text("aNngG.~\\tTxXmdMDpyc_é", min_size=1, max_size=8), min_size=1, max_size=20, unique=True))
def test_a_shared_extension_is_told_only_of_names_each_would_pass(names: list[str]) -> None:
    """``_plain_extension`` (names joined, searched at once) says an extension only when every name is
    in ASCII, neither excluded nor blocked, and has that extension in lower case."""
    from agentpager.agents.gemini_cli.content import node_extname
    from agentpager.agents.gemini_cli.discovery import has_blocked_segment
    from agentpager.agents.gemini_cli.profiles import _excluded_name, _plain_extension

    names.sort()
    extension = _plain_extension("d/", names)
    if extension is not None:
        assert all(name.isascii() and "\\" not in name for name in names)
        assert not any(_excluded_name(name) or has_blocked_segment(name) for name in names)
        assert {node_extname(name).lower() for name in names} == {extension}
    assert _plain_extension("d/", ["a.TXT", "b.txt", "c.tXt"]) == ".txt"
    assert _plain_extension("d/", ["a.md", "b.md"]) == ".md"
    assert _plain_extension("d/", ["a.pyc", "b.pyc"]) is None
    assert _plain_extension("d/", ["a.md", "b.txt"]) is None
