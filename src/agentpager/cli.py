"""The command line: ``call`` and ``schema`` (contract section 10), and the other entry points.

Each command imports only what it needs: ``agentpager call`` must start fast, so nothing here pulls
in Textual, markitdown or the MCP SDK unless that command runs.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from agentpager import __version__

PROFILES_HELP = "tool profile (default qq; agentpager profiles lists them)"
SCHEMA_FORMATS = ("openai", "anthropic", "mcp")
VERSION = f"agentpager {__version__}"
TELL_SECONDS = 0.2
"""How often a long command's progress line on a terminal is written again."""


class CommandError(Exception):
    """The command itself is wrong (exit status 2)."""


def _call(options: argparse.Namespace) -> int:
    try:
        arguments = json.loads(options.arguments)
    except ValueError as error:
        raise CommandError(f"JSON arguments are not valid JSON: {error}") from None
    if not isinstance(arguments, dict):
        raise CommandError('JSON arguments must be an object, such as \'{"path": "README.md"}\'.')
    max_chars = None
    if options.max_output_chars is not None:
        text = options.max_output_chars
        if not (text.isascii() and text.isdigit() and int(text) > 0):
            raise CommandError(f"--max-output-chars {text!r}: expected a whole number above 0")
        max_chars = int(text)
    workspace = _workspace(options.root, options.profile, max_chars)
    if workspace.tool_spec(options.tool) is None:
        names = ", ".join(workspace.tool_names())
        raise CommandError(f"Profile '{workspace.profile_name}' has no tool '{options.tool}'. Tools: {names}.")
    result = workspace.call(options.tool, arguments)
    sys.stdout.buffer.write(result.text.encode("utf-8"))
    sys.stdout.buffer.flush()
    return 1 if result.is_error else 0


def _probe(options: argparse.Namespace) -> int:
    """Ask the real agent: its exact answer to one tool call, written as ``call`` writes a result
    (``--request``: the whole request that carried it, as JSON)."""
    from agentpager.agents import get_agent
    from agentpager.probe import AgentNotInstalled, Unconfined
    from agentpager.probing import ProbeError, Refused, probe

    program = get_agent(options.agent).program()
    assert program is not None, "the parser's choices are the agents the probe can run"
    _check_root(options.root)
    if options.check:
        return _probe_check(options, program)
    if options.tool is None:
        raise CommandError("probe needs a TOOL (and its JSON arguments), or --check.")
    try:
        arguments = json.loads(options.arguments)
    except ValueError as error:
        raise CommandError(f"JSON arguments are not valid JSON: {error}") from None
    if not isinstance(arguments, dict):
        raise CommandError('JSON arguments must be an object, such as \'{"file_path": "README.md"}\'.')
    progress = (lambda message: print(f"agentpager: {message}", file=sys.stderr)) if options.verbose else None
    try:
        result = probe(program, options.tool, arguments, options.root, options.version, progress, options.model)
    except (AgentNotInstalled, Refused) as error:
        raise CommandError(str(error)) from None
    except Unconfined as error:
        raise CommandError(f"agentpager runs an agent only confined, and cannot confine it here: {error}") from None
    except ProbeError as error:
        print(f"agentpager: {error}", file=sys.stderr)
        return 3
    if options.request:
        text = json.dumps(result.request(), indent=2, ensure_ascii=False) + "\n"
    else:
        text = result.text
    sys.stdout.buffer.write(text.encode("utf-8", "surrogatepass"))
    sys.stdout.buffer.flush()
    return 1 if result.is_error else 0


