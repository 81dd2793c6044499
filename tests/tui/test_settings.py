"""Themes and settings in the app: files checked before they are registered, the palette's choice saved,
keys remapped through Textual's keymap, the budget and pair format from the config."""

from __future__ import annotations

import re
import tomllib
import zipfile
from pathlib import Path

import pytest
from pilot_helpers import settle
from textual.content import Content
from textual.widgets import Input, Select

from agentpager import Workspace
from agentpager.cli import main
from agentpager.config import load_config
from agentpager.tui.app import AgentPagerApp, remappable_keys
from agentpager.tui.themes import ThemeError, load_themes, read_theme, shipped_themes_dir, theme_from

SIZE = (200, 55)
GOOD = 'name = "mine"\ndark = false\nprimary = "#112233"\nbackground = "#FFFFFF"\n'


@pytest.fixture
def workspace_dir(root: Path) -> Path:
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 1001)))
    return root


def app_with_config(root: Path, theme: str | None = None) -> AgentPagerApp:
    app = AgentPagerApp(Workspace(root), "big.txt", theme, config=load_config(keys=remappable_keys()))
    app.animation_level = "none"
    return app


def notices(app: AgentPagerApp) -> list[str]:
    return [str(notice.message) for notice in app._notifications]


def notices_shown(app: AgentPagerApp) -> list[str]:
    """The notifications as their toasts show them (Textual's Toast: markup applied when it is on)."""
    return [(Content.from_markup if notice.markup else Content)(notice.message).plain for notice in app._notifications]


# -- theme files ---------------------------------------------------------------------------------


def test_agentpager_ships_at_least_three_valid_themes() -> None:
    folder = shipped_themes_dir()
    assert folder is not None and folder.name == "themes"
    loaded = load_themes()
    assert loaded.problems == []
    names = [theme.name for theme in loaded.themes]
    assert len(names) >= 3 and len(set(names)) == len(names)
    assert {theme.dark for theme in loaded.themes} == {True, False}, "a light one and a dark one at least"
    for theme in loaded.themes:
        for colour in ("primary", "secondary", "accent", "warning", "error", "success", "foreground"):
            assert getattr(theme, colour), (theme.name, colour)
        assert theme.background and theme.surface and theme.panel


def test_the_wheel_ships_the_themes(tmp_path: Path) -> None:
    from hatchling.builders.wheel import WheelBuilder

    project = Path(__file__).resolve().parents[2]
    wheel = next(iter(WheelBuilder(str(project)).build(directory=str(tmp_path), versions=["standard"])))
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name for name in archive.namelist() if name.startswith("agentpager/themes/")}
    assert shipped == {f"agentpager/themes/{path.name}" for path in (project / "themes").glob("*.toml")}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            'dark = true\nprimary = "#fff"\n',
            "name: expected a name of letters, digits, '-' and '_', such as \"my-theme\", got nothing.",
        ),
        ('name = "a b"\nprimary = "#fff"\n', "name: expected a name of letters, digits"),
        ('name = "x"\n', "primary: missing; every theme needs a primary colour"),
        ('name = "x"\nprimary = "#12345"\n', "primary: '#12345' is not a colour; expected \"#RRGGBB\""),
        ('name = "x"\nprimary = "#fff"\nbackground = "nope"\n', "background: 'nope' is not a colour"),
        ('name = "x"\nprimary = "#fff"\naccent = 3\n', 'accent: expected a colour such as "#1E90FF", got 3.'),
        ('name = "x"\nprimary = "#fff"\ndark = "yes"\n', "dark: expected true or false, got 'yes'."),
        ('name = "x"\nprimary = "#fff"\ntext_alpha = 2\n', "text_alpha: expected a number from 0 to 1, got 2."),
        ('name = "x"\nprimary = "#fff"\nprimery = "#fff"\n', "unknown key 'primery'"),
        ('name = "x"\nprimary = "#fff"\nvariables = 1\n', "variables: expected a table ([variables]), got 1."),
        (
            'name = "x"\nprimary = "#fff"\n[variables]\nfooter-key-foreground = "nope"\n',
            "variables.footer-key-foreground: 'nope' is not a colour",
        ),
        (
            'name = "x"\nprimary = "#fff"\n[variables]\nblock-cursor-text-style = "shiny"\n',
            "'shiny' is not a text style",
        ),
        (
            'name = "x"\nprimary = "#fff"\n[variables]\ninput-selection-background = "#fff 140%"\n',
            "a percentage is at most 100%",
        ),
        ('name = "x"\nprimary = \n', "not valid TOML: Invalid value (at line 2, column 11)."),
    ],
)
def test_a_bad_theme_file_says_what_is_wrong(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ThemeError) as raised:
        read_theme(path)
    assert problem in str(raised.value)


