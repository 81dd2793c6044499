"""Property: for random files and random supported commands, the emulation prints what the real
programs print (stdout, stderr and exit status)."""

from __future__ import annotations

import contextlib
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from examples import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentpager.engine import linestream
from agentpager.engine.content import ContentStore
from agentpager.tools.paths import Root
from agentpager.tools.shell import NotReplayable, emulate, io
from tests.test_shell_real import real

# Text-like bytes with the awkward ones agents meet: CR, tabs, invalid UTF-8, a two-byte character.
_PIECES = [
    b"a",
    b"b",
    b"A",
    b"x",
    b" ",
    b"\t",
    b"\n",
    b"\n",
    b"\n",
    b"\r\n",
    b"\r",
    b"\xc3\xa9",
    b"\xff",
    b"\xc3",
    b"1",
]
RACE_RETRIES = 20
contents = st.lists(st.sampled_from(_PIECES), max_size=60).map(b"".join)
counts = st.integers(min_value=0, max_value=12).map(str)
files = st.sampled_from(["f1", "f2", "f1 f2", "f2 f1", "missing f1"])
patterns = st.sampled_from(["a", "b", "x", "^a", "a$", "A", "a.b", "[ab]", "[^a ]", "é", "1"])


def _window(program: str) -> st.SearchStrategy[str]:
    forms = [st.builds(lambda n: f"-n {n}", counts), st.builds(lambda n: f"-c {n}", counts)]
    forms.append(st.builds(lambda n: f"-n -{n}" if program == "head" else f"-n +{n}", counts))
    return st.one_of(*forms)


def _sed_script() -> st.SearchStrategy[str]:
    line = st.integers(min_value=1, max_value=12).map(str)
    single = st.one_of(line, st.just("$"), st.sampled_from(["/a/", "/^b/", "/x$/", "/A/I"]))
    address = st.one_of(single, st.builds(lambda a, b: f"{a},{b}", single, st.one_of(single, st.just("+1"))))
    command = st.builds(
        lambda a, bang, c: f"{a}{bang}{c}", address, st.sampled_from(["", "!"]), st.sampled_from("pp=d")
    )
    return st.lists(command, min_size=1, max_size=3).map(";".join)


def _grep(program: str) -> st.SearchStrategy[str]:
    flags = st.lists(
        st.sampled_from(["-n", "-c", "-v", "-i", "-w", "-x", "-A 1", "-B 2", "-C 1", "-m 2", "-l"]), max_size=3
    )
    return st.builds(
        lambda f, p, names: " ".join([program, *(["-j1"] if program == "rg" else []), *f, shlex.quote(p), names]),
        flags,
        patterns,
        files,
    )


simple = st.one_of(
    st.builds(lambda n, f: f"cat {n} {f}", st.sampled_from(["", "-n"]), files),
    st.builds(lambda w, f: f"head {w} {f}", _window("head"), files),
    st.builds(lambda w, f: f"tail {w} {f}", _window("tail"), files),
    st.builds(lambda q, s, f: f"sed {q} {shlex.quote(s)} {f}", st.sampled_from(["-n", ""]), _sed_script(), files),
    st.builds(lambda b, f: f"nl {b} {f}", st.sampled_from(["", "-ba", "-bt"]), files),
    st.builds(lambda o, f: f"wc {o} {f}", st.sampled_from(["", "-l", "-w", "-c", "-m", "-lw"]), files),
    _grep("grep"),
    _grep("rg") if shutil.which("rg") else _grep("grep"),
)
downstream = st.one_of(
    st.builds(lambda n: f"head -n {n}", counts),
    st.builds(lambda n: f"tail -n {n}", counts),
    st.builds(lambda s: f"sed -n {shlex.quote(s)}", _sed_script()),
    st.builds(lambda p: f"grep -n {shlex.quote(p)}", patterns),
    st.just("wc"),
    st.just("nl -ba"),
)
redirections = st.sampled_from(["", "", " 2>&1", " 2>/dev/null", " >/dev/null"])
commands = st.one_of(
    st.builds(lambda a, r: a + r, simple, redirections),
    st.builds(lambda a, r, b: f"{a}{r} | {b}", simple, redirections, downstream),
    st.builds(lambda a, b: f"{a} && {b}", simple, simple),
)


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=contents, second=contents, command=commands)
@example(first=b"a\xc3\xa9A\xff\nAb\r\t\ta1\n", second=b"", command="grep -A 1 -v -C 1 'a$' f1 | head -n 0")
def test_emulation_equals_the_real_programs(first: bytes, second: bytes, command: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / "f1").write_bytes(first)
        (root / "f2").write_bytes(second)
        emulated = emulate(Root.of(root), ContentStore(root / ".cache"), command)
        if isinstance(emulated, NotReplayable):
            assert "NUL" not in emulated.reason and "internal" not in emulated.reason, emulated.reason
            return
        answer = (str(emulated.stdout), emulated.exit_code, emulated.stderr)
        expected = real(root, command)
        # A pipeline races: `grep ... | head -n 0` may write before head exits, or be stopped by
        # SIGPIPE at its first write (the usual case, the one emulated). Its answer must be one the
        # real programs give, asked again a few times.
        for _ in range(RACE_RETRIES if "|" in command else 0):
            if answer == (expected.stdout, expected.exit_code, expected.stderr):
                break
            expected = real(root, command)
        assert answer == (expected.stdout, expected.exit_code, expected.stderr)


