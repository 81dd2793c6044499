"""The shell-read emulation against the real programs, byte for byte, on the awkward corpus.

Each command runs under ``bash -c`` with ``LANG=C.UTF-8`` in a copy of the corpus and through
``emulate``; stdout (decoded as the agent decodes it), stderr and the exit status must agree.
ripgrep's commands run against every ripgrep release found (skipped when none is): the ``rg`` on
PATH, and the ones the agents bundle under ``~/.cache/agentpager/rg-sources`` (or
``$AGENTPAGER_RIPGREP_DIR``), put there with ``npm install --prefix ~/.cache/agentpager/rg-sources
@openai/codex@0.169.0`` (15.2.0) and ``npm pack @anthropic-ai/claude-code@2.0.21`` unpacked there
(``vendor/ripgrep``: 14.1.1). Several files go with ``-j1`` (real ripgrep searches them on parallel
threads, in no fixed order).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from waiting import HANG

from agentpager.engine.content import ContentStore
from agentpager.tools.paths import Root
from agentpager.tools.shell import NotReplayable, ShellRun, emulate
from tests.shell_corpus import build

REAL_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}

COMMANDS = [
    # cat
    "cat plain.txt",
    "cat crlf.txt nonl.txt empty.txt newline.txt",
    "cat -n nonl.txt plain.txt",
    "cat -n empty.txt newline.txt crlf.txt",
    "cat invalid.txt bom.txt utf8.txt",
    "cat missing.txt",
    "cat plain.txt missing.txt nonl.txt",
    "cat sub",
    "cat 'space name.txt' 'no such.txt'",
    "cat long.txt",
    # head and tail
    "head plain.txt",
    "head -n 3 plain.txt",
    "head -3 nonl.txt",
    "head -n 0 plain.txt",
    "head -n -5 plain.txt",
    "head -n -1 nonl.txt",
    "head -n -100 plain.txt",
    "head -c 10 utf8.txt",
    "head -c -3 nonl.txt",
    "head -n 2 plain.txt nonl.txt empty.txt",
    "head -n 1 missing.txt plain.txt",
    "head -n 1 plain.txt sub nonl.txt",
    "head -q -n 1 plain.txt nonl.txt",
    "head -v -n 1 plain.txt",
    "head -n 2 big.txt",
    "tail plain.txt",
    "tail -n 3 nonl.txt",
    "tail -3 crlf.txt",
    "tail -n +28 plain.txt",
    "tail -n +1 nonl.txt",
    "tail -n 0 plain.txt",
    "tail -c 5 nonl.txt",
    "tail -c +3 crlf.txt",
    "tail -n 1 plain.txt nonl.txt newline.txt",
    "tail -n 2 missing.txt nonl.txt",
    "tail -n 2 sub",
    "tail -n 2 big.txt",
    "tail -n 2 empty.txt newline.txt",
    # sed
    "sed -n '1,5p' plain.txt",
    "sed -n '28,40p' plain.txt",
    "sed -n '5p' plain.txt",
    "sed -n '$p' nonl.txt",
    "sed -n '$p;$p' nonl.txt",
    "sed -n '2,$p' nonl.txt",
    "sed -n '3,1p' plain.txt",
    "sed -n '2,+2p' plain.txt",
    "sed -n '1~10p' plain.txt",
    "sed -n '0~7p' plain.txt",
    "sed -n '2!p' nonl.txt",
    "sed -n '1,3!p' nonl.txt",
    "sed -n -e '1p' -e '3p' plain.txt",
    "sed -n '1p;3p;2p' plain.txt",
    "sed -n '2p;2p' crlf.txt",
    "sed -n '1,2p;2,3p' plain.txt",
    "sed -n '=' nonl.txt",
    "sed -n '2,3=' nonl.txt",
    "sed -n '/line 1/=' plain.txt",
    "sed '3q' plain.txt",
    "sed -n '3p;3q' plain.txt",
    "sed '2d' nonl.txt",
    "sed '2,$d' plain.txt",
    "sed -n '1,2p' nonl.txt crlf.txt",
    "sed -n 'p' nonl.txt crlf.txt",
    "sed -n '$p' nonl.txt crlf.txt",
    "sed -s -n '$p' nonl.txt crlf.txt",
    "sed -n '1p' missing.txt plain.txt",
    "sed -n '1p' plain.txt sub",
    "sed -n '1,3p' empty.txt",
    "sed -n '60000,60003p' big.txt",
    "sed -n '69999,$p' big.txt",
    "sed -n '$p' big.txt",
    "sed -n '1,2p' invalid.txt bom.txt",
    "sed -n '/class/,/^def /p' code.py",
    "sed -n '/def /p' code.py",
    "sed -n '/THING/Ip' code.py",
    "sed -n '/^line 2/,+1p' plain.txt",
    "sed -n '3,/gamma/p' plain.txt",
    "sed -E -n '/line (5|7) /p' plain.txt",
    "sed '/alpha/d' nonl.txt plain.txt",
    "sed -n '/gamma/=' plain.txt",
    "sed '3d;1,3p' nonl.txt",
    # nl
    "nl plain.txt",
    "nl -ba nonl.txt",
    "nl -ba newline.txt empty.txt crlf.txt",
    "nl section.txt",
    "nl -ba -w 3 -s ': ' plain.txt",
    "nl -bn nonl.txt",
    "nl -v 10 -i 5 -n rz nonl.txt",
    "nl -n ln nonl.txt",
    "nl missing.txt nonl.txt",
    "nl sub",
    # wc
    "wc plain.txt",
    "wc -l plain.txt",
    "wc -l plain.txt nonl.txt",
    "wc -c -l nonl.txt",
    "wc -w utf8.txt invalid.txt",
    "wc -m utf8.txt invalid.txt bom.txt",
    "wc missing.txt plain.txt",
    "wc -l missing.txt plain.txt",
    "wc sub plain.txt",
    "wc -l big.txt",
    "wc empty.txt",
    # grep
    "grep alpha plain.txt",
    "grep -n gamma plain.txt",
    "grep -c gamma plain.txt nonl.txt",
    "grep -n 'line 1.' plain.txt",
    "grep -E 'line (2|3)0' plain.txt",
    "grep 'line \\(2\\|3\\)0' plain.txt",
    "grep -F '.' code.py",
    "grep -n -i THING code.py",
    "grep -w line plain.txt",
    "grep -w 'line 1' plain.txt",
    "grep -x 'import os' code.py",
    "grep -v a nonl.txt crlf.txt",
    "grep -n 'o$' crlf.txt",
    "grep -l def code.py plain.txt nonl.txt",
    "grep -L def code.py plain.txt nonl.txt",
    "grep -H last nonl.txt",
    "grep -h line plain.txt nonl.txt",
    "grep -n -A 1 gamma plain.txt",
    "grep -n -B 2 'line 1[05]' plain.txt",
    "grep -n -C 1 'line [12]5 ' plain.txt",
    "grep -A 0 gamma plain.txt",
    "grep -2 'line 20' plain.txt",
    "grep -m 2 gamma plain.txt",
    "grep -m 1 -A 3 'line 1 ' plain.txt",
    "grep -n -m 2 -A 2 'line 1[0-9]' plain.txt",
    "grep -n -m 1 -A 1 -v gamma plain.txt",
    "grep -c -v gamma plain.txt",
    "grep nothing plain.txt",
    "grep abc invalid.txt",
    "grep -n -A1 abc invalid.txt",
    "grep -c abc invalid.txt",
    "grep -a abc invalid.txt",
    "grep x missing.txt plain.txt",
    "grep -s x missing.txt",
    "grep line sub",
    "grep -q gamma plain.txt missing.txt",
    "grep -e alpha -e first plain.txt nonl.txt",
    "grep '' nonl.txt newline.txt",
    "grep -n '^$' code.py",
    "grep -n '[[:upper:]]' code.py",
    "grep -n '[^a-z ]' nonl.txt utf8.txt",
    "grep -n 'h.llo' utf8.txt",
    "grep -c match big.txt",
    "grep -n 'row 06998[0-9]' big.txt",
    "grep needle long.txt",
    "grep -n 'self\\.' code.py",
    "grep -E 'a{2,}|b+' nonl.txt",
    "grep -n '\\<run\\>' code.py",
    "grep -ni 'héllo' utf8.txt",
    # rg
    "rg alpha plain.txt",
    "rg -n gamma plain.txt",
    "rg -j1 -n last nonl.txt crlf.txt plain.txt",
    "rg -j1 alpha plain.txt nonl.txt",
    "rg -c gamma plain.txt",
    "rg -j1 -c e plain.txt nonl.txt empty.txt",
    "rg -j1 -l def code.py plain.txt",
    "rg -n -i THING code.py",
    "rg -S thing code.py",
    "rg -S Thing code.py",
    "rg -n -w line plain.txt",
    "rg -n -A 1 gamma plain.txt",
    "rg -n -C 1 'line [12]5 ' plain.txt",
    "rg -n -B 2 'line 1[05]' plain.txt",
    "rg -m 2 -n gamma plain.txt",
    "rg -v a nonl.txt",
    "rg -F '.' code.py",
    "rg -n 'self\\.\\w+' code.py",
    "rg -n 'o$' crlf.txt",
    "rg nothing plain.txt",
    "rg -j1 x missing.txt plain.txt",
    "rg line missing.txt plain.txt",
    "rg -n -m1 -A3 'line [12]' plain.txt",
    "rg -m1 -A2 gamma plain.txt",
    "rg abc invalid.txt",
    "rg -n 'def (main|run)' code.py",
    "rg -H last nonl.txt",
    "rg -n '\\d{6} match' big.txt",
    # ls
    "ls",
    "ls -a",
    "ls -A sub",
    "ls -1 sub emptydir",
    "ls plain.txt sub missing.txt",
    "ls emptydir",
    # exit
    "echo a; exit 3; echo b",
    "false; exit",
    "true && exit 7 || echo no",
    "exit 300",
    "cat nope.txt; exit",
    # pipes, lists, redirections, cd
    "nl -ba plain.txt | sed -n '10,14p'",
    "cat -n code.py | head -n 5",
    "grep -n gamma plain.txt | head -3",
    "cat plain.txt | grep -c alpha",
    "cat nonl.txt | wc -l",
    "cat plain.txt | wc",
    "cat big.txt | tail -n 3",
    "cat big.txt | head -n 2",
    "cat nonl.txt | tail -n +2",
    "cat plain.txt | head -n -27",
    "cat plain.txt | sed -n '$p'",
    "cat plain.txt | sed -n '29,$p'",
    "nl -ba big.txt | sed -n '50000,50002p'",
    "cat plain.txt | rg -n 'line 3'",
    "cat missing.txt 2>/dev/null; echo done",
    "cat missing.txt 2>&1 | head -1",
    "sed -n '1p' missing.txt plain.txt 2>&1",
    "grep -n x missing.txt 2>&1 >/dev/null",
    "grep -n abc invalid.txt >/dev/null",
    "grep -s abc invalid.txt",
    "grep line plain.txt missing.txt >/dev/null && echo found",
    "tail +28 plain.txt",
    "head -n 1 plain.txt && head -n 1 nonl.txt",
    "cat missing.txt && echo yes || echo no",
    "grep nothing plain.txt || true",
    "false; echo after",
    "cd sub && cat inner.txt",
    "cd sub && ls -A",
    "cd nope && cat x",
    "cd sub; cd ..; head -n 1 plain.txt",
    "echo '---'; sed -n '1,2p' code.py; echo '---'",
    "echo -n hi",
    "wc -l < plain.txt",
    "cat < missing.txt",
    "sed -n '1,3p' plain.txt | nl",
    "head -n 5 plain.txt | tail -n 2",
]


def _has(program: str) -> bool:
    return shutil.which(program) is not None


def ripgreps() -> dict[str, Path]:
    """Each ripgrep release found, by version: the directory that holds its ``rg``."""
    found: dict[str, Path] = {}
    sources = Path(os.environ.get("AGENTPAGER_RIPGREP_DIR", Path.home() / ".cache" / "agentpager" / "rg-sources"))
    candidates = [Path(path) for path in [shutil.which("rg")] if path]
    if sources.is_dir():
        candidates += sorted(path for path in sources.rglob("rg") if "linux" in str(path) and "arm" not in str(path))
    for path in candidates:
        try:
            done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=HANG)
        except (OSError, subprocess.SubprocessError):
            continue
        words = done.stdout.split()
        if done.returncode == 0 and words[:1] == ["ripgrep"]:
            found.setdefault(words[1], path.parent)
    return found


RIPGREPS = ripgreps()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("shell-real"))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ContentStore:
    return ContentStore(tmp_path_factory.mktemp("cache"))


def real(workspace: Path, command: str, ripgrep: Path | None = None) -> ShellRun:
    """What the real programs print (``ripgrep``: the directory of the ``rg`` to run)."""
    env = REAL_ENV | ({"PATH": f"{ripgrep}:{REAL_ENV['PATH']}"} if ripgrep else {})
    done = subprocess.run(
        ["bash", "-c", command], cwd=workspace, env=env, capture_output=True, stdin=subprocess.DEVNULL
    )
    return ShellRun(done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"), done.returncode)


def assert_same(
    workspace: Path, store: ContentStore, command: str, ripgrep: str = "13.0.0", workdir: str | None = None
) -> None:
    """The emulation (as an agent running the ``ripgrep`` release) prints what the real programs print."""
    expected = real(workspace / workdir if workdir else workspace, command, RIPGREPS.get(ripgrep))
    emulated = emulate(Root.of(workspace), store, command, workdir, ripgrep=ripgrep)
    assert not isinstance(emulated, NotReplayable), emulated.reason
    assert (str(emulated.stdout), emulated.stderr, emulated.exit_code) == (
        expected.stdout,
        expected.stderr,
        expected.exit_code,
    )


@pytest.mark.parametrize("command", [command for command in COMMANDS if "rg " not in command])
def test_same_as_the_real_program(workspace: Path, store: ContentStore, command: str) -> None:
    assert_same(workspace, store, command)


RG_COMMANDS = [command for command in COMMANDS if "rg " in command] + [
    "rg x nope.txt",
    "rg -n TODO sub nope",
    "rg -j1 x nope.txt plain.txt",
    "rg --threads 1 -n last nonl.txt nope",
    "rg -n -C 1 -A 0 gamma plain.txt",
    "rg -n -A 0 -C 1 gamma plain.txt",
    "rg -n -B1 -C2 'line 10 ' plain.txt",
    "rg -C1 -A3 -n 'line 10 ' plain.txt",
    "rg -c -l e nonl.txt",
    "rg -l -c e nonl.txt",
    "rg -j1 -l -c e plain.txt nonl.txt",
    "rg -n -B 1 -B 2 'line 10 ' plain.txt",
]


@pytest.mark.parametrize("release", sorted(RIPGREPS) or ["none"])
@pytest.mark.parametrize("command", RG_COMMANDS)
def test_same_as_each_ripgrep_release(workspace: Path, store: ContentStore, command: str, release: str) -> None:
    """The release each agent bundles prints otherwise (``rg: `` before its messages from 14 on,
    ``-A``/``-B`` over ``-C``, the last of ``-c``/``-l``): each is emulated as itself."""
    if release not in RIPGREPS:
        pytest.skip("no ripgrep found")
    emulated = emulate(Root.of(workspace), store, command, ripgrep=release)
    if isinstance(emulated, NotReplayable):  # 13's usage error for an option given twice
        expected = real(workspace, command, RIPGREPS[release])
        assert expected.exit_code == 2 and "error:" in expected.stderr, emulated.reason
        return
    assert_same(workspace, store, command, release)


MERGED = [
    "cat plain.txt nope.txt nonl.txt",
    "cat nope.txt; head -n 2 crlf.txt",
    "head -n 1 nope.txt plain.txt sub nonl.txt",
    "sed -n '1,3p' crlf.txt nope.txt",
    "grep -n alpha nope.txt nonl.txt plain.txt",
    "cd nowhere; cat nonl.txt",
    "echo before; cat sub; echo after; exit 4",
    "wc -l nope.txt crlf.txt",
]
"""Commands writing to both streams; each program writes its stdout before each message it prints."""


@pytest.mark.parametrize("command", MERGED)
def test_stdout_and_stderr_as_one_stream(workspace: Path, store: ContentStore, command: str) -> None:
    """As an agent reading both from one pipe (Codex, Claude Code 2.1) gets them: in the order written."""
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=workspace,
        env=REAL_ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    emulated = emulate(Root.of(workspace), store, command, merged=True)
    assert isinstance(emulated, ShellRun), emulated
    assert (str(emulated.stdout), emulated.stderr, emulated.exit_code, emulated.stdout_bytes) == (
        done.stdout.decode("utf-8", "replace"),
        "",
        done.returncode,
        len(done.stdout),
    )
