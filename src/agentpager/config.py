"""The user's settings: ``config.toml`` in the platform's config dir (``$AGENTPAGER_CONFIG_DIR`` overrides it).

Settings shape the terminal UI only: ``call``, ``schema`` and ``mcp`` take their options alone, so a
script gives the same answers on every machine. Every key is optional. A value that is wrong is
reported (file, key, what is expected) and replaced by its default: the app always starts, and
the file is never rewritten except for the one line a theme choice sets. The ``[settings]`` an
agent's profiles read are the agents' own (``Agent.settings``).

Nothing here imports Textual: the keys a config may remap are declared by the TUI's bindings
(``agentpager.tui.app.remappable_keys``), and handed to the functions that check or write them.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentpager.agents import AGENTS
from agentpager.agents.base import Setting
from agentpager.engine.cache import write_atomically
from agentpager.exchange import PAIR_FORMATS
from agentpager.profiles import profile_names

CONFIG_ENV = "AGENTPAGER_CONFIG_DIR"
FILE_NAME = "config.toml"
DEFAULT_PROFILE = "qq"
DEFAULT_THEME = "textual-dark"
DEFAULT_BUDGET = 200_000
MAX_BUDGET = 100_000_000
"""Ten times the largest context window offered (10M tokens): more is a typo."""
DEFAULT_PAIR_FORMAT = "openai"

KeyTable = Mapping[str, tuple[str, str]]
"""The keys a config can remap: Textual binding id -> (default key, what it does)."""

_TOP_LEVEL = ("profile", "theme", "budget", "pair_format", "settings", "keys")
SETTINGS: dict[str, Setting] = {setting.key: setting for agent in AGENTS for setting in agent.settings}
"""The ``[settings]`` the agents' profiles read, by key."""
_MODIFIERS = {"ctrl", "shift", "alt", "meta", "super", "hyper"}
_KEY_NAME = re.compile(r"[a-z][a-z0-9_]*|[0-9]")


class ConfigError(Exception):
    """The config file cannot be changed safely (unreadable, or not valid TOML)."""


def config_dir() -> Path:
    """``$AGENTPAGER_CONFIG_DIR``, else the platform's user config dir for agentpager."""
    configured = os.environ.get(CONFIG_ENV)
    if configured:
        return Path(configured)
    import platformdirs

    return Path(platformdirs.user_config_dir("agentpager", appauthor=False))


def config_path() -> Path:
    return config_dir() / FILE_NAME


@dataclass
class Config:
    """The effective settings, each one the file's value when it was valid, else the default."""

    profile: str = DEFAULT_PROFILE
    theme: str | None = None
    """None: the default theme. Checked against the registered themes by the app, not here."""
    budget: int = DEFAULT_BUDGET
    pair_format: str = DEFAULT_PAIR_FORMAT
    settings: dict[str, Any] = field(default_factory=dict)
    """The Workspace's profile settings: texts that differ between an agent's versions (Claude Code's Read)."""
    keys: dict[str, str] = field(default_factory=dict)
    """Binding id -> keys, for the ids the file remaps."""
    remappable: dict[str, tuple[str, str]] = field(default_factory=dict)
    """The keys it was checked against (a KeyTable)."""
    path: Path | None = None
    """The file it came from (or would be saved to); None for the built-in defaults."""
    problems: list[str] = field(default_factory=list)
    """What was wrong in the file, one sentence each, already replaced by defaults."""
    set_in_file: set[str] = field(default_factory=set)

    def profile_settings(self) -> dict[str, Any]:
        """Settings for the Workspace (the profiles whose texts differ between versions read them)."""
        return dict(self.settings)


def load_config(path: Path | None = None, *, keys: KeyTable) -> Config:
    """The config at ``path`` (default: ``config_path()``), its ``[keys]`` checked against ``keys``; a
    missing file gives the defaults."""
    path = config_path() if path is None else path
    config = Config(path=path, remappable=dict(keys))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return config
    except (OSError, UnicodeDecodeError) as error:
        config.problems.append(f"{path}: cannot be read ({_reason(error)}); using the defaults.")
        return config
    try:
        data = read_toml(text)
    except ValueError as error:
        config.problems.append(f"{path}: not valid TOML: {error}; using the defaults.")
        return config
    _Checker(config, str(path)).check(data)
    return config


class TomlTooComplex(ValueError):
    """Valid TOML that Python's parser cannot hold."""


def read_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads``, raising ValueError (a TOMLDecodeError or, saying why, a TomlTooComplex)
    for any text it cannot read: a value nested past Python's recursion limit or an integer of more
    than 4,300 digits raised RecursionError or a bare ValueError from inside the parser."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except RecursionError:
        raise TomlTooComplex("values nested too deeply") from None
    except ValueError as error:  # int(): "Exceeds the limit (4300 digits) for integer string conversion..."
        raise TomlTooComplex(str(error).split(";")[0]) from None