def _probe_check(options: argparse.Namespace, program: Any) -> int:
    """Ask the installed agent the golden cases and say which profile answers as it does (exit 0), or
    where the closest one differs (exit 1). The cases are in agentpager's source checkout."""
    from pathlib import Path

    from agentpager.probe import AgentNotInstalled, Unconfined, find

    tests = Path(__file__).resolve().parents[2] / "tests"
    if not (tests / "goldens" / "check.py").is_file():
        raise CommandError(
            "--check asks the agent the golden cases, which live in agentpager's source checkout "
            "(tests/goldens): run it from a clone installed with pip install -e."
        )
    sys.path.insert(0, str(tests))
    from goldens.check import record, report  # type: ignore[import-not-found]
    from goldens.corpus import newest_targets  # type: ignore[import-not-found]

    def say(message: str) -> None:
        print(message, file=sys.stderr)

    try:
        installed = find(program, options.version)
    except AgentNotInstalled as error:
        raise CommandError(str(error)) from None
    model = options.model or program.default_model or newest_targets(program.agent)[0].model
    say(f"agentpager: asking {program.title} {installed.version} ({model}) every golden case, confined ...")
    try:
        golden = record(installed, model, say if options.verbose else lambda message: None)
    except Unconfined as error:
        raise CommandError(f"agentpager runs an agent only confined, and cannot confine it here: {error}") from None
    matching = report([golden], print)
    return 0 if matching else 1


def _workspace(root: str, profile: str, max_chars: int | None = None, settings: dict[str, Any] | None = None) -> Any:
    from agentpager.workspace import Workspace

    _check_root(root)
    try:
        return Workspace(root, profile, max_chars, settings=settings)
    except ValueError as error:
        raise CommandError(str(error)) from None


def _check_root(root: str | None) -> None:
    """CommandError unless ``root`` (a ``--root``; None: the current directory) is a directory."""
    if root is None or os.path.isdir(root):
        return
    raise CommandError(f"--root {root}: {'not a directory' if os.path.exists(root) else 'no such directory'}")


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
    from agentpager.profiles import get_profile
    from agentpager.tools.base import schema_of

    try:
        profile = get_profile(options.profile)
    except ValueError as error:
        raise CommandError(str(error)) from None
    print(json.dumps(schema_in_format(schema_of(profile), options.format), indent=2, ensure_ascii=False))
    return 0


def _profiles(options: argparse.Namespace) -> int:
    """Each profile's name and what its tools do."""
    from agentpager.profiles import all_profiles

    profiles = all_profiles()
    width = max(len(profile.name) for profile in profiles)
    for profile in profiles:
        print(f"{profile.name:<{width}}  {profile.description}")
    return 0


def _open_transcript(path: str, wait: bool = True, paused: bool = False):  # noqa: ANN202 - a Transcript
    """The transcript at ``path``; ``wait``: read whole (else its index is built as it is used,
    ``paused`` until a screen shows its first calls)."""
    from agentpager.transcripts import TranscriptError, open_transcript

    try:
        return open_transcript(path, wait=wait, paused=paused)
    except TranscriptError as error:
        raise CommandError(str(error)) from None


def _problems(path: str, transcript) -> None:  # noqa: ANN001 - a Transcript
    """The records skipped, on stderr (the first thousand, then how many more)."""
    for problem in transcript.problems:
        print(f"agentpager: {path}: {problem}", file=sys.stderr)
    more = transcript.problem_count - len(transcript.problems)
    if more > 0:
        print(f"agentpager: {path}: {more:,} more unreadable records skipped", file=sys.stderr)


def _replay(options: argparse.Namespace) -> int:
    """One line per call, printed as the transcript is read: recorded output, replayed output, and
    whether they are the same; then how many calls have each status. ``--json`` also gives what the
    model received (``received``): the recorded output (as logged, what replay compares) with what the
    agent's harness added to it."""
    _check_root(options.root)
    transcript = _open_transcript(options.file, wait=False)
    if options.context:
        return _context(options.file, transcript)
    from agentpager.exchange import to_json
    from agentpager.transcripts import short_arguments
    from agentpager.transcripts.replay import STATUSES, Replayer
    from agentpager.wording import plural

    replayer = Replayer(transcript, options.root)
    print(f"agentpager: a {transcript.format} transcript, replayed against {replayer.root}", file=sys.stderr)
    out = sys.stdout
    tally = dict.fromkeys(STATUSES, 0)
    for call in transcript.stream():
        replay = replayer.replay(call)
        tally[replay.status] += 1
        if options.json:
            record = {
                "index": call.index,
                "turn": call.turn,
                "tool": call.tool,
                "arguments": call.arguments,
                "recorded": replay.recorded,
                "received": replay.received,
                "replayed": None if replay.result is None else replay.result.text,
                "matches": replay.matches,
                "status": replay.status,
                "reason": replay.reason or None,
                "agent": call.agent,
                "parent": call.parent,
            }
            out.write(to_json(record) + "\n")
        else:
            recorded = "no result" if call.result is None else "not read"
            recorded = recorded if replay.recorded is None else plural(len(replay.recorded), "char")
            indent = "  " * call.depth
            out.write(
                f"{call.index:>5}  turn {call.turn:<4} {indent}{call.tool:<14} {short_arguments(call.arguments)}"
                f"  [{recorded}] {replay.status}\n"
            )
    out.flush()
    transcript.build.join()  # its index is being saved, for the next run
    _problems(options.file, transcript)
    print(f"agentpager: {plural(sum(tally.values()), 'call')} ({transcript.format})", file=sys.stderr)
    print(f"agentpager: {', '.join(f'{count:,} {status}' for status, count in tally.items())}", file=sys.stderr)
    return 0


