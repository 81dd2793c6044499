"""The footer of every screen: Textual's, with no key cut at its right edge.

Textual's footer clips what does not fit, so an 80-column terminal showed ``p▏`` (the key of a
binding whose name was cut off) against the command palette's key, and never Pin, Sessions or Quit.
Here, once the keys are laid out, keys that do not fit are left out whole, from the right: first
the focused widget's, then the app's and the screen's, and those of ESSENTIAL only if still needed.
Below 100 columns the keys are drawn compact and the palette's key is left out (``ctrl+p`` still
opens it; ``?`` lists it): see ``app.tcss``.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel  # not exported by textual.widgets

ESSENTIAL = frozenset(
    {"quit", "app.quit", "help", "app.pop_screen", "back", "app.leave_panel", "toggle_pin", "sessions"}
)
"""The actions whose keys are left out last: quit, help, back, pin and sessions."""


class FittedFooter(Footer):
    """A footer whose keys are each shown whole, or not at all."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._left_out: list[Widget] = []
        self._fitted = False
        """Whether the keys were measured since they last changed (or the footer's width did)."""
        self._composed: tuple[Any, ...] | None = None
        """What the keys were last made from (``_shown``)."""

    def compose(self) -> ComposeResult:
        """Textual's keys, each bound key given the footer's ``compact`` before it is mounted. A
        ``FooterKey`` starts compact and is then bound to the footer's value, so each key of each
        recompose (every focus change) restyled itself twice (an app's start and two focus changes now
        take 0.9x the CPU). The command palette's key is not bound: it stays compact
        (textual/widgets/_footer.py, ``Footer.compose``)."""
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget

    def on_mount(self) -> None:
        """Fitted once the screen has laid out the keys: after a refresh is not enough, a screen under
        a dialog lays out later (its keys change as the dialog opens), and its footer ended in ``q Q``."""
        self.screen.screen_layout_refresh_signal.subscribe(self, self._laid_out)

    async def recompose(self) -> None:
        """Textual recomposes once for each change of the screen's bindings it is told of (14 as an
        app starts, most of them after the last change): keys made from the same bindings are kept."""
        shown = self._shown()
        if shown == self._composed:
            return
        self._composed = shown
        self._left_out = []
        await super().recompose()
        self._fitted = False

    def _shown(self) -> tuple[Any, ...]:
        """What ``compose`` makes the keys from."""
        bindings = [
            (binding, enabled, tooltip, self.app.get_key_display(binding))
            for _, binding, enabled, tooltip in self.screen.active_bindings.values()
            if binding.show
        ]
        return (self._bindings_ready, self.compact, self.show_command_palette, bindings)

    def on_resize(self) -> None:
        for widget in self._left_out:
            widget.display = True  # laid out again at the new width, then fitted
        self._left_out, self._fitted = [], False

    def _laid_out(self, _screen: Screen[Any]) -> None:
        self._fit()

    def _fit(self) -> None:
        """Leave out what does not fit, measured with every key laid out (once after each change)."""
        palette = [widget for widget in self.children if widget.has_class("-command-palette") and widget.display]
        units = _units([widget for widget in self.children if widget not in palette and widget.display])
        if self._fitted or not all(unit[0].region for unit in units):
            return  # fitted already, or keys not laid out yet (the next layout fits them)
        self._fitted = True
        if not units:
            return
        edge = palette[0].region.x if palette else self.region.right
        starts = [unit[0].region.x for unit in units]
        widths = [end - start for start, end in zip(starts, [*starts[1:], units[-1][-1].region.right], strict=True)]
        excess = starts[-1] + widths[-1] - edge
        ranks = [self._rank(unit) for unit in units]
        for rank in range(3):
            for index in reversed(range(len(units))):
                if excess > 0 and ranks[index] == rank:
                    excess -= widths[index]
                    for widget in units[index]:
                        widget.display = False
                        self._left_out.append(widget)

    def _rank(self, unit: list[Widget]) -> int:
        """2 for the keys of ESSENTIAL, 1 for the app's and the screen's other keys, 0 for the keys
        of the widget in focus (left out first: the app's keys work everywhere on the screen)."""
        keys = [key for widget in unit for key in (widget, *widget.children) if isinstance(key, FooterKey)]
        if any(key.action in ESSENTIAL for key in keys):
            return 2
        bound = self.screen.active_bindings
        owners = [bound[key.key].node for key in keys if key.key in bound]
        return 1 if any(owner is self.app or owner is self.screen for owner in owners) else 0


def _units(widgets: list[Widget]) -> list[list[Widget]]:
    """The footer's keys, a group of keys with its label (a ``KeyGroup`` then a ``FooterLabel``) as one."""
    units: list[list[Widget]] = []
    for widget in widgets:
        if isinstance(widget, FooterLabel) and units:
            units[-1].append(widget)
        else:
            units.append([widget])
    return units
