"""Profile ``swe-agent``: SWE-agent's windowed file viewer (``open``, ``goto``, ``scroll_up``, ``scroll_down``).

Followed from SWE-agent 1.1.0 (``SWE-agent/SWE-agent``, commit 3ea751c), ``tools/windowed/``:

- ``lib/windowed_file.py`` 80-114: the file is the path given, else the one open (``CURRENT_FILE``,
  kept resolved); a directory or a missing file is an error; the window's top (``FIRST_LINE``) is
  kept between calls, and between files too, clamped to the file each time (120-125:
  ``max(0, min(top, lines - WINDOW))``); 127-138: the text is ``Path.read_text()`` (UTF-8, strict,
  universal newlines), its line count ``len(text.splitlines())``; 141-175: the window is
  ``text.split("\\n")`` from the top, under ``[File: {path} ({n} lines total)]``, numbered
  ``{n}:{line}``, with ``({k} more lines above)`` and ``({k} more lines below)``; 264-274: ``goto``
  puts line ``k`` (0-based) at ``int(k - WINDOW/6)``, a scroll moves ``WINDOW - OVERLAP``.
- ``install.sh`` 9-10 and ``config/sweagent_0_7/07.yaml`` 89-90: ``WINDOW`` 100, ``OVERLAP`` 2.
- ``bin/open`` 20-42 (with no line, it goes to the kept top as if it were a 1-based line, so the
  window moves up 18 lines each time), ``bin/goto`` 24-32, ``bin/scroll_up``, ``bin/scroll_down``:
  their warnings and errors.
- What the model gets: the terminal's output with ANSI escapes removed and ``\\r\\n`` as ``\\n``,
  no longer stripped (SWE-ReX ``runtime/local.py`` 96-98, since its commit 758b192 of May 2025);
  over 100,000 characters the truncation template, else the config's ``next_step_template``
  (``sweagent/agent/agents.py`` 67-79 and 730-745), which every config with these tools sets to the
  output, then ``(Open file: ...)``, ``(Current directory: ...)`` and ``bash-$``
  (``config/sweagent_0_7/07.yaml`` 68-72).

Paths: the workspace root plays the repository SWE-agent works in (setting ``working_dir``, the
absolute path it had there; by default the root's real path). ``open`` names the file as it was
given; the others name the open file by its absolute path there, as ``CURRENT_FILE`` does.
A file that is not UTF-8 makes the real tools print a Python traceback: here only its last line.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import shlex
import stat
from collections.abc import Iterable, Iterator
from pathlib import PurePosixPath
from typing import Any

from agentpager.engine.lineindex import Stamp
from agentpager.engine.pytext import Utf8Text, measure_utf8, text_lines
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import Call, Claim, Coverage, Opener, Profile, RecordedCall, Shown, Tool
from agentpager.tools.errors import ToolError
from agentpager.tools.paths import Placed, agent_display, agent_path

WINDOW = 100
OVERLAP = 2
OBSERVATION_LIMIT = 100_000
_ANSI_ESCAPE = re.compile(r"\x1B[@-_][0-?]*[ -/]*[@-~]")
_WORKING_DIR = re.compile(r"\n\(Current directory: (.*)\)\nbash-\$\Z")
_MEASURED_FILES = 8
COMMANDS = ("open", "goto", "scroll_up", "scroll_down")


def top_for(line: float, lines: int) -> int:
    """The window's top (0-based) for a wanted top, as the ``first_line`` setter clamps it."""
    return max(0, min(int(line), lines - WINDOW))


def goto_top(line: int, lines: int) -> int:
    """The top that puts 0-based line ``line`` a sixth of the window down (``goto``, mode ``top``)."""
    return top_for(line - WINDOW * (1 / 6), lines)


class _Failed(Exception):
    """A command that printed its error (exit status 1)."""

    def __init__(self, output: str, uncertain: str = "") -> None:
        super().__init__(output)
        self.output = output
        self.uncertain = uncertain