def _context(path: str, transcript) -> int:  # noqa: ANN001 - a Transcript
    """Each model turn's context fill against the window, printed as the transcript is read; then the
    costliest tool outputs. The main agent's first, then each subagent's own."""
    from agentpager.transcripts.context import AgentContext, subagent_contexts, subagent_name

    _agent_context(transcript, AgentContext(transcript.index), 0)
    transcript.build.join()  # its index is being saved, for the next run; the subagents' files found
    for source, starter, context in subagent_contexts(transcript):
        sys.stdout.write(f"\n{subagent_name(starter, context.agent)}, in its own context:\n")
        _agent_context(transcript, context, source)
    _problems(path, transcript)
    return 0


def _agent_context(transcript, context, source: int) -> None:  # noqa: ANN001 - a Transcript, an AgentContext
    """One agent's turns and costliest outputs (``source``: the file of its calls)."""
    from agentpager.transcripts import short_arguments
    from agentpager.transcripts.context import compaction_note, estimate_note

    out = sys.stdout
    out.write(
        f"{'turn':>5}  {'time':<8}  {'input':>9}  {'cache read':>10}  {'cache write':>11}  {'output':>7}  "
        f"{'context':>9}  {'window':>9}  {'fill':>5}  {'tool outputs':>12}  over\n"
    )
    estimated: list[int] = []
    turns = 0
    windows: dict[int | None, str] = {}  # a session has 100,000 turns and a window or two
    lines: list[str] = []  # written a batch at a time: a write per line was a fifth of a warm run
    # One format a line (formatting is most of a warm run: a session has 100,000 turns).
    recorded = "{:>5}  {:<8}  {:>9,}  {:>10,}  {:>11,}  {:>7,}   {:>8,}  {}  {:>5}  {:>12,}{}\n".format
    blank = f"{'':>9}  {'':>10}  {'':>11}  {'':>7}  ~"  # no usage: nothing to show but the estimate
    estimate = ("{:>5}  {:<8}  " + blank + "{:>8,}  {}  {:>5}  {:>12,}{}\n").format
    for turn in context.fills(wait=True):
        turns += 1
        if turn.compacted is not None:
            again = "empty" if turn.compacted.new_session else "from a summary"
            lines.append(f"{'':>5}  {compaction_note(turn.compacted)}: the context starts again {again}\n")
        window = turn.window
        fill = f"{turn.context / window:.0%}" if window else "?"
        shown = windows.get(window)
        if shown is None:
            shown = windows[window] = f"{window or 0:>9,}"
        overflow = turn.overflow
        over = "" if overflow == "none" else f"  {overflow}"
        if turn.estimated:
            estimated.append(turn.number)
            line = estimate(turn.number, turn.timestamp[11:19], turn.context, shown, fill, turn.outputs, over)
        else:
            line = recorded(
                turn.number, turn.timestamp[11:19], turn.input, turn.cache_read, turn.cache_creation, turn.output,
                turn.context, shown, fill, turn.outputs, over,
            )  # fmt: skip
        lines.append(line)
        if len(lines) >= 256:
            out.write("".join(lines))
            lines.clear()
    out.write("".join(lines))
    if estimated:
        out.write(estimate_note(estimated, turns) + "\n")
    counted = len(estimated) == turns
    out.write(
        ("tool outputs: cl100k estimates" if counted else "tool outputs: their share of the growth the usage records")
        + "\n\ncostliest tool outputs (tokens):\n"
    )
    for cost in context.costliest():
        call = transcript.calls.call(source, cost.number)
        mark = "~" if cost.counted else " "
        out.write(f"{mark}{cost.tokens:>8,}  #{call.index:<5} {call.tool:<14} {short_arguments(call.arguments)}\n")


