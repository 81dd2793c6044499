"""Invariants over random files and arguments (hypothesis).

Blocks are made tiny so that windows, characters and line breaks fall across block boundaries, and
each way of counting newlines runs (the C module, numpy, bytes methods: tests/scanners.py).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scanners import SCANNERS, scanner

from agentpager import Workspace
from agentpager.engine import lineindex, utf8
from agentpager.engine.patterns import compile_regex
from agentpager.logs import skim
from agentpager.profiles import all_profiles
from agentpager.workspace import INTERNAL_ERROR

FRAGMENTS = [
    b"a",
    b"xyz",
    b"\n",
    b"\r",
    b"\r\n",
    b"\x0c",
    "é".encode(),
    "🎉".encode(),
    "\u2028".encode(),
    b"\xff",
    b"\xe2\x82",
    b"\x80",
    b"\x80\x80\x80\x80",
    b"\xf0\x9f",
    b"`",
]
text_files = st.lists(st.sampled_from(FRAGMENTS), max_size=80).map(lambda parts: b"".join(parts))
block_sizes = st.sampled_from([4, 5, 13, 64, 1 << 20])
scanners = st.sampled_from(SCANNERS)

PROPERTY_SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def workspace_with(data: bytes, block_size: int, scanned_by: str, profile: str = "qq"):
    with (
        tempfile.TemporaryDirectory() as directory,
        mock.patch.object(lineindex, "BLOCK_SIZE", block_size),
        scanner(scanned_by),
    ):
        Path(directory, "f.txt").write_bytes(data)
        yield Workspace(directory, profile, max_output_chars=10**9)


def contract_lines(data: bytes) -> list[str]:
    """Section 3, written independently of the engine."""
    text = data.decode("utf-8", "replace")
    if not text:
        return []
    parts = text.split("\n")
    last = parts.pop()
    lines = [part[:-1] if part.endswith("\r") else part for part in parts]
    return lines if text.endswith("\n") else [*lines, last]


HEADER = re.compile(r"\[File: f\.txt \| Lines (\d+)-(\d+) of (\d+)\]")
RULE = "\n" + "-" * 40 + "\n"


@PROPERTY_SETTINGS
@given(body=text_files, sizes=st.lists(st.integers(1, 7), min_size=1), block_size=block_sizes, scanned_by=scanners)
def test_read_file_windows_reassemble_the_lines(body: bytes, sizes: list[int], block_size: int, scanned_by: str) -> None:
    data = b"x" + body  # never a BOM or magic number
    expected = contract_lines(data)
    with workspace_with(data, block_size, scanned_by) as workspace:
        lines: list[str] = []
        start, turn = 1, 0
        while True:
            text = workspace.call(
                "read_file", {"path": "f.txt", "start_line": start, "num_lines": sizes[turn % len(sizes)]}
            ).text
            first, last, total = map(int, HEADER.match(text).groups())
            assert (first, total) == (start, len(expected))
            body_text = text[text.index("\n", text.index(RULE.strip("\n"))) + 1 : text.rindex(RULE)]
            window = body_text.split("\n")
            assert len(window) == last - first + 1
            lines.extend(window)
            if last == total:
                assert text.endswith(f"[File read completed. Total lines: {total}]")
                break
            assert text.endswith(f"request this again with start_line={last + 1}; total lines: {total}]")
            start, turn = last + 1, turn + 1
    assert lines == expected


CONTINUING = re.compile(r"\[Continuing from char (\d+) of (\d+)\]\n\n")
TRUNCATED = re.compile(r"\n\n\[\.\.\. truncated at char (\d+) of (\d+)\. Use offset=(\d+) to read more\.\]$")


@PROPERTY_SETTINGS
@given(body=text_files, length=st.integers(1, 9), block_size=block_sizes, scanned_by=scanners)
def test_vault_chunks_reassemble_the_text(body: bytes, length: int, block_size: int, scanned_by: str) -> None:
    data = b"x" + body
    expected = data.decode("utf-8", "replace")
    with workspace_with(data, block_size, scanned_by, "vault") as workspace:
        pieces, offset = [], 0
        while offset < len(expected):
            text = workspace.call("read_file", {"path": "f.txt", "offset": offset, "length": length}).text
            if offset:
                continuing = CONTINUING.match(text)
                assert continuing and continuing.groups() == (str(offset), str(len(expected)))
                text = text[continuing.end() :]
            truncated = TRUNCATED.search(text)
            if truncated:
                text = text[: truncated.start()]
            pieces.append(text)
            offset += length
    assert "".join(pieces) == expected


@PROPERTY_SETTINGS
@given(
    body=st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.just("\n"), max_size=60),
    cuts=st.lists(st.integers(0, 400), max_size=8),
)
def test_forge_ranges_that_tile_a_file_reproduce_its_bytes(body: str, cuts: list[int]) -> None:
    data = ("x" + body).encode()
    points = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    with workspace_with(data, 1 << 20, 1 << 16, "forge") as forge:
        rebuilt, covered = b"", 0
        for start, end in itertools.pairwise(points):
            answer = json.loads(forge.call("fs_read", {"path": "f.txt", "start_byte": start, "end_byte": end}).text)
            actual = answer["metadata"]["actual_range"]
            assert actual["start_byte"] <= start and actual["end_byte"] >= end
            assert answer["content"].encode() == data[actual["start_byte"] : actual["end_byte"]]
            assert answer["metadata"]["valid_utf8"]
            rebuilt += data[max(covered, actual["start_byte"]) : actual["end_byte"]]
            covered = max(covered, actual["end_byte"])
    assert rebuilt == data


@PROPERTY_SETTINGS
@given(data=st.binary(max_size=40), cut=st.integers(0, 40))
def test_decoding_from_a_restart_point_agrees_with_decoding_the_whole(data: bytes, cut: int) -> None:
    point = utf8.restart_point(data, min(cut, len(data)))
    whole = data.decode("utf-8", "replace")
    assert data[:point].decode("utf-8", "replace") + data[point:].decode("utf-8", "replace") == whole


# -- no arguments make a call raise -------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=6,
)
PATHS = [
    "a.txt",
    "image.png",
    "sub",
    "pipe",
    "out.txt",
    "",
    ".",
    "..",
    "/",
    "a.txt/x",
    "missing",
    "../proj2/a.txt",
    ".git/x",
    "sub/../a.txt",
    "\x00",
    "é",
    "*",
]


def tool_arguments():
    def for_tool(profile_and_tool):
        profile, tool = profile_and_tool
        names = [param.name for param in tool.spec.params]
        keys = st.sampled_from([*names, "extra", ""]) | st.text(max_size=4)
        values = st.sampled_from(PATHS) | json_values | st.integers(-3, 300).map(str)
        return st.tuples(st.just(profile), st.just(tool.spec.name), st.dictionaries(keys, values, max_size=4))

    every_tool = [(profile.name, tool) for profile in all_profiles() for tool in profile.tools]
    return st.sampled_from(every_tool).flatmap(for_tool)


def messy_workspace(directory: Path) -> Path:
    root = directory / "proj"
    (root / "sub").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "a.txt").write_text("one\ntwo\n")
    (root / "é").write_bytes(b"\xff\xfe\x00")
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 30)
    os.mkfifo(root / "pipe")
    (directory / "outside.txt").write_text("secret")
    (root / "out.txt").symlink_to(directory / "outside.txt")
    return root


@pytest.mark.slow
@settings(max_examples=examples(400), deadline=None)
@given(call=tool_arguments())
def test_no_arguments_make_a_call_raise(call) -> None:
    profile, tool, arguments = call
    with tempfile.TemporaryDirectory() as directory:
        workspace = Workspace(messy_workspace(Path(directory)), profile)
        result = workspace.call(tool, arguments)
    assert isinstance(result.text, str) and isinstance(result.is_error, bool)
    assert INTERNAL_ERROR not in result.text


@PROPERTY_SETTINGS
@given(body=text_files, needle=st.sampled_from(["a", "é", "xyz", "`", "\ufffd", "🎉b"]), block_size=block_sizes)
def test_search_finds_exactly_the_lines_that_contain_the_pattern(body: bytes, needle: str, block_size: int) -> None:
    data = b"x" + body
    expected = [number for number, line in enumerate(contract_lines(data), 1) if needle in line]
    with (
        workspace_with(data, block_size, 0) as workspace,
        workspace.open_view("f.txt").open() as reader,
        compile_regex(re.escape(needle), re.MULTILINE) as pattern,
    ):
        assert list(reader.search(pattern)) == expected


@PROPERTY_SETTINGS
@given(
    body=text_files,
    grown=text_files,
    block_size=block_sizes,
    scanned_by=scanners,
    scanned=st.integers(0, 200),
    first=st.integers(1, 6),
)
def test_line_spans_are_the_lines(
    body: bytes, grown: bytes, block_size: int, scanned_by: str, scanned: int, first: int
) -> None:
    def lines_of(data: bytes) -> list[tuple[int, bytes, bool]]:
        parts = data.split(b"\n")
        ended = [(number, part, True) for number, part in enumerate(parts[:-1], 1)]
        return ended + ([(len(parts), parts[-1], False)] if parts[-1] else [])

    with (
        tempfile.TemporaryDirectory() as directory,
        mock.patch.object(lineindex, "BLOCK_SIZE", block_size),
        scanner(scanned_by),
    ):
        path = Path(directory, "f")
        path.write_bytes(body)
        fd = os.open(path, os.O_RDONLY)
        try:
            index = lineindex.LineIndex()
            index.sync(fd, lineindex.Stamp.of(os.fstat(fd)))
            index.scan(fd, until=scanned)
            spans = [(n, body[start:end], ended) for n, start, end, ended in index.line_spans(fd, first)]
            assert spans == [line for line in lines_of(body) if line[0] >= first]
            with path.open("ab") as file:
                file.write(grown)
            index.sync(fd, lineindex.Stamp.of(os.fstat(fd)))
            data = body + grown
            whole = body.count(b"\n") + 1  # a line still open goes on in what was appended
            spans = [(n, data[start:end], ended) for n, start, end, ended in index.line_spans(fd, whole)]
            assert spans == [line for line in lines_of(data) if line[0] >= whole]
        finally:
            os.close(fd)


def agrees(partial, original) -> bool:  # noqa: ANN001 - JSON values
    """Whether ``partial`` is ``original`` as far as it goes (CUT stands for anything)."""
    if partial is skim.CUT:
        return True
    if isinstance(partial, dict):
        return isinstance(original, dict) and all(k in original and agrees(v, original[k]) for k, v in partial.items())
    if isinstance(partial, list):
        return (
            isinstance(original, list)
            and len(partial) <= len(original)
            and all(agrees(p, o) for p, o in zip(partial, original, strict=False))
        )
    return partial == original and type(partial) is type(original)


json_objects = st.dictionaries(
    st.text(max_size=5),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=30),
        lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
        max_leaves=8,
    ),
    max_size=5,
)


@PROPERTY_SETTINGS
@given(
    value=json_objects, compact=st.booleans(), ascii=st.booleans(), cut=st.integers(0, 500), tail=st.integers(0, 500)
)
def test_a_skimmed_line_agrees_with_the_line(value: dict, compact: bool, ascii: bool, cut: int, tail: int) -> None:
    text = json.dumps(value, separators=(",", ":") if compact else None, ensure_ascii=ascii)
    head, end = text[: 1 + cut % len(text)], text[len(text) - tail % (len(text) + 1) :]
    found = skim.skim(head, end)
    if head == text:
        assert found == (value, ())
    assert found is not None
    partial, path = found
    assert agrees(partial, value)
    inner = value
    for key in path:
        inner = inner[key]
    skimmer = skim.Skimmer()
    first = skimmer.skim(head, end)
    again = skimmer.skim(head, end)  # by the C decoder, when the head ends inside a string
    assert again is not None and agrees(again[0], value)
    if skimmer.closing:
        assert again == first


@PROPERTY_SETTINGS
@given(body=text_files, block_size=block_sizes, limit=st.integers(1, 6), data=st.data())
def test_line_prefixes_are_the_starts_of_the_lines(
    body: bytes, block_size: int, limit: int, data: st.DataObject
) -> None:
    content = b"x" + body
    lines = contract_lines(content)
    first = data.draw(st.integers(1, len(lines)))
    last = data.draw(st.integers(first, len(lines)))
    with workspace_with(content, block_size, 0) as workspace, workspace.open_view("f.txt").open() as reader:
        assert list(reader.line_prefixes(first, last, limit)) == [
            (line[:limit], len(line) > limit) for line in lines[first - 1 : last]
        ]


@pytest.mark.parametrize("value", ["\x00", "a.txt\x00", "sub/\x00/a.txt"])
def test_a_nul_in_any_argument_of_any_tool_is_answered(tmp_path: Path, value: str) -> None:
    """No file can have a NUL in its name: every tool says so in its agent's words (Python's own calls
    raise ValueError for it, which no tool may let out)."""
    root = messy_workspace(tmp_path)
    failed = []
    for profile in all_profiles():
        workspace = Workspace(root, profile.name)
        for tool in profile.tools:
            for param in tool.spec.params:
                result = workspace.call(tool.spec.name, {param.name: value})
                if INTERNAL_ERROR in result.text:
                    failed.append((profile.name, tool.spec.name, param.name, result.text[-80:]))
    assert failed == []
    opencode = Workspace(root, "opencode").call("read", {"filePath": "\x00"})
    assert (opencode.text, opencode.uncertain) == (
        f"File not found: {root}/\x00",
        "the path holds a NUL byte; what OpenCode (Bun) says of it was not recorded",
    )



def test_each_volatile_part_is_found_after_its_marker() -> None:
    """A text is searched for a volatile part only when it holds the part's marker: each agent's
    parts, in answers as the agents write them, still become placeholders."""
    from agentpager.agents import get_agent
    from agentpager.tools.volatile import with_placeholders

    claude, codex = get_agent("claude-code").volatile, get_agent("codex").volatile
    answers = {
        "File content (31000 tokens) exceeds maximum allowed tokens (25000).": claude,
        "head\nFull output saved to: /home/me/.claude/projects/p/s/tool-results/b1.txt\n": claude,
        "<total_tokens>199989 tokens left</total_tokens>": claude,
        "Chunk ID: 3f2a9c\nWall time: 0.1 seconds\nOutput:\n": codex,
        '{"output":"x","metadata":{"exit_code":0,"duration_seconds":0.12}}': codex,
    }
    assert [with_placeholders(text, parts) for text, parts in answers.items()] == [
        "File content (⟦tokens⟧ tokens) exceeds maximum allowed tokens (25000).",
        "head\nFull output saved to: ⟦saved_to⟧\n",
        "<total_tokens>⟦tokens_left⟧ tokens left</total_tokens>",
        "Chunk ID: ⟦chunk_id⟧\nWall time: ⟦wall_time⟧ seconds\nOutput:\n",
        '{"output":"x","metadata":{"exit_code":0,"duration_seconds":⟦duration⟧}}',
    ]
