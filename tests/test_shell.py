"""Shell reads: each command form's output stated literally, the parser's forms, what is not replayable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentpager.engine.content import ContentStore
from agentpager.engine.lazytext import LazyText, head
from agentpager.tools.paths import Root
from agentpager.tools.shell import LinesRead, NotReplayable, ShellRun, emulate, lines_read
from tests.shell_corpus import build


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build(tmp_path_factory.mktemp("shell"))
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.txt").write_text("secret\n")
    os.symlink(outside / "secret.txt", root / "link-out.txt")
    os.symlink(outside, root / "dir-out")
    return root


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ContentStore:
    return ContentStore(tmp_path_factory.mktemp("cache"))


def run(workspace: Path, store: ContentStore, command: str | list[str], workdir: str | None = None) -> ShellRun:
    result = emulate(Root.of(workspace), store, command, workdir)
    assert isinstance(result, ShellRun), result
    return result


def out(workspace: Path, store: ContentStore, command: str | list[str]) -> tuple[str, str, int]:
    result = run(workspace, store, command)
    return str(result.stdout), result.stderr, result.exit_code


MISSING = "No such file or directory"
EXPECTED = {
    # cat: CRLF and invalid bytes pass through; the agent's decoding makes U+FFFD; a BOM stays
    "cat crlf.txt": ("one\r\ntwo\r\nthree\r\n", "", 0),
    "cat nonl.txt empty.txt newline.txt": ("first\nsecond\nlast\n", "", 0),
    "cat invalid.txt": ("ok abc\n\ufffd\ufffd bad abc\nabc ok\n\ufffd\nlast abc\n", "", 0),
    "cat bom.txt": ("\ufeffhello\nworld\n", "", 0),
    "cat -n nonl.txt newline.txt": ("     1\tfirst\n     2\tsecond\n     3\tlast\n", "", 0),
    "cat nope.txt": ("", f"cat: nope.txt: {MISSING}\n", 1),
    "cat sub": ("", "cat: sub: Is a directory\n", 1),
    "cat 'no pe.txt'": ("", f"cat: 'no pe.txt': {MISSING}\n", 1),
    # head and tail
    "head -n 2 nonl.txt": ("first\nsecond\n", "", 0),
    "head -2 crlf.txt nonl.txt": ("==> crlf.txt <==\none\r\ntwo\r\n\n==> nonl.txt <==\nfirst\nsecond\n", "", 0),
    "head -n -1 nonl.txt": ("first\nsecond\n", "", 0),
    "head -c 4 utf8.txt": ("h\u00e9l", "", 0),
    "head -c 2 utf8.txt": ("h\ufffd", "", 0),
    "head -n 1 nope.txt": ("", f"head: cannot open 'nope.txt' for reading: {MISSING}\n", 1),
    "head -n 1 sub": ("", "head: error reading 'sub': Is a directory\n", 1),
    "head -n 5 empty.txt": ("", "", 0),
    "tail -n 1 nonl.txt": ("last", "", 0),
    "tail -n 2 crlf.txt": ("two\r\nthree\r\n", "", 0),
    "tail -n +3 nonl.txt": ("last", "", 0),
    "tail -n +9 nonl.txt": ("", "", 0),
    "tail -c 3 nonl.txt": ("ast", "", 0),
    "cat nonl.txt | tail -c 99": ("first\nsecond\nlast", "", 0),
    "tail -n 1 nope.txt": ("", f"tail: cannot open 'nope.txt' for reading: {MISSING}\n", 1),
    # sed: ranges past the end, $, a last line without a newline
    "sed -n '2,3p' nonl.txt": ("second\nlast", "", 0),
    "sed -n '3,99p' nonl.txt": ("last", "", 0),
    "sed -n '9,12p' nonl.txt": ("", "", 0),
    "sed -n '$p' crlf.txt": ("three\r\n", "", 0),
    "sed -n '$p;$p' nonl.txt": ("last\nlast", "", 0),
    "sed -n '2,$p' crlf.txt": ("two\r\nthree\r\n", "", 0),
    "sed -n '1p;3p' nonl.txt": ("first\nlast", "", 0),
    "sed -n -e 1p -e 2p nonl.txt": ("first\nsecond\n", "", 0),
    "sed -n '3,1p' nonl.txt": ("last", "", 0),
    "sed -n '2!p' nonl.txt": ("first\nlast", "", 0),
    "sed -n '1,2p' nonl.txt crlf.txt": ("first\nsecond\n", "", 0),
    "sed -n p nonl.txt crlf.txt": ("first\nsecond\nlast\none\r\ntwo\r\nthree\r\n", "", 0),
    "sed 2q nonl.txt": ("first\nsecond\n", "", 0),
    "sed -n = nonl.txt": ("1\n2\n3\n", "", 0),
    "sed -n '1p' nope.txt nonl.txt": ("first\n", f"sed: can't read nope.txt: {MISSING}\n", 2),
    "sed -n '1p' sub": ("", "sed: read error on sub: Is a directory\n", 4),
    "sed -n '/class/,/^$/p' code.py": ("class Thing:\n    def __init__(self):\n        self.x = 1\n\n", "", 0),
    "sed -n '/SECOND/Ip' nonl.txt": ("second\n", "", 0),
    "sed '1d;1,2p' nonl.txt": ("second\nsecond\nlast", "", 0),
    # sed ends its output with a newline when it quits; a file it could not read decides the status
    "sed '3q' nonl.txt": ("first\nsecond\nlast\n", "", 0),
    "sed -n '$p;$q' nonl.txt": ("last\n", "", 0),
    "sed 1q5 nope.txt nonl.txt": ("first\n", f"sed: can't read nope.txt: {MISSING}\n", 2),
    # nl
    "nl -ba nonl.txt": ("     1\tfirst\n     2\tsecond\n     3\tlast\n", "", 0),
    "nl newline.txt code.py": (
        "       \n     1\timport os\n       \n       \n     2\tclass Thing:\n     3\t    def __init__(self):\n"
        "     4\t        self.x = 1\n       \n     5\t    def run(self):\n     6\t        return os.getcwd()\n"
        "       \n       \n     7\tdef main():\n     8\t    Thing().run()\n",
        "",
        0,
    ),
    "nl section.txt": ("     1\ta\n\n     1\tb\n\n       c\n", "", 0),
    # wc: one count of one file is not padded; otherwise the width of the total size
    "wc -l nonl.txt": ("2 nonl.txt\n", "", 0),
    "wc nonl.txt crlf.txt": (" 2  3 17 nonl.txt\n 3  3 17 crlf.txt\n 5  6 34 total\n", "", 0),
    "wc -l empty.txt": ("0 empty.txt\n", "", 0),
    "wc sub": ("      0       0       0 sub\n", "wc: sub: Is a directory\n", 1),
    "cat nonl.txt | wc": ("      2       3      17\n", "", 0),
    "cat nonl.txt | wc -l": ("2\n", "", 0),
    # grep: one file unnamed, several named, context separators, binary lines
    "grep -n t nonl.txt": ("1:first\n3:last\n", "", 0),
    "grep ond nonl.txt crlf.txt": ("nonl.txt:second\n", "", 0),
    "grep -c o nonl.txt crlf.txt empty.txt": ("nonl.txt:1\ncrlf.txt:2\nempty.txt:0\n", "", 0),
    "grep -n -A1 'line 1[05] ' plain.txt": (
        "10:line 10 alpha beta\n11-line 11 alpha beta\n--\n15:line 15 alpha beta gamma\n16-line 16 alpha beta\n",
        "",
        0,
    ),
    "grep -n 'o$' crlf.txt": ("", "", 1),
    "grep -n abc invalid.txt": ("1:ok abc\n3:abc ok\n5:last abc\n", "grep: invalid.txt: binary file matches\n", 0),
    "grep x nope.txt": ("", f"grep: nope.txt: {MISSING}\n", 2),
    "grep -l o nonl.txt crlf.txt empty.txt": ("nonl.txt\ncrlf.txt\n", "", 0),
    "grep -v -A1 -n a invalid.txt": ("1-ok abc\n", "grep: invalid.txt: binary file matches\n", 0),
    "grep abc invalid.txt nope.txt >/dev/null": ("", f"grep: nope.txt: {MISSING}\n", 2),
    # ripgrep: no line numbers unless -n (stdout is not a terminal); names for several files
    "rg t nonl.txt": ("first\nlast\n", "", 0),
    "rg -n o nonl.txt crlf.txt": ("nonl.txt:2:second\ncrlf.txt:1:one\r\ncrlf.txt:2:two\r\n", "", 0),
    "rg -c o nonl.txt crlf.txt empty.txt": ("nonl.txt:1\ncrlf.txt:2\n", "", 0),
    "rg x nope.txt": ("", f"nope.txt: {MISSING} (os error 2)\n", 2),
    # an invalid byte is no \W and no \S to either program (it is not a character), nor . nor [^x]
    "grep -c '\\W' invalid.txt": ("4\n", "", 0),
    "grep -c '^\\S' invalid.txt": ("3\n", "", 0),
    "rg -c '^\\D' invalid.txt": ("3\n", "", 0),
    "cat nonl.txt | rg -n t": ("1:first\n3:last\n", "", 0),
    # ls: byte order, files before directories
    "ls sub emptydir": ("emptydir:\n\nsub:\ninner.txt\n", "", 0),
    "ls -A sub": (".hidden\ninner.txt\n", "", 0),
    "ls nonl.txt sub": ("nonl.txt\n\nsub:\ninner.txt\n", "", 0),
    "ls nope": ("", f"ls: cannot access 'nope': {MISSING}\n", 2),
    # pipes, lists, redirections
    "nl -ba nonl.txt | sed -n '2,3p'": ("     2\tsecond\n     3\tlast\n", "", 0),
    "grep -n line plain.txt | head -2": ("1:line 1 alpha beta\n2:line 2 alpha beta\n", "", 0),
    # head -n 0 exits without reading: a writer is stopped at its first write, after any error before it
    "grep -v zzz invalid.txt | head -n 0": ("", "", 0),
    "cat nope.txt nonl.txt | head -n 0": ("", f"cat: nope.txt: {MISSING}\n", 0),
    "grep -v zzz invalid.txt | head -c 0": ("", "", 0),
    "cat nope.txt 2>/dev/null": ("", "", 1),
    "cat nope.txt 2>&1": (f"cat: nope.txt: {MISSING}\n", "", 1),
    "sed -n p nonl.txt nope.txt 2>&1": (f"sed: can't read nope.txt: {MISSING}\nfirst\nsecond\nlast", "", 2),
    "cat nope.txt || echo fallback": ("fallback\n", f"cat: nope.txt: {MISSING}\n", 0),
    "cat nope.txt && echo never": ("", f"cat: nope.txt: {MISSING}\n", 1),
    "cd sub && cat inner.txt": ("inner 1\ninner 2\n", "", 0),
    "cd nope && cat x": ("", f"bash: line 1: cd: nope: {MISSING}\n", 1),
    "wc -l < nonl.txt": ("2\n", "", 0),
    "cat < nope.txt": ("", f"bash: line 1: nope.txt: {MISSING}\n", 1),
}


@pytest.mark.parametrize("command", list(EXPECTED))
def test_output(workspace: Path, store: ContentStore, command: str) -> None:
    assert out(workspace, store, command) == EXPECTED[command]


def test_argv_forms(workspace: Path, store: ContentStore) -> None:
    expected = ("first\nsecond\n", "", 0)
    assert out(workspace, store, ["bash", "-lc", "sed -n '1,2p' nonl.txt"]) == expected
    assert out(workspace, store, ["/bin/zsh", "-lc", "head -n 2 nonl.txt"]) == expected
    assert out(workspace, store, ["sh", "-c", "head -n 2 nonl.txt"]) == expected
    assert out(workspace, store, ["head", "-n", "2", "nonl.txt"]) == expected
    assert out(workspace, store, "bash -lc 'head -n 2 nonl.txt'") == expected
    assert out(workspace, store, ["cat", "space name.txt"]) == ("spaced out\n", "", 0)


def test_quoting(workspace: Path, store: ContentStore) -> None:
    assert out(workspace, store, "cat \"space\"' name'.txt") == ("spaced out\n", "", 0)
    assert out(workspace, store, "cat space\\ name.txt") == ("spaced out\n", "", 0)
    assert out(workspace, store, 'grep -c "line 1\\|line 2" plain.txt') == ("22\n", "", 0)
    assert out(workspace, store, 'echo "a\\"b" \'c\\d\' "\\$x"') == ('a"b c\\d $x\n', "", 0)


def test_workdir(workspace: Path, store: ContentStore) -> None:
    assert out(workspace, store, ["cat", "inner.txt"]) == ("", f"cat: inner.txt: {MISSING}\n", 1)
    result = run(workspace, store, "cat inner.txt ../nonl.txt", workdir="sub")
    assert str(result.stdout) == "inner 1\ninner 2\nfirst\nsecond\nlast"
    assert run(workspace, store, "head -1 inner.txt", workdir=str(workspace / "sub")).stdout == "inner 1\n"


def test_the_recorded_cwd_stands_for_the_root(workspace: Path, store: ContentStore) -> None:
    """Absolute paths under the directory the agent ran in name the same files under the root."""
    home = "/home/me/proj"

    def emulated(command: str, workdir: str | None = None) -> ShellRun | NotReplayable:
        return emulate(Root.of(workspace), store, command, workdir, recorded_cwd=home)

    assert emulated(f"head -n 1 {home}/nonl.txt") == ShellRun("first\n", "", 0, 6)
    assert emulated(f"cd {home}/sub && cat inner.txt") == ShellRun("inner 1\ninner 2\n", "", 0, 16)
    assert emulated("cat inner.txt", f"{home}/sub") == ShellRun("inner 1\ninner 2\n", "", 0, 16)
    assert emulated(f"ls {home}/sub") == ShellRun("inner.txt\n", "", 0, 10)
    assert emulated(f"cat {home}/nope.txt") == ShellRun("", f"cat: {home}/nope.txt: {MISSING}\n", 1, 0)
    assert emulated("cat /home/me/other/x") == NotReplayable("'/home/me/other/x' is outside the workspace")


def test_stderr_merged_into_stdout_as_written(workspace: Path, store: ContentStore) -> None:
    result = emulate(Root.of(workspace), store, "cat nonl.txt nope.txt; echo end", merged=True)
    assert result == ShellRun(f"first\nsecond\nlastcat: nope.txt: {MISSING}\nend\n", "", 0, 62)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("sed -n '10,20p' a.py", LinesRead("a.py", 10, 20)),
        ("sed -n 10,20p src/a.py", LinesRead("src/a.py", 10, 20)),
        ("sed -n '7p' a.py", LinesRead("a.py", 7, 7)),
        ("sed -n '5,$p' a.py", LinesRead("a.py", 5, None)),
        ("cat 'a b.py'", LinesRead("a b.py", 1, None)),
        ("head a.py", LinesRead("a.py", 1, 10)),
        ("head -n 40 a.py", LinesRead("a.py", 1, 40)),
        ("nl -ba a.py | sed -n '100,160p'", LinesRead("a.py", 100, 160)),
        ("sed -n '20,10p' a.py", None),
        ("sed -n '0,10p' a.py", None),
        ("sed -n 'p' a.py", None),
        ("sed '1,2p' a.py", None),
        ("cat a.py b.py", None),
        ("cat -n a.py", None),
        ("head -n 0 a.py", None),
        ("head -c 10 a.py", None),
        ("cat a.py | head", None),
        ("cat a.py > b.py", None),
        ("cd src && cat a.py", None),
        ("cat $F", None),
        ("rg -n x a.py", None),
    ],
)
def test_the_lines_a_plain_read_prints(command: str, expected: LinesRead | None) -> None:
    assert lines_read(command) == expected


NOT_REPLAYABLE = {
    "cat ../x": "'../x' is outside the workspace",
    "cat /etc/passwd": "'/etc/passwd' is outside the workspace",
    "cat link-out.txt": "'link-out.txt' is outside the workspace",
    "ls dir-out": "'dir-out' is outside the workspace",
    "cd .. && cat x": "cd to '..', outside the workspace",
    "cat *.txt": "a glob (*.txt): its expansion depends on the directory and locale",
    "cat $HOME/x": "a simple expansion ($HOME)",
    'cat "$F"': 'an expansion in "$F"',
    "cat $(ls)": "a command substitution ($(ls))",
    "cat ~/x": "a tilde expansion (~/x)",
    "cat {a,b}.txt": "a brace in {",
    "cat f > out.txt": "the redirection > out.txt",
    "for f in a; do cat $f; done": "a for statement (only plain commands are replayed)",
    "python -c 'print(1)'": "the program python",
    "exit x": "exit x: bash's message for a status that is not a number",
    "exit 1 | cat nonl.txt": "exit other than exit [N]",
    "ls -la": "ls: option -l not recognized",
    "sed -i 's/a/b/' f": "sed: option -i not recognized",
    "sed -n 's/a/b/p' f": "the sed script 's/a/b/p'",
    "sed -n '2{p}' plain.txt": "the sed script '2{p}'",
    "grep -R x .": "grep: option -R not recognized",
    "rg -L x": "rg -L (following symbolic links)",
    "grep x": "grep reads standard input, which is not known",
    "cat nonl.txt &": "a background job",
    "cat nonl.txt |": "a shell syntax error",
    "X=1 cat nonl.txt": "a variable assignment (X=1)",
    "cat ${F}": "an expansion (${F})",
    "cat $'a\\nb'": "an ansi c string ($'a\\nb')",
    "cat $((1+2))": "an arithmetic expansion ($((1+2)))",
    "until true; do :; done": "a while statement (only plain commands are replayed)",
    "grep -P '\\d' plain.txt": "grep: option -P not recognized",
}


@pytest.mark.parametrize("command", list(NOT_REPLAYABLE))
def test_not_replayable(workspace: Path, store: ContentStore, command: str) -> None:
    result = emulate(Root.of(workspace), store, command)
    assert isinstance(result, NotReplayable)
    assert result.reason.startswith(NOT_REPLAYABLE[command]), result.reason
    assert str(result) == "not replayable: " + result.reason


def test_not_replayable_workdir(workspace: Path, store: ContentStore) -> None:
    result = emulate(Root.of(workspace), store, "ls", "..")
    assert result == NotReplayable("the working directory '..' is outside the workspace")


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """24 MB of numbered lines: more than the index scans in one step."""
    root = tmp_path_factory.mktemp("huge")
    line = b"%07d " + b"z" * 16 + b"\n"
    with open(root / "big.log", "wb") as out_file:
        for start in range(0, 1_000_000, 100_000):
            out_file.write(b"".join(line % n for n in range(start + 1, start + 100_001)))
    return root


def test_windows_read_only_what_they_print(huge: Path, tmp_path: Path) -> None:
    store = ContentStore(tmp_path)
    size = (huge / "big.log").stat().st_size
    file = store.utf8_file(os.path.realpath(huge / "big.log"), lambda: pytest.fail("not to be opened"))
    result = emulate(Root.of(huge), store, "sed -n '20000,20002p' big.log")
    assert isinstance(result, ShellRun)
    assert result.stdout == "".join(f"{n:07d} {'z' * 16}\n" for n in (20000, 20001, 20002))
    scanned = file.indexed[0]
    assert 0 < scanned < size
    result = emulate(Root.of(huge), store, "tail -n 2 big.log; head -n 1 big.log")
    assert isinstance(result, ShellRun)
    assert result.stdout == f"0999999 {'z' * 16}\n1000000 {'z' * 16}\n0000001 {'z' * 16}\n"
    assert file.indexed[0] == scanned


def test_huge_output_is_lazy(huge: Path, tmp_path: Path) -> None:
    result = emulate(Root.of(huge), ContentStore(tmp_path), "cat big.log | nl -ba")
    assert isinstance(result, ShellRun)
    assert isinstance(result.stdout, LazyText)
    assert head(result.stdout, 32) == f"     1\t0000001 {'z' * 16}\n"
    assert result.exit_code == 0
