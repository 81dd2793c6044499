"""From what an agent sent to a Script: parsed with tree-sitter-bash, never executed.

Accepted: commands of plain words (quoted or not) joined by ``|``, ``&&``, ``||``, ``;`` and
newlines; redirections of stdout and stderr to ``/dev/null`` or to each other and of stdin from a
file; ``bash -lc SCRIPT`` (``sh``, ``zsh``, ``-c``) around any of it, as an argv or as text.
Everything that would need a shell's state or expansions to know the words (variables,
substitutions, globs, ``~``, braces, assignments, subshells, loops, here-documents, background
jobs, writes to files) raises Unsupported. The node kinds follow tree-sitter-bash's grammar; the
allowed set is the one Codex uses to recognise plain command sequences (openai/codex,
``codex-rs/shell-command/src/bash.rs``, ``try_parse_word_only_commands_sequence``), widened to the
redirections above. Quote removal is done here, by bash's rules, because tree-sitter keeps the
source text (Codex's own is inexact: it leaves backslashes in double quotes).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from typing import Any, Literal

from agentpager.tools.shell.errors import Unsupported
from agentpager.wording import with_article

Target = Literal["stdout", "stderr", "null"]
"""Where a file descriptor of a command goes: the command's output stream, the run's stderr, nowhere."""

SHELLS = {"bash", "sh", "zsh", "dash"}
_GLOB_CHARS = frozenset("*?[")
_DOUBLE_QUOTE_ESCAPES = frozenset('$`"\\\n')


@dataclass
class Command:
    argv: list[str]
    stdout: Target = "stdout"
    stderr: Target = "stderr"
    stdin_file: str | None = None
    line: int = 1
    """The script line the command is on (bash names it in its own messages)."""


@dataclass
class Pipeline:
    commands: list[Command]


@dataclass
class Step:
    """A pipeline and the operator that decides whether it runs: ``;`` (always), ``&&``, ``||``."""

    pipeline: Pipeline
    after: Literal[";", "&&", "||"] = ";"


@dataclass
class Script:
    steps: list[Step] = field(default_factory=list)
    shell: str = "bash"


@functools.cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse(command: str | list[str]) -> Script:
    """The script an agent's command runs: a shell command line, or an argv (maybe ``bash -lc``)."""
    if isinstance(command, str):
        return _parse_text(command, "bash")
    if not command or not all(isinstance(word, str) for word in command):
        raise Unsupported("an empty or malformed argv")
    shell = os.path.basename(command[0])
    if shell in SHELLS:
        if len(command) == 3 and command[1] in ("-c", "-lc", "-cl"):
            return _parse_text(command[2], shell)
        raise Unsupported(f"{shell} with arguments other than -c or -lc SCRIPT")
    return Script([Step(Pipeline([Command(list(command))]))])


def _parse_text(text: str, shell: str) -> Script:
    source = text.encode("utf-8", "surrogateescape")
    tree = _parser().parse(source)
    if tree.root_node.has_error:
        raise Unsupported("a shell syntax error")
    script = Script(shell=shell)
    _Builder(source, script).program(tree.root_node)
    if not script.steps:
        raise Unsupported("no command")
    if len(script.steps) == 1 and len(script.steps[0].pipeline.commands) == 1:
        only = script.steps[0].pipeline.commands[0]
        is_plain = (only.stdout, only.stderr, only.stdin_file) == ("stdout", "stderr", None)
        if is_plain and os.path.basename(only.argv[0]) in SHELLS:
            return parse(only.argv)
    return script


