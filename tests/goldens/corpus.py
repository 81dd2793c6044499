"""The files the goldens were recorded on, and the calls recorded, per agent.

``build(root)`` writes the same bytes every time (no randomness, no timestamps in content), so the
tests can rebuild the corpus and ask a profile the recorded calls. ``ROOT`` in an argument stands
for the corpus root (its absolute path), as it does in the recorded outputs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from samples import pdf_bytes, png_bytes

from agentpager.agents import get_agent
from agentpager.tools.volatile import Volatile

ROOT = "⟦root⟧"
"""Stands for the absolute path of the corpus root in arguments and recorded outputs."""


def _lines(count: int, text: Callable[[int], str]) -> bytes:
    return "".join(text(n) + "\n" for n in range(1, count + 1)).encode()


def _notebook() -> bytes:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "Some *markdown*."]},
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["3\n"]}],
            "source": ["x = 1 + 2\n", "print(x)"],
        },
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, indent=1).encode()


def files() -> dict[str, bytes]:
    """Every regular file of the corpus: its path under the root and its bytes."""
    return {
        "plain.txt": b"alpha\nbeta\ngamma\n",
        "no_final_newline.txt": b"one\ntwo\nthree",
        "crlf.txt": b"one\r\ntwo\r\nthree\r\n",
        "empty.txt": b"",
        "only_newline.txt": b"\n",
        "lone_cr.txt": b"one\rtwo\rthree\n",
        "lone_cr_end.txt": b"a\rb\rc\r",
        "crs/two_before_lf.txt": b"x\r\r\ny\r",
        "crs/only.txt": b"p\r\r",
        "crs/last_line.txt": b"q\r\n\r",
        "trailing_blank_lines.txt": b"text\n\n\n",
        "trailing_spaces.txt": b"first  \nlast   ",
        "latin1.txt": "café naïve\nfaçade über\n".encode("latin-1"),
        "utf16.txt": "\ufeffhéllo\nwörld\n".encode("utf-16-le"),
        "utf8_bom.txt": "\ufeffwith a byte-order mark\nsecond\n".encode(),
        "unicode.txt": "emoji 😀 here\n中文字符\nü\n".encode(),
        "indented.py": b"def f():\n    return 1\n\n\tif True:\n        pass\n",
        "tabs.tsv": b"a\tb\tc\n1\t2\t3\n",
        "lines_2600.txt": _lines(2600, lambda n: f"line {n}"),
        "long_lines.txt": ("a" * 2600 + "\n" + "b" * 30 + "\n" + "é" * 2100 + "\n").encode(),
        "big.txt": _lines(3000, lambda n: f"{n:05d} " + "x" * 94),
        "many_tokens.txt": _lines(2600, lambda n: " ".join(f"w{n}.{k}" for k in range(12))),
        "nul.bin": b"abc\x00def\nmore\n",
        "nul.txt": b"abc\x00def\nmore\n",
        "image.png": png_bytes(),
        "doc.pdf": pdf_bytes(["Hello from page one", "Second page"]),
        "notebook.ipynb": _notebook(),
        "data.json": b'{\n  "name": "corpus",\n  "items": [1, 2, 3]\n}\n',
        "dir/a.txt": b"in dir\n",
        "dir/b.md": b"# B\n",
        "dir/sub/c.txt": b"deep\n",
    }


SYMLINKS = {"link.txt": "plain.txt", "dangling.txt": "nowhere.txt"}
"""Symbolic links: name and (relative) target."""


def build(root: Path, extra: dict[str, bytes] | None = None) -> Path:
    """Write the corpus into ``root`` (created if needed), with an agent's ``extra`` files, and return it."""
    root.mkdir(parents=True, exist_ok=True)
    for name, data in (files() | (extra or {})).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / "empty_dir").mkdir(exist_ok=True)
    for name, target in SYMLINKS.items():
        if not os.path.lexists(root / name):
            os.symlink(target, root / name)
    return root


@dataclass(frozen=True)
class Case:
    name: str
    tool: str
    arguments: dict[str, Any]
    why: str = ""
    """What the case exposes."""
    server_counted: bool = False
    """The answer turns on a count only the model's server makes (Claude's tokenizer): a profile
    must say it is uncertain there, and may differ."""
    unordered: bool = False
    """The answer lists files in the order of a parallel walk (ripgrep's), which changes from run to
    run: a profile must say it is uncertain, and may list them in another order."""
    argument_check: bool = False
    """An argument of the wrong type: agentpager refuses it in its own words (``tools/args.py``)
    before any profile sees it, so only the error compares."""


@dataclass(frozen=True)
class AgentCases:
    cases: tuple[Case, ...]
    volatile: tuple[Volatile, ...] = ()
    notes: tuple[str, ...] = field(default=())
    extra_files: dict[str, bytes] = field(default_factory=dict)
    """Files only this agent's corpus has (the others' listings stay as recorded)."""


def _read(name: str, path: str, why: str = "", server_counted: bool = False, **more: Any) -> Case:
    return Case(name, "Read", {"file_path": path, **more}, why, server_counted)


