"""The command line: ``call`` and ``schema`` (contract section 10), and the other entry points.

Each command imports only what it needs: ``agentpager call`` must start fast, so nothing here pulls
in Textual, markitdown or the MCP SDK unless that command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

COMMANDS = ("call", "schema")
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
        raise CommandError("JSON arguments must be an object, such as '{\"path\": \"README.md\"}'.")
    max_chars = None
    if options.max_output_chars is not None:
        max_chars = positive_number(options.max_output_chars)
        if max_chars is None:
            print(
                f"agentpager: ignoring --max-output-chars {options.max_output_chars!r}: "
                "not a positive number",
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentpager",
        description="See exactly what an LLM agent's file tools return.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    call = commands.add_parser("call", help="run one tool call and print its exact output")
    call.add_argument("--root", default=".", help="workspace root (default: the current directory)")
    call.add_argument("--profile", default="qq", help="tool profile: qq, forge, crush or vault (default qq)")
    call.add_argument("--max-output-chars", metavar="N", help="output guard limit (default 28000)")
    call.add_argument("tool", metavar="TOOL", help="tool name, such as read_file")
    call.add_argument("arguments", metavar="JSON", nargs="?", default="{}", help="arguments as a JSON object")
    call.set_defaults(run=_call)

    schema = commands.add_parser("schema", help="print the profile's tool definitions")
    schema.add_argument("--profile", default="qq", help="tool profile (default qq)")
    schema.add_argument("--format", choices=SCHEMA_FORMATS, default="openai", help="API shape (default openai)")
    schema.set_defaults(run=_schema)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    try:
        return options.run(options)
    except CommandError as error:
        print(f"agentpager: {error}", file=sys.stderr)
        return 2
