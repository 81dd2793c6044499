"""JSON text with its long strings cut before it is parsed (``jsontext.shortened``): a session's
summary looks only at the start of its strings."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentpager.engine import jsontext
from agentpager.sessions import LOOKED_CHARS, TITLE_CHARS, title_of

pytestmark = pytest.mark.skipif(jsontext._native is None, reason="the C module was not built")

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30) | st.sampled_from(
    ['a"b\\\\"c', "\\", "😀😀😀😀", "é" * 12, "\x00\n\t"]
)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


def _cut(value: Any, keep: int) -> Any:
    if isinstance(value, str):
        return value[:keep]
    if isinstance(value, list):
        return [_cut(element, keep) for element in value]
    if isinstance(value, dict):
        return {key[:keep]: _cut(member, keep) for key, member in value.items()}
    return value


@given(value=_VALUES, keep=st.integers(0, 12), ascii_only=st.booleans(), spaced=st.booleans())
def test_each_string_is_cut_to_its_first_characters(value: Any, keep: int, ascii_only: bool, spaced: bool) -> None:
    separators = (", ", ": ") if spaced else (",", ":")
    data = json.dumps(value, ensure_ascii=ascii_only, separators=separators).encode()
    cut = jsontext.shortened(data, keep)
    assert json.loads(cut) == _cut(value, keep)
    assert (cut is data) == (_cut(value, keep) == value or len(data) <= keep)


@given(data=st.binary(max_size=60) | st.text(alphabet='{}[]",:\\u0a1"', max_size=40).map(str.encode))
def test_any_bytes_are_cut_or_given_back(data: bytes) -> None:
    """Not JSON, cut inside an escape, a string never closed: no error, never longer."""
    assert len(jsontext.shortened(data, 2)) <= len(data)


def test_a_string_cut_keeps_whole_characters_and_escapes() -> None:
    assert jsontext.shortened('{"a":"ééé\\"x\\u00e9y","b":1}'.encode(), 4) == '{"a":"ééé\\"","b":1}'.encode()
    assert jsontext.shortened(b'{"a":"\\ud83d\\ude00\\ud83d\\ude00"}', 1) == b'{"a":"\\ud83d\\ude00"}'
    assert jsontext.shortened(b'{"a":"abcdef', 2) == b'{"a":"abcdef', "a string never closed is left"


def test_a_summary_parses_enough_of_a_prompt_for_its_title() -> None:
    assert LOOKED_CHARS >= 4 * TITLE_CHARS  # title_of looks at the prompt's first 4 * TITLE_CHARS


@given(
    runs=st.lists(st.tuples(st.integers(0, 300), st.integers(0, 300)), max_size=6),
    word=st.sampled_from("a語"),
    space=st.sampled_from(" \n\u3000"),
)
def test_a_title_is_the_prompts_first_words_on_one_line(runs: list[tuple[int, int]], word: str, space: str) -> None:
    prompt = "".join(word * letters + space * spaces for letters, spaces in runs)
    assert title_of(prompt) == " ".join(prompt[: 4 * TITLE_CHARS].split())[:TITLE_CHARS]