def _bash(name: str, command: str, why: str = "") -> Case:
    return Case(name, "Bash", {"command": command}, why)


CLAUDE_CODE = AgentCases(
    (
        _read("plain", "plain.txt", "a final newline: one more, empty, numbered line?"),
        _read("no_final_newline", "no_final_newline.txt"),
        _read("crlf", "crlf.txt", "CR before each LF"),
        _read("empty", "empty.txt", "the empty-file reminder"),
        _read("only_newline", "only_newline.txt"),
        _read("lone_cr", "lone_cr.txt", "CR alone is not a line break"),
        _read("lone_cr_end", "lone_cr_end.txt", "lone CRs only, one at the very end (2.1.84 drops it)"),
        _read("crs_two_before_lf", "crs/two_before_lf.txt", "CR CR LF: CRLF becomes LF, then lines split on CR? LF"),
        _read("crs_only", "crs/only.txt", "two CRs at the end of the file: one dropped, both or none"),
        _read("cr_last_line", "crs/last_line.txt", "a last line that is a lone CR"),
        _read("trailing_blank_lines", "trailing_blank_lines.txt", "what trimming at the end removes"),
        _read("trailing_spaces", "trailing_spaces.txt"),
        _read("latin1", "latin1.txt", "legacy encoding"),
        _read("utf16", "utf16.txt", "UTF-16 with a BOM"),
        _read("utf8_bom", "utf8_bom.txt"),
        _read("unicode", "unicode.txt"),
        _read("indented", "indented.py", "leading spaces and tabs"),
        _read("indented_offset_2_limit_1", "indented.py", "leading spaces of a window", offset=2, limit=1),
        _read("tabs", "tabs.tsv"),
        _read("offset_0", "plain.txt", "offset 0", offset=0, limit=2),
        _read("offset_1", "plain.txt", "offset 1 reads it all", offset=1),
        _read("offset_1_limit_1", "plain.txt", offset=1, limit=1),
        _read("offset_last_line", "plain.txt", "the last line", offset=3),
        _read("offset_after_final_newline", "plain.txt", "the empty line after the final newline", offset=4),
        _read("offset_past_end", "plain.txt", "offset past the end", offset=9),
        _read("lines_2600", "lines_2600.txt", "the default line cap"),
        _read("lines_2600_offset_2590", "lines_2600.txt", offset=2590),
        _read("lines_2600_offset_2600_limit_5", "lines_2600.txt", offset=2600, limit=5),
        _read("lines_2600_limit_3", "lines_2600.txt", offset=1000, limit=3),
        _read(
            "lines_2600_limit_100", "lines_2600.txt", "a window in the middle of a long file", offset=1000, limit=100
        ),
        _read("long_lines", "long_lines.txt", "the line length cap"),
        _read("big", "big.txt", "over 256 KB, no offset or limit"),
        _read("big_window", "big.txt", "over 256 KB with offset and limit", offset=1, limit=3),
        _read("many_tokens", "many_tokens.txt", "under 256 KB but over 25,000 tokens", server_counted=True),
        _read("many_tokens_window", "many_tokens.txt", "a window of it", offset=100, limit=2),
        _read("nul", "nul.bin", "NUL bytes"),
        _read("nul_in_txt", "nul.txt", "NUL bytes in a file whose extension says text"),
        _read("png", "image.png", "an image"),
        _read("pdf", "doc.pdf", "a PDF"),
        _read("ipynb", "notebook.ipynb", "a notebook"),
        _read("json", "data.json"),
        _read("directory", "dir", "a directory"),
        _read("missing", "missing.txt", "a missing file"),
        _read("missing_similar", "plain.md", "a missing file with a similar name"),
        _read("symlink", "link.txt"),
        _read("dangling_symlink", "dangling.txt"),
        _read("relative_dotdot", "dir/../plain.txt", "a relative path through .."),
        _read("absolute", f"{ROOT}/plain.txt", "an absolute path"),
        _bash("bash_cat", "cat plain.txt"),
        _bash("bash_cat_crlf", "cat crlf.txt", "CR before each LF"),
        _bash("bash_sed", "sed -n 2,3p plain.txt"),
        _bash("bash_sed_indented", "sed -n 2,3p indented.py", "leading spaces, a blank last line"),
        _bash("bash_head", "head -n 3 lines_2600.txt"),
        _bash("bash_nl", "nl -ba plain.txt", "leading spaces of the first line"),
        _bash("bash_grep", "grep -n beta plain.txt"),
        _bash("bash_grep_no_match", "grep -n nomatch plain.txt", "exit code 1 from grep, no output"),
        _bash("bash_rg", "rg -n beta plain.txt"),
        _bash("bash_wc", "wc -l lines_2600.txt"),
        _bash("bash_missing", "cat missing.txt", "a failing command: stderr, exit code 1"),
        _bash("bash_stdout_then_stderr", "cat plain.txt missing.txt", "both streams"),
        _bash("bash_stderr_then_stdout", "cat missing.txt plain.txt", "which stream comes first"),
        _bash("bash_stderr_exit_0", "cat missing.txt; true", "stderr from a command that succeeds"),
        _bash("bash_exit_code", "echo out; exit 3"),
        _bash("bash_empty", "cat empty.txt", "no output"),
        _bash("bash_blank_lines", "cat trailing_blank_lines.txt only_newline.txt", "blank lines at the end"),
        _bash("bash_latin1", "cat latin1.txt", "invalid UTF-8"),
        _bash("bash_lines_2600", "cat lines_2600.txt", "2,600 lines, under 30,000 characters"),
        _bash("bash_big", "cat big.txt", "over 30,000 characters"),
        _bash("bash_big_error", "cat big.txt missing.txt", "an error over 10,000 characters"),
        _bash("bash_cd", "cd dir && cat a.txt", "the working directory changes (2.1.33x tells the model)"),
        _bash("bash_cd_sed", "cd dir/sub && sed -n '1,8p' c.txt", "two levels down, then a window"),
    ),
    get_agent("claude-code").volatile,
    notes=(
        "Run as `claude -p PROMPT --model MODEL --setting-sources user --strict-mcp-config --disallowedTools "
        "Write,Edit,NotebookEdit [--allowedTools 'Bash(COMMAND)']` against the mock (ANTHROPIC_BASE_URL), "
        "confined (no network but the loopback, nothing writable but its home). The output is the "
        "tool_result's content as the next request carries it: a string as it is; a list of blocks (an image, "
        "a PDF's document, a notebook with a countdown) as its JSON; blocks Claude Code sends beside the "
        "tool_result in the same message (2.0 and 2.1.84 put a PDF's document there) appended to that list.",
        "The mock answers count_tokens with the messages' characters / 4: Claude Code asks the API before it "
        "returns a large Read, so the 25,000-token limit (and 2.1.330's partial view) turn on a count only "
        "Anthropic's server makes with Claude's tokenizer. Those cases are server_counted in the corpus.",
        "2.1.330 with claude-sonnet-4-5 (and the other models with the total_tokens_reminder capability) "
        "trims the whole result and appends the <total_tokens> countdown; with claude-opus-5-5, its default "
        "model, neither happens. 2.0.21 and 2.1.84 have no countdown.",
        "logged is the tool_result's content in the session log Claude Code wrote (~/.claude/projects/P/S.jsonl), "
        "its text blocks joined: 2.1.330 and later log the result before the trim and the reminders the "
        "request adds (the countdown, '# Environment update' after a cd).",
        "2.0.21 reports a file read with offset or limit as modified on the next turn (it stores the read time "
        "rounded down to the millisecond; the file's mtime has more digits) and merges that note, with the "
        "diff hunks of what it read against the whole file, into the result, trimming it: this is where the "
        "leading spaces of such reads go in 2.0.21 transcripts.",
    ),
)


