from __future__ import annotations

import json

import pytest

from agentpager.exchange import PAIR_FORMATS, arguments_line, call_and_result, call_json, read_call


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


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "read_file", "arguments": {"path": "a.txt", "start_line": 5}}',
        '{"type": "function", "function": {"name": "read_file", "arguments": "{\\"path\\": \\"a.txt\\", \\"start_line\\": 5}"}}',
        '{"type": "tool_use", "id": "x", "name": "read_file", "input": {"path": "a.txt", "start_line": 5}}',
    ],
)
def test_reading_a_pasted_call(text: str) -> None:
    assert read_call(text) == ("read_file", {"path": "a.txt", "start_line": 5})


@pytest.mark.parametrize("format", PAIR_FORMATS)
def test_reading_back_a_copied_message_pair(format: str) -> None:
    pair = call_and_result(format, "fs_read", {"path": "a", "start_byte": 3}, "out", False)
    assert read_call(json.dumps(pair)) == ("fs_read", {"path": "a", "start_byte": 3})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"name": "read_file", "arguments": {', "Not JSON yet: Expecting property name enclosed in double quotes"),
        ('{"path": "a.txt"}', 'Not a tool call: expected {"name": "...", "arguments": {...}}.'),
        ('{"name": "read_file", "arguments": [1]}', "The arguments must be an object, got [1]."),
        ('{"function": {"name": "read_file", "arguments": "{"}}', "The arguments string is not JSON"),
    ],
)
def test_what_is_wrong_with_a_pasted_call(text: str, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        read_call(text)
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize(
    ("arguments", "width", "shown"),
    [
        (  # a path is cut to its file name, then past it, before a number is left out
            {"file_path": "src/agentpager/cli.py", "start_line": 450, "end_line": 457},
            48,
            'file_path="…/cli.py" start_line=450 end_line=457',
        ),
        (
            {"file_path": "src/agentpager/cli.py", "start_line": 450, "end_line": 457},
            47,
            'file_path="…cli.py" start_line=450 end_line=457',
        ),
        (  # a list of numbers is never cut; a short text is left out to keep a file name (not cut to
            # "v…"), and the cells that frees past the need go back to the path
            {"command": "view", "path": "src/agentpager/cli.py", "view_range": [450, 457]},
            49,
            'command=… path="sr…/cli.py" view_range=[450, 457]',
        ),
        (  # when that does not keep it, the path is cut past it, to the line's last column
            {"command": "view", "path": "src/agentpager/cli.py", "view_range": [450, 457]},
            45,
            'command=… path="…li.py" view_range=[450, 457]',
        ),
        (  # a text that does not fit even so is left out, the longest first (never cut to '"…"')
            {"command": "view", "path": "src/agentpager/cli.py", "view_range": [450, 457]},
            41,
            'command=… path=… view_range=[450, 457]',
        ),
        (  # a directory keeps its last part as a file does, and is cut past it to no less than "…i/"
            {"pattern": "*.py", "path": "src/agentpager/tui/", "limit": 50},
            37,
            'pattern="*.py" path="…/tui/" limit=50',
        ),
        (
            {"pattern": "*.py", "path": "src/agentpager/tui/", "limit": 50},
            36,
            'pattern="*.py" path="…tui/" limit=50',
        ),
        (
            {"pattern": "*.py", "path": "src/agentpager/tui/", "limit": 50},
            29,
            'pattern=… path="…i/" limit=50',
        ),
        (  # a short directory is a short text: whole or left out, never '"…"'
            {"pattern": "test_[a-z_]+[.]py", "recursive": True, "path": "src/", "limit": 50},
            46,
            'pattern=… recursive=true path="src/" limit=50',
        ),
        (  # another text is cut in the middle too, down to a few characters
            {"pattern": "def arguments_line", "path": "src/agentpager/exchange.py", "context": 3},
            50,
            'pattern="def …line" path="…/exchange.py" context=3',
        ),
        ({"path": "big.txt", "start_line": 450}, 14, "path=… start_…"),  # the numbers alone do not fit
    ],
)
def test_a_line_that_keeps_its_numbers_cuts_its_texts_fairly(arguments: dict, width: int, shown: str) -> None:
    assert arguments_line(arguments, width, keep_numbers=True) == shown


def test_a_long_value_is_measured_no_further_than_the_line() -> None:
    """A value of a million wide characters gives the line one of a thousand gives (its middle is
    cut either way), and is measured only as far as the line: ``cells_up_to``."""
    from agentpager.wording import cells_up_to

    assert (cells_up_to("テテ", 10), cells_up_to("テ" * 1_000_000, 10), cells_up_to("a" * 11, 10)) == (4, 11, 11)
    for keep_numbers in (False, True):
        for width in (12, 30, 70):
            arguments = [{"file_path": "x.py", "content": "テ" * size, "offset": 7} for size in (1_000, 1_000_000)]
            lines = {arguments_line(each, width, keep_numbers=keep_numbers) for each in arguments}
            assert len(lines) == 1, lines