def test_variables_take_colours_with_alpha_and_text_styles() -> None:
    theme = theme_from(
        {
            "name": "v",
            "primary": "#fff",
            "variables": {
                "input-selection-background": "#81a1c1 35%",
                "text": "auto 90%",
                "link-style": "bold not underline",
            },
        }
    )
    assert theme.variables["input-selection-background"] == "#81a1c1 35%"


def test_user_themes_are_loaded_and_bad_ones_skipped_with_one_problem_each(isolated_config: Path) -> None:
    themes = isolated_config / "themes"
    themes.mkdir()
    (themes / "mine.toml").write_text(GOOD)
    (themes / "broken.toml").write_text('name = "broken"\nprimary = "#zzz"\n')
    (themes / "dusk.toml").write_text('name = "dusk"\nprimary = "#FF0000"\n')  # replaces agentpager's
    (themes / "notes.txt").write_text("not a theme")
    loaded = load_themes(themes)
    by_name = {theme.name: theme for theme in loaded.themes}
    assert "mine" in by_name and "broken" not in by_name
    assert loaded.problems == [
        f'{themes / "broken.toml"}: primary: \'#zzz\' is not a colour; expected "#RRGGBB", "#RRGGBBAA", '
        '"rgb(30, 144, 255)" or a name such as "red".'
    ]
    assert [theme.primary for theme in loaded.themes if theme.name == "dusk"][-1] == "#FF0000"


# -- in the app ----------------------------------------------------------------------------------


