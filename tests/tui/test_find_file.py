"""The file finder (``o``): which files come first at an equal match."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_helpers import settle
from textual.widgets import Input, OptionList

from agentpager import Workspace
from agentpager.tools.shell import walk
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.screens.find_file import Candidates, FindFile, fuzzy, project_first

FILES = [
    ".venv/lib/python3.11/site-packages/pkg/cli.py",
    "build/lib/cli.py",
    "node_modules/tool/cli.py",
    "out/cli.py",
    "src/pkg/cli.py",
    "tools/node_modules/x/cli.py",
    "web/generated/cli.py",
    "web/src/cli.py",
    "zz/cli.py",
]


def a_project(root: Path) -> None:
    for path in FILES:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("print()\n")
    (root / ".gitignore").write_text("/out/\n")
    (root / "web" / ".gitignore").write_text("generated/\n")


def test_ignored_directories_are_hidden_ones_installed_or_built_ones_and_those_gitignore_files_ignore(
    root: Path,
) -> None:
    a_project(root)
    workspace = Workspace(root)
    assert sorted(workspace.ignored_directories(workspace.files())) == [
        ".venv",
        ".venv/lib",
        ".venv/lib/python3.11",
        ".venv/lib/python3.11/site-packages",
        ".venv/lib/python3.11/site-packages/pkg",
        "build",
        "build/lib",
        "node_modules",
        "node_modules/tool",
        "out",
        "tools/node_modules",
        "tools/node_modules/x",
        "web/generated",
    ]


def test_the_projects_own_files_come_first_then_the_shallower(root: Path) -> None:
    a_project(root)
    workspace = Workspace(root)
    files = workspace.files()
    ranked = Candidates(project_first(files, workspace.ignored_directories(files))).rank(fuzzy("cli.py"), 10)
    assert [path for path, _ in ranked] == [
        "zz/cli.py",
        "src/pkg/cli.py",
        "web/src/cli.py",
        "out/cli.py",
        "build/lib/cli.py",
        "node_modules/tool/cli.py",
        "web/generated/cli.py",
        "tools/node_modules/x/cli.py",
        ".venv/lib/python3.11/site-packages/pkg/cli.py",
    ]


def test_a_better_match_in_an_ignored_directory_still_comes_first() -> None:
    paths = project_first(["node_modules/cli.py", "src/c_l_i.py"], {"node_modules"})
    assert [path for path, _ in Candidates(paths).rank(fuzzy("cli"), 10)] == ["node_modules/cli.py", "src/c_l_i.py"]


async def test_the_finder_offers_the_projects_file_first(root: Path) -> None:
    a_project(root)
    app = AgentPagerApp(Workspace(root))
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, FindFile)
        app.screen.query_one(Input).value = "cli.py"
        await settle(pilot)
        options = app.screen.query_one(OptionList)
        assert [str(options.get_option_at_index(i).prompt) for i in range(3)] == [
            "zz/cli.py",
            "src/pkg/cli.py",
            "web/src/cli.py",
        ]
        await pilot.press("enter")
        await settle(pilot)
        assert app.viewer.path == "zz/cli.py"


def test_a_match_that_starts_the_file_name_comes_first() -> None:
    paths = ["tests/test_cli.py", "src/agentpager/cli.py", "src/agentpager/clip.py"]
    ranked = Candidates(project_first(paths, set())).rank(fuzzy("cli.py"), 10)
    assert ranked == [
        ("src/agentpager/cli.py", [15, 16, 17, 18, 19, 20]),
        ("tests/test_cli.py", [11, 12, 13, 14, 15, 16]),
        ("src/agentpager/clip.py", [15, 16, 17, 19, 20, 21]),
    ], "cli.py starts its name, test_cli.py is nearer the root, clip.py is a looser match"


def test_the_repository_s_exclude_file_counts_as_its_gitignore_does_but_for_less(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``.git/info/exclude`` was not read: a directory only it ignores came first. Its rules count
    for less than the ``.gitignore`` beside it (``!notes/`` keeps what it ignores); one over the
    ignore files' bound counts for nothing, and the ``.gitignore`` still counts."""
    for path in ("scratch/cli.py", "notes/cli.py", "out/cli.py", "src/cli.py"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("print()\n")
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("# local\nscratch/\nnotes/\n")
    (root / ".gitignore").write_text("/out/\n!notes/\n")
    workspace = Workspace(root)
    files = workspace.files()
    assert sorted(workspace.ignored_directories(files)) == [".git", ".git/info", "out", "scratch"]
    ranked = Candidates(project_first(files, workspace.ignored_directories(files))).rank(fuzzy("cli.py"), 10)
    assert [path for path, _ in ranked] == ["notes/cli.py", "src/cli.py", "out/cli.py", "scratch/cli.py"]
    monkeypatch.setattr(walk, "IGNORE_FILE_BYTES", len("/out/\n!notes/\n"))
    assert sorted(workspace.ignored_directories(files)) == [".git", ".git/info", "out"]
