"""The command line: ``call`` and ``schema`` (contract section 10), and the other entry points.

Each command imports only what it needs: ``agentpager call`` must start fast, so nothing here pulls
in Textual, markitdown or the MCP SDK unless that command runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from agentpager.tools import PROFILE_NAMES

COMMANDS = ("call", "schema", "probe", "replay", "transcript", "mcp")
PROFILES_HELP = f"tool profile: {', '.join(PROFILE_NAMES)} (default qq)"
SCHEMA_FORMATS = ("openai", "anthropic", "mcp")


class CommandError(Exception):
    """The command itself is wrong (exit status 2)."""


def _call(options: argparse.Namespace) -> int:
    from agentpager.tools.guard import positive_number
    from agentpager.workspace import UnknownToolError

    try:
        arguments = json.loads(options.arguments)
    except ValueError as error:
        raise CommandError(f"JSON arguments are not valid JSON: {error}") from None
    if not isinstance(arguments, dict):
        raise CommandError('JSON arguments must be an object, such as \'{"path": "README.md"}\'.')
    max_chars = None
    if options.max_output_chars is not None:
        max_chars = positive_number(options.max_output_chars)
        if max_chars is None:
            print(
                f"agentpager: ignoring --max-output-chars {options.max_output_chars!r}: not a positive number",
                file=sys.stderr,
            )
    workspace = _workspace(options.root, options.profile, max_chars)
    try:
        result = workspace.call(options.tool, arguments)
    except UnknownToolError as error:
        raise CommandError(str(error)) from None
    sys.stdout.buffer.write(result.text.encode("utf-8", "surrogatepass"))
    sys.stdout.buffer.flush()
    return 1 if result.is_error else 0


def _probe(options: argparse.Namespace) -> int:
    """Ask the real agent: its exact answer to one tool call, written as ``call`` writes a result."""
    from agentpager.agents import AGENT_NAMES, AgentNotInstalled, ProbeError, probe

    if options.agent not in AGENT_NAMES:
        raise CommandError(f"Unknown agent '{options.agent}'. Agents: {', '.join(AGENT_NAMES)}.")
    try:
        arguments = json.loads(options.arguments)
    except ValueError as error:
        raise CommandError(f"JSON arguments are not valid JSON: {error}") from None
    if not isinstance(arguments, dict):
        raise CommandError('JSON arguments must be an object, such as \'{"file_path": "README.md"}\'.')
    progress = (lambda message: print(f"agentpager: {message}", file=sys.stderr)) if options.verbose else None
    try:
        result = probe(options.agent, options.tool, arguments, options.root, options.version, progress, options.model)
    except AgentNotInstalled as error:
        raise CommandError(str(error)) from None
    except ProbeError as error:
        print(f"agentpager: {error}", file=sys.stderr)
        return 3
    sys.stdout.buffer.write(result.text.encode("utf-8", "surrogatepass"))
    sys.stdout.buffer.flush()
    return 1 if result.is_error else 0


def _workspace(root: str, profile: str, max_chars: float | None = None) -> Any:
    from agentpager.workspace import Workspace

    try:
        return Workspace(root, profile, int(max_chars) if max_chars else None)
    except ValueError as error:
        raise CommandError(str(error)) from None


def schema_in_format(tools: list[dict[str, Any]], format: str) -> list[dict[str, Any]]:
    """Tool definitions in the shape the OpenAI, Anthropic or MCP API expects."""
    if format == "openai":
        return [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t["description"],
                    "parameters": t["input_schema"],
                },
            }
            for t in tools
        ]
    if format == "anthropic":
        return tools
    return [{"name": t["name"], "description": t["description"], "inputSchema": t["input_schema"]} for t in tools]


def _schema(options: argparse.Namespace) -> int:
    from agentpager.tools import get_profile
    from agentpager.tools.base import schema_of

    try:
        profile = get_profile(options.profile)
    except ValueError as error:
        raise CommandError(str(error)) from None
    print(json.dumps(schema_in_format(schema_of(profile), options.format), indent=2, ensure_ascii=False))
    return 0


def _open_transcript(path: str):  # noqa: ANN202 - a Transcript
    from agentpager.transcripts import TranscriptError, open_transcript

    try:
        transcript = open_transcript(path)
    except TranscriptError as error:
        raise CommandError(str(error)) from None
    for problem in transcript.problems:
        print(f"agentpager: {path}: {problem}", file=sys.stderr)
    return transcript


def _replay(options: argparse.Namespace) -> int:
    """One line per call: recorded output, replayed output, and whether they are the same."""
    from agentpager.transcripts import short_arguments
    from agentpager.transcripts.replay import Replayer

    transcript = _open_transcript(options.file)
    replayer = Replayer(transcript, options.root)
    print(
        f"agentpager: {len(transcript.calls)} calls ({transcript.format}), replayed against {replayer.root}",
        file=sys.stderr,
    )
    out = sys.stdout
    for call in transcript.calls:
        replay = replayer.replay(call)
        if options.json:
            record = {
                "index": call.index,
                "tool": call.tool,
                "arguments": call.arguments,
                "recorded": replay.recorded,
                "replayed": None if replay.result is None else replay.result.text,
                "matches": replay.matches,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            recorded = "no result" if replay.recorded is None else f"{len(replay.recorded):,} chars"
            out.write(
                f"{call.index:>5}  turn {call.turn:<4} {call.tool:<14} {short_arguments(call.arguments)}"
                f"  [{recorded}] {replay.status}\n"
            )
    return 0


def _check_theme(theme: str | None) -> None:
    if theme is not None:
        from textual.theme import BUILTIN_THEMES

        if theme not in BUILTIN_THEMES:
            raise CommandError(f"Unknown theme '{theme}'. Themes: {', '.join(sorted(BUILTIN_THEMES))}.")


def _transcript(options: argparse.Namespace) -> int:
    """The transcript in the TUI: its calls, recorded and replayed, each openable in the viewer."""
    _check_theme(options.theme)
    transcript = _open_transcript(options.file)
    from agentpager.tui import run_transcript

    run_transcript(transcript, options.root, options.theme)
    return 0


def _mcp(options: argparse.Namespace) -> int:
    """Serve the profile's tools over MCP on stdin and stdout."""
    workspace = _workspace(options.root, options.profile)
    try:
        from agentpager.mcp_server import serve
    except ImportError:
        raise CommandError("the MCP server needs the mcp extra: pip install 'agentpager[mcp]'") from None
    serve(workspace)
    return 0


