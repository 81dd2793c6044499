"""Claude Code's ``Bash``, equal to what the real programs sent their model (``tests/goldens/claude-code``,
the ``bash_*`` cases); the command is emulated over the workspace, never run (``agentpager.tools.commands``).

2.0.21 (``cli.js``: the Bash tool's ``call``, ``mapToolResultToToolResultBlockParam``, ``Qy``, ``zR``,
``op0``/``tp0``): stdout and stderr are read apart. A success shows ``stdout.trimEnd() + "\\n" +
stderr.trimEnd()`` without its blank first and last lines, cut at 30,000 characters with ``... [N
lines truncated] ...``, then without leading blank lines and trailing white space. A failure (a
non-zero exit, except 1 from ``grep``, ``rg``, ``find``, ``diff``, ``test`` and ``[``, judged by the
last command's name) is an error whose text is stderr and stdout joined by a newline and trimmed,
cut to its first and last 5,000 characters over 10,000.

2.1 (2.1.84's ``cli.js``, same functions, and 2.1.330's binary; both answered the same): one file
gets stdout and stderr as they are written, and the first 30,000 bytes of it are read. A failure is
``Exit code N``, a newline and that output, trimmed (cut over 10,000 characters as above). A success
is the output trimmed as in 2.0; an empty one reads ``(Bash completed with no output)``. An output
over 30,000 bytes was saved to a file under Claude Code's project directory: the answer names the
file, its size, and a preview of its first 2,000 characters (cut at the last newline past the first
1,000) in ``<persisted-output>``. 2.1.330 and 2.1.332 give the models that get the ``<total_tokens>``
countdown (``read.Answer``) the whole result trimmed, then, when the command ``cd``-ed, a ``# Environment
update`` naming the new working directory and the old, then the countdown, errors included; the session
log keeps the result before all that (claude-opus-5-5, its default model, gets what is logged).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from agentpager.agents.claude_code.read import Answer, Behaviour, size_text
from agentpager.engine.lazytext import Text, head
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import Call, Tool
from agentpager.tools.commands import RECORDED_CWD, NotRun, not_run, refuse, run_command
from agentpager.tools.js.strings import JS_WHITESPACE, js_length, js_prefix, js_slice, js_trim, js_trim_end
from agentpager.tools.shell import ShellRun
from agentpager.tools.shell.command import parse
from agentpager.tools.shell.errors import Unsupported

MAX_OUTPUT = 30_000
"""``BASH_MAX_OUTPUT_LENGTH``'s default: characters (2.0) or bytes (2.1) of output shown."""
MAX_ERROR = 10_000
"""An error text longer than this keeps its first and last half of it."""
PREVIEW = 2_000
"""Characters of a saved output's preview."""
NOT_ERRORS_WHEN_1 = frozenset(("grep", "rg", "find", "diff", "test", "["))
"""Commands whose exit code 1 is not a failure (no match, files differ, condition false)."""
NO_OUTPUT = "(Bash completed with no output)"
_LEADING_BLANK_LINES = re.compile(f"^(?:[{JS_WHITESPACE}]*\n)+")
ENVIRONMENT_UPDATE = (
    "<system-reminder>\n# Environment update\n - Primary working directory: {now} (was {was})\n</system-reminder>"
)
"""What 2.1.33x tells the countdown models after a command that changed the shell's directory."""


def directory_after(command: str, cwd: str) -> str:
    """The shell's directory after ``command`` ran in ``cwd``: its ``cd`` steps applied (a ``cd`` in a
    pipeline runs in a subshell and moves nothing); ``cwd`` for a command that cannot be parsed."""
    try:
        steps = parse(command).steps
    except Unsupported:
        return cwd
    for step in steps:
        commands = step.pipeline.commands
        if len(commands) == 1 and commands[0].argv[:1] == ["cd"] and len(commands[0].argv) == 2:
            cwd = os.path.normpath(os.path.join(cwd, commands[0].argv[1]))
    return cwd


def moved_reminders(command: str, cwd: str) -> tuple[str, ...]:
    """The ``# Environment update`` reminder for a command that leaves the shell elsewhere than ``cwd``."""
    now = directory_after(command, cwd)
    return () if now == cwd else (ENVIRONMENT_UPDATE.format(now=now, was=cwd),)


@dataclass(frozen=True)
class BashBehaviour:
    """Where the versions' Bash differ."""

    merged: bool
    """stdout and stderr in one stream as written, the first MAX_OUTPUT bytes read (2.1)."""
    no_output: str
    """The text of an empty success."""
    saves_large_output: bool
    """Over MAX_OUTPUT bytes, a preview of the output saved to a file (2.1); else cut at MAX_OUTPUT characters."""
    ripgrep: str = "14.1.1"
    """The ripgrep a command's ``rg`` runs: the one Claude Code bundles (``vendor/ripgrep``, then inside its binary)."""


