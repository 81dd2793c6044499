"""The config file: defaults, what a wrong value says and falls back to, saving a theme, the command."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from waiting import HANG

from agentpager import __version__
from agentpager.cli import main
from agentpager.config import (
    DEFAULT_BUDGET,
    Config,
    ConfigError,
    config_path,
    default_text,
    describe,
    init_config,
    load_config,
    save_setting,
)
from agentpager.profiles import profile_names
from agentpager.tui.app import remappable_keys
from agentpager.tui.themes import load_themes

KEYS = remappable_keys()


def write(config_dir: Path, text: str) -> Path:
    path = config_dir / "config.toml"
    path.write_text(text)
    return path


def test_the_config_dir_comes_from_the_environment(isolated_config: Path) -> None:
    assert config_path() == isolated_config / "config.toml"


def test_no_file_gives_the_defaults_and_no_problem(isolated_config: Path) -> None:
    config = load_config(keys=KEYS)
    assert (config.profile, config.theme, config.budget, config.pair_format) == ("qq", None, DEFAULT_BUDGET, "openai")
    assert config.keys == {} and config.settings == {} and config.problems == []
    assert config.path == isolated_config / "config.toml"


def test_valid_settings_are_used(isolated_config: Path) -> None:
    write(
        isolated_config,
        'profile = "vault"\ntheme = "dusk"\nbudget = 32000\npair_format = "anthropic"\n'
        '[settings]\nline_format = "arrow"\nreminder = "Be careful."\n'
        '[keys]\ncopy_output = "x"\nhelp = "?,f1"\n',
    )
    config = load_config(keys=KEYS)
    assert config.problems == []
    assert (config.profile, config.theme, config.budget, config.pair_format) == ("vault", "dusk", 32000, "anthropic")
    assert config.profile_settings() == {"line_format": "arrow", "reminder": "Be careful."}
    assert config.keys == {"copy_output": "x", "help": "?,f1"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'profile = "qqq"',
            f'profile: expected a profile ({", ".join(profile_names())}), got "qqq"; using "qq".',
        ),
        (
            "budget = -5",
            "budget: expected the context window in tokens, a whole number from 1 to 100000000, got -5; using 200000.",
        ),
        (
            "budget = true",
            "budget: expected the context window in tokens, a whole number from 1 to 100000000, got true",
        ),
        ("budget = 100000000000000000000000000000000000", "got 100000000000000000000000000000000000; using 200000."),
        ('budget = "200k"', 'got "200k"; using 200000.'),
        ('pair_format = "gemini"', 'pair_format: expected "openai" or "anthropic", got "gemini"; using "openai".'),
        ("theme = 3", 'theme: expected a theme name, got 3; using "textual-dark".'),
        ('thme = "dusk"', "unknown key 'thme' (did you mean 'theme'? known: profile, theme, budget,"),
        ("keys = 1", "keys: expected a table such as [keys], got 1"),
        ('[settings]\nline_format = "arrows"', 'settings.line_format: expected "tab"'),
        ("[settings]\nreminder = 1", "settings.reminder: expected the reminder's text, or false for none, got 1"),
        ('[settings]\nversion = "2.1"', "settings: unknown setting 'version'"),
        ('[keys]\nserch = "f"', "keys: unknown binding id 'serch' (did you mean 'search'?"),
        ('[keys]\nsearch = "Ctrl+F"', "keys.search: 'Ctrl+F' is not a key: expected a key such as"),
        ('[keys]\nsearch = "ctrl f"', "keys.search: 'ctrl f' is not a key"),
        ('[keys]\nsearch = ""', "keys.search: '' is not a key"),
        ('[keys]\nsearch = ["s"]', "keys.search: expected a key such as"),
    ],
)
def test_a_wrong_value_names_file_key_and_what_is_expected_and_falls_back(
    isolated_config: Path, text: str, expected: str
) -> None:
    path = write(isolated_config, text + "\n")
    config = load_config(keys=KEYS)
    assert len(config.problems) == 1, config.problems
    assert config.problems[0].startswith(f"{path}: ")
    assert expected in config.problems[0]
    defaults = Config()
    assert (config.profile, config.budget, config.pair_format, config.keys, config.settings) == (
        defaults.profile,
        defaults.budget,
        defaults.pair_format,
        defaults.keys,
        defaults.settings,
    )


def test_one_wrong_value_does_not_lose_the_others(isolated_config: Path) -> None:
    write(isolated_config, 'profile = "nope"\nbudget = 1000\n[keys]\nsearch = "s"\nquit = "bad key"\n')
    config = load_config(keys=KEYS)
    assert config.budget == 1000 and config.keys == {"search": "s"} and config.profile == "qq"
    assert len(config.problems) == 2


def test_invalid_toml_says_where_and_uses_the_defaults(isolated_config: Path) -> None:
    path = write(isolated_config, 'profile = "vault"\nbudget = \n')
    config = load_config(keys=KEYS)
    assert config.profile == "qq"
    assert config.problems == [f"{path}: not valid TOML: Invalid value (at line 2, column 10); using the defaults."]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("x = " + "[" * 100_000 + "]" * 100_000, "values nested too deeply"),
        ("x = " + "{a = " * 100_000 + "1" + "}" * 100_000, "values nested too deeply"),
        (
            "budget = " + "9" * 5000,
            "Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits",
        ),
    ],
    ids=["arrays", "tables", "digits"],
)
def test_toml_python_cannot_hold_is_a_problem_not_a_crash(isolated_config: Path, text: str, reason: str) -> None:
    path = write(isolated_config, text + "\n")
    config = load_config(keys=KEYS)
    assert config.problems == [f"{path}: not valid TOML: {reason}; using the defaults."]
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "config"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    assert done.stderr == f"agentpager: {path}: not valid TOML: {reason}; using the defaults.\n"
    with pytest.raises(ConfigError) as raised:
        save_setting(path, "theme", "nord", KEYS)
    assert str(raised.value) == f"{path} is not valid TOML ({reason}); theme was not saved."
    themes = isolated_config / "themes"
    themes.mkdir()
    (themes / "deep.toml").write_text(text + "\n")
    assert load_themes(themes).problems == [f"{themes / 'deep.toml'}: not valid TOML: {reason}."]


def test_an_unreadable_file_is_a_problem_not_a_crash(isolated_config: Path) -> None:
    (isolated_config / "config.toml").mkdir()
    config = load_config(keys=KEYS)
    assert config.profile == "qq" and "cannot be read (Is a directory)" in config.problems[0]


def test_a_key_taken_from_another_action_keeps_the_default(isolated_config: Path) -> None:
    write(isolated_config, '[keys]\ncopy_output = "q"\nsearch = "?"\ncopy_call = "Y"\n')
    config = load_config(keys=KEYS)
    assert config.keys == {"copy_call": "Y"}
    assert any("keys.copy_output: 'q' is already the key of quit; using \"c\"." in p for p in config.problems)
    assert any("keys.search: 'question_mark' is already the key of help" in p for p in config.problems)


def test_a_key_another_action_has_by_default_is_refused_whatever_the_order(isolated_config: Path) -> None:
    path = write(isolated_config, '[keys]\nquit = "c"\n')
    config = load_config(keys=KEYS)
    assert config.keys == {}
    assert config.problems == [f"{path}: keys.quit: 'c' is already the key of copy_output; using \"q\"."]
    assert 'quit = "q"  # default' in describe(config) and 'quit = "c"' not in describe(config)


def test_two_remappings_to_one_key_keep_the_first(isolated_config: Path) -> None:
    path = write(isolated_config, '[keys]\nwrap = "x"\nfollow = "x"\n')
    config = load_config(keys=KEYS)
    assert config.keys == {"wrap": "x"}
    assert config.problems == [f"{path}: keys.follow: 'x' is already the key of wrap; using \"f\"."]


def test_a_refused_remapping_takes_back_its_default_from_another(isolated_config: Path) -> None:
    path = write(isolated_config, '[keys]\ncopy_output = "q"\nquit = "?"\n')
    config = load_config(keys=KEYS)
    assert config.keys == {}
    assert config.problems == [
        f"{path}: keys.quit: 'question_mark' is already the key of help; using \"q\".",
        f"{path}: keys.copy_output: 'q' is already the key of quit; using \"c\".",
    ]


def test_moving_an_action_away_frees_its_key(isolated_config: Path) -> None:
    write(isolated_config, '[keys]\ncopy_output = "x"\nquit = "c"\n')
    assert load_config(keys=KEYS).keys == {"copy_output": "x", "quit": "c"}


def test_the_default_file_is_valid_toml_with_every_setting_commented_out(isolated_config: Path) -> None:
    text = default_text(KEYS)
    assert tomllib.loads(text) == {"settings": {}, "keys": {}}
    for key in ("profile", "theme", "budget", "pair_format", "line_format", "reminder", *KEYS):
        assert f"# {key} = " in text, key


def test_init_writes_the_default_file_once(isolated_config: Path) -> None:
    path = init_config(KEYS)
    assert path.read_text() == default_text(KEYS)
    path.write_text('profile = "crush"\n')
    with pytest.raises(ConfigError, match="already exists"):
        init_config(KEYS)
    assert path.read_text() == 'profile = "crush"\n', "an existing file is never overwritten"


def test_saving_the_theme_keeps_every_other_line(isolated_config: Path) -> None:
    path = init_config(KEYS)
    save_setting(path, "theme", "paper", KEYS)
    text = path.read_text()
    assert '# pair_format = "openai"\ntheme = "paper"\n\n[settings]\n' in text, "after the top-level settings"
    assert text.replace('theme = "paper"\n', "", 1) == default_text(KEYS)
    save_setting(path, "theme", "dusk", KEYS)
    assert path.read_text().count("theme = ") == 2 and 'theme = "dusk"\n' in path.read_text()
    assert load_config(keys=KEYS).theme == "dusk"


def test_saving_into_a_hand_written_file_goes_before_its_tables(isolated_config: Path) -> None:
    path = write(isolated_config, '# mine\nbudget = 1000\n[keys]\nsearch = "s"\n')
    save_setting(path, "theme", "nord", KEYS)
    assert path.read_text() == '# mine\nbudget = 1000\ntheme = "nord"\n\n[keys]\nsearch = "s"\n'
    assert load_config(keys=KEYS).keys == {"search": "s"}


def test_saving_without_a_file_creates_the_commented_one(isolated_config: Path) -> None:
    path = isolated_config / "sub" / "config.toml"
    save_setting(path, "theme", "phosphor", KEYS)
    assert load_config(path, keys=KEYS).theme == "phosphor" and "# budget = " in path.read_text()


def test_saving_through_a_symlinked_config_keeps_the_link(isolated_config: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "agentpager.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text("budget = 1000\n")
    link = isolated_config / "config.toml"
    link.symlink_to(dotfiles)
    save_setting(link, "theme", "dusk", KEYS)
    assert link.is_symlink() and dotfiles.read_text() == 'budget = 1000\ntheme = "dusk"\n'


def test_a_broken_file_is_not_touched_when_saving(isolated_config: Path) -> None:
    path = write(isolated_config, "budget = \n# my notes\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        save_setting(path, "theme", "paper", KEYS)
    assert path.read_text() == "budget = \n# my notes\n"


def test_describe_shows_the_effective_settings_and_which_are_defaults(isolated_config: Path) -> None:
    write(isolated_config, 'budget = 5000\nprofile = "nope"\n[keys]\nsearch = "s"\n')
    text = describe(load_config(keys=KEYS))
    assert "budget = 5000\n" in text and 'profile = "qq"  # default\n' in text
    assert 'search = "s"\n' in text and 'quit = "q"  # default\n' in text
    assert tomllib.loads(text)["keys"]["search"] == "s"


# -- the command ---------------------------------------------------------------------------------


def test_config_path_and_init_commands(isolated_config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "--path"]) == 0
    assert capsys.readouterr().out == f"{isolated_config / 'config.toml'}\n"
    assert main(["config", "--init"]) == 0
    assert (isolated_config / "config.toml").read_text() == default_text(KEYS)
    assert main(["config", "--init"]) == 2
    assert "already exists" in capsys.readouterr().err


def test_config_command_prints_the_settings_and_exits_1_on_problems(
    isolated_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["config"]) == 0
    assert 'profile = "qq"  # default' in capsys.readouterr().out
    write(isolated_config, 'theme = "no-such-theme"\nbudget = "x"\n')
    assert main(["config"]) == 1
    captured = capsys.readouterr()
    assert 'theme = "textual-dark"  # default' in captured.out, "an unknown theme is not the effective one"
    assert "budget: expected the context window" in captured.err
    assert "theme: 'no-such-theme' is not a theme (themes: " in captured.err and "dusk" in captured.err


def test_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "--version"], capture_output=True, text=True, timeout=HANG
    )
    assert (done.returncode, done.stdout) == (0, f"agentpager {__version__}\n")
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "config", "--version"], capture_output=True, text=True, timeout=HANG
    )
    assert done.returncode == 2, "--version belongs to agentpager, not to a command"


def test_the_version_is_the_package_version() -> None:
    from importlib.metadata import version

    assert version("agentpager") == __version__