def _tui(options: argparse.Namespace) -> int:
    """Launch the TUI: PATH a directory is the root; PATH a file is opened, its directory the root."""
    root, open_path = options.root, None
    if options.path is not None:
        path = os.path.abspath(options.path)
        if os.path.isdir(path):
            if options.root is not None:
                raise CommandError("PATH is a directory, so it is the root: give --root only with a file PATH.")
            root = path
        elif os.path.exists(path):
            root = options.root or os.path.dirname(path)
            open_path = os.path.relpath(path, os.path.abspath(root)).replace(os.sep, "/")
            if open_path.startswith("../"):
                raise CommandError(f"{options.path} is not inside the root {root}.")
        else:
            raise CommandError(f"{options.path}: no such file or directory.")
    workspace = _workspace(root or ".", options.profile)
    _check_theme(options.theme)
    from agentpager.tui import run

    run(workspace, open_path, options.theme)
    return 0


def _tui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentpager",
        description="See a workspace exactly as an agent's file tools see it. Other commands: "
        + ", ".join(COMMANDS)
        + " (agentpager COMMAND --help).",
    )
    parser.add_argument("path", metavar="PATH", nargs="?", help="a directory (the root) or a file to open")
    parser.add_argument("--root", help="workspace root when PATH is a file (default: its directory)")
    parser.add_argument("--profile", default="qq", help=PROFILES_HELP)
    parser.add_argument("--theme", help="a Textual theme, such as textual-dark or nord")
    parser.set_defaults(run=_tui)
    return parser


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentpager",
        description="See exactly what an LLM agent's file tools return.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    call = commands.add_parser("call", help="run one tool call and print its exact output")
    call.add_argument("--root", default=".", help="workspace root (default: the current directory)")
    call.add_argument("--profile", default="qq", help=PROFILES_HELP)
    call.add_argument("--max-output-chars", metavar="N", help="output guard limit (default 28000)")
    call.add_argument("tool", metavar="TOOL", help="tool name, such as read_file")
    call.add_argument("arguments", metavar="JSON", nargs="?", default="{}", help="arguments as a JSON object")
    call.set_defaults(run=_call)

    schema = commands.add_parser("schema", help="print the profile's tool definitions")
    schema.add_argument("--profile", default="qq", help=PROFILES_HELP)
    schema.add_argument("--format", choices=SCHEMA_FORMATS, default="openai", help="API shape (default openai)")
    schema.set_defaults(run=_schema)

    probe = commands.add_parser("probe", help="ask the real agent (installed) for one tool call's exact result")
    probe.add_argument("--root", default=".", help="the directory the agent runs in (default: the current one)")
    probe.add_argument("--version", help="a version installed in the cache (agentpager's npm prefix) or an executable")
    probe.add_argument("--model", help="the model name the agent is told to use (default: the agent's recorded one)")
    probe.add_argument("-v", "--verbose", action="store_true", help="report progress on stderr")
    probe.add_argument("agent", metavar="AGENT", help="claude-code, codex or gemini-cli")
    probe.add_argument("tool", metavar="TOOL", help="the agent's tool name, such as Read")
    probe.add_argument("arguments", metavar="JSON", nargs="?", default="{}", help="arguments as a JSON object")
    probe.set_defaults(run=_probe)

    replay = commands.add_parser("replay", help="replay a transcript's file reads against the files now")
    replay.add_argument("file", metavar="FILE", help="a Claude Code, Codex, OpenAI or Anthropic transcript")
    replay.add_argument("--root", help="workspace root (default: the transcript's cwd if it exists, else .)")
    replay.add_argument("--json", action="store_true", help="one JSON object per call")
    replay.set_defaults(run=_replay)

    transcript = commands.add_parser("transcript", help="open a transcript in the TUI")
    transcript.add_argument("file", metavar="FILE", help="a Claude Code, Codex, OpenAI or Anthropic transcript")
    transcript.add_argument("--root", help="workspace root (default: the transcript's cwd if it exists, else .)")
    transcript.add_argument("--theme", help="a Textual theme")
    transcript.set_defaults(run=_transcript)

    mcp = commands.add_parser("mcp", help="serve the tools over MCP (stdio)")
    mcp.add_argument("--root", default=".", help="workspace root (default: the current directory)")
    mcp.add_argument("--profile", default="qq", help=PROFILES_HELP)
    mcp.set_defaults(run=_mcp)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = _parser() if arguments and arguments[0] in COMMANDS else _tui_parser()
    options = parser.parse_args(arguments)
    try:
        return options.run(options)
    except CommandError as error:
        print(f"agentpager: {error}", file=sys.stderr)
        return 2
