"""Running a parsed Script over the workspace: lists, pipelines, redirections, ``cd``.

A pipeline's programs are generators chained lazily, as processes chained by pipes are: a stage
runs as far as the next one reads. When the last stage ends, each earlier one is drained by at most
a pipe's capacity (by nothing when its reader never read) and then stopped, as SIGPIPE would stop
it: a small upstream finishes (and reports its errors) while a huge one is not read to its end. The
pipeline's status is its last stage's (bash without ``pipefail``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Generator, Iterator

from agentpager.tools.errors import ToolError
from agentpager.tools.paths import place
from agentpager.tools.shell import find, git, grep, listing, readers, ripgrep, sed, wc
from agentpager.tools.shell.command import Command, Pipeline, Script
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.io import Chunks, Context, Io, open_bytes, stat_of, strerror

Program = Callable[[Io, list[str]], Chunks]

PROGRAMS: dict[str, Program] = {
    "cat": readers.cat,
    "head": readers.head,
    "tail": readers.tail,
    "nl": readers.nl,
    "echo": readers.echo,
    "sed": sed.sed,
    "wc": wc.wc,
    "grep": grep.grep,
    "rg": ripgrep.rg,
    "ls": listing.ls,
    "find": find.find,
    "git": git.git,
    "true": lambda io, args: iter(()),
    "false": lambda io, args: _fail(io),
}
PIPE_CAPACITY = 1 << 16
"""Linux's default pipe buffer: what a writer gets out before a reader that exited stops it."""


def _fail(io: Io) -> Chunks:
    io.status = 1
    return iter(())


def run_script(script: Script, ctx: Context) -> Generator[bytes, None, int]:
    """The script's stdout, chunk by chunk; its stderr goes to ``ctx.stderr``; returns its status."""
    status = 0
    for step in script.steps:
        if (step.after == "&&" and status != 0) or (step.after == "||" and status == 0):
            continue
        if step.pipeline.commands[0].argv[0] == "exit":
            return _exit_status(step.pipeline, status)
        status = yield from _run_pipeline(step.pipeline, ctx, script.shell)
    return status


def _exit_status(pipeline: Pipeline, status: int) -> int:
    """bash's ``exit [N]``: the script ends with N modulo 256 (without N, the last status)."""
    args = pipeline.commands[0].argv[1:]
    if len(pipeline.commands) > 1 or len(args) > 1:
        raise Unsupported("exit other than exit [N]")
    if not args:
        return status
    if not args[0].lstrip("-").isdigit() or not args[0].isascii():
        raise Unsupported(f"exit {args[0]}: bash's message for a status that is not a number")
    return int(args[0]) % 256


def _run_pipeline(pipeline: Pipeline, ctx: Context, shell: str) -> Generator[bytes, None, int]:
    commands = pipeline.commands
    if commands[0].argv[0] == "cd":
        if len(commands) > 1:
            raise Unsupported("cd inside a pipeline")
        return _cd(commands[0], ctx, shell)
    stages: list[Iterator[bytes]] = []
    last: Io | None = None
    try:
        pipes: list[_Pipe] = []
        stdin: Chunks | None = None
        for command in commands:
            last, output = _start(command, ctx, stdin, shell)
            stages.append(output)
            pipes.append(_Pipe(output))
            stdin = pipes[-1]
        yield from stages[-1]
        for upstream, pipe in reversed(list(zip(stages[:-1], pipes, strict=False))):
            _drain(upstream, PIPE_CAPACITY if pipe.read else 0)
    finally:
        for stage in reversed(stages):
            close = getattr(stage, "close", None)
            if close is not None:
                close()
    assert last is not None
    return last.status


class _Pipe:
    """A stage's output as the next stage's input, noting whether that reader ever read from it."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self.read = False

    def __iter__(self) -> _Pipe:
        return self

    def __next__(self) -> bytes:
        self.read = True
        return next(self._chunks)


def _drain(chunks: Iterator[bytes], capacity: int) -> None:
    """What a writer still does after its reader is gone: it fills the pipe's ``capacity``, then its
    next write stops it. A reader that exited without reading (``head -n 0``) was gone before the
    writer's first write, almost always: the writer stops there, before any later error message."""
    written = 0
    for chunk in chunks:
        written += len(chunk)
        if written > 0 and written >= capacity:
            return


