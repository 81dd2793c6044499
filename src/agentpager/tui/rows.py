"""What the Line-API lists (sessions, calls) share in drawing their rows."""

from __future__ import annotations

from rich.style import Style
from textual.binding import Binding, BindingType
from textual.widget import Widget

CURSOR_BINDINGS: list[BindingType] = [
    Binding("up,k", "move(-1)", show=False),
    Binding("down,j", "move(1)", show=False),
    Binding("pageup", "move(-20)", show=False),
    Binding("pagedown", "move(20)", show=False),
    Binding("home,g", "move(-1000000000)", show=False),
    Binding("end,G", "move(1000000000)", show=False),
]
"""The keys of a list whose ``action_move(rows)`` moves its cursor."""


def row_styles(widget: Widget) -> dict[str, Style]:
    """The widget's component styles: the cursor's whole (its background marks the row), the others
    their foreground only, so that the cursor's background shows under them too."""
    styles = {}
    for name in widget.COMPONENT_CLASSES:
        style = widget.get_component_rich_style(name)
        if not name.endswith("--cursor") and style.bgcolor is not None:
            style = style.without_color + Style.from_color(style.color)
        styles[name] = style
    return styles