def _exec(name: str, cmd: str, why: str = "", **more: Any) -> Case:
    return Case(name, "exec_command", {"cmd": cmd, **more}, why)


CODEX = AgentCases(
    (
        _exec("cat_plain", "cat plain.txt"),
        _exec("cat_no_final_newline", "cat no_final_newline.txt"),
        _exec("cat_crlf", "cat crlf.txt", "CR kept?"),
        _exec("cat_empty", "cat empty.txt", "no output at all"),
        _exec("cat_latin1", "cat latin1.txt", "invalid UTF-8"),
        _exec("cat_utf16", "cat utf16.txt"),
        _exec("cat_nul", "cat nul.txt", "NUL bytes"),
        _exec("cat_png", "cat image.png", "binary output"),
        _exec("cat_missing", "cat missing.txt", "a failing command: exit code 1 and stderr"),
        _exec("cat_directory", "cat dir"),
        _exec("cat_long_lines", "cat long_lines.txt"),
        _exec("cat_unicode", "cat unicode.txt"),
        _exec("cat_lines_2600", "cat lines_2600.txt", "over the 10,000-token output budget"),
        _exec("cat_big", "cat big.txt", "far over the budget"),
        _exec("cat_lines_2600_budget_100", "cat lines_2600.txt", "a smaller budget", max_output_tokens=100),
        _exec("sed_2_3", "sed -n 2,3p plain.txt"),
        _exec("sed_1_200", "sed -n 1,200p lines_2600.txt", "a window the model asks for"),
        _exec("sed_past_end", "sed -n 100,120p plain.txt"),
        _exec("nl_plain", "nl -ba plain.txt"),
        _exec("nl_crlf", "nl -ba crlf.txt"),
        _exec("nl_window", "nl -ba lines_2600.txt | sed -n 2595,2600p"),
        _exec("head_default", "head lines_2600.txt"),
        _exec("head_n_3", "head -n 3 plain.txt"),
        _exec("rg_match", "rg -n beta plain.txt"),
        _exec("rg_many", "rg -n 'line 25' lines_2600.txt"),
        _exec("rg_no_match", "rg -n nomatch plain.txt", "exit code 1, no output"),
        _exec("rg_dir", "rg -n deep dir"),
        _exec("ls_dir", "ls -la dir | wc -l"),
        _exec("wc_l", "wc -l lines_2600.txt"),
        _exec("stderr_and_stdout", "cat plain.txt missing.txt", "both streams, exit code 1"),
        _exec("exit_code_3", "echo out; exit 3"),
        _exec("over_1_mib", "cat big.txt big.txt big.txt big.txt", "over the 1 MiB buffer", max_output_tokens=100),
        _exec("latin1_budget_1", "cat latin1.txt latin1.txt", "a cut of text that is not UTF-8", max_output_tokens=1),
        _exec(
            "blank_lines_budget_1", "cat trailing_blank_lines.txt", "the line count of blank lines", max_output_tokens=1
        ),
        _exec("budget_over_the_cap", "cat big.txt", "a budget over the model's cap", max_output_tokens=50000),
        _exec("budget_0", "cat plain.txt", "a budget of 0", max_output_tokens=0),
    ),
    get_agent("codex").volatile,
    notes=(
        "Run as `codex exec --skip-git-repo-check --sandbox read-only -m gpt-5.5` (confined) with a "
        "custom model provider (wire_api = responses) in $CODEX_HOME/config.toml pointing at the mock. With "
        "gpt-5.5 (and models without metadata) Codex offers `exec_command` (unified exec: cmd, workdir, tty, "
        "yield_time_ms, max_output_tokens, ...) as a plain function tool; its schema is offered_tools. The "
        "newest catalog models (gpt-6.x) offer a JavaScript `exec` code-mode tool instead, whose nested "
        "tools.exec_command returns what the script makes of it: not recorded here.",
        "The model receives the function_call_output text: 'Chunk ID: <6 hex>', 'Wall time: <s.ssss> "
        "seconds', 'Process exited with code <n>', 'Original token count: <ceil(output bytes / 4)>', "
        "'Output:' and the output: stdout and stderr merged as the command wrote them, bytes that are not "
        "UTF-8 shown as U+FFFD, CR and NUL kept, no line numbers, nothing added at the end.",
        "Over the output budget (max_output_tokens, default 10,000 tokens of 4 bytes) the output starts "
        "'Warning: truncated output (original token count: N)\nTotal output lines: L\n\n' and keeps its "
        "beginning and end around '…K tokens truncated…' (cat_big, cat_lines_2600_budget_100). The warning "
        "counts the output as decoded (U+FFFD is 3 bytes), 'Original token count' the bytes written "
        "(latin1_budget_1); a budget over 10,000 tokens is cut to 10,000 (budget_over_the_cap).",
        "An output over 1 MiB keeps its first and last 512 KiB joined by '\n... N bytes omitted ...\n' "
        "(openai/codex head_tail_buffer.rs); that line stands in for 'Total output lines' (over_1_mib).",
        "Codex tried github.com, api.github.com and chatgpt.com at start (plugins and update checks); the "
        "probe's proxy variables point at a closed port on 127.0.0.1, so nothing left the machine.",
    ),
)