async def test_a_bad_theme_file_gives_one_notification_and_the_app_runs(
    workspace_dir: Path, isolated_config: Path
) -> None:
    themes = isolated_config / "themes"
    themes.mkdir()
    (themes / "mine.toml").write_text(GOOD)
    (themes / "broken.toml").write_text('name = "broken"\nprimary = "#fff"\nsurface = "teal-ish"\n')
    app = app_with_config(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        told = notices(app)
        assert len(told) == 1
        assert str(themes / "broken.toml") in told[0] and "surface: 'teal-ish' is not a colour" in told[0]
        assert "mine" in app.available_themes and "broken" not in app.available_themes
        assert app.viewer.line_count == 1000


@pytest.mark.slow
async def test_every_registered_theme_can_be_switched_to(workspace_dir: Path, isolated_config: Path) -> None:
    """The app's styles take every theme's variables (a variable one theme lacks fails its switch);
    the app is restyled and painted with a few (each switch took 0.36 s: 8 s for them all)."""
    themes = isolated_config / "themes"
    themes.mkdir()
    (themes / "mine.toml").write_text(GOOD)
    app = app_with_config(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for name in sorted(app.available_themes):  # the variables App.get_css_variables gives with it
            theme = app.get_theme(name)
            assert theme is not None
            styles = app.stylesheet.copy()
            styles.set_variables(
                {**app.get_theme_variable_defaults(), **theme.to_color_system().generate(), **theme.variables}
            )
            styles.reparse()
        for name in ("mine", "nord", "textual-light", "dusk"):
            app.theme = name
            await pilot.pause()
            app.screen.refresh()
            await pilot.pause()
            assert app.current_theme.name == name
        assert app.viewer.line_count == 1000


async def test_choosing_a_theme_in_the_palette_saves_it(workspace_dir: Path, isolated_config: Path) -> None:
    config = isolated_config / "config.toml"
    config.write_text('# my settings\nbudget = 50000\n\n[keys]\nsearch = "s"\n')
    app = app_with_config(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "textual-dark" and not config.read_text().count("theme")
        app.action_change_theme()
        await settle(pilot)
        await pilot.press(*"paper")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.theme == "paper"
    assert config.read_text() == '# my settings\nbudget = 50000\ntheme = "paper"\n\n[keys]\nsearch = "s"\n'
    app = app_with_config(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "paper", "the next start uses it"


async def test_a_theme_given_on_the_command_line_is_not_saved(workspace_dir: Path, isolated_config: Path) -> None:
    app = app_with_config(workspace_dir, theme="nord")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "nord"
    assert not (isolated_config / "config.toml").exists()


async def test_the_app_without_a_config_saves_nothing(workspace_dir: Path, isolated_config: Path) -> None:
    app = AgentPagerApp(Workspace(workspace_dir), "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.theme = "dusk"
        await settle(pilot)
    assert list(isolated_config.iterdir()) == []


async def test_a_broken_config_is_not_overwritten_by_a_theme_choice(workspace_dir: Path, isolated_config: Path) -> None:
    config = isolated_config / "config.toml"
    config.write_text("budget = \n")
    app = app_with_config(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(notices(app)) == 1 and "not valid TOML" in notices(app)[0]
        app.theme = "dusk"
        await settle(pilot)
        assert any("The theme is used but not saved" in notice for notice in notices(app))
    assert config.read_text() == "budget = \n"


async def test_config_problems_are_one_notification_and_defaults_are_used(
    workspace_dir: Path, isolated_config: Path
) -> None:
    (isolated_config / "config.toml").write_text('theme = "nope"\nbudget = "big"\npair_format = "anthropic"\n')
    app = app_with_config(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        told = notices(app)
        assert len(told) == 1
        assert "budget: expected the context window in tokens" in told[0]
        assert "theme: 'nope' is not a theme" in told[0] and "using textual-dark" in told[0]
        assert app.theme == "textual-dark"
        assert app.panel.query_one("#window", Input).value == "200,000"
        assert app.panel.query_one("#pair", Select).value == "anthropic", "the valid setting is kept"


async def test_notifications_show_the_config_s_brackets(workspace_dir: Path, isolated_config: Path) -> None:
    """What is said of a config names its tables: [keys], [settings] are text, not markup (they
    were taken for style tags and dropped: "Change  in the config.")."""
    (isolated_config / "config.toml").write_text('settings = 3\n[keys]\nwrap = "j"\n')
    app = app_with_config(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.viewer.focus()
        await pilot.press("j")
        await settle(pilot)
        shown = " ".join(notices_shown(app))
        assert "settings: expected a table such as [settings]" in shown
        assert "Change [keys] in the config." in shown


async def test_budget_and_theme_from_the_config(workspace_dir: Path, isolated_config: Path) -> None:
    (isolated_config / "config.toml").write_text('theme = "phosphor"\nbudget = 8000\n')
    app = app_with_config(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "phosphor" and notices(app) == []
        assert app.panel.query_one("#window", Input).value == "8,000"
        assert "fits the budget" in str(app.panel.query_one("#stats").render())


async def test_the_budget_is_written_with_separators_and_read_with_or_without_them(
    workspace_dir: Path, isolated_config: Path
) -> None:
    """The window showed ``8000`` where the rest of the UI writes ``8,000``, refused ``8 000``, and an
    emptied field was an error (whole numbers, please) where it means the default: the settings' window."""
    (isolated_config / "config.toml").write_text("budget = 8000\n")
    app = app_with_config(workspace_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        window, used = app.panel.query_one("#window", Input), app.panel.query_one("#used", Input)
        stats = app.panel.query_one("#stats")
        assert window.value == "8,000"
        fits = str(stats.render())
        assert "fits the budget" in fits
        for typed in ("8000", "8 000", "8_000", "", "8,000"):
            window.value = typed
            await settle(pilot)
            assert str(stats.render()) == fits, repr(typed)
        for typed in ("8k", "²", "9" * 5000):  # int() raises past 4,300 digits
            window.value = typed
            await settle(pilot)
            assert "whole numbers, please" in str(stats.render()), repr(typed)
        window.value, used.value = "8,000", ""
        await settle(pilot)
        assert str(stats.render()) == fits, "no tokens used"


async def test_remapped_keys_work_and_the_old_ones_stop(
    workspace_dir: Path, isolated_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agentpager.tui.app.system_clipboard", lambda: None)
    (isolated_config / "config.toml").write_text('[keys]\ncopy_output = "x"\ngoto_line = "ctrl+g"\n')
    app = app_with_config(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert app.clipboard == ""
        await pilot.press("x")
        await settle(pilot)
        assert app.clipboard.startswith("[File: big.txt | Lines 1-200 of 1000]")
        app.viewer.focus()
        await pilot.press("ctrl+g", *"450", "enter")
        await settle(pilot)
        assert app.viewer.window.top == 450


async def test_the_command_palette_key_can_be_remapped(workspace_dir: Path, isolated_config: Path) -> None:
    from textual.command import CommandPalette

    (isolated_config / "config.toml").write_text('[keys]\ncommand_palette = "f2"\n')
    app = app_with_config(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        assert isinstance(app.screen, CommandPalette)


def test_the_remappable_keys_are_the_bindings_with_an_id() -> None:
    """Each binding with an id can be remapped (the session browser's too): its key is the default, its
    tooltip says what it does (the first binding's, where screens share an id)."""
    keys = remappable_keys()
    assert {binding_id: default for binding_id, (default, _) in keys.items()} == {
        "command_palette": "ctrl+p",
        "help": "question_mark",
        "edit_call": "e",
        "open_file": "o",
        "toggle_tree": "T",
        "copy_output": "c",
        "copy_call": "y",
        "copy_pair": "C",
        "toggle_pin": "p",
        "ask_agent": "a",
        "transcript": "t",
        "sessions": "S",
        "quit": "q",
        "start_of_line": "0",
        "end_of_line": "dollar_sign",
        "goto_line": "colon",
        "search": "slash",
        "next_match": "n",
        "previous_match": "N",
        "wrap": "w",
        "set_mark": "m",
        "go_to_mark": "apostrophe",
        "open_in_editor": "v",
        "follow": "f",
        "reads_here": "R",
        "refresh_tree": "r",
        "leave_panel": "escape",
        "export_session": "E",
    }
    assert keys["copy_output"][1] == "Copy the tool output"
    assert keys["search"][1] == "Search the file (in the session browser: every session)"
    assert all(what and what[0].isupper() for _, what in keys.values())


def test_unknown_theme_on_the_command_line_lists_the_themes(
    workspace_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(workspace_dir), "--theme", "nopе"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("agentpager: Unknown theme 'nopе'. Themes: ")
    assert all(name in error for name in ("dusk", "paper", "phosphor", "nord", "textual-dark"))


def test_a_user_theme_is_accepted_on_the_command_line_and_a_skipped_one_says_why(
    workspace_dir: Path, isolated_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    themes = isolated_config / "themes"
    themes.mkdir()
    (themes / "broken.toml").write_text('name = "broken"\nprimary = "#fff"\nerror = "reddish"\n')
    assert main([str(workspace_dir), "--theme", "broken"]) == 2
    error = capsys.readouterr().err
    assert f"skipped {themes / 'broken.toml'}: error: 'reddish' is not a colour" in error
    listed = error.split("Themes: ")[1].split(".\n")[0].split(", ")
    assert "dusk" in listed and "broken" not in listed


def test_the_readmes_examples_are_valid(isolated_config: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", readme, re.DOTALL)
    settings, theme = blocks
    (isolated_config / "config.toml").write_text(settings)
    config = load_config(keys=remappable_keys())
    assert config.problems == [] and config.keys == {"copy_output": "x", "search": "ctrl+f,slash"}
    assert config.theme in load_themes().names
    assert theme_from(tomllib.loads(theme)).name == "midnight"


def test_file_open_in_the_paper_theme(root: Path, snap_compare) -> None:
    """agentpager's light theme, read from themes/paper.toml, on the main screen."""
    from test_snapshots import make_app, steady

    app = make_app(root, "big.txt")
    app.theme = "paper"
    assert snap_compare(app, terminal_size=(120, 40), run_before=steady)
