"""The coloured difference of a recorded output and its replay."""

from __future__ import annotations

from rich.console import Console

from agentpager.tui.diff_view import NO_NEWLINE, difference, unified


def plain(renderable, width: int = 100) -> str:  # noqa: ANN001
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_a_text_without_a_final_newline_is_not_joined_to_the_next_line() -> None:
    text = unified("a\nb", "a\nb\nc\n")
    assert text.plain == ("--- recorded\n+++ replayed now\n@@ -1,2 +1,3 @@\n a\n-b\n" + NO_NEWLINE + "\n+b\n+c\n")
    styles = {str(span.style) for span in text.spans}
    assert {"red", "green", "cyan", "bold"} <= styles


def test_side_by_side_where_there_is_room() -> None:
    shown = plain(difference("one\ntwo\n", "one\n2\n", 160), 160)
    assert "recorded ← → replayed now" in shown
    assert [line.split() for line in shown.splitlines()[1:]] == [
        ["#", "recorded", "#", "replayed", "now"],
        ["1", "one", "1", "one"],
        ["2", "two", "2", "2"],
    ]
    assert plain(difference("x\n", "x\n", 160)).strip() == "(the same, byte for byte)"