class _Session:
    """One command's view of the shell: the workspace, the agent's working directory, the kept state."""

    def __init__(self, call: Call) -> None:
        self.call = call
        self.state = call.state
        self.working_dir = str(call.settings.get("working_dir") or call.root.real)

    def open_file(self) -> str:
        current = self.state.get("file")
        return agent_display(self.call.root, current, self.working_dir) if current else "n/a"

    def text(self, fd: int, placed: Placed) -> Utf8Text:
        """The file measured as ``read_text`` reads it (kept while the file is unchanged)."""
        assert placed.st is not None
        stamp = Stamp.of(placed.st)
        measured: dict[str, tuple[Stamp, Utf8Text]] = self.state.setdefault("measured", {})
        found = measured.get(placed.real)
        if found is None or found[0] != stamp:
            found = measured[placed.real] = (stamp, measure_utf8(fd, placed.st.st_size))
            while len(measured) > _MEASURED_FILES:
                measured.pop(next(iter(measured)))
        if found[1].error:
            raise _Failed(
                f"UnicodeDecodeError: {found[1].error}\n",
                "SWE-agent prints a Python traceback here; its frames depend on where its tools are installed "
                "and on the Python of the container: only its last line is shown",
            )
        return found[1]

    def windowed(self, placed: Placed, shown: str) -> tuple[int, Utf8Text, int]:
        """Open the file as WindowedFile does: check it, make it the open file, clamp the kept top.

        Returns the descriptor to read it with, its text and the top. A FIFO, on which the real tool
        would wait forever, is refused.
        """
        if placed.st is not None and stat.S_ISDIR(placed.st.st_mode):
            raise _Failed(
                f"Error: {shown} is a directory. You can only open files. Use cd or ls to navigate directories.\n"
            )
        if placed.st is None:
            raise _Failed(f"Error: File {shown} not found\n")
        if placed.fd is None:
            if not stat.S_ISREG(placed.st.st_mode):
                raise _Failed(f"Error: {shown} is not a regular file (a FIFO, socket or device)\n")
            raise PermissionError(placed.error, os.strerror(placed.error))
        self.state["file"] = placed.real
        text = self.text(placed.fd, placed)
        top = self.state["first_line"] = top_for(self.state.get("first_line", 0), text.splitlines)
        return placed.fd, text, top

    def current(self) -> tuple[Placed, str]:
        """The open file, opened again beneath the root, and its name."""
        current = self.state.get("file")
        if current is None:
            raise _Failed("No file open. Use the open command first.\n")
        shown = agent_display(self.call.root, current, self.working_dir)
        return self.call.place(current, shown), shown

    def window(self, fd: int, placed: Placed, shown: str, text: Utf8Text, top: int) -> Iterator[str]:
        """``print_window``: the status line, the numbered window, the lines above and below (a
        chunk at a time: a line of the window may be gigabytes long)."""
        self.state["first_line"] = top
        lines = text.splitlines
        last = min(top + WINDOW - 1, lines - 1)
        yield f"[File: {shown} ({lines} lines total)]\n"
        if top > 0:
            yield f"({top} more lines above)\n"
        number = top + 1
        if min(last, text.segments - 1) >= top:
            yield f"{number}:"
            for chunk in self.segments(fd, placed, text, top, last):
                first, *others = chunk.split("\n")
                yield first
                for other in others:
                    number += 1
                    yield f"\n{number}:{other}"
            yield "\n"
        if last < lines - 1:
            yield f"({lines - last - 1} more lines below)\n"

    def segments(self, fd: int, placed: Placed, text: Utf8Text, first: int, last: int) -> Iterator[str]:
        """Pieces ``first..last`` (0-based) of ``text.split("\\n")`` joined by ``\\n``, a chunk at a time."""
        last = min(last, text.segments - 1)
        wanted, found = last - first + 1, 0
        if last < first:
            pass
        elif text.lone_cr:  # lines end at a lone "\r" too: read them as Python does
            for found, piece in enumerate(itertools.islice(text_lines(fd, "utf-8"), first, last + 1), 1):
                yield ("\n" if found > 1 else "") + piece.removesuffix("\n")
        else:
            with self.call.store.utf8_file(placed.real, functools.partial(os.dup, fd)).open() as reader:
                total = reader.line_count()
                if first < total:
                    found = min(last + 1, total) - first
                    lines = reader.lines_text(first + 1, min(last + 1, total))
                    yield from [lines] if isinstance(lines, str) else lines
        yield "\n" * max(0, wanted - found - (not found))

    def observed(self, output: str | Iterable[str]) -> str:
        """What the model receives for a command's ``output`` (read a chunk at a time)."""
        observation = _Observation()
        for chunk in [output] if isinstance(output, str) else output:
            observation.feed(chunk)
        output = observation.finish()
        if observation.length > OBSERVATION_LIMIT:
            return (
                f"Observation: {output[:OBSERVATION_LIMIT]}<response clipped><NOTE>Observations should not exceeded "
                f"{OBSERVATION_LIMIT} characters. {observation.length - OBSERVATION_LIMIT} characters were elided. "
                "Please try a different command that produces less output or use head/tail/grep/redirect the output "
                "to a file. Do not use interactive pagers.</NOTE>"
            )
        if output.strip() == "":
            output = "Your command ran successfully and did not produce any output."
        return f"{output}\n(Open file: {self.open_file()})\n(Current directory: {self.working_dir})\nbash-$"