_RUN_0_60 = (
    "Run as `codex exec --skip-git-repo-check --sandbox read-only -m MODEL` (confined) with a custom "
    "model provider (wire_api = responses) in $CODEX_HOME/config.toml pointing at the mock, as for 0.169.0."
)


def _shell_command(name: str, command: str, why: str = "", **more: Any) -> Case:
    return Case(name, "shell_command", {"command": command, **more}, why)


CODEX_0_60_SHELL_COMMAND = AgentCases(
    (
        _shell_command("cat_plain", "cat plain.txt"),
        _shell_command("cat_crlf", "cat crlf.txt"),
        _shell_command("cat_empty", "cat empty.txt"),
        _shell_command("cat_latin1", "cat latin1.txt", "invalid UTF-8"),
        _shell_command("cat_nul", "cat nul.txt"),
        _shell_command("cat_unicode", "cat unicode.txt"),
        _shell_command("cat_missing", "cat missing.txt", "exit code 1 and stderr"),
        _shell_command("stderr_and_stdout", "cat plain.txt missing.txt"),
        _shell_command("stderr_then_stdout", "cat missing.txt plain.txt"),
        _shell_command("sed_2_3", "sed -n '2,3p' plain.txt"),
        _shell_command("sed_1_200", "sed -n '1,200p' lines_2600.txt"),
        _shell_command("nl_window", "nl -ba lines_2600.txt | sed -n '2595,2600p'"),
        _shell_command("head_n_3", "head -n 3 plain.txt"),
        _shell_command("rg_match", "rg -n beta plain.txt"),
        _shell_command("rg_no_match", "rg -n nomatch plain.txt"),
        _shell_command("wc_l", "wc -l lines_2600.txt"),
        _shell_command("exit_code_3", "echo out; exit 3"),
        _shell_command("cat_long_lines", "cat long_lines.txt"),
        _shell_command("cat_lines_2600", "cat lines_2600.txt", "24.9 KB: under the 10,000-token budget"),
        _shell_command("cat_big", "cat big.txt", "over the budget: the middle cut in tokens"),
        _shell_command("workdir", "cat a.txt", "the workdir argument", workdir="dir"),
        _shell_command("cd_and_cat", "cd dir && cat a.txt"),
        _shell_command("ls_dir", "ls dir"),
        _shell_command("over_1_mib", "cat big.txt big.txt big.txt big.txt", "no 1 MiB buffer in 0.60.1"),
    ),
    get_agent("codex").volatile,
    notes=(
        _RUN_0_60 + " With gpt-5.1-codex-max (the model of pinouchon/rtchess's session) Codex offers shell_command.",
        "The model receives 'Exit code: N', 'Wall time: T seconds' (rounded to 0.1 s, '0' for none), 'Total output "
        "lines: L' only when the cut changed the line count, 'Output:' and stdout and stderr as written. Codex "
        "models cut an output over 10,000 tokens (40,000 bytes) in the middle, '…N tokens truncated…'.",
    ),
)


