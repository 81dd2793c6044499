"""Themes as data: TOML files turned into Textual ``Theme`` objects, every value checked first.

agentpager's own themes are the top-level ``themes/`` folder (inside the wheel as
``agentpager/themes``); the user's are ``themes/*.toml`` beside the config file and may replace one
of the same name. Textual does not check a theme's colours, and a bad one crashes the app when it
is chosen; so each value is parsed here, the theme's whole colour system is generated once, and a
file with any problem is skipped with one sentence that names it and says what is wrong.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.css.constants import VALID_STYLE_FLAGS
from textual.theme import BUILTIN_THEMES, Theme

from agentpager.config import read_toml

COLOURS = (
    "primary",
    "secondary",
    "accent",
    "warning",
    "error",
    "success",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
FRACTIONS = ("luminosity_spread", "text_alpha")
KEYS = ("name", "dark", *COLOURS, *FRACTIONS, "variables")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_ALPHA = re.compile(r"(.*\S)\s+(\d{1,3}(?:\.\d+)?)%")


class ThemeError(ValueError):
    """What is wrong with a theme file (one sentence, without the file name)."""


@dataclass
class LoadedThemes:
    themes: list[Theme] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """One sentence per skipped file: its path and what is wrong."""

    @property
    def names(self) -> list[str]:
        """Every theme name the app knows once these are registered: Textual's and these."""
        return sorted({*BUILTIN_THEMES, *(theme.name for theme in self.themes)})


def shipped_themes_dir() -> Path | None:
    """``agentpager/themes`` in an installed wheel, else ``themes/`` at the top of a source checkout."""
    here = Path(__file__).resolve()
    for candidate in (here.parent.parent / "themes", here.parents[3] / "themes"):
        if candidate.is_dir():
            return candidate
    return None


def load_themes(user_dir: Path | None = None) -> LoadedThemes:
    """agentpager's themes, then the user's from ``user_dir`` (a missing folder is no problem)."""
    loaded = LoadedThemes()
    for themes, problems in (_shipped_themes(), _read_themes(user_dir)):
        loaded.themes.extend(themes)
        loaded.problems.extend(problems)
    return loaded


@functools.cache
def _shipped_themes() -> tuple[tuple[Theme, ...], tuple[str, ...]]:
    """agentpager's own themes, read once a process (each app start had read and checked them)."""
    return _read_themes(shipped_themes_dir())


def _read_themes(folder: Path | None) -> tuple[tuple[Theme, ...], tuple[str, ...]]:
    """The themes of the folder's TOML files, and a problem for each file that is not one."""
    themes: list[Theme] = []
    problems: list[str] = []
    if folder is not None and folder.is_dir():
        for path in sorted(folder.glob("*.toml")):
            try:
                themes.append(read_theme(path))
            except ThemeError as error:
                problems.append(f"{path}: {error}")
    return tuple(themes), tuple(problems)


def read_theme(path: Path) -> Theme:
    """The theme a TOML file describes; ThemeError when it cannot be read or a value is wrong."""
    try:
        data = read_toml(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ThemeError(f"cannot be read ({error.strerror or error}).") from None
    except UnicodeDecodeError:
        raise ThemeError("is not UTF-8 text.") from None
    except ValueError as error:
        raise ThemeError(f"not valid TOML: {error}.") from None
    return theme_from(data)


def theme_from(data: dict[str, Any]) -> Theme:
    for key in data:
        if key not in KEYS:
            raise ThemeError(f"unknown key '{key}' (known: {', '.join(KEYS)}).")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ThemeError(
            f"name: expected a name of letters, digits, '-' and '_', such as \"my-theme\", got {_shown(name)}."
        )
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeError(f"dark: expected true or false, got {_shown(dark)}.")
    if "primary" not in data:
        raise ThemeError('primary: missing; every theme needs a primary colour, such as "#0178D4".')
    colours = {key: _colour(key, data[key]) for key in COLOURS if key in data}
    fractions = {key: _fraction(key, data[key]) for key in FRACTIONS if key in data}
    variables = data.get("variables", {})
    if not isinstance(variables, dict):
        raise ThemeError(f"variables: expected a table ([variables]), got {_shown(variables)}.")
    checked = {str(key): _variable(str(key), value) for key, value in variables.items()}
    values: dict[str, Any] = {**colours, **fractions}
    theme = Theme(name=name, dark=dark, variables=checked, **values)
    try:
        theme.to_color_system().generate()
    except Exception as error:  # whatever Textual would have raised when the theme was chosen
        raise ThemeError(f"Textual cannot build its colours: {error}.") from None
    return theme


def _shown(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a table"
    return repr(value)


def _colour(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ThemeError(f'{key}: expected a colour such as "#1E90FF", got {_shown(value)}.')
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeError(
            f'{key}: {value!r} is not a colour; expected "#RRGGBB", "#RRGGBBAA", "rgb(30, 144, 255)" or a name such as "red".'
        ) from None
    return value


def _fraction(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ThemeError(f"{key}: expected a number from 0 to 1, got {_shown(value)}.")
    return float(value)


def _variable(key: str, value: Any) -> str:
    """A Textual design variable: a text style for ``*-style`` names, else a colour (``COLOUR N%`` allowed)."""
    where = f"variables.{key}"
    if not isinstance(value, str):
        raise ThemeError(f"{where}: expected a string, got {_shown(value)}.")
    if key.endswith("style"):
        bad = [word for word in value.split() if word not in VALID_STYLE_FLAGS]
        if bad or not value.split():
            flags = ", ".join(sorted(VALID_STYLE_FLAGS))
            raise ThemeError(f"{where}: {value!r} is not a text style; expected words from: {flags}.")
        return value
    colour, alpha = value, None
    if match := _ALPHA.fullmatch(value.strip()):
        colour, alpha = match.group(1), float(match.group(2))
    if alpha is not None and alpha > 100:
        raise ThemeError(f"{where}: {value!r}: a percentage is at most 100%.")
    if colour == "auto" and alpha is not None:
        return value
    try:
        Color.parse(colour)
    except ColorParseError:
        raise ThemeError(
            f'{where}: {value!r} is not a colour; expected a colour such as "#1E90FF", optionally with a percentage ("#1E90FF 40%").'
        ) from None
    return value