class _Builder:
    def __init__(self, source: bytes, script: Script) -> None:
        self.source = source
        self.script = script

    def text(self, node: Any) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")

    def program(self, node: Any) -> None:
        for child in node.children:
            if child.type in (";", "\n", "comment"):
                continue
            self.statement(child, ";")

    def statement(self, node: Any, after: Literal[";", "&&", "||"]) -> None:
        if node.type == "list":
            left, operator, right = node.children
            self.statement(left, after)
            if operator.type not in ("&&", "||"):
                raise Unsupported(f"the operator {operator.type}")
            self.statement(right, operator.type)
            return
        if node.type == "&":
            raise Unsupported("a background job")
        self.script.steps.append(Step(self.pipeline(node), after))

    def pipeline(self, node: Any) -> Pipeline:
        if node.type != "pipeline":
            return Pipeline([self.command(node)])
        commands: list[Command] = []
        for child in node.children:
            if child.type == "|":
                continue
            if child.type == "|&":
                commands[-1].stderr = "stdout"
                continue
            commands.append(self.command(child))
        return Pipeline(commands)

    def command(self, node: Any) -> Command:
        redirects = []
        if node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            redirects = [child for child in node.children if child.id != (body.id if body else None)]
            node = body
        if node is None or node.type != "command":
            kind = node.type.replace("_", " ") if node else "bare redirection"
            raise Unsupported(f"{with_article(kind)} (only plain commands are replayed)")
        argv: list[str] = []
        previous_end = None
        for child in node.children:
            if child.type == "command_name":
                child = child.children[0]
            elif child.type == "file_redirect":
                redirects.append(child)
                continue
            if previous_end is not None and self.source[previous_end : child.start_byte] == b"\\\n":
                raise Unsupported("a line continuation inside a word")
            argv.append(self.word(child))
            previous_end = child.end_byte
        command = Command(argv, line=node.start_point[0] + 1)
        for redirect in redirects:
            self.redirect(redirect, command)
        return command

    def redirect(self, node: Any, command: Command) -> None:
        if node.type != "file_redirect":
            raise Unsupported(with_article(node.type.replace("_", " ")))
        descriptor = node.child_by_field_name("descriptor")
        destination = node.child_by_field_name("destination")
        operator = next(child.type for child in node.children if not child.is_named)
        fd = int(self.text(descriptor)) if descriptor is not None else (0 if operator == "<" else 1)
        target = self.word(destination) if destination is not None else ""
        table: dict[int, Target] = {1: command.stdout, 2: command.stderr}
        if operator == "<" and fd == 0:
            command.stdin_file = target
            return
        if operator in (">", ">>", "&>", "&>>") and target == "/dev/null" and fd in (1, 2):
            for written in (1, 2) if operator.startswith("&") else (fd,):
                table[written] = "null"
        elif operator == ">&" and fd in (1, 2) and target in ("1", "2"):
            table[fd] = table[int(target)]
        else:
            raise Unsupported(f"the redirection {self.text(node)}")
        command.stdout, command.stderr = table[1], table[2]

    def word(self, node: Any) -> str:
        """The argument a word node gives after bash's quote removal; Unsupported for expansions."""
        kind = node.type
        if kind == "concatenation":
            return "".join(self.word(part) for part in node.children)
        if kind == "raw_string":
            return self.text(node)[1:-1]
        if kind == "string":
            if any(child.type != "string_content" for child in node.children if child.is_named):
                raise Unsupported(f"an expansion in {self.text(node)}")
            return _unescape_double_quoted(self.text(node)[1:-1])
        if kind in ("word", "number"):
            return _unquoted_word(self.text(node))
        raise Unsupported(f"{with_article(kind.replace('_', ' '))} ({self.text(node)})")


def _unquoted_word(text: str) -> str:
    """An unquoted word: backslashes escape the next character; globs, ``~`` and braces are refused."""
    out = []
    escaped = False
    for position, char in enumerate(text):
        if escaped:
            if char != "\n":
                out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in _GLOB_CHARS:
            raise Unsupported(f"a glob ({text}): its expansion depends on the directory and locale")
        elif char in "{}":
            raise Unsupported(f"a brace in {text}")
        elif char == "~" and position == 0:
            raise Unsupported(f"a tilde expansion ({text})")
        elif char in "$`":
            raise Unsupported(f"an expansion in {text}")
        else:
            out.append(char)
    return "".join(out)


def _unescape_double_quoted(content: str) -> str:
    """Inside double quotes a backslash escapes only ``$ ` " \\`` and newline (which it removes)."""
    out = []
    index = 0
    while index < len(content):
        char = content[index]
        if char == "\\" and index + 1 < len(content) and content[index + 1] in _DOUBLE_QUOTE_ESCAPES:
            if content[index + 1] != "\n":
                out.append(content[index + 1])
            index += 2
            continue
        if char in "$`":
            raise Unsupported(f'an expansion in "{content}"')
        out.append(char)
        index += 1
    return "".join(out)