def _shell(name: str, argv: list[str], why: str = "", **more: Any) -> Case:
    return Case(name, "shell", {"command": argv, **more}, why)


CODEX_0_60_SHELL = AgentCases(
    (
        _shell("bash_cat", ["bash", "-lc", "cat plain.txt"]),
        _shell("argv_sed", ["sed", "-n", "2,3p", "plain.txt"], "an argv run without a shell"),
        _shell("crlf", ["cat", "crlf.txt"], "JSON escapes"),
        _shell("nul", ["cat", "nul.txt"]),
        _shell("latin1", ["cat", "latin1.txt"]),
        _shell("unicode", ["cat", "unicode.txt"]),
        _shell("missing", ["cat", "missing.txt"]),
        _shell("exit_code_3", ["bash", "-lc", "echo out; exit 3"]),
        _shell("workdir", ["cat", "a.txt"], workdir="dir"),
        _shell("big", ["cat", "big.txt"], "the middle cut at 10,000 bytes, in characters"),
        _shell_command("shell_command_plain", "cat plain.txt", "shell_command with a model offered shell"),
        _shell_command("shell_command_big", "cat big.txt"),
    ),
    get_agent("codex").volatile,
    notes=(
        _RUN_0_60 + ' With gpt-5 Codex offers `shell` (an argv) and answers it with JSON: {"output", '
        '"metadata": {"exit_code", "duration_seconds"}}, \'Total output lines: L\' and a blank line before a cut '
        "output; shell_command still answers in the 'Exit code' form.",
        "Models other than the codex ones cut an output over 10,000 bytes in the middle, '…N chars truncated…'.",
    ),
)


def _gemini_read(name: str, path: str, why: str = "", **more: Any) -> Case:
    return Case(name, "read_file", {"file_path": path, **more}, why)


GEMINI_CLI = AgentCases(
    (
        _gemini_read("plain", "plain.txt"),
        _gemini_read("no_final_newline", "no_final_newline.txt"),
        _gemini_read("crlf", "crlf.txt"),
        _gemini_read("empty", "empty.txt"),
        _gemini_read("only_newline", "only_newline.txt"),
        _gemini_read("lone_cr", "lone_cr.txt"),
        _gemini_read("latin1", "latin1.txt"),
        _gemini_read("utf16", "utf16.txt"),
        _gemini_read("utf8_bom", "utf8_bom.txt"),
        _gemini_read("unicode", "unicode.txt"),
        _gemini_read("lines_2600", "lines_2600.txt", "the default line cap and its truncation header"),
        _gemini_read("lines_2600_window", "lines_2600.txt", start_line=10, end_line=12),
        _gemini_read("lines_2600_start_only", "lines_2600.txt", start_line=2590),
        _gemini_read("end_past_end", "plain.txt", start_line=2, end_line=50),
        _gemini_read("start_past_end", "plain.txt", start_line=9),
        _gemini_read("long_lines", "long_lines.txt", "the line length cap"),
        _gemini_read("big", "big.txt", "over 256 KB"),
        _gemini_read("nul", "nul.bin"),
        _gemini_read("nul_in_txt", "nul.txt"),
        _gemini_read("png", "image.png"),
        _gemini_read("pdf", "doc.pdf"),
        _gemini_read("ipynb", "notebook.ipynb"),
        _gemini_read("directory", "dir"),
        _gemini_read("missing", "missing.txt"),
        _gemini_read("symlink", "link.txt"),
        _gemini_read("absolute", f"{ROOT}/plain.txt"),
        Case("many_two", "read_many_files", {"include": ["plain.txt", "crlf.txt"]}, "@file references"),
        Case("many_dir", "read_many_files", {"include": ["dir"]}, "a directory reference"),
        Case("many_empty", "read_many_files", {"include": ["empty.txt"]}),
        Case("many_png", "read_many_files", {"include": ["image.png"]}),
        Case("many_missing", "read_many_files", {"include": ["missing.txt"]}),
        Case("list_root", "list_directory", {"dir_path": "."}),
        Case("list_dir", "list_directory", {"dir_path": "dir"}),
        Case("list_empty", "list_directory", {"dir_path": "empty_dir"}),
        Case("list_ignore", "list_directory", {"dir_path": ".", "ignore": ["*.txt"]}),
        Case("list_missing", "list_directory", {"dir_path": "missing_dir"}),
        Case("list_file", "list_directory", {"dir_path": "plain.txt"}),
    ),
    notes=(
        "Run as `gemini -p PROMPT -m gemini-2.5-pro` with GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL (the mock), "
        "security.auth.selectedType = gemini-api-key in ~/.gemini/settings.json (the base URL alone selects "
        "a gateway auth that -p refuses), folder trust off and GEMINI_CLI_TRUST_WORKSPACE=false (the workspace's "
        ".gemini/ settings never load), confined. It streams "
        "POST /v1beta/models/MODEL:streamGenerateContent?alt=sse.",
        "read_file and list_directory outputs are the functionResponse's response.output (or .error, then "
        "is_error); when the CLI sends more parts with it (an image's or a PDF's inlineData) the output is "
        "the JSON list of the functionResponse and those parts.",
        "read_file: the text as it is (no line numbers; CRLF becomes LF, a BOM and UTF-16 are decoded); "
        "past 2,000 lines, or with start_line/end_line, a header 'IMPORTANT: The file content has been "
        "truncated.' with the lines shown, then '--- FILE CONTENT (truncated) ---'; lines over 2,000 "
        "characters end in '... [truncated]'; Latin-1 and NUL bytes make it a binary file.",
        "read_many_files is not offered to the model in 0.61.0: the CLI runs it on the user's @path "
        "references (a directory becomes @dir/**). The output is what the CLI added to the first user "
        "message, from '--- Content from referenced files ---' on, its text parts joined (empty when it "
        "read nothing, as for a missing file); files come sorted by path.",
        "list_directory: directories first, then files with their sizes, each group sorted by name; a "
        "dangling symlink is left out.",
    ),
)