# -- long lines: with limits of a few bytes, every line past them streams, and the output is the same --

_LONG_PIECES = [b"a", b"b", b" ", b"\n", b"\n", b"x" * 9, b"ab" * 7, b"\xc3\xa9", b"\xff", b"A"]
long_contents = st.lists(st.sampled_from(_LONG_PIECES), max_size=30).map(b"".join)
long_patterns = st.sampled_from(["a", "b$", "^a", "ab", "x", "a.*b", "[^a ]", "é", "A", "(ab)+$", "xx*b"])


def _long_search(program: str) -> st.SearchStrategy[str]:
    flags = st.lists(st.sampled_from(["-n", "-c", "-v", "-i", "-w", "-x", "-m 2", "-l"]), max_size=2)
    return st.builds(
        lambda f, p, names: " ".join([program, *(["-j1"] if program == "rg" else []), *f, shlex.quote(p), names]),
        flags,
        long_patterns,
        files,
    )


long_simple = st.one_of(
    _long_search("grep"),
    _long_search("rg") if shutil.which("rg") else _long_search("grep"),
    st.builds(
        lambda s, f: f"sed -n {shlex.quote(s)} {f}", st.sampled_from(["/a/p", "/b$/=", "$p", "2p", "/x/p;p"]), files
    ),
    st.builds(lambda q, f: f"sed {q} {f}", st.sampled_from(["-E '/(ab)+$/d'", "'2q'", "-n 'p;p'"]), files),
    st.builds(lambda n, f: f"cat {n} {f}", st.sampled_from(["", "-n"]), files),
    st.builds(lambda b, f: f"nl {b} {f}", st.sampled_from(["", "-ba", "-bn"]), files),
    st.builds(lambda o, f: f"wc {o} {f}", st.sampled_from(["", "-l", "-m"]), files),
)
long_downstream = st.sampled_from(
    ["head -c 12", "tail -c 5", "wc -c", "grep -c a", "grep -n b", "sed -n '/a/p'", "nl -ba", "cat -n", "sed -n 1p"]
)
long_commands = st.one_of(long_simple, st.builds(lambda a, b: f"{a} | {b}", long_simple, long_downstream))


@pytest.mark.slow
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=long_contents, second=long_contents, command=long_commands)
@example(first=b"ab" * 7 + b"x" * 9 + b"\nb", second=b"", command="grep -n b f1")
@example(first=b"x" * 9 + b"\n\n" + b"ab" * 7, second=b"a", command="cat -n f1 f2 | nl -ba")
def test_long_lines_equal_the_real_programs(first: bytes, second: bytes, command: str) -> None:
    """Lines over the limit come as the engine's long lines (matched in windows or by the child, printed
    from their file again, refused when a pipe's must be printed); files are read 3 bytes at a time."""
    with tempfile.TemporaryDirectory() as directory, small_pieces():
        root = Path(directory)
        (root / "f1").write_bytes(first)
        (root / "f2").write_bytes(second)
        emulated = emulate(Root.of(root), ContentStore(root / ".cache"), command)
        if isinstance(emulated, NotReplayable):
            assert "internal" not in emulated.reason and "NUL" not in emulated.reason, emulated.reason
            return
        expected = real(root, command)
        assert (str(emulated.stdout), emulated.exit_code, emulated.stderr) == (
            expected.stdout,
            expected.exit_code,
            expected.stderr,
        )


@contextlib.contextmanager
def small_pieces() -> Iterator[None]:
    """Lines over 8 bytes streamed as long lines, blocks of 8 bytes, files read 3 bytes at a time."""
    old = linestream.LINE_LIMIT, linestream.BLOCK_BYTES, io.FileBytes.chunks
    whole = io.FileBytes.chunks

    def chunks(self: io.FileBytes, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        for chunk in whole(self, start, end):
            yield from (chunk[n : n + 3] for n in range(0, len(chunk), 3))

    linestream.LINE_LIMIT, linestream.BLOCK_BYTES, io.FileBytes.chunks = 8, 8, chunks  # type: ignore[method-assign]
    try:
        yield
    finally:
        linestream.LINE_LIMIT, linestream.BLOCK_BYTES, io.FileBytes.chunks = old  # type: ignore[method-assign]