def _sessions(options: argparse.Namespace) -> int:
    """Every agent session on this machine, by project, newest first; or what a search finds in them."""
    from agentpager.sessions_index.listing import files_of, home_key, refresh, session_files
    from agentpager.sessions_index.store import IndexStore

    if options.search is not None and options.read is not None:
        raise CommandError("--search and --read: one at a time.")
    filtered = options.agent or options.tool or options.since
    listed_only = not (filtered or options.full or options.search is not None or options.read is not None)
    if not listed_only:  # the search module is not imported by a listing
        from agentpager.sessions_index.search import Filters, SearchError, since_time

        try:
            filters = Filters(options.agent, options.tool, since_time(options.since) if options.since else None)
        except SearchError as error:
            raise CommandError(str(error)) from None
    store = IndexStore()
    key, kind = home_key(options.home), "json" if options.json else "text"
    found = session_files(options.home)
    files = files_of(found)
    if listed_only and (kept := store.kept_listing(key, kind, files)) is not None:
        return _listed(*kept, options.json)  # no session changed since it was made
    refresh(options.home, store, found=found)
    if options.full or options.search is not None or options.read is not None or options.tool:
        _read_calls(options.home, store)
    if options.search is not None:
        return _search(options, store, filters)
    if options.read is not None:
        return _reads(options, store, filters)
    if filtered:
        from agentpager.sessions_index.search import sessions_with

        return _session_list(sessions_with(store, options.home, filters), options.json)
    return _listed(*store.listing(key, kind, files=files), options.json)


def _listed(listing: bytes, uncounted: int, as_json: bool) -> int:
    """Write a listing of sessions, saying what is not counted yet, or that there is none."""
    _tell_uncounted(uncounted)
    if not listing and not as_json:
        from agentpager.agents import AGENTS
        from agentpager.wording import listed

        kept = [agent.title for agent in AGENTS if agent.sessions is not None]
        print(f"agentpager: no {listed(kept, 'or')} sessions found.", file=sys.stderr)
    _write(listing)
    return 0


def _write(data: bytes) -> None:
    sys.stdout.flush()
    sys.stdout.buffer.write(data)


