"""Searching and listing directories: ``rg`` (each release), ``grep -r``, ``find``, ``ls -R``, ``git ls-files``.

A tree with the awkward parts of a real repository (nested ``.gitignore`` files with negations and
anchors, ``.ignore``, ``.rgignore``, hidden files, ``node_modules``, a binary file, symbolic links
inside and to outside, names with spaces and non-ASCII letters, an index in version 2 and 4) is
searched by the real programs and by the emulation; the file system's order is the same for both
(same directory), so the orders agree too. ripgrep's parallel walk prints files in no fixed order:
compared with ``-j1`` and ``--sort path``, and its own answer checked to be marked uncertain.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tracemalloc
from pathlib import Path

import pytest

from agentpager.engine.content import ContentStore
from agentpager.tools.paths import Root
from agentpager.tools.shell import NotReplayable, ShellRun, emulate
from tests.test_shell_real import RIPGREPS, assert_same

FILES = {
    "src/app.py": b"import os\n# TODO: tidy\ndef main():\n    return os.getcwd()\n",
    "src/util/strings.py": b"def shout(text):\n    return text.upper()  # TODO upper\n",
    "src/util/.cache.py": b"TODO hidden file\n",
    "src/gen/out.py": b"TODO generated\n",
    "src/web/app.js": b"// TODO js\nexport const x = 1;\n",
    "src/web/app.min.js": b"var a=1;// TODO min\n",
    "src/keep.log": b"TODO keep\n",
    "src/drop.log": b"TODO drop\n",
    "src/café notes.md": "# TODO café\n".encode(),
    "docs/guide.md": b"TODO: write the guide\nTodo: lower\n",
    "docs/api/index.rst": b"API\n===\nTODO\n",
    "build/out.o": b"TODO object\n",
    "node_modules/pkg/index.js": b"// TODO vendored\n",
    ".hidden/secret.py": b"TODO secret\n",
    ".env": b"TOKEN=TODO\n",
    "README.md": b"# Project\nTODO: readme\n",
    "data/blob.bin": b"TODO\x00binary\x00",
    "data/table.csv": b"a,b\nTODO,1\n",
    "tmp/scratch.txt": b"TODO scratch\n",
    "empty.txt": b"",
    ".gitignore": b"build/\n*.o\n/tmp\nsrc/gen/\n# a comment\n\\#literal\n",
    "src/.gitignore": b"*.log\n!keep.log\n*.min.js\n",
    ".ignore": b"docs/api/\n",
    "data/.rgignore": b"*.csv\n",
}


def build_tree(root: Path, index_version: int = 2) -> Path:
    for name, data in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / "emptydir").mkdir()
    os.symlink("app.py", root / "src" / "link.py")
    os.symlink("../docs", root / "src" / "docs-link")
    os.symlink("/etc", root / "outside")
    if shutil.which("git"):
        env = {"PATH": "/usr/bin:/bin", "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"}
        subprocess.run(["git", "init", "-q", "."], cwd=root, env=env, check=True)
        subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
        subprocess.run(["git", "update-index", "--index-version", str(index_version)], cwd=root, env=env, check=True)
    return root


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tree(tmp_path_factory.mktemp("tree"))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ContentStore:
    return ContentStore(tmp_path_factory.mktemp("cache"))


RG = [
    "rg -j1 -n TODO",
    "rg -j1 -n TODO src",
    "rg -j1 -l TODO src docs",
    "rg -j1 -c TODO .",
    "rg -j1 -l TODO ./src/",
    "rg -j1 -i -n todo docs",
    "rg -j1 -w -l TODO",
    "rg -j1 -n -C1 TODO docs",
    "rg -j1 --hidden -l TODO",
    "rg -j1 -uu -l TODO",
    "rg -j1 -u -l TODO",
    "rg -j1 --no-ignore -l TODO src",
    "rg -j1 -g '*.py' -l TODO",
    "rg -j1 -g '!src/**' -l TODO",
    "rg -j1 -g '*.log' -l TODO",
    "rg -j1 -t py -l TODO",
    "rg -j1 -t md -t js -n TODO",
    "rg -j1 -T py -l TODO",
    "rg -j1 --files",
    "rg -j1 --files src",
    "rg -j1 --files --hidden docs",
    "rg --sort path -n TODO",
    "rg --sort path --files",
    "rg -j1 -l TODO src/app.py docs",
    "rg -j1 -l TODO nope src",
    "rg -j1 -l TODO data",
    "rg -j1 --files emptydir",
    "rg -j1 -l ZZZ",
]


@pytest.mark.parametrize("release", sorted(RIPGREPS) or ["none"])
@pytest.mark.parametrize("command", RG)
def test_rg_walks_as_each_release(tree: Path, store: ContentStore, command: str, release: str) -> None:
    if release not in RIPGREPS:
        pytest.skip("no ripgrep found")
    assert_same(tree, store, command, release)


@pytest.mark.parametrize("release", sorted(RIPGREPS) or ["none"])
def test_rg_in_a_directory_below_the_root(tree: Path, store: ContentStore, release: str) -> None:
    """The ignore files above the working directory count (``src/gen/`` is in the root's)."""
    if release not in RIPGREPS:
        pytest.skip("no ripgrep found")
    assert_same(tree, store, "rg -j1 -l TODO", release, workdir="src")
    assert_same(tree, store, "rg -j1 --files ..", release, workdir="src")


GREP = [
    "grep -rn TODO src",
    "grep -rl TODO .",
    "grep -r TODO",
    "grep -rc TODO docs",
    "grep -rl TODO --include='*.py'",
    "grep -rl TODO --include='*.py' --include='*.md' src docs",
    "grep -rl TODO --exclude='*.py' src",
    "grep -rl TODO --exclude-dir=node_modules --exclude-dir=.git",
    "grep -rn -i todo docs",
    "grep -rl TODO data",
    "grep -rc TODO data",
    "grep -r TODO data/blob.bin",
    "grep -rl TODO nope src",
    "grep -r -l ZZZ src",
    "grep -rL TODO src",
]


@pytest.mark.parametrize("command", GREP)
def test_grep_r_walks_as_gnu_grep(tree: Path, store: ContentStore, command: str) -> None:
    assert_same(tree, store, command)


LISTINGS = [
    "find . -name '*.py'",
    "find . -type f -name '*.md'",
    "find src -type d",
    "find src/ -type l",
    "find . -maxdepth 1",
    "find . -maxdepth 2 -type d -not -name '.*'",
    "find . -path './src/*' -iname '*.JS'",
    "find docs src/util -mindepth 1",
    "find nope src/web",
    "find src/link.py src/docs-link",
    "ls -R src",
    "ls -R",
    "ls -AR docs",
    "ls -R src/app.py docs",
    "git ls-files",
    "git ls-files | head -n 3",
    "cd src && git ls-files",
]


@pytest.mark.parametrize("command", LISTINGS)
def test_listings_as_the_real_programs(tree: Path, store: ContentStore, command: str) -> None:
    if command.startswith(("git", "cd src && git")) and not shutil.which("git"):
        pytest.skip("git is not installed")
    assert_same(tree, store, command)


def test_git_ls_files_reads_an_index_of_version_4(tmp_path: Path, store: ContentStore) -> None:
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    root = build_tree(tmp_path, index_version=4)
    assert (root / ".git" / "index").read_bytes()[4:8] == b"\0\0\0\x04"
    assert_same(root, store, "git ls-files")
    subprocess.run(["git", "config", "core.quotePath", "false"], cwd=root, check=True)
    assert_same(root, store, "git ls-files")


def test_rg_parallel_order_is_an_answer_marked_uncertain(tree: Path, store: ContentStore) -> None:
    """Without ``-j1`` ripgrep prints the files its threads finish first: the answer is its walker's
    order on one thread (a directory's entries last first) and says it is uncertain."""
    result = emulate(Root.of(tree), store, "rg -l TODO docs")
    assert isinstance(result, ShellRun)
    one_thread = emulate(Root.of(tree), store, "rg -j1 -l TODO docs")
    assert isinstance(one_thread, ShellRun)
    assert sorted(str(result.stdout).splitlines()) == sorted(str(one_thread.stdout).splitlines())
    assert result.uncertain == "ripgrep searches files on parallel threads and prints them in no fixed order"
    assert one_thread.uncertain == ""
    single = emulate(Root.of(tree), store, "rg -l 'TODO: write' docs")
    assert isinstance(single, ShellRun) and (str(single.stdout), single.uncertain) == ("docs/guide.md\n", "")


NOT_REPLAYABLE = {
    "rg -L TODO": "rg -L (following symbolic links)",
    "rg -j1 TODO outside": "'outside' is outside the workspace",
    "rg -j1 TODO ..": "'..' is outside the workspace",
    "rg -j1 -uuu TODO": "rg -uuu (binary files searched as text)",
    "rg -t nosuchtype TODO": "rg: the file type 'nosuchtype', which ripgrep does not know",
    "find . -delete": "find -delete",
    "find . -name '*.py' -o -name '*.md'": "find -o",
    "find ..": "'..' is outside the workspace",
    "git status": "git status",
    "git ls-files -s": "git ls-files with options",
    "grep -R TODO .": "grep: option -R not recognized",
}


@pytest.mark.parametrize("command", list(NOT_REPLAYABLE))
def test_what_is_not_walked(tree: Path, store: ContentStore, command: str) -> None:
    result = emulate(Root.of(tree), store, command)
    assert isinstance(result, NotReplayable), result
    assert result.reason.startswith(NOT_REPLAYABLE[command]), result.reason


def test_a_symlink_to_outside_is_never_followed(tree: Path, store: ContentStore) -> None:
    """``outside`` points at /etc: a walk of the root lists the link, never what it points to."""
    for command in ("find . -name passwd", "rg -j1 -uu --files", "grep -rl root .", "ls -R"):
        result = emulate(Root.of(tree), store, command)
        assert isinstance(result, ShellRun), (command, result)
        assert "passwd" not in str(result.stdout) and "/etc" not in str(result.stdout), command


@pytest.mark.slow
def test_a_hundred_thousand_files_are_walked_in_bounded_memory(tmp_path: Path) -> None:
    """100 directories of 1,000 files: a listing cut by ``head`` holds at most one directory's names.

    Each directory's files are hard links to its first one: the same 100,000 names for the walks, at
    a fraction of the cost of creating 100,000 inodes."""
    names = [f"f{number:04d}.txt" for number in range(1, 1000)]
    for directory in range(100):
        folder = tmp_path / f"d{directory:03d}"
        folder.mkdir()
        (folder / "f0000.txt").touch()
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for name in names:  # by name in the open directory: no path built or resolved per file
                os.link("f0000.txt", name, src_dir_fd=handle, dst_dir_fd=handle)
        finally:
            os.close(handle)
    store = ContentStore(tmp_path.parent / (tmp_path.name + "-cache"))
    for command in (
        "rg --files | head -n 5",
        "find . -type f | head -n 5",
        "ls -R | head -n 5",
        "rg -j1 --files | wc -l",
    ):
        tracemalloc.start()
        try:
            result = emulate(Root.of(tmp_path), store, command)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert isinstance(result, ShellRun), (command, result)
        assert peak < 8 << 20, f"{command}: {peak >> 20} MB"
    assert str(result.stdout) == "100000\n"