def _start(command: Command, ctx: Context, stdin: Chunks | None, shell: str) -> tuple[Io, Chunks]:
    """Start one program; return its Io and the stream its fd 1 (and maybe fd 2) feed."""
    name = command.argv[0]
    directory, base = os.path.split(name)
    program = PROGRAMS.get(base) if directory in ("", "/bin", "/usr/bin") else None
    if program is None:
        raise Unsupported(f"the program {name}")
    pending: list[bytes] = []
    sinks = {"stdout": pending.append, "stderr": ctx.stderr.append, "null": _discard}
    if command.stdin_file is not None:
        stdin = _redirected_stdin(command, ctx, shell, sinks[command.stderr])
        if stdin is None:
            io = Io(ctx, base, None, sinks[command.stderr])
            io.status = 1
            return io, iter(pending)
    io = Io(ctx, base, stdin, sinks[command.stderr], command.stdout == "null")
    return io, _routed(program(io, command.argv[1:]), command, ctx, pending)


def _discard(_: bytes) -> None:
    pass


def _routed(output: Chunks, command: Command, ctx: Context, stderr_to_stdout: list[bytes]) -> Chunks:
    """The program's stdout sent where fd 1 points, with the stderr sent to fd 1 in its place.

    An error is written before the chunk that follows it (the real programs flush stdout before an
    error message; ``sed`` buffers its output itself to show where its errors land).
    """
    for chunk in output:
        if stderr_to_stdout:
            yield from stderr_to_stdout
            stderr_to_stdout.clear()
        if command.stdout == "stdout":
            yield chunk
        elif command.stdout == "stderr":
            ctx.stderr.append(chunk)
    if stderr_to_stdout:
        yield from stderr_to_stdout
        stderr_to_stdout.clear()


def _redirected_stdin(command: Command, ctx: Context, shell: str, stderr: Callable[[bytes], None]) -> Chunks | None:
    """``< file``: its bytes, or None after bash's message when it does not open."""
    assert command.stdin_file is not None
    name = command.stdin_file
    try:
        with open_bytes(ctx, name):
            pass
    except OSError as error:
        stderr(f"{_shell_prefix(command, shell)}{name}: {strerror(error)}\n".encode("utf-8", "surrogateescape"))
        return None

    def chunks() -> Chunks:
        with open_bytes(ctx, name) as file:
            yield from file.chunks()

    return chunks()


def _shell_prefix(command: Command, shell: str) -> str:
    if shell != "bash":
        raise Unsupported(f"the wording of {shell}'s own errors")
    return f"bash: line {command.line}: "


def _cd(command: Command, ctx: Context, shell: str) -> int:
    """bash's ``cd DIR`` (logical: ``..`` folds lexically), staying inside the workspace."""
    args = command.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if len(args) != 1 or args[0].startswith("-") or command.stdin_file or command.stdout != "stdout":
        raise Unsupported("cd other than cd DIR")
    target = os.path.normpath(ctx.local(args[0]))
    try:
        placed = place(ctx.root, target, args[0])
    except ToolError:
        raise Unsupported(f"cd to '{args[0]}', outside the workspace") from None
    placed.close()
    try:
        if not stat.S_ISDIR(stat_of(placed).st_mode):
            raise NotADirectoryError(20, os.strerror(20))
    except OSError as error:
        if command.stderr != "null":
            message = f"{_shell_prefix(command, shell)}cd: {args[0]}: {strerror(error)}\n"
            (ctx.stderr.append if command.stderr == "stderr" else _unsupported_route)(message.encode())
        return 1
    ctx.cwd = target
    return 0


def _unsupported_route(_: bytes) -> None:
    raise Unsupported("cd's error sent to stdout")
