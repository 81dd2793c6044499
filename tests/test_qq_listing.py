"""qq list_files and count_files: the 20-file warning, pages of 100, and the breakdown (section 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentpager import Workspace


def make_files(directory: Path, count: int, pattern: str = "f{:03d}.txt") -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    names = [pattern.format(n) for n in range(count)]
    for name in names:
        (directory / name).write_text("x\n")
    return names


def test_20_files_are_listed(root: Path, call) -> None:
    names = make_files(root, 20)
    assert call("list_files").text == "\n".join(names)


def test_21_files_warn(root: Path, call) -> None:
    make_files(root, 21)
    assert call("list_files").text == (
        "Warning: 21 files match pattern '*' in current directory.\n"
        "Listing all would overwhelm the context window.\n\n"
        "Options:\n"
        "1. Use count_files() to see breakdown by extension\n"
        "2. Use a more specific pattern (e.g., '*.py' instead of '*')\n"
        "3. Use list_files with pagination: list_files('*', offset=0, limit=20)\n"
    )


def test_warning_recursive_regex_in_a_subdirectory(root: Path, call) -> None:
    make_files(root / "src" / "deep", 25)
    result = call("list_files", pattern=r"\.txt$", recursive=True, use_regex=True, path="src")
    assert result.text.splitlines()[0] == "Warning: 25 files match pattern '\\.txt$' recursively."
    assert result.text.splitlines()[-1] == (
        "3. Use list_files with pagination: "
        "list_files('\\.txt$', recursive=True, use_regex=True, path='src', offset=0, limit=20)"
    )
    assert result.text.endswith("\n")


def test_warning_names_the_directory(root: Path, call) -> None:
    make_files(root / "docs", 30)
    result = call("list_files", path="./docs/")
    assert result.text.splitlines()[0] == "Warning: 30 files match pattern '*' in directory 'docs'."
    assert "list_files('*', path='docs', offset=0, limit=20)" in result.text


def test_pages(root: Path, call) -> None:
    names = make_files(root, 250)
    first = call("list_files", limit=100)
    assert first.text == "[Files 1-100 of 250]\n" + "\n".join(names[:100]) + (
        "\n[More files available. Use offset=100 to continue.]"
    )
    last = call("list_files", offset=200, limit=100)
    assert last.text == "[Files 201-250 of 250]\n" + "\n".join(names[200:]) + "\n[Listing complete. Total: 250 files]"


def test_limit_is_capped_at_100_and_the_next_offset_follows(root: Path, call) -> None:
    make_files(root, 150)
    result = call("list_files", limit=500, offset=10)
    assert result.text.startswith("[Files 11-110 of 150]\n")
    assert result.text.endswith("\n[More files available. Use offset=110 to continue.]")


def test_exactly_the_last_page(root: Path, call) -> None:
    names = make_files(root, 40)
    assert call("list_files", offset=20, limit=20).text == (
        "[Files 21-40 of 40]\n" + "\n".join(names[20:]) + "\n[Listing complete. Total: 40 files]"
    )


def test_offset_past_the_end(root: Path, call) -> None:
    make_files(root, 5)
    result = call("list_files", offset=5, limit=10)
    assert (result.text, result.is_error) == ("No files in range. Total: 5, offset: 5", False)


def test_offset_is_ignored_without_a_limit(root: Path, call) -> None:
    names = make_files(root, 3)
    assert call("list_files", offset=99).text == "\n".join(names)


def test_no_match(root: Path, call) -> None:
    make_files(root, 3)
    result = call("list_files", pattern="*.py")
    assert (result.text, result.is_error) == ("No files found matching the criteria.", False)


def test_glob_is_case_sensitive_and_matches_relative_paths(root: Path, call) -> None:
    make_files(root / "a", 1, "x.PY")
    make_files(root / "a", 1, "y.py")
    make_files(root, 1, "top.py")
    assert call("list_files", pattern="*.py").text == "top.py"
    assert call("list_files", pattern="*.py", recursive=True).text == "a/y.py\ntop.py"
    assert call("list_files", pattern="a/*", recursive=True).text == "a/x.PY\na/y.py"


def test_regex_searches_anywhere_in_the_path(root: Path, call) -> None:
    make_files(root / "pkg", 1, "mod.py")
    make_files(root, 1, "readme.md")
    assert call("list_files", pattern="kg/m", recursive=True, use_regex=True).text == "pkg/mod.py"


def test_listing_a_subdirectory_reports_paths_from_the_root(root: Path, call) -> None:
    make_files(root / "src", 2, "m{}.py")
    assert call("list_files", path="src").text == "src/m0.py\nsrc/m1.py"


def test_sorted_in_python_string_order(root: Path, call) -> None:
    for name in ("b.txt", "B.txt", "a.txt", "_z.txt", "a/b.txt"):
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text("x")
    assert call("list_files", recursive=True).text == "B.txt\n_z.txt\na.txt\na/b.txt\nb.txt"


def test_directories_are_not_files_and_symlinked_dirs_are_not_descended(root: Path, call) -> None:
    make_files(root / "real", 1, "inner.txt")
    (root / "linked").symlink_to(root / "real")
    assert call("list_files", recursive=True).text == "real/inner.txt"


def test_bad_arguments(call) -> None:
    assert call("list_files", offset=-1).text == "Error: offset must be >= 0 (got -1)."
    assert call("list_files", limit=-2).text == "Error: limit must be >= 0 (got -2)."
    result = call("list_files", pattern="(", use_regex=True, path="missing")
    assert result.text == ("Error: Invalid regex pattern '(': missing ), unterminated subpattern at position 0.")
    assert result.is_error


def test_count_files(root: Path, call) -> None:
    make_files(root, 3, "a{}.py")
    make_files(root, 2, "b{}.TXT")
    make_files(root, 2, "Makefile{}")
    make_files(root / "sub", 1, "c.py")
    assert call("count_files").text == (
        "Directory: .\nPattern: *\nTotal files in directory: 7\n\n"
        "By extension:\n  .py: 3\n  (no extension): 2\n  .txt: 2"
    )
    assert call("count_files", pattern=r"\.py$", use_regex=True, recursive=True).text == (
        "Directory: .\nPattern: \\.py$ (regex)\nTotal files recursively: 4\n\nBy extension:\n  .py: 4"
    )
    assert call("count_files", path="sub").text == (
        "Directory: sub\nPattern: *\nTotal files in directory: 1\n\nBy extension:\n  .py: 1"
    )


def test_count_files_without_matches(root: Path, call) -> None:
    assert call("count_files", pattern="*.rs").text == "No files found matching the criteria."


@pytest.mark.parametrize("change", ["add", "remove", "rename"])
def test_listing_cache_sees_changes(root: Path, call, change: str) -> None:
    make_files(root / "a" / "b", 3)
    assert call("list_files", recursive=True).text.count("\n") == 2
    deep = root / "a" / "b"
    if change == "add":
        (deep / "new.txt").write_text("x")
        expected = "a/b/f000.txt\na/b/f001.txt\na/b/f002.txt\na/b/new.txt"
    elif change == "remove":
        (deep / "f001.txt").unlink()
        expected = "a/b/f000.txt\na/b/f002.txt"
    else:
        (deep / "f001.txt").rename(deep / "g.txt")
        expected = "a/b/f000.txt\na/b/f002.txt\na/b/g.txt"
    assert call("list_files", recursive=True).text == expected


def test_unreadable_subdirectory_is_skipped(public_root: Path, unprivileged) -> None:
    make_files(public_root / "open", 1, "ok.txt")
    make_files(public_root / "closed", 1, "hidden.txt")
    (public_root / "open").chmod(0o755)
    (public_root / "closed").chmod(0)
    workspace = Workspace(public_root)
    assert unprivileged(lambda: workspace.call("list_files", {"recursive": True}).text) == "open/ok.txt"
