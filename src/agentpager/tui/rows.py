"""What the Line-API lists (sessions, calls, search results) share in drawing their rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Resize
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

Row = TypeVar("Row")

class CursorList(ScrollView, can_focus=True, inherit_bindings=False):
    """A list whose cursor its subclass moves (``action_move``): by a row, by the lines on screen
    (PgUp and PgDn), to either end."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", show=False),
        Binding("down,j", "move(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home,g", "move(-1000000000)", show=False),
        Binding("end,G", "move(1000000000)", show=False),
    ]

    def action_move(self, rows: int) -> None:
        raise NotImplementedError

    def action_page(self, pages: int) -> None:
        """The list and its cursor moved by the lines on screen: the line after the last one shown
        comes to the top (the cursor alone would bring it in at the bottom)."""
        lines = pages * max(1, self.scrollable_content_region.height)
        self.scroll_to(y=self.scroll_y + lines, animate=False, immediate=True)
        self.action_move(lines)


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


ROW_PARTS = ("cursor", "heading", "muted", "problem")


def headed_rows_css(widget: str, prefix: str) -> str:
    """A HeadedRows subclass's DEFAULT_CSS: its component classes, ``<prefix>--<part>``."""
    return f"""
    {widget} {{
        height: 1fr;
        overflow-x: hidden;
        .{prefix}--cursor {{ background: $accent 40%; }}
        .{prefix}--heading {{ color: $primary; text-style: bold; }}
        .{prefix}--muted {{ color: $text-muted; }}
        .{prefix}--problem {{ color: $warning; }}
    }}
    """


def headed_rows_classes(prefix: str) -> set[str]:
    """A HeadedRows subclass's COMPONENT_CLASSES."""
    return {f"{prefix}--{part}" for part in ROW_PARTS}


class HeadedRows(CursorList, Generic[Row]):
    """Rows under headings (strings), drawn a line at a time; the cursor moves over the rows only.

    Subclasses say how a row reads (``row_text``) and name their component classes with their own
    prefix (``<prefix>--cursor``, ``--heading``, ``--muted``, ``--problem``: ``headed_rows_css``).
    """

    PREFIX = "rows"
    cursor = reactive(0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines: list[str | Row] = []
        self.rows: list[int] = []
        """Positions in ``lines`` of the rows (the rest are headings)."""

    def show_lines(self, lines: list[str | Row], keep: Callable[[Row], bool] | None = None) -> None:
        """Show these lines; the cursor on the first row ``keep`` accepts (else the first row)."""
        self.lines = lines
        self.rows = [n for n, line in enumerate(lines) if not isinstance(line, str)]
        self.virtual_size = Size(self.size.width, len(lines))
        found = 0
        if keep is not None:
            found = next((k for k, n in enumerate(self.rows) if keep(lines[n])), 0)  # type: ignore[arg-type]
        self.cursor = found
        self.mutate_reactive(HeadedRows.cursor)
        self.refresh()

    @property
    def chosen(self) -> Row | None:
        if not self.rows:
            return None
        line = self.lines[self.rows[self.cursor]]
        return None if isinstance(line, str) else line

    def row_text(self, row: Row, width: int) -> Text:
        raise NotImplementedError

    def style(self, name: str) -> Style:
        return self._styles[f"{self.PREFIX}--{name}"]

    def render_lines(self, crop: Region) -> list[Strip]:
        self._styles = row_styles(self)
        self._base = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        number = scroll_y + y
        width = self.scrollable_content_region.width
        if number >= len(self.lines):
            return Strip.blank(width, self._base)
        line = self.lines[number]
        if isinstance(line, str):
            text = Text(line, self.style("heading"), no_wrap=True, end="", overflow="ellipsis")
        else:
            text = self.row_text(line, width)
        text.truncate(width, overflow="ellipsis")
        selected = self.rows and number == self.rows[self.cursor]
        style = self._base + self.style("cursor") if selected else self._base
        strip = Strip(list(text.render(self.app.console))).apply_style(style)
        return strip.crop_extend(scroll_x, scroll_x + width, style)

    def on_resize(self, event: Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.lines))

    def action_move(self, rows: int) -> None:
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + rows))

    def watch_cursor(self, old: int, new: int) -> None:
        if self.rows:
            line = self.rows[new]
            self.scroll_to_region(Region(0, max(0, line - 1), 1, 2), animate=False, immediate=True)
        self.refresh()
