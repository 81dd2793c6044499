"""What the Line-API lists (sessions, calls) share in drawing their rows."""

from __future__ import annotations

from rich.style import Style
from textual.widget import Widget


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