class _Told:
    """How far a long command is, on one line of a terminal's stderr: written again at most every
    TELL_SECONDS, cleared at the end; nothing when stderr is not a terminal."""

    def __init__(self) -> None:
        self.on = sys.stderr.isatty()
        self.at: float | None = None

    def __call__(self, text: str) -> None:
        now = time.monotonic()
        if self.on and (self.at is None or now - self.at >= TELL_SECONDS):
            self.at = now
            print(f"\ragentpager: {text} ", end="", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.at is not None:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


def _read_calls(home: str | None, store: Any) -> None:
    """Bring the index's calls up to date (saying how far it got on a terminal)."""
    from agentpager.sessions_index.updating import unread, update_calls

    left = len(unread(store, home))
    told = _Told()
    for done in update_calls(home, store):
        left -= len(done)
        told(f"reading the calls of every session, {left:,} to go")
    told.done()


def _tell_uncounted(uncounted: int) -> None:
    from agentpager.wording import plural

    if uncounted:
        print(
            f"agentpager: {plural(uncounted, 'session')} not counted yet (only their ends were read): "
            "their calls show as … (null in --json); --full reads them, and the index keeps the count",
            file=sys.stderr,
        )


def _session_list(sessions: list, as_json: bool) -> int:
    """Sessions a filter let through, as a listing writes them."""
    from agentpager.sessions_index.lines import listing_bytes, session_json, session_text

    _tell_uncounted(sum(not info.counted for info in sessions))
    _tell_none_found(len(sessions), as_json)
    line = session_json if as_json else session_text
    _write(listing_bytes(((info.project, line(info).encode("utf-8", "surrogatepass")) for info in sessions), not as_json))
    return 0


def _session_fields(info: Any) -> dict[str, Any]:
    """What a search's or a read's JSON line says of its session."""
    return {"session_id": info.session_id, "agent": info.agent, "project": info.project, "started": info.started}


def _search(options: argparse.Namespace, store: Any, filters: Any) -> int:
    """One line per prompt, call arguments or call output that holds the text."""
    from agentpager.sessions_index.search import SearchError, search

    out, found = sys.stdout, 0
    try:
        for hit in search(store, options.home, options.search, filters):
            found += 1
            info = hit.session
            if options.json:
                record = {"path": info.path, "line": hit.line, "kind": hit.kind, "call": hit.call}
                record |= {"tool": hit.tool or None, "excerpt": hit.excerpt}
                out.write(json.dumps(record | _session_fields(info), ensure_ascii=False) + "\n")
            else:
                call = "" if hit.call is None else f"#{hit.call} {hit.tool}"
                out.write(
                    f"{info.started[:16].replace('T', ' '):<16}  {info.agent:<11} {info.path}:{hit.line}  "
                    f"{hit.kind:<9} {call:<16}  {hit.excerpt}\n"
                )
    except SearchError as error:
        raise CommandError(str(error)) from None
    _tell_none_found(found, options.json)
    return 0


def _tell_none_found(found: int, as_json: bool) -> None:
    """A search, a read or a filter that found nothing says so (on stderr; --json writes nothing)."""
    if not found and not as_json:
        print("agentpager: no session matches.", file=sys.stderr)


def _reads(options: argparse.Namespace, store: Any, filters: Any) -> int:
    """One line per call that read the file: the session, the call, and the lines it read."""
    from agentpager.sessions_index.search import reads_of

    out, found = sys.stdout, 0
    for read in reads_of(store, options.home, os.path.abspath(options.read), filters):
        found += 1
        info = read.session
        last = "end" if read.last_line is None else str(read.last_line)
        if options.json:
            record = {"path": info.path, "line": read.line, "call": read.call, "tool": read.tool}
            record |= {"first_line": read.first_line, "last_line": read.last_line}
            out.write(json.dumps(record | _session_fields(info), ensure_ascii=False) + "\n")
        else:
            out.write(
                f"{info.started[:16].replace('T', ' '):<16}  {info.agent:<11} {info.path}:{read.line}  "
                f"#{read.call} {read.tool}  lines {read.first_line}-{last}\n"
            )
    _tell_none_found(found, options.json)
    return 0


def _export(options: argparse.Namespace) -> int:
    """A session as one self-contained HTML page, or Markdown."""
    from agentpager.export import ExportError, export_session

    path = options.session if os.path.exists(options.session) else _session_path(options.session, options.home)
    out = options.html or options.markdown
    told = _Told()
    try:
        export_session(
            path,
            out,
            "html" if options.html else "markdown",
            options.root,
            lambda done, calls: told(f"replaying the calls for {out}: {done:,} of {calls:,}"),
        )
    except (ExportError, OSError) as error:
        raise CommandError(str(error)) from None
    finally:
        told.done()
    print(f"agentpager: wrote {out}", file=sys.stderr)
    return 0


def _session_path(session_id: str, home: str | None) -> str:
    """The file of the session whose id is, or starts with, ``session_id``."""
    from agentpager.sessions_index.listing import list_sessions

    found = [info for info in list_sessions(home) if info.session_id.startswith(session_id)]
    exact = [info for info in found if info.session_id == session_id]
    if len(exact or found) != 1:
        how = "no session has" if not found else f"{len(found)} sessions have"
        raise CommandError(f"{session_id}: not a file, and {how} that id (agentpager sessions lists them).")
    return (exact or found)[0].path


def _settings() -> Any:
    """The user's config (``agentpager.config.Config``), for the commands that open the TUI (the keys
    it may remap are the TUI's)."""
    from agentpager.config import load_config
    from agentpager.tui.app import remappable_keys

    return load_config(keys=remappable_keys())


def _themes(config: Any) -> Any:
    from agentpager.tui.themes import load_themes

    return load_themes(config.path.parent / "themes")


def _check_theme(theme: str | None, config: Any) -> None:
    if theme is not None:
        themes = _themes(config)
        if theme not in themes.names:
            skipped = "".join(f"\n  skipped {problem}" for problem in themes.problems)
            raise CommandError(f"Unknown theme '{theme}'. Themes: {', '.join(themes.names)}.{skipped}")


def _transcript(options: argparse.Namespace) -> int:
    """The transcript in the TUI: its calls, recorded and replayed, each openable in the viewer."""
    _check_root(options.root)
    config = _settings()
    _check_theme(options.theme, config)
    transcript = _open_transcript(options.file, wait=False, paused=True)
    _problems(options.file, transcript)
    from agentpager.tui import run_transcript

    run_transcript(transcript, options.root, options.theme, config)
    return 0


def _config(options: argparse.Namespace) -> int:
    """The config file's path, the effective settings with what is wrong, or a new commented file."""
    from agentpager.config import ConfigError, config_path, describe, init_config

    if options.path:
        print(config_path())
        return 0
    if options.init:
        try:
            from agentpager.tui.app import remappable_keys

            print(f"agentpager: wrote {init_config(remappable_keys())}", file=sys.stderr)
        except ConfigError as error:
            raise CommandError(str(error)) from None
        return 0
    config = _settings()
    themes = _themes(config)
    problems = list(config.problems) + [f"skipped theme {problem}" for problem in themes.problems]
    if config.theme is not None and config.theme not in themes.names:
        problems.append(f"{config.path}: theme: '{config.theme}' is not a theme (themes: {', '.join(themes.names)}).")
        config.theme = None
    sys.stdout.write(describe(config))
    for problem in problems:
        print(f"agentpager: {problem}", file=sys.stderr)
    return 1 if problems else 0


def _demo(options: argparse.Namespace) -> int:
    """Build (or reuse) the demo workspace and open the TUI on it."""
    from pathlib import Path

    from agentpager.demo import DemoError, build_demo, parse_size

    try:
        size = parse_size(options.size)
    except ValueError as error:
        raise CommandError(str(error)) from None
    try:
        demo = build_demo(Path(options.dir) if options.dir else None, size)
    except DemoError as error:
        raise CommandError(str(error)) from None
    except OSError as error:
        raise CommandError(f"could not build the demo: {error}") from None
    done = "reused" if demo.reused else f"built in {demo.seconds:.1f} s"
    print(f"agentpager: demo workspace {done}: {demo.root}", file=sys.stderr)
    if options.no_open:
        print(demo.root)
        return 0
    config = _settings()
    from agentpager.tui import demo_app

    demo_app(demo, config).run()
    return 0


def _mcp(options: argparse.Namespace) -> int:
    """Serve the profile's tools over MCP on stdin and stdout."""
    workspace = _workspace(options.root, options.profile)
    try:
        from agentpager.mcp_server import serve
    except ImportError:
        raise CommandError(
            "the MCP server needs the mcp extra: pip install '.[mcp]' in agentpager's clone (or pip install mcp)"
        ) from None
    serve(workspace)
    return 0


def _tui(options: argparse.Namespace) -> int:
    """Launch the TUI: PATH a directory is the root; PATH a file is opened, its directory the root."""
    root, open_path = options.root, None
    _check_root(root)
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
    config = _settings()
    workspace = _workspace(root or ".", options.profile or config.profile, settings=config.profile_settings())
    _check_theme(options.theme, config)
    from agentpager.tui import run

    # Started in the home directory with nothing to open: the sessions are what there is to see.
    nothing_to_open = options.path is None and os.path.abspath(root or ".") == os.path.expanduser("~")
    run(workspace, open_path, options.theme, config, start_with_sessions=nothing_to_open)
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
    parser.add_argument(
        "--profile", help="tool profile (default: the config's, else qq; agentpager profiles lists them)"
    )
    parser.add_argument("--theme", help="a theme, such as dusk, paper, nord or textual-dark (default: the config's)")
    parser.add_argument("--version", action="version", version=VERSION)
    parser.set_defaults(run=_tui)
    return parser


def _call_arguments(call: argparse.ArgumentParser) -> None:
    call.add_argument("--root", default=".", help="workspace root (default: the current directory)")
    call.add_argument("--profile", default="qq", help=PROFILES_HELP)
    call.add_argument("--max-output-chars", metavar="N", help="output guard limit (default 28000)")
    call.add_argument("tool", metavar="TOOL", help="tool name, such as read_file")
    call.add_argument("arguments", metavar="JSON", nargs="?", default="{}", help="arguments as a JSON object")


def _schema_arguments(schema: argparse.ArgumentParser) -> None:
    schema.add_argument("--profile", default="qq", help=PROFILES_HELP)
    schema.add_argument("--format", choices=SCHEMA_FORMATS, default="openai", help="API shape (default openai)")


def _probe_arguments(probe: argparse.ArgumentParser) -> None:
    from agentpager.agents import probed_agents
    from agentpager.wording import listed

    probe.add_argument("--root", default=".", help="the directory the agent runs in (default: the current one)")
    probe.add_argument("--version", help="a version installed in the cache (agentpager's npm prefix) or an executable")
    probe.add_argument("--model", help="the model name the agent is told to use (default: the agent's recorded one)")
    probe.add_argument("-v", "--verbose", action="store_true", help="report progress on stderr")
    probe.add_argument(
        "--request",
        action="store_true",
        help="print the whole request that carried the result (system prompt, tools, messages) as JSON",
    )
    agents = [agent.id for agent in probed_agents()]
    probe.add_argument("agent", metavar="AGENT", choices=agents, help=listed(agents, "or"))
    probe.add_argument(
        "--check",
        action="store_true",
        help="ask the installed agent every golden case and say which profile answers as it does",
    )
    probe.add_argument("tool", metavar="TOOL", nargs="?", help="the agent's tool name, such as Read")
    probe.add_argument("arguments", metavar="JSON", nargs="?", default="{}", help="arguments as a JSON object")


def _transcript_file(parser: argparse.ArgumentParser) -> None:
    from agentpager.transcripts.formats import format_names

    parser.add_argument("file", metavar="FILE", help=f"a {format_names()} transcript")
    parser.add_argument("--root", help="workspace root (default: the current directory)")


def _replay_arguments(replay: argparse.ArgumentParser) -> None:
    _transcript_file(replay)
    replay.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per call: recorded (as logged), received (as the model received it), replayed",
    )
    replay.add_argument(
        "--context", action="store_true", help="each model turn's context fill and the costliest tool outputs"
    )