def _reason(error: Exception) -> str:
    return getattr(error, "strerror", None) or str(error)


def _got(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return json.dumps(value, default=str)


def _unknown(kind: str, name: str, known: tuple[str, ...] | list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return f"unknown {kind} '{name}' ({hint}known: {', '.join(known)}); ignored."


class _Checker:
    """Takes each valid value into the config; reports each invalid one."""

    def __init__(self, config: Config, name: str) -> None:
        self.config = config
        self.name = name

    def problem(self, key: str, text: str) -> None:
        self.config.problems.append(f"{self.name}: {key}: {text}")

    def wrong(self, key: str, expected: str, value: Any, default: Any) -> None:
        self.problem(key, f"expected {expected}, got {_got(value)}; using {_got(default)}.")

    def check(self, data: dict[str, Any]) -> None:
        config = self.config
        for key, value in data.items():
            if key not in _TOP_LEVEL:
                config.problems.append(f"{self.name}: {_unknown('key', key, _TOP_LEVEL)}")
            elif key == "settings":
                self.check_settings(value)
            elif key == "keys":
                self.check_keys(value)
            elif self.check_setting(key, value):
                config.set_in_file.add(key)

    def check_setting(self, key: str, value: Any) -> bool:
        """Take one top-level setting if it is valid; False (reported) if not."""
        config = self.config
        if key == "profile":
            if value in profile_names():
                config.profile = value
                return True
            self.wrong(key, f"a profile ({', '.join(profile_names())})", value, DEFAULT_PROFILE)
        elif key == "theme":
            if isinstance(value, str) and value.strip():
                config.theme = value.strip()
                return True
            self.wrong(key, "a theme name", value, DEFAULT_THEME)
        elif key == "budget":
            if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_BUDGET:
                config.budget = value
                return True
            self.wrong(
                key, f"the context window in tokens, a whole number from 1 to {MAX_BUDGET}", value, DEFAULT_BUDGET
            )
        elif value in PAIR_FORMATS:
            config.pair_format = value
            return True
        else:
            self.wrong(key, " or ".join(f'"{name}"' for name in PAIR_FORMATS), value, DEFAULT_PAIR_FORMAT)
        return False

    def check_settings(self, table: Any) -> None:
        if not isinstance(table, dict):
            self.wrong("settings", "a table such as [settings]", table, {})
            return
        for key, value in table.items():
            if key not in SETTINGS:
                self.problem("settings", _unknown("setting", key, list(SETTINGS)))
                continue
            setting = SETTINGS[key]
            try:
                self.config.settings[key] = setting.read(value)
            except ValueError:
                self.wrong(f"settings.{key}", setting.expected, value, setting.default)

    def check_keys(self, table: Any) -> None:
        if not isinstance(table, dict):
            self.wrong("keys", "a table such as [keys]", table, {})
            return
        for binding_id, value in table.items():
            where = f"keys.{binding_id}"
            if binding_id not in self.config.remappable:
                self.problem("keys", _unknown("binding id", binding_id, list(self.config.remappable)))
                continue
            tokens = [token.strip() for token in value.split(",")] if isinstance(value, str) else []
            bad = [token for token in tokens if not _is_key(token)]
            if not tokens or bad:
                default = self.config.remappable[binding_id][0]
                expected = (
                    'a key such as "x", "X", "ctrl+x", "f3", "?" or "question_mark" (or several, comma-separated)'
                )
                if bad:
                    self.problem(where, f"'{bad[0]}' is not a key: expected {expected}; using \"{default}\".")
                else:
                    self.wrong(where, expected, value, default)
                continue
            self.config.keys[binding_id] = ",".join(tokens)
        self.drop_clashes()

    def drop_clashes(self) -> None:
        """A remapping to a key another action already uses (by default, or by a remapping given
        before it) is refused, and its action keeps its default key; again until none is left, since
        that default may be a key another remapping took."""
        while True:
            owner = {
                key: binding_id
                for binding_id, (default, _) in reversed(self.config.remappable.items())
                if binding_id not in self.config.keys
                for key in _key_names(default)
            }
            for binding_id, keys in self.config.keys.items():
                taken = [key for key in _key_names(keys) if owner.setdefault(key, binding_id) != binding_id]
                if taken:
                    self.problem(
                        f"keys.{binding_id}",
                        f"'{taken[0]}' is already the key of {owner[taken[0]]}; "
                        f'using "{self.config.remappable[binding_id][0]}".',
                    )
                    del self.config.keys[binding_id]
                    break
            else:
                return


def _is_key(token: str) -> bool:
    """Whether ``token`` names a key the way Textual's bindings do."""
    *modifiers, key = token.split("+")
    if any(modifier not in _MODIFIERS for modifier in modifiers) or not key:
        return False
    return len(key) == 1 and key.isprintable() and not key.isspace() or bool(_KEY_NAME.fullmatch(key))


def _key_name(key: str) -> str:
    """The name Textual gives a key: a single punctuation character by its Unicode name (``?`` -> question_mark)."""
    *modifiers, last = key.split("+")
    if len(last) == 1 and not last.isalnum():
        try:
            last = unicodedata.name(last).lower().replace("-", "_").replace(" ", "_")
        except ValueError:
            pass
    return "+".join([*modifiers, last])


def _key_names(keys: str) -> list[str]:
    return [_key_name(key.strip()) for key in keys.split(",")]


# -- writing -----------------------------------------------------------------------------------


def default_text(keys: KeyTable) -> str:
    """The file ``agentpager config --init`` writes: every setting, commented out at its default."""
    setting_lines = "\n".join(
        f"# {key} = {json.dumps(setting.default, ensure_ascii=False):<{18 - len(key)}}  # {setting.comment}"
        for key, setting in SETTINGS.items()
    )
    key_lines = "\n".join(
        f"# {binding_id} = {json.dumps(default)}{' ' * (22 - len(binding_id) - len(default))}  # {what}"
        for binding_id, (default, what) in keys.items()
    )
    return f"""\
# agentpager settings (agentpager config prints the effective ones).
# Every setting is optional: uncomment a line to change it. They shape the terminal UI only;
# agentpager call, schema and mcp take their options alone.

# The tool profile the UI starts with: {", ".join(profile_names())}.
# profile = "{DEFAULT_PROFILE}"

# The theme: a Textual theme (textual-dark, nord, gruvbox, ...), one of agentpager's, or a file of
# yours in themes/ beside this file. Choosing one in the command palette (ctrl+p) sets this line.
# theme = "{DEFAULT_THEME}"

# The context window, in tokens, the panel measures each output against.
# budget = {DEFAULT_BUDGET}

# What C copies: the call and its result as an "openai" or "anthropic" message pair.
# pair_format = "{DEFAULT_PAIR_FORMAT}"

[settings]
# Texts that changed between versions of an agent, which its profiles read.
{setting_lines}

# Keys: binding id = key, or several keys separated by commas. Keys are written as Textual
# writes them: "x", "X" (shift+x), "ctrl+x", "f3", "escape", "?" or "question_mark".
[keys]
{key_lines}
"""


def init_config(keys: KeyTable, path: Path | None = None) -> Path:
    """Write the commented default file; ConfigError if one is already there (it is left alone)."""
    path = config_path() if path is None else path
    if path.exists():
        raise ConfigError(f"{path} already exists; it was left as it is.")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, [default_text(keys).encode()])
    return path


def save_setting(path: Path, key: str, value: str, keys: KeyTable) -> None:
    """Set a top-level string setting in the file, keeping every other line (comments included):
    tomlkit edits the document in place, a new key going after the other top-level ones; a missing
    file is written as ``default_text(keys)`` first.

    Raises ConfigError when the file cannot be read or is not valid TOML: then it is not touched.
    """
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = default_text(keys)
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path} cannot be read ({_reason(error)}); {key} was not saved.") from None
    try:
        read_toml(text)  # what Python's parser cannot hold (nesting, digits), named as load_config names it
        document = tomlkit.parse(text)
        document[key] = value
    except (ValueError, TOMLKitError) as error:
        raise ConfigError(f"{path} is not valid TOML ({error}); {key} was not saved.") from None
    target = path.resolve()  # a symlinked config (dotfiles) stays a symlink
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, [tomlkit.dumps(document).encode()])


def describe(config: Config) -> str:
    """The effective settings as TOML, each marked as set in the file or a default."""

    def line(key: str, value: Any, from_file: bool) -> str:
        return f"{key} = {json.dumps(value, ensure_ascii=False)}{'' if from_file else '  # default'}"

    where = config.path if config.path is not None else "the built-in defaults"
    exists = config.path is not None and config.path.exists()
    lines = [f"# {where}{'' if exists else ' (no file: every setting is the default)'}"]
    for key, value in (
        ("profile", config.profile),
        ("theme", config.theme or DEFAULT_THEME),
        ("budget", config.budget),
        ("pair_format", config.pair_format),
    ):
        lines.append(line(key, value, config.theme is not None if key == "theme" else key in config.set_in_file))
    lines += ["", "[settings]"]
    for key, setting in SETTINGS.items():
        used = config.settings.get(key)
        lines.append(line(key, setting.default if used is None else used, key in config.settings))
    lines += ["", "[keys]"]
    for binding_id, (default, _) in config.remappable.items():
        lines.append(line(binding_id, config.keys.get(binding_id, default), binding_id in config.keys))
    return "\n".join(lines) + "\n"
