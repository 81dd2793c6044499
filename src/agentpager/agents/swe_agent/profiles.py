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

    def window(self, fd: int, placed: Placed, shown: str, text: Utf8Text, top: int) -> str:
        """``print_window``: the status line, the numbered window, the lines above and below."""
        self.state["first_line"] = top
        lines = text.splitlines
        last = min(top + WINDOW - 1, lines - 1)
        rows = [f"[File: {shown} ({lines} lines total)]"]
        if top > 0:
            rows.append(f"({top} more lines above)")
        rows += [f"{number}:{line}" for number, line in enumerate(self.segments(fd, placed, text, top, last), top + 1)]
        if last < lines - 1:
            rows.append(f"({lines - last - 1} more lines below)")
        return "\n".join(rows) + "\n"

    def segments(self, fd: int, placed: Placed, text: Utf8Text, first: int, last: int) -> list[str]:
        """Pieces ``first..last`` (0-based) of ``text.split("\\n")``."""
        last = min(last, text.segments - 1)
        if last < first:
            return []
        if text.lone_cr:  # lines end at a lone "\r" too: read them as Python does
            pieces = itertools.islice(text_lines(fd, "utf-8"), first, last + 1)
            found = [piece.removesuffix("\n") for piece in pieces]
            return found + [""] * (last - first + 1 - len(found))
        with self.call.store.utf8_file(placed.real, functools.partial(os.dup, fd)).open() as reader:
            total = reader.line_count()
            found = str(reader.lines_text(first + 1, min(last + 1, total))).split("\n") if first < total else []
        return found + [""] * (last - first + 1 - len(found))

    def observed(self, output: str) -> str:
        """What the model receives for a command's ``output``."""
        output = _ANSI_ESCAPE.sub("", output).replace("\r\n", "\n")
        if len(output) > OBSERVATION_LIMIT:
            return (
                f"Observation: {output[:OBSERVATION_LIMIT]}<response clipped><NOTE>Observations should not exceeded "
                f"{OBSERVATION_LIMIT} characters. {len(output) - OBSERVATION_LIMIT} characters were elided. Please "
                "try a different command that produces less output or use head/tail/grep/redirect the output to a "
                "file. Do not use interactive pagers.</NOTE>"
            )
        if output.strip() == "":
            output = "Your command ran successfully and did not produce any output."
        return f"{output}\n(Open file: {self.open_file()})\n(Current directory: {self.working_dir})\nbash-$"


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


def open_command(session: _Session, path: str, line_number: int | None) -> str:
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
    return warnings + session.window(fd, placed, shown, text, goto_top(line - 1, text.splitlines))


def goto_command(session: _Session, line_number: int) -> str:
    placed, shown = session.current()
    fd, text, _ = session.windowed(placed, shown)
    if line_number > text.splitlines:
        raise _Failed(f"Error: <line> must be less than or equal to {text.splitlines}\n")
    return session.window(fd, placed, shown, text, goto_top(line_number - 1, text.splitlines))


def _scroll(lines: int) -> Any:
    def scroll(session: _Session) -> str:
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