def _sessions_arguments(sessions: argparse.ArgumentParser) -> None:
    from agentpager.sessions import session_agents
    from agentpager.wording import listed

    sessions.description = (
        "List every session, or search their prompts, call arguments and outputs. The index "
        "(sessions.db in the cache dir) reads a session again only when its file changed."
    )
    sessions.add_argument("--home", help="look in this home directory instead of yours")
    sessions.add_argument("--json", action="store_true", help="one JSON object per line (calls: null until counted)")
    sessions.add_argument(
        "--full", action="store_true", help="read the calls of every session not read yet (the index keeps them)"
    )
    sessions.add_argument(
        "--search",
        metavar="TEXT",
        help="prompts, call arguments and outputs holding TEXT (case ignored unless it has a capital)",
    )
    sessions.add_argument("--read", metavar="PATH", help="the calls that read the file PATH, and which lines")
    sessions.add_argument("--tool", help="only calls of this tool (only sessions with one)")
    agents = session_agents()
    sessions.add_argument(
        "--agent", choices=agents, metavar="AGENT", help=f"only sessions of this agent ({listed(agents, 'or')})"
    )
    sessions.add_argument("--since", help="only sessions active since: 2026-01-02, 2026-01-02T10:00, 7d, 12h, 30m")


def _export_arguments(export: argparse.ArgumentParser) -> None:
    export.add_argument(
        "session", metavar="SESSION", help="a session's file, or its id (agentpager sessions shows them)"
    )
    written = export.add_mutually_exclusive_group(required=True)
    written.add_argument("--html", metavar="FILE", help="a self-contained page: calls, replays, differences, context")
    written.add_argument("--markdown", metavar="FILE", help="the same as Markdown text")
    export.add_argument("--root", help="replay the calls against this directory (default: the current one)")
    export.add_argument("--home", help="look the id up among this home's sessions instead of yours")


