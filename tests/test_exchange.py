from __future__ import annotations

import json

import pytest

from agentpager.exchange import call_and_result, call_json


def test_call_json() -> None:
    assert json.loads(call_json("read_file", {"path": "a.txt", "start_line": 3})) == {
        "name": "read_file",
        "arguments": {"path": "a.txt", "start_line": 3},
    }


def test_openai_pair() -> None:
    assistant, tool = call_and_result("openai", "read_file", {"path": "é.txt"}, "out", False)
    assert assistant["tool_calls"][0]["function"] == {"name": "read_file", "arguments": '{"path": "é.txt"}'}
    assert tool == {"role": "tool", "tool_call_id": assistant["tool_calls"][0]["id"], "content": "out"}


def test_anthropic_pair() -> None:
    assistant, user = call_and_result("anthropic", "fs_read", {"path": "a"}, '{"error": "x"}', True, "toolu_9")
    assert assistant["content"] == [{"type": "tool_use", "id": "toolu_9", "name": "fs_read", "input": {"path": "a"}}]
    assert user["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_9", "content": '{"error": "x"}', "is_error": True}
    ]


def test_unknown_format() -> None:
    with pytest.raises(ValueError, match="Unknown format 'xml'"):
        call_and_result("xml", "t", {}, "", False)