def _oc_read(name: str, path: str, why: str = "", **more: Any) -> Case:
    return Case(name, "read", {"filePath": path, **more}, why)


def _oc_glob(name: str, pattern: str, why: str = "", unordered: bool = False, **more: Any) -> Case:
    return Case(name, "glob", {"pattern": pattern, **more}, why, unordered=unordered)


def _oc_grep(name: str, pattern: str, why: str = "", unordered: bool = False, **more: Any) -> Case:
    return Case(name, "grep", {"pattern": pattern, **more}, why, unordered=unordered)


OPENCODE = AgentCases(
    (
        _oc_read("plain", "plain.txt", "`N: line`, the end-of-file note"),
        _oc_read("no_final_newline", "no_final_newline.txt"),
        _oc_read("crlf", "crlf.txt", "CR before LF"),
        _oc_read("empty", "empty.txt", "no lines at all"),
        _oc_read("only_newline", "only_newline.txt"),
        _oc_read("lone_cr", "lone_cr.txt", "CR alone"),
        _oc_read("trailing_blank_lines", "trailing_blank_lines.txt"),
        _oc_read("trailing_spaces", "trailing_spaces.txt"),
        _oc_read("latin1", "latin1.txt", "bytes that are not UTF-8"),
        _oc_read("utf16", "utf16.txt", "UTF-16: its NUL bytes"),
        _oc_read("utf8_bom", "utf8_bom.txt", "TextDecoder drops the BOM?"),
        _oc_read("unicode", "unicode.txt"),
        _oc_read("indented", "indented.py"),
        _oc_read("tabs", "tabs.tsv"),
        _oc_read("offset_0", "plain.txt", "offset 0 reads from line 1", offset=0),
        _oc_read("offset_2_limit_1", "plain.txt", offset=2, limit=1),
        _oc_read("offset_last_line", "plain.txt", offset=3),
        _oc_read("offset_after_final_newline", "plain.txt", "out of range?", offset=4),
        _oc_read("offset_past_end", "plain.txt", offset=9),
        _oc_read("offset_1_empty", "empty.txt", "the empty file's exception", offset=1),
        _oc_read("offset_2_empty", "empty.txt", offset=2),
        _oc_read("limit_0", "plain.txt", limit=0),
        _oc_read("offset_negative", "plain.txt", "the schema's error", offset=-1),
        Case(
            "limit_fraction",
            "read",
            {"filePath": "plain.txt", "limit": 1.5},
            "an integer is expected",
            argument_check=True,
        ),
        _oc_read("lines_2600", "lines_2600.txt", "the 2,000-line default"),
        _oc_read("lines_2600_offset_2590", "lines_2600.txt", offset=2590),
        _oc_read("lines_2600_offset_2600_limit_5", "lines_2600.txt", offset=2600, limit=5),
        _oc_read("lines_2600_window", "lines_2600.txt", offset=1000, limit=3),
        _oc_read("long_lines", "long_lines.txt", "2,000 characters a line"),
        _oc_read("edge_lines", "edge_lines.txt", "2,000 and 2,001 characters"),
        _oc_read("emoji_long", "emoji_long.txt", "a cut inside a surrogate pair"),
        _oc_read("big", "big.txt", "the 50 KB cap"),
        _oc_read("big_window", "big.txt", offset=1, limit=3),
        _oc_read("big_from_2900", "big.txt", "the cap counted from the offset", offset=2900),
        _oc_read("nul", "nul.bin", "binary by extension"),
        _oc_read("nul_in_txt", "nul.txt", "a NUL byte"),
        _oc_read("controls", "controls.txt", "over 30% control characters"),
        _oc_read("few_controls", "few_controls.txt", "under 30% control characters"),
        _oc_read("dat", "text.dat", "text with a binary extension"),
        _oc_read("png", "image.png", "an image: an attachment"),
        _oc_read("pdf", "doc.pdf", "a PDF: an attachment"),
        _oc_read("ipynb", "notebook.ipynb"),
        _oc_read("json", "data.json"),
        _oc_read("directory", "dir", "a directory's entries"),
        _oc_read("directory_root", ".", "the root: localeCompare order, links"),
        _oc_read("directory_empty", "empty_dir"),
        _oc_read("directory_window", "dir", offset=2, limit=1),
        _oc_read("directory_past_end", "dir", offset=9),
        _oc_read("missing", "missing.txt"),
        _oc_read("missing_similar", "lines", "names that contain it"),
        _oc_read("missing_contained", "dir/sub/c.txt.bak", "a name it contains"),
        _oc_read("missing_directory", "nowhere/x.txt", "no directory to look in"),
        _oc_read("symlink", "link.txt"),
        _oc_read("dangling_symlink", "dangling.txt"),
        _oc_read("relative_dotdot", "dir/../plain.txt"),
        _oc_read("absolute", f"{ROOT}/plain.txt"),
        _oc_read("agents_md", "guide/code.py", "an AGENTS.md between the file and the root"),
        _oc_read("agents_md_nested", "guide/deeper/notes.txt", "a CLAUDE.md and the AGENTS.md above it"),
        _oc_read("agents_md_itself", "guide/AGENTS.md", "the instructions file read itself"),
        _oc_read("outside", "/etc/hostname", "a path outside: the permission is refused"),
        _oc_glob("glob_txt", "*.txt", "a name glob matches at any depth; hidden and ignored files too", True),
        _oc_glob("glob_md", "**/*.md", unordered=True),
        _oc_glob("glob_in_dir", "*", unordered=True, path="dir"),
        _oc_glob("glob_path_glob", "dir/*.txt", "a glob with a slash is anchored"),
        _oc_glob("glob_braces", "*.{md,json}", unordered=True),
        _oc_glob("glob_no_match", "*.nomatch"),
        _oc_glob("glob_hidden", ".hidden*"),
        _oc_glob("glob_ignored", "ignored*", "a file .ignore names, matched by the glob"),
        _oc_glob("glob_path_file", "*", path="plain.txt"),
        _oc_glob("glob_path_missing", "*", path="nowhere"),
        _oc_glob("glob_absolute", "*.md", path=f"{ROOT}/dir"),
        _oc_glob("glob_many", "**/e*", "over 100 results: which 100 is the order's", True),
        _oc_grep("grep_one", "beta", "one match"),
        _oc_grep("grep_files", "deep|in dir", "matches in several files", True),
        _oc_grep("grep_include", "B", unordered=True, include="*.md"),
        _oc_grep("grep_path_dir", "a", path="dir"),
        _oc_grep("grep_path_file", "two", "a file path searches its directory", True, path="crlf.txt"),
        _oc_grep("grep_crlf", "two", "CR kept in the line", include="crlf.txt"),
        _oc_grep("grep_no_final_newline", "three", include="no_final_newline.txt"),
        _oc_grep("grep_no_match", "nomatch_anywhere"),
        _oc_grep("grep_latin1", "caf", "a line that is not UTF-8"),
        _oc_grep("grep_invalid", "(", "ripgrep's regex error"),
        _oc_grep("grep_long_line", "b{30}", "a line over 2,000 characters", include="edge_lines.txt"),
        _oc_grep("grep_huge_line", "zzz", "a JSON record over 64 KiB", include="huge_line.txt"),
        _oc_grep("grep_many", "line 1", "over 100 matches", include="lines_2600.txt"),
        _oc_grep("grep_hidden", "hidden", "hidden files are searched, ignored ones not"),
        _oc_grep("grep_ignored", "secret", "a file .ignore names"),
        _oc_grep("grep_utf16", "llo", "UTF-16 with a BOM is decoded", include="utf16.txt"),
        _oc_grep("grep_nul", "more", "a file with a NUL byte is binary", include="nul.*"),
        _oc_grep("grep_case", "ALPHA", "case-sensitive"),
        _oc_grep("grep_unicode", "中文", include="unicode.txt"),
        _oc_grep("grep_path_missing", "deep", path="nowhere"),
    ),
    notes=(
        "Run as `opencode run --pure -m agentpager/agentpager-mock PROMPT` with OPENCODE_CONFIG_CONTENT naming one "
        "provider, @ai-sdk/openai-compatible with baseURL the mock (agents/opencode/probe.py has the whole "
        "environment). It streams POST /v1/chat/completions; the output is the tool message's content in the next "
        "request, is_error whether the session store (opencode.db) has the tool part in 'error' state (the Chat "
        "Completions wire does not say).",
        "read: `<path>ABS</path>`, `<type>file</type>`, `<content>` and `N: line` lines (2,000 lines and 50 KB at "
        "most, lines cut at 2,000 UTF-16 units), then the end or continuation note; a directory gives its entries "
        "in localeCompare order with `/` after directories; images and PDFs answer 'Image read successfully' and "
        "'PDF read successfully' (the file goes beside the result as an attachment: this text-only model is told "
        "it cannot read images in a user message after the tool message). An AGENTS.md, CLAUDE.md or CONTEXT.md "
        "in a directory between the file and the root is appended as a <system-reminder>.",
        "glob and grep run ripgrep (here 13.0.0 from PATH: OpenCode uses rg on PATH, else its cached or downloaded "
        "15.1.0): `rg --files --glob=PATTERN --glob=!**/.git/** .` and `rg --json --hidden --no-messages "
        "[--glob=INCLUDE] --glob=!**/.git/** -- PATTERN .` in the search directory (a file's directory for a file "
        "path). ripgrep walks directories in parallel: the order of files varies from run to run.",
        "A path outside the workspace needs the external_directory permission, which `run` refuses at once: the "
        "call fails and the run ends without sending anything to the model (outside: the store's error).",
    ),
    extra_files={
        ".hidden.txt": b"hidden\n",
        ".ignore": b"ignored_by_rg.txt\n",
        "ignored_by_rg.txt": b"secret\n",
        "edge_lines.txt": ("a" * 2000 + "\n" + "b" * 2001 + "\n").encode(),
        "emoji_long.txt": ("x" + "\U0001f600" * 1000 + "\n").encode(),
        "huge_line.txt": b"z" * 70000 + b"\n",
        "controls.txt": b"\x01\x02\x03\x04ab\n",
        "few_controls.txt": b"\x01abcdefgh\n",
        "text.dat": b"plain text\n",
        "guide/AGENTS.md": b"Use tabs.\n",
        "guide/code.py": b"x = 1\n",
        "guide/deeper/CLAUDE.md": b"Be brief.\n",
        "guide/deeper/notes.txt": b"note\n",
        **{f"many/e{n:03d}": b"" for n in range(120)},
    },
)