def _transcript_arguments(transcript: argparse.ArgumentParser) -> None:
    _transcript_file(transcript)
    transcript.add_argument("--theme", help="a Textual theme")


def _mcp_arguments(mcp: argparse.ArgumentParser) -> None:
    mcp.add_argument("--root", default=".", help="workspace root (default: the current directory)")
    mcp.add_argument("--profile", default="qq", help=PROFILES_HELP)


def _demo_arguments(demo: argparse.ArgumentParser) -> None:
    demo.add_argument("--dir", help="build it here, and keep it (default: a dir in the temp dir, reused)")
    demo.add_argument("--size", default="200M", help="size of the demo's log, such as 200M, 50MB or 1G (default 200M)")
    demo.add_argument("--no-open", action="store_true", help="only build it, and print its path")


def _config_arguments(config: argparse.ArgumentParser) -> None:
    config.add_argument("--path", action="store_true", help="print the config file's path")
    config.add_argument("--init", action="store_true", help="write a commented config file (an existing one is kept)")


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    pass


COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {
    "call": ("run one tool call and print its exact output", _call_arguments, _call),
    "schema": ("print the profile's tool definitions", _schema_arguments, _schema),
    "profiles": ("list the tool profiles", _no_arguments, _profiles),
    "probe": ("ask the real agent (installed) for one tool call's exact result", _probe_arguments, _probe),
    "replay": ("replay a transcript's file reads against the files now", _replay_arguments, _replay),
    "transcript": ("open a transcript in the TUI", _transcript_arguments, _transcript),
    "sessions": ("list every agent session on this machine, or search them", _sessions_arguments, _sessions),
    "export": ("write a session as one HTML page or Markdown, to share", _export_arguments, _export),
    "mcp": ("serve the tools over MCP (stdio)", _mcp_arguments, _mcp),
    "demo": ("build a demo workspace (a 200 MB log, a session, ...) and open it", _demo_arguments, _demo),
    "config": ("show the settings (the config file's and the defaults)", _config_arguments, _config),
}
"""Each command: its help, what defines its arguments, what runs it."""


