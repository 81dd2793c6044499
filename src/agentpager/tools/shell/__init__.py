"""Shell reads, replayed: what ``sed -n '100,220p' f``, ``cat``, ``nl -ba f | sed -n ...``, ``rg -n`` print.

Agents read files with shell commands. This package parses such a command (never executes it) and
computes, over the workspace, the bytes the real programs would print: GNU coreutils 9 (``cat``,
``head``, ``tail``, ``nl``, ``wc``, ``ls``), GNU sed 4.9, GNU grep 3.8, GNU find 4.9, ``git ls-files``
and ripgrep, under
``LANG=C.UTF-8`` (UTF-8 characters, ASCII quotes in messages, code-point sort order).

API::

    emulate(root: Root, store: ContentStore, command: str | list[str], workdir: str | None = None,
            merged: bool = False) -> ShellRun | NotReplayable

``command`` is a command line (``"cd src && sed -n '1,80p' x.py"``) or an argv
(``["bash", "-lc", "..."]``, or a program's own argv such as ``["rg", "-n", "x", "f"]``).
``workdir`` is the directory it runs in, relative to the root or absolute inside it (default: the
root). ``recorded_cwd`` is the directory the agent ran in, for which the root stands: absolute paths
under it (in ``workdir``, ``cd`` and file operands) name the same files under the root. ``ShellRun(stdout, stderr, exit_code)`` holds the output decoded as the agent decodes it
(UTF-8, U+FFFD for each invalid sequence) and ``stdout_bytes`` its size before decoding; ``stderr`` is
every program's messages in the order they were written, ``exit_code`` the script's status as bash
returns it. ``merged`` sends the script's stderr into its stdout as it is written (an agent that reads
both streams from one pipe or terminal sees them so); ``stderr`` is then empty. ``stdout`` is a ``str`` when it comes from at most a
MiB, else an engine ``LazyText``: its length and its text are produced from the files again when
asked, a chunk at a time, so a wrapper can measure and cut a gigabyte of output without holding it
(``agentpager.engine.lazytext.head``, ``len``, iteration). ``NotReplayable(reason)`` says why a
command is not emulated: a construct the parser refuses (substitutions, globs, variables, loops,
writes to files), an unknown program or option, a path outside the workspace, standard input that
is not a pipe from another emulated command. Nothing here raises for what an agent can send.

Supported: ``;``, ``&&``, ``||``, ``|``; ``2>/dev/null``, ``>/dev/null``, ``&>/dev/null``, ``2>&1``,
``< file``; ``cd DIR``; ``exit [N]``; ``true``, ``false``, ``echo``; ``cat [-n]``; ``head``/``tail`` with ``-n N``,
``-N``, ``-c N``, ``head -n -N``, ``tail -n +N``, ``-q``/``-v``; ``sed`` with ``-n``, ``-e``, ``-s``
``-E`` and scripts of ``p``, ``d``, ``q``, ``=`` under line-number, ``$`` and ``/regex/`` addresses
(``A,B``, ``A,+N``, ``A~S``, ``!``); ``nl`` with ``-b a|t|n``, ``-w``, ``-s``, ``-v``, ``-i``, ``-n``; ``wc`` with
``-l``, ``-w``, ``-c``, ``-m``; ``grep`` (``-n -i -y -F -E -G -w -x -v -c -l -L -H -h -q -s -a
-A -B -C -NUM -m -e -r --include --exclude --exclude-dir``) and ``rg`` (``-n -N -i -S -s -F -w -x -v
-c -l -H -I -A -B -C -m -e -j -g -t -T -u --files --hidden --no-ignore --sort path``) on files,
directories and pipes; ``ls`` with ``-1``, ``-a``, ``-A``, ``-R``; ``find`` with ``-name``, ``-iname``,
``-path``, ``-type``, ``-maxdepth``, ``-mindepth``, ``-not``; ``git ls-files``. Long options are
accepted spelled out.

Patterns go through the engine (``engine.patterns``: RE2, ``re`` in a child within a time limit);
lines through its streamer (``engine.linestream``: a line over 4 MiB is never held, matched a
window at a time and printed by copying it from its file again). Directories are walked beneath
the root (``walk``), with ripgrep's ignore rules for ``rg``. ``ShellRun.uncertain`` says when the
real programs may print otherwise (ripgrep's parallel walk prints files in no fixed order).

ripgrep is emulated as the release the caller names (``ripgrep``: 13.0.0, Debian 12's, by default;
14.1.1 and 15.2.0 as Claude Code and Codex bundle them), which differ in their messages, options
and ignore rules.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Generator, Iterator
from dataclasses import dataclass

from agentpager.engine.content import ContentStore
from agentpager.engine.lazytext import EAGER_BYTES, LazyText, Text
from agentpager.engine.lineindex import FileChanged
from agentpager.engine.linestream import NotHeld
from agentpager.engine.patterns import PatternError
from agentpager.engine.utf8 import decode_chunks
from agentpager.tools.errors import ToolError
from agentpager.tools.paths import Root, place
from agentpager.tools.shell.command import Script, parse
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.io import Context, in_root
from agentpager.tools.shell.reads import LinesRead, lines_read
from agentpager.tools.shell.run import run_script
from agentpager.tools.shell.search import RIPGREP_13

__all__ = ["LinesRead", "NotReplayable", "ShellRun", "emulate", "lines_read"]

_ATTEMPTS = 3


@dataclass(frozen=True)
class ShellRun:
    stdout: Text
    stderr: str
    exit_code: int
    stdout_bytes: int = 0
    """The size of stdout as the programs wrote it (before U+FFFD replaced invalid bytes)."""
    uncertain: str = ""
    """Why the real programs may print otherwise (ripgrep's parallel walk prints files in no fixed
    order), or ""."""


@dataclass(frozen=True)
class NotReplayable:
    reason: str

    def __str__(self) -> str:
        return f"not replayable: {self.reason}"


def emulate(
    root: Root,
    store: ContentStore,
    command: str | list[str],
    workdir: str | None = None,
    merged: bool = False,
    recorded_cwd: str | None = None,
    ripgrep: str = RIPGREP_13,
) -> ShellRun | NotReplayable:
    """What running ``command`` in ``workdir`` would print; NotReplayable with the reason if it cannot say.

    ``ripgrep`` is the version of the ``rg`` the agent runs (each agent bundles its own)."""
    try:
        script = parse(command)
        cwd = _working_directory(root, in_root(root, workdir or ".", recorded_cwd))
        for _ in range(_ATTEMPTS):
            ctx = Context(root, store, cwd, recorded_cwd, ripgrep)
            try:
                stdout, size, status = _first_run(_output(script, ctx, merged))
                break
            except FileChanged:
                continue
        else:
            return NotReplayable("the files kept changing while they were read")
    except Unsupported as error:
        return NotReplayable(error.reason)
    except NotHeld as error:
        return NotReplayable(str(error))
    except PatternError as error:  # re in the child took too long, or too much memory
        return NotReplayable(error.message)
    except Exception as error:  # a bug: answer, so that a replay of many calls goes on
        return NotReplayable(f"internal error: {type(error).__name__}: {error}")
    stderr = b"".join(ctx.stderr).decode("utf-8", "replace")
    if stdout is not None:
        return ShellRun(stdout.decode("utf-8", "replace"), stderr, status, size, ctx.uncertain)

    def again() -> Iterator[str]:
        return decode_chunks(_output(script, Context(root, store, cwd, recorded_cwd, ripgrep), merged))

    return ShellRun(LazyText(again), stderr, status, size, ctx.uncertain)


def _output(script: Script, ctx: Context, merged: bool) -> Generator[bytes, None, int]:
    """The script's stdout; when ``merged``, with its stderr put in as it is written."""
    if not merged:
        return (yield from run_script(script, ctx))
    run = run_script(script, ctx)
    while True:
        try:
            chunk = next(run)
        except StopIteration as done:
            yield from _written(ctx)
            return int(done.value)
        yield from _written(ctx)
        yield chunk


def _written(ctx: Context) -> Iterator[bytes]:
    """The stderr written since the last look (taken out of ``ctx.stderr``)."""
    written, ctx.stderr[:] = list(ctx.stderr), []
    return iter(written)


def _first_run(run: Generator[bytes, None, int]) -> tuple[bytes | None, int, int]:
    """Run once: the stdout if it is at most EAGER_BYTES (else None, to be produced again), its size
    and the status."""
    kept: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = next(run)
        except StopIteration as done:
            return (b"".join(kept) if size <= EAGER_BYTES else None), size, done.value
        size += len(chunk)
        if size <= EAGER_BYTES:
            kept.append(chunk)
        else:
            kept.clear()


def _working_directory(root: Root, workdir: str) -> str:
    path = os.path.normpath(os.path.join(root.path, workdir))
    try:
        placed = place(root, path, path)
    except ToolError:
        raise Unsupported(f"the working directory '{workdir}' is outside the workspace") from None
    placed.close()
    if placed.st is None or not stat.S_ISDIR(placed.st.st_mode):
        raise Unsupported(f"the working directory '{workdir}' is not a directory")
    return path