CASES: dict[str, AgentCases] = {
    "claude-code": CLAUDE_CODE,
    "codex": CODEX,
    "codex-shell-command": CODEX_0_60_SHELL_COMMAND,
    "codex-shell": CODEX_0_60_SHELL,
    "gemini-cli": GEMINI_CLI,
    "opencode": OPENCODE,
}
"""The case sets, by name (an agent's name is its default set)."""


@dataclass(frozen=True)
class Target:
    """A golden file: the agent, version and model recorded, and the cases asked."""

    agent: str
    version: str
    model: str
    cases: str = ""
    """A name in CASES (default: the agent's)."""


TARGETS = (
    Target("claude-code", "2.0.21", "claude-sonnet-4-5"),
    Target("claude-code", "2.1.84", "claude-sonnet-4-5"),
    Target("claude-code", "2.1.330", "claude-sonnet-4-5"),
    Target("claude-code", "2.1.330", "claude-opus-5-5"),
    Target("claude-code", "2.1.332", "claude-sonnet-4-5"),
    Target("claude-code", "2.1.332", "claude-opus-5-5"),
    Target("codex", "0.169.0", "gpt-5.5"),
    Target("codex", "0.171.0", "gpt-5.5"),
    Target("codex", "0.60.1", "gpt-5.1-codex-max", "codex-shell-command"),
    Target("codex", "0.60.1", "gpt-5", "codex-shell"),
    Target("gemini-cli", "0.61.0", "gemini-2.5-pro"),
    Target("opencode", "1.18.33", "agentpager-mock"),
)
"""Every golden file: the versions the issue asks for (Claude Code 2.0.21, 2.1.84, the newest), the
newest Codex and Gemini CLI, each with a fixed model; the newest Claude Code also with its default
model (claude-opus-5-5), whose results differ; Codex 0.60.1 (pinouchon/rtchess's version) with a model
offered shell_command and one offered shell."""


def newest_targets(agent: str) -> list[Target]:
    """The targets of the newest version of ``agent`` recorded (one per model, in TARGETS' order)."""
    targets = [target for target in TARGETS if target.agent == agent]
    newest = max((t.version for t in targets), key=lambda version: tuple(int(n) for n in version.split(".")))
    return [target for target in targets if target.version == newest]


def cases_of(agent: str, version: str, model: str) -> AgentCases:
    """The cases of the golden of ``agent`` at ``version`` with ``model``."""
    target = next((t for t in TARGETS if (t.agent, t.version, t.model) == (agent, version, model)), None)
    return CASES[target.cases or agent] if target else CASES[agent]