class _Observation:
    """An output given a piece at a time, as the model gets it: ANSI escapes removed, then ``\\r\\n``
    as ``\\n``; its ``length`` and its first OBSERVATION_LIMIT + 1 characters, holding no more.

    An escape may run across pieces (SWE-ReX removes them from the whole text): it is held back, as
    its first characters, its length and what may follow, until it ends (removed) or breaks (text).
    """

    def __init__(self) -> None:
        self.head: list[str] = []
        self.kept = 0
        self.length = 0
        self.escape = ("", 0, "")
        """An escape not yet ended: its first characters, its length, the part it is in."""
        self.cr = False
        """A ``\\r`` ended the text so far: the next piece says whether a ``\\n`` follows it."""

    def feed(self, text: str) -> None:
        start, length, part = self.escape
        if length:
            position, part = _escape_goes_on(text, part)
            if part == "broken":
                self._clean(start + text[:position], length + position)
            elif part != "ended":
                self.escape = ((start + text)[: OBSERVATION_LIMIT + 1], length + len(text), part)
                return
            text, self.escape = text[position:], ("", 0, "")
        unfinished = _UNFINISHED_ESCAPE.search(text)
        if unfinished is not None:
            rest = text[unfinished.start() :]
            self.escape = (rest[: OBSERVATION_LIMIT + 1], len(rest), _escape_goes_on(rest[1:], "intro")[1])
            text = text[: unfinished.start()]
        self._clean(_ANSI_ESCAPE.sub("", text))

    def finish(self) -> str:
        start, length, _ = self.escape
        self._clean(start, length)
        if self.cr:
            self._kept("\r", 1)
        return "".join(self.head)

    def _clean(self, text: str, length: int | None = None) -> None:
        """Text without escapes (its first characters, when ``length`` is more: an escape's, which
        holds no ``\\r``), with ``\\r\\n`` made ``\\n``, also across pieces."""
        length = len(text) if length is None else length
        if not length:
            return
        if self.cr and not text.startswith("\n"):
            self._kept("\r", 1)
        self.cr = text.endswith("\r")
        text = text[:-1] if self.cr else text
        pairs = text.count("\r\n")
        self._kept(text.replace("\r\n", "\n"), length - self.cr - pairs)

    def _kept(self, text: str, length: int) -> None:
        if self.kept <= OBSERVATION_LIMIT:
            self.head.append(text[: OBSERVATION_LIMIT + 1 - self.kept])
            self.kept += len(self.head[-1])
        self.length += length


_UNFINISHED_ESCAPE = re.compile(r"\x1B(?:[@-_][0-?]*[ -/]*)?\Z")
"""An escape the end of a piece leaves unfinished (``_ANSI_ESCAPE`` without its last character)."""
_PARAMETERS = re.compile(r"[0-?]*")
_INTERMEDIATES = re.compile(r"[ -/]*")


def _escape_goes_on(text: str, part: str) -> tuple[int, str]:
    """How an unfinished escape, in ``part`` of it, goes on in ``text``: ``ended`` at a position,
    ``broken`` there (it was text), or the part it is in at the end of ``text``."""
    position = 0
    if part == "intro":
        if not text:
            return 0, part
        if not "@" <= text[0] <= "_":
            return 0, "broken"
        position, part = 1, "parameters"
    if part == "parameters":
        position = _match_end(_PARAMETERS, text, position)
        if position == len(text):
            return position, part
    position = _match_end(_INTERMEDIATES, text, position)
    if position == len(text):
        return position, "intermediates"
    return (position + 1, "ended") if "@" <= text[position] <= "~" else (position, "broken")


def _match_end(pattern: re.Pattern[str], text: str, position: int) -> int:
    found = pattern.match(text, position)
    return position if found is None else found.end()


def _command(run: Any) -> Any:
    """A tool that runs ``run(session, **arguments)``; a printed error is an error answer."""

    def tool(call: Call, **arguments: Any) -> str:
        session = _Session(call)
        try:
            return session.observed(run(session, **arguments))
        except _Failed as failed:
            call.uncertain = failed.uncertain
            raise ToolError(session.observed(failed.output), whole=True) from None

    return tool


def open_command(session: _Session, path: str, line_number: int | None) -> Iterable[str]:
    _, local = agent_path(session.call.root, path, session.working_dir)
    shown = str(PurePosixPath(path))
    placed = session.call.place(local, path)
    fd, text, top = session.windowed(placed, shown)
    warnings = ""
    line = top
    if line_number is not None:
        line = line_number
        if line_number > text.splitlines:
            warnings = (
                f"Warning: <line_number> ({line_number}) is greater than the number of lines in the file "
                f"({text.splitlines})\nWarning: Setting <line_number> to {text.splitlines}\n"
            )
            line = text.splitlines
        elif line_number < 1:
            warnings = f"Warning: <line_number> ({line_number}) is less than 1\nWarning: Setting <line_number> to 1\n"
            line = 1
    return itertools.chain([warnings], session.window(fd, placed, shown, text, goto_top(line - 1, text.splitlines)))


