"""Codex's shell tools as its model sees them: ``exec_command`` (newest) and 0.60's ``shell_command`` and ``shell``.

Arguments are the offered schemas' (``tests/goldens/codex/*/*.json``, ``offered_tools``). The command
is emulated, never run (``agentpager.tools.commands``): its stdout and stderr together, as Codex
reads both from one pipe, inside the envelope of ``output.py``. Settings: ``model`` (0.60: a codex
model's outputs are cut at 10,000 tokens, another's at 10,000 bytes, and ``shell`` answers models
offered ``shell_command`` in the ``Exit code`` form, others in JSON; default gpt-5.1-codex-max),
``envelope`` (``text``/``json``) and ``truncation`` (``tokens``/``bytes``), which a transcript's own
output sets on replay, and ``recorded_cwd``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from typing import Any

from agentpager.agents.codex import AGENT
from agentpager.agents.codex.output import exec_command_text, freeform_text, structured_text
from agentpager.tools.args import Param, ToolSpec
from agentpager.tools.base import (
    Call,
    Claim,
    Coverage,
    Opener,
    Profile,
    RealAgent,
    RecordedCall,
    ShellCommand,
    Shown,
    Tool,
    lines_covered,
)
from agentpager.tools.commands import RECORDED_CWD, NotRun, not_run, refuse, run_command
from agentpager.tools.errors import ToolError
from agentpager.tools.shell import ShellRun, lines_read
from agentpager.tools.shell.command import SHELLS

SHELL_TOOLS = ("shell", "shell_command", "exec_command", "local_shell", "container.exec")
"""The tools Codex has run commands with: ``shell`` (an argv), ``shell_command`` (0.5x, a command
line), ``exec_command`` (``cmd``, unified exec), ``local_shell`` (an ``exec`` action), ``container.exec``."""
DEFAULT_MODEL_0_60 = "gpt-5.1-codex-max"
WINDOW = 200
"""The lines a Codex model reads at a time (``sed -n '1,200p' f``, as in pinouchon/rtchess's session)."""
_LOGIN_MESSAGES = re.compile(r"(?:/[^\n]*?(?:: line \d+|:\d+): [^\n]*\n)+")
"""Lines a login shell's profile scripts print before the command runs (bash ``FILE: line N: ...``,
zsh ``FILE:N: ...``): the user's machine's, not the command's."""


class CodexShell(Profile):
    """A Codex version's shell tool; its first tool runs the command named by ``command_argument``."""

    command_argument = "cmd"

    def read_call(self, path: str, shown: Shown | None = None) -> tuple[str, dict[str, Any]]:
        top, bottom = (1, WINDOW) if shown is None else (shown.top, shown.bottom)
        return self.read_tool.spec.name, {self.command_argument: f"sed -n '{top},{bottom}p' {shlex.quote(path)}"}

    def listing_call(self, path: str, offset: int | None) -> tuple[str, dict[str, Any]] | None:
        """``ls`` (from the ``offset``-th name on, for a page)."""
        page = f" | tail -n +{offset + 1}" if offset else ""
        return self.read_tool.spec.name, {self.command_argument: f"ls {shlex.quote(path)}{page}"}

    def coverage(
        self, tool: str, arguments: dict[str, Any], open_text: Opener, state: dict[str, Any]
    ) -> Coverage | None:
        command = arguments.get(self.command_argument)
        read = lines_read(command) if isinstance(command, str) else None
        if read is None:
            return None
        path = os.path.normpath(os.path.join(arguments.get("workdir") or ".", read.path))
        return lines_covered(path, read.first, read.last, open_text)

    def shell_command(self, recorded: RecordedCall) -> ShellCommand | None:
        if recorded.agent != AGENT.id or recorded.tool not in SHELL_TOOLS:
            return None
        arguments = recorded.arguments
        if recorded.tool == "local_shell" and isinstance(arguments.get("action"), dict):
            arguments = arguments["action"]
        command = arguments.get("command", arguments.get("cmd"))
        workdir = arguments.get("workdir", arguments.get("working_directory"))
        if isinstance(command, str) or (isinstance(command, list) and all(isinstance(a, str) for a in command)):
            return ShellCommand(command, workdir if isinstance(workdir, str) else None)
        return None

    def same_output(self, recorded: str, replayed: str) -> bool:
        """The same answer apart from what changes from run to run (the wall time, the chunk id).

        A login shell runs the user's profile first (Codex runs ``bash -lc``/``zsh -lc``): the error
        lines its scripts print before the command's own output are the user's machine's, and are
        not compared.
        """
        same = super().same_output
        return same(recorded, replayed) or same(_without_login_messages(recorded), replayed)

    def claim(self, recorded: RecordedCall) -> Claim | None:
        if recorded.agent != AGENT.id:
            return None
        claim = super().claim(recorded)
        if claim is None:
            return None
        arguments = dict(claim.arguments)
        if isinstance(arguments.get("workdir"), str):
            arguments["workdir"] = recorded.path_in_workspace(arguments["workdir"])
        settings = shown_by(recorded.output) | ({RECORDED_CWD: recorded.cwd} if recorded.cwd else {})
        return Claim(claim.tool, arguments, settings)


class CodexShell060(CodexShell):
    """0.60: ``shell_command`` (a command line) and ``shell`` (an argv), which also answers the argv of
    ``local_shell`` and ``container.exec`` calls."""

    command_argument = "command"

    def claim(self, recorded: RecordedCall) -> Claim | None:
        if recorded.agent == AGENT.id and recorded.tool in ("local_shell", "container.exec"):
            found = self.shell_command(recorded)
            if found is None or not isinstance(found.command, list):
                return None
            arguments: dict[str, Any] = {"command": found.command}
            if found.workdir is not None:
                arguments["workdir"] = found.workdir
            recorded = RecordedCall("shell", arguments, recorded.output, recorded.agent, recorded.version, recorded.cwd)
        return super().claim(recorded)


def _without_login_messages(output: str) -> str:
    """A shell answer without the lines a login shell's profile scripts printed before the command's
    output (in the ``Output:`` section, or the JSON answer's ``output``)."""
    if output.startswith("{"):
        try:
            value = json.loads(output)
        except ValueError:
            return output
        if not isinstance(value, dict) or not isinstance(value.get("output"), str):
            return output
        messages = _LOGIN_MESSAGES.match(value["output"])
        if messages is None:
            return output
        value["output"] = value["output"][messages.end() :]
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    head, separator, body = output.partition("\nOutput:\n")
    messages = _LOGIN_MESSAGES.match(body) if separator else None
    return output if messages is None else head + separator + body[messages.end() :]


def shown_by(recorded: str | None) -> dict[str, Any]:
    """The settings a recorded answer shows: its envelope, and the unit its cut counted in."""
    settings: dict[str, Any] = {}
    if recorded is None:
        return settings
    if recorded.startswith("{"):
        settings["envelope"] = "json"
    elif recorded.startswith("Exit code: "):
        settings["envelope"] = "text"
    if re.search(r"…\d+ chars truncated…", recorded):
        settings["truncation"] = "bytes"
    elif re.search(r"…\d+ tokens truncated…", recorded):
        settings["truncation"] = "tokens"
    return settings


RIPGREP_0_169 = "15.2.0"
RIPGREP_0_60 = "14.1.1"
"""The ripgrep each version bundles (``codex-path/rg``, ``path/rg`` in its npm package), which a
command's ``rg`` runs (0.171.0 bundles 0.169.0's binary)."""


def _run(call: Call, tool: str, command: str | list[str], workdir: str | None) -> ShellRun:
    ripgrep = RIPGREP_0_169 if tool == "exec_command" else RIPGREP_0_60
    try:
        return run_command(call, command, ripgrep, workdir, merged=True)
    except NotRun as error:
        raise ToolError(f"{tool} failed: {not_run(error.reason)}") from None


def exec_command(
    call: Call,
    cmd: str,
    workdir: str | None,
    shell: str | None,
    login: bool,
    tty: bool,
    yield_time_ms: int | None,
    max_output_tokens: int | None,
    sandbox_permissions: str | None,
    justification: str | None,
    prefix_rule: list[str] | None,
) -> str:
    if tty:
        raise ToolError(f"exec_command failed: {not_run(refuse(call, 'a terminal (tty): programs write otherwise'))}")
    if shell is not None and os.path.basename(shell) not in SHELLS:
        raise ToolError(f"exec_command failed: {not_run(refuse(call, f'the shell {shell}'))}")
    text, uncertain = exec_command_text(_run(call, "exec_command", cmd, workdir), max_output_tokens)
    call.uncertain = call.uncertain or uncertain
    return text


def _model(call: Call) -> str:
    return str(call.settings.get("model") or DEFAULT_MODEL_0_60)


def _in_tokens(call: Call) -> bool:
    """0.60's cut: 10,000 tokens for codex models, 10,000 bytes for the others."""
    if "truncation" in call.settings:
        return call.settings["truncation"] == "tokens"
    return "codex" in _model(call)


def shell_command(
    call: Call,
    command: str,
    workdir: str | None,
    timeout_ms: int | None,
    with_escalated_permissions: bool | None,
    justification: str | None,
) -> str:
    return freeform_text(_run(call, "shell_command", command, workdir), _in_tokens(call))


def shell(
    call: Call,
    command: list[str],
    workdir: str | None,
    timeout_ms: int | None,
    with_escalated_permissions: bool | None,
    justification: str | None,
) -> str:
    """The JSON answer for models offered ``shell``; the ``Exit code`` one for models offered
    ``shell_command`` (gpt-5.1 and the codex models, measured with 0.60.1)."""
    run = _run(call, "shell", command, workdir)
    envelope = call.settings.get("envelope")
    if envelope is None:
        model = _model(call)
        envelope = "text" if model.startswith("gpt-5.1") or "codex" in model else "json"
    return (freeform_text if envelope == "text" else structured_text)(run, _in_tokens(call))


_WORKDIR_0_60 = Param("workdir", "string", "The working directory to execute the command in", None, is_path=True)
_TIMEOUT = Param("timeout_ms", "integer", "The timeout for the command in milliseconds", None)
_ESCALATED = Param(
    "with_escalated_permissions",
    "boolean",
    "Whether to request escalated permissions. Set to true if command needs to be run without sandbox restrictions",
    None,
)
_JUSTIFICATION = Param(
    "justification",
    "string",
    "Only set if with_escalated_permissions is true. 1-sentence explanation of why we want to run this command.",
    None,
)
_SHELL_DESCRIPTION = "Runs a shell command and returns its output.\n"
_ONLY_WORKDIR = (
    "- Always set the `workdir` param when using the {} function. Do not use `cd` unless absolutely necessary."
)
_EXECVP = (
    '- The arguments to `shell` will be passed to execvp(). Most terminal commands should be prefixed with ["bash", '
    '"-lc"].\n'
)

EXEC_COMMAND = Tool(
    ToolSpec(
        "exec_command",
        "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
        (
            Param("cmd", "string", "Shell command to execute."),
            Param(
                "workdir", "string", "Working directory for the command. Defaults to the turn cwd.", None, is_path=True
            ),
            Param("shell", "string", "Shell binary to launch. Defaults to the user's default shell.", None),
            # Omitted, the session's allow_login_shell decides (on unless configured off).
            Param("login", "boolean", "Request login-shell startup. Omit to inherit.", True),
            Param("tty", "boolean", "True allocates a PTY for the command; false or omitted uses plain pipes.", False),
            Param(
                "yield_time_ms",
                "integer",
                "Wait before yielding output. Defaults to 10000 ms; effective range is 250-30000 ms.",
                None,
            ),
            Param(
                "max_output_tokens",
                "integer",
                "Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy.",
                None,
                minimum=0,
            ),
            Param(
                "sandbox_permissions",
                "string",
                "Per-command sandbox override. Defaults to `use_default`; use `require_escalated` for unsandboxed "
                "execution.",
                None,
            ),
            Param(
                "justification",
                "string",
                "User-facing approval question for `require_escalated`; omit otherwise.",
                None,
            ),
            Param(
                "prefix_rule",
                "strings",
                'Reusable approval prefix for `cmd`, only with `sandbox_permissions: "require_escalated"`; for '
                'example ["git", "pull"].',
                None,
            ),
        ),
    ),
    exec_command,
)
SHELL_COMMAND = Tool(
    ToolSpec(
        "shell_command",
        _SHELL_DESCRIPTION + _ONLY_WORKDIR.format("shell_command"),
        (
            Param("command", "string", "The shell script to execute in the user's default shell"),
            _WORKDIR_0_60,
            _TIMEOUT,
            _ESCALATED,
            _JUSTIFICATION,
        ),
    ),
    shell_command,
)
SHELL = Tool(
    ToolSpec(
        "shell",
        _SHELL_DESCRIPTION + _EXECVP + _ONLY_WORKDIR.format("shell"),
        (Param("command", "strings", "The command to execute"), _WORKDIR_0_60, _TIMEOUT, _ESCALATED, _JUSTIFICATION),
    ),
    shell,
)

NEWEST = CodexShell(
    name="codex",
    description="Codex 0.171.0's exec_command: the output in its Chunk ID / Wall time / exit code envelope.",
    error_form=lambda message: message,
    guarded=False,
    real_agent=RealAgent(AGENT.id, "0.171.0"),
    volatile=AGENT.volatile,
    ground_truth="the real Codex 0.171.0 (and 0.169.0, which answers the same), recorded in tests/goldens/codex",
    tools=(EXEC_COMMAND,),
)
V0_60 = CodexShell060(
    name="codex@0.60",
    description="Codex 0.60.1's shell_command and shell: Exit code / Wall time / Output, or JSON.",
    error_form=lambda message: message,
    guarded=False,
    real_agent=RealAgent(AGENT.id, "0.60.1"),
    volatile=AGENT.volatile,
    ground_truth="the real Codex 0.60.1, recorded in tests/goldens/codex",
    tools=(SHELL_COMMAND, SHELL),
)