BASH_2_0 = BashBehaviour(merged=False, no_output="", saves_large_output=False)
BASH_2_1 = BashBehaviour(merged=True, no_output=NO_OUTPUT, saves_large_output=True)


def _without_blank_edges(text: str) -> str:
    """``Qy``/``pv8``: the text without its first and last lines that are only white space."""
    lines = text.split("\n")
    first = next((n for n, line in enumerate(lines) if js_trim(line)), None)
    if first is None:
        return ""
    last = max(n for n, line in enumerate(lines) if js_trim(line))
    return "\n".join(lines[first : last + 1])


def _cut_output(stdout: Text, stderr: str, limit: int = MAX_OUTPUT) -> str:
    """2.0's success text before ``_shown``: ``stdout.trimEnd() + "\\n" + stderr.trimEnd() + "\\n"``
    without its blank first and last lines, cut at ``limit`` characters with ``... [N lines
    truncated] ...``; a lazy stdout read a chunk at a time, keeping only what the cut keeps."""
    edges = _BlankEdges(limit + 1)
    for chunk in [stdout] if isinstance(stdout, str) else stdout:
        edges.feed(chunk)
    edges.space = _Space()  # trimEnd
    edges.feed("\n" + js_trim_end(stderr) + "\n")
    text, newlines = edges.finish()
    if js_length(text) <= limit:
        return text
    shown = js_prefix(text, limit)
    return f"{shown}\n\n... [{newlines - shown.count(chr(10)) + 1} lines truncated] ..."


@dataclass
class _Space:
    """White space since the last character that is not (or since the last newline before the first)."""

    first: str = ""
    """Its first characters, as many as are kept."""
    length: int = 0
    newlines: int = 0
    line: int = 0
    """Its characters before its first newline."""


class _BlankEdges:
    """``_without_blank_edges`` of a text given a piece at a time: its first ``keep`` characters
    (all of it when it is no longer) and its newlines, holding no more."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.head = ""
        self.newlines = 0
        self.started = False
        self.space = _Space()

    def feed(self, text: str) -> None:
        end = len(text.rstrip(JS_WHITESPACE))
        start = len(text) - len(text.lstrip(JS_WHITESPACE)) if end else len(text)
        self._white(text[:start])
        if end:
            self._add(self.space.first, self.space.newlines)
            body = text[start:end]
            self._add(body, body.count("\n"))
            self.started, self.space = True, _Space()
            self._white(text[end:])

    def finish(self) -> tuple[str, int]:
        """The text (its first ``keep`` characters) and its newlines; the last line ends at its newline."""
        if not self.started:
            return "", 0
        self._add(self.space.first[: self.space.line], 0)
        return self.head, self.newlines

    def _white(self, text: str) -> None:
        space = self.space
        if not self.started and "\n" in text:  # blank lines before the first line that is not
            text = text.rpartition("\n")[2]
            self.space = space = _Space()
        if not space.newlines:
            newline = text.find("\n")
            space.line += len(text) if newline < 0 else newline
        space.newlines += text.count("\n")
        space.length += len(text)
        space.first += text[: self.keep - len(space.first)]

    def _add(self, text: str, newlines: int) -> None:
        self.head += text[: self.keep - len(self.head)]
        self.newlines += newlines


def _shown(text: str) -> str:
    """The output as ``mapToolResultToToolResultBlockParam`` shows it: no leading blank lines, no trailing white space."""
    return js_trim_end(_LEADING_BLANK_LINES.sub("", text, count=1))


def _error_text(parts: list[Text]) -> str:
    """``op0``: the parts joined by newlines, trimmed, cut to its two ends over MAX_ERROR characters
    (a lazy part is read a chunk at a time, keeping only those ends)."""
    ends = _TrimmedEnds(MAX_ERROR)
    for n, part in enumerate(part for part in parts if part):
        if n:
            ends.feed("\n")
        for chunk in [part] if isinstance(part, str) else part:
            ends.feed(chunk)
    if ends.length <= MAX_ERROR:
        return ends.head or "Command failed with no output"
    half, tail = MAX_ERROR // 2, ends.tail
    cut = ends.length - MAX_ERROR
    return f"{js_prefix(ends.head, half)}\n\n... [{cut} characters truncated] ...\n\n{js_slice(tail, js_length(tail) - half)}"


class _TrimmedEnds:
    """A text given a piece at a time, trimmed (``js_trim``): its JS ``length`` and its first and last
    ``keep`` characters (``head`` is the whole text when it is no longer), holding no more."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.length = 0
        self.head = ""
        self.tail = ""
        self.space = ("", "", 0)
        """The white space since the last character that is not: its first and last ``keep``
        characters and its JS length (part of the text only if more text follows)."""

    def feed(self, text: str) -> None:
        end = len(text.rstrip(JS_WHITESPACE))
        first, last, length = self.space
        if not end:
            if self.length:
                self.space = ((first + text)[: self.keep], (last + text)[-self.keep :], length + js_length(text))
            return
        if self.length:
            body = text[:end]
            self._add(first, last, length)
        else:
            body = text[len(text) - len(text.lstrip(JS_WHITESPACE)) : end]
        self._add(body, body[-self.keep :], js_length(body))
        trailing = text[end:]
        self.space = (trailing[: self.keep], trailing[-self.keep :], js_length(trailing))

    def _add(self, first: str, last: str, length: int) -> None:
        if len(self.head) < self.keep:
            self.head += first[: self.keep - len(self.head)]
        self.tail = (self.tail + last)[-self.keep :]
        self.length += length