def goto_command(session: _Session, line_number: int) -> Iterable[str]:
    placed, shown = session.current()
    fd, text, _ = session.windowed(placed, shown)
    if line_number > text.splitlines:
        raise _Failed(f"Error: <line> must be less than or equal to {text.splitlines}\n")
    return session.window(fd, placed, shown, text, goto_top(line_number - 1, text.splitlines))


def _scroll(lines: int) -> Any:
    def scroll(session: _Session) -> Iterable[str]:
        placed, shown = session.current()
        fd, text, top = session.windowed(placed, shown)
        step = lines - OVERLAP if lines > 0 else lines + OVERLAP
        return session.window(fd, placed, shown, text, top_for(top + step, text.splitlines))

    return scroll


def _parsed_command(command: str) -> tuple[str, dict[str, Any]] | None:
    """One of these commands as typed in SWE-agent's shell (``open "a.py" 12``), or None."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or words[0] not in COMMANDS:
        return None
    name, rest = words[0], words[1:]
    if name == "open" and 1 <= len(rest) <= 2:
        return name, {"path": rest[0], **({"line_number": rest[1]} if len(rest) == 2 else {})}
    if name == "goto" and len(rest) == 1:
        return name, {"line_number": rest[0]}
    if name in ("scroll_up", "scroll_down") and not rest:
        return name, {}
    return None


class SweAgent(Profile):
    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        if shown is None:
            return "open", {"path": path}
        with shown.content.file.open() as reader:
            lines = reader.line_count()
        # open puts line k at top k - 17 (a sixth of the window above it): ask for the line 17 below the top.
        return "open", {"path": path, "line_number": max(1, min(shown.top + 17, lines))}

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        path = arguments["path"] if tool == "open" else state.get("file")
        if path is None:
            return None
        with open_text(path).file.open() as reader:
            lines = reader.line_count()
        kept = top_for(state.get("first_line", 0), lines)
        if tool == "goto":
            top = goto_top(arguments["line_number"] - 1, lines)
        elif tool == "open":
            line = arguments["line_number"]
            top = goto_top((kept if line is None else max(1, min(line, lines))) - 1, lines)
        else:
            top = top_for(kept + (WINDOW - OVERLAP if tool == "scroll_down" else OVERLAP - WINDOW), lines)
        return Coverage(path, top + 1, max(top + 1, min(top + WINDOW, lines)))

    def claim(self, recorded: RecordedCall) -> Claim | None:
        tool, arguments = recorded.tool, recorded.arguments
        if tool == "bash" and set(arguments) == {"command"} and isinstance(arguments["command"], str):
            parsed = _parsed_command(arguments["command"])
            if parsed is None:
                return None
            tool, arguments = parsed
        found = self.tool(tool)
        if found is None or not set(arguments) <= {param.name for param in found.spec.params}:
            return None
        shown = _WORKING_DIR.search(recorded.output or "")
        working_dir = shown.group(1) if shown else recorded.cwd
        return Claim(tool, dict(arguments), {"working_dir": working_dir} if working_dir else {})


PROFILE = SweAgent(
    name="swe-agent",
    description="SWE-agent's windowed viewer: 100-line windows that stay where they were between calls.",
    error_form=lambda message: message,
    guarded=False,
    ground_truth="its oracle is SWE-agent's own windowed tools, scripts the tests run (tests/python_oracles.py)",
    tools=(
        Tool(
            ToolSpec(
                "open",
                "Opens the file at the given path in the editor. If line_number is provided, the window will be "
                "moved to include that line.",
                (
                    Param("path", "string", "The path to the file to open.", is_path=True),
                    Param(
                        "line_number",
                        "integer",
                        "The line number to move the window to (if not provided, the window will start at the top "
                        "of the file).",
                        None,
                    ),
                ),
            ),
            _command(open_command),
        ),
        Tool(
            ToolSpec(
                "goto",
                "Moves the window to show <line_number>.",
                (Param("line_number", "integer", "The line number to move the window to."),),
            ),
            _command(goto_command),
        ),
        Tool(ToolSpec("scroll_up", f"Moves the window up {WINDOW} lines.", ()), _command(_scroll(-WINDOW))),
        Tool(ToolSpec("scroll_down", f"Moves the window down {WINDOW} lines.", ()), _command(_scroll(WINDOW))),
    ),
)

PROFILES = (PROFILE,)
