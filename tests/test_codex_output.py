"""Codex's cuts of a command's output, on texts held whole and on lazy ones read a chunk at a time.

The literal cases are openai/codex's own (``codex-rs/utils/output-truncation/src/truncate_tests.rs``
at 1c8ed6f1); the envelopes are checked against the real programs in ``test_goldens.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentpager.agents.codex.output import BYTES_PER_TOKEN, cut_chars, cut_tokens, measure
from agentpager.engine.lazytext import LazyText

LONG = "this is an example of a long output that should be truncated"


@pytest.mark.parametrize(
    ("text", "budget", "in_tokens", "expected"),
    [
        ("example output", 1, False, "…13 chars truncated…t"),
        ("example output", 1, True, "ex…3 tokens truncated…ut"),
        (LONG, 5, True, "this is an…10 tokens truncated… truncated"),
        (LONG, 30, False, "this is an exam…30 chars truncated…ld be truncated"),
        (LONG + "\nalso some other line", 30, False, "this is an exam…51 chars truncated…some other line"),
        (LONG + "\nalso some other line", 10, True, "this is an example o…11 tokens truncated…also some other line"),
        ("😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n", 20, False, "😀😀…21 chars truncated…with text\n"),
    ],
)
def test_codex_own_cases(text: str, budget: int, in_tokens: bool, expected: str) -> None:
    size = budget * BYTES_PER_TOKEN if in_tokens else budget
    measured = measure(text, size // 2, size - size // 2)
    assert (cut_tokens if in_tokens else cut_chars)(measured, size) == expected


def test_lines_are_counted_as_rust_counts_them() -> None:
    assert [measure(text, 0, 0).lines for text in ("", "a", "a\n", "a\n\nb\n\n", "\n", "x\r\ny\r\n\r\n")] == [
        0,
        1,
        1,
        4,
        1,
        3,
    ]


texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=300)


@given(texts, st.lists(st.integers(0, 300), max_size=8), st.integers(0, 200), st.integers(0, 200))
def test_a_lazy_text_measures_as_the_whole(text: str, cuts: list[int], left: int, right: int) -> None:
    points = sorted({0, len(text), *(min(cut, len(text)) for cut in cuts)})
    chunks = [text[start:end] for start, end in zip(points, points[1:], strict=False)]
    assert measure(LazyText(lambda: iter(chunks)), left, right) == measure(text, left, right)


@given(texts, st.integers(1, 100))
def test_a_cut_keeps_whole_characters_within_the_budget(text: str, tokens: int) -> None:
    budget = tokens * BYTES_PER_TOKEN
    measured = measure(text, budget // 2, budget - budget // 2)
    assert len(measured.head.encode()) <= budget // 2 and text.startswith(measured.head)
    assert len(measured.tail.encode()) <= budget - budget // 2 and text.endswith(measured.tail)