def _failed(command: str, code: int) -> bool:
    """Whether Claude Code calls the exit code a failure: by the last command's name (``kK6``)."""
    steps = parse(command).steps
    name = steps[-1].pipeline.commands[-1].argv[0] if steps else ""
    return code != 0 and not (name in NOT_ERRORS_WHEN_1 and code == 1)


def _read_part(call: Call, output: Text, size: int) -> str:
    """The first MAX_OUTPUT bytes of the output file, decoded as Node decodes them."""
    if size <= MAX_OUTPUT:
        return str(output)
    start = head(output, MAX_OUTPUT)
    if "\ufffd" in start:
        call.uncertain = call.uncertain or "which bytes of an output that is not UTF-8 Claude Code read is not known"
    return start.encode()[:MAX_OUTPUT].decode("utf-8", "replace")


def _persisted(call: Call, root: str, text: str, size: int) -> str:
    """2.1's answer for an output saved to a file: its size and a preview."""
    call.uncertain = call.uncertain or "the file Claude Code saves a large output to is under its own session directory"
    shown = _shown(text)
    preview, more = shown, False
    if js_length(shown) > PREVIEW:
        cut = js_prefix(shown, PREVIEW).rfind("\n")
        preview, more = js_prefix(shown, cut if cut > PREVIEW * 0.5 else PREVIEW), True
    project = re.sub(r"[^A-Za-z0-9]", "-", root)
    saved = os.path.join(os.path.expanduser("~"), ".claude", "projects", project, "SESSION", "tool-results", "ID.txt")
    return (
        f"<persisted-output>\nOutput too large ({size_text(size)}). Full output saved to: {saved}\n\n"
        f"Preview (first 2KB):\n{preview}{chr(10) + '...' + chr(10) if more else chr(10)}</persisted-output>"
    )


def bash_as(behaviour: Behaviour, bash: BashBehaviour):  # noqa: ANN201 - the tool's run function
    def run(
        call: Call,
        command: str,
        timeout: int | None,
        description: str | None,
        run_in_background: bool | None,
        dangerouslyDisableSandbox: bool | None,  # noqa: N803 - the tool's own parameter name
    ) -> str:
        answer = Answer(call, behaviour)
        moved = moved_reminders(command, str(call.settings.get(RECORDED_CWD) or call.root.path))
        try:
            if run_in_background:
                raise NotRun(refuse(call, "run in the background"))
            result: ShellRun = run_command(call, command, bash.ripgrep, merged=bash.merged)
        except NotRun as error:
            raise answer.error(f"<tool_use_error>{not_run(error.reason)}</tool_use_error>") from None
        failed = _failed(command, result.exit_code)
        if bash.merged:
            output = _read_part(call, result.stdout, result.stdout_bytes)
            if failed:
                raise answer.error(_error_text([f"Exit code {result.exit_code}", output]), *moved)
            if bash.saves_large_output and result.stdout_bytes > MAX_OUTPUT:
                return answer.text(_persisted(call, call.root.path, output, result.stdout_bytes), *moved)
            text = _shown(_without_blank_edges(js_trim_end(output) + "\n"))
        else:
            if failed:
                raise answer.error(_error_text([result.stderr, result.stdout]), *moved)
            text = _shown(_cut_output(result.stdout, result.stderr))
        return answer.text(text or bash.no_output, *moved)

    return run


def bash_tool(behaviour: Behaviour, bash: BashBehaviour) -> Tool:
    return Tool(
        ToolSpec(
            "Bash",
            "Executes a given bash command and returns its output.",
            (
                Param("command", "string", "The command to execute"),
                Param("timeout", "integer", "Optional timeout in milliseconds (max 600000)", None),
                Param("description", "string", "Clear, concise description of what this command does.", None),
                Param("run_in_background", "boolean", "Set to true to run this command in the background.", None),
                Param(
                    "dangerouslyDisableSandbox",
                    "boolean",
                    "Set this to true to dangerously override sandbox mode and run commands without sandboxing.",
                    None,
                ),
            ),
        ),
        bash_as(behaviour, bash),
    )


def countdown_shown_by(recorded: str | None) -> dict[str, Any]:
    """The countdown a recorded Bash answer ends with, as the ``tokens_left`` setting."""
    found = re.search(r"<total_tokens>(\d+) tokens left</total_tokens>\n</system-reminder>$", recorded or "")
    return {"tokens_left": int(found.group(1))} if found else {}
