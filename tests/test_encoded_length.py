"""A JSON value's length as ``json.dumps(value, ensure_ascii=False)`` writes it, counted without
writing it (``jsontext.encoded_length``): the record index's measure of each call's arguments."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentpager.engine import jsontext

_TEXT = st.text(max_size=20) | st.sampled_from(['a"b\\\\"c', "\x00\x1f\x7f\b\f\n\r\t", "\ud800x", "😀é", "\\u00e9"])
_NUMBERS = st.integers() | st.floats() | st.sampled_from([math.inf, -math.inf, math.nan, -0.0, 1e300, 10**40])
_VALUES = st.recursive(
    st.none() | st.booleans() | _NUMBERS | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=16,
)


@given(value=_VALUES)
def test_the_length_of_what_json_dumps_writes(value: Any) -> None:
    assert jsontext.encoded_length(value) == len(json.dumps(value, ensure_ascii=False))


@given(value=_VALUES)
def test_the_same_length_without_the_c_module(value: Any) -> None:
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(jsontext, "_native", None)
        assert jsontext.encoded_length(value) == len(json.dumps(value, ensure_ascii=False))


class _Text(str):
    pass


@pytest.mark.parametrize(
    "value",
    [
        {1: "a", None: [True], 2.5: (1, 2)},  # keys json.dumps turns into strings, a tuple as a list
        {"a": _Text("b"), "c": [10**100]},  # a subclass of str
        [[[[["deep"]]]]] * 2,
        json.loads("[" * 300 + "]" * 300),  # nested deeper than the C module measures
    ],
)
def test_values_the_c_module_leaves_to_the_encoder(value: Any) -> None:
    if jsontext._native is not None and not isinstance(value, list):
        assert jsontext._native.encoded_length(value) is None
    assert jsontext.encoded_length(value) == len(json.dumps(value, ensure_ascii=False))


@pytest.mark.parametrize("value", [{"a": {1, 2}}, [b"bytes"], {(1, 2): 3}])
def test_what_is_not_json_raises_as_json_dumps_does(value: Any) -> None:
    with pytest.raises(TypeError):
        json.dumps(value, ensure_ascii=False)
    with pytest.raises(TypeError):
        jsontext.encoded_length(value)


def test_a_number_too_long_to_write_raises_as_json_dumps_does() -> None:
    with pytest.raises(ValueError):
        json.dumps([10**5000])
    with pytest.raises(ValueError):
        jsontext.encoded_length([10**5000])