def _parser(command: str) -> argparse.ArgumentParser:
    """The command line, with the arguments of ``command`` alone: another command's may name every
    agent or format, and ``agentpager call`` imports none of them."""
    parser = argparse.ArgumentParser(
        prog="agentpager",
        description="See exactly what an LLM agent's file tools return.",
    )
    parser.add_argument("--version", action="version", version=VERSION)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (summary, arguments, run) in COMMANDS.items():
        subparser = commands.add_parser(name, help=summary)
        if name == command:
            arguments(subparser)
        subparser.set_defaults(run=run, command_parser=subparser)
    return parser


def run() -> NoReturn:
    """The console command: ``main()``, then the exit."""
    status = main()
    # The interpreter's last collections would walk every object the command made: 20 ms of a call's
    # 250 ms (the TUI's exit too). Frozen, they are only freed with the process.
    gc.freeze()
    sys.exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = _parser(arguments[0]) if arguments and arguments[0] in COMMANDS else _tui_parser()
    options, unknown = parser.parse_known_args(arguments)
    if unknown:  # said by the command's own parser, with its usage
        getattr(options, "command_parser", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if isinstance(sys.stdout, io.TextIOWrapper):
        # A log's text may hold a lone surrogate (valid JSON): it is written as the other outputs
        # (the listing, the probe's) write it, not raised as UnicodeEncodeError halfway.
        sys.stdout.reconfigure(errors="surrogatepass")
    try:
        return options.run(options)
    except BrokenPipeError:  # the reader went away (agentpager replay F | head): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except CommandError as error:
        print(f"agentpager: {error}", file=sys.stderr)
        return 2
