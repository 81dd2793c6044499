"""A session as one file to share: a self-contained HTML page, or Markdown.

What it shows: the session's facts, every call with its replay status (replayed against a
workspace, as ``agentpager replay`` does), the differences of the calls whose replay differs, the
context of each model turn against the window, and the conversation. The page is a Jinja2
template (``templates/``), autoescaped: prompts and outputs are whatever the agent saw, so hostile
text stays text. Pages are written as the template makes them, and the template is given iterators:
the calls are replayed one at a time, each output read when its row is written and dropped after,
so a session of any size takes the memory of its summaries and one output.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agentpager.transcripts import Transcript, TranscriptError, listed_arguments, open_transcript

if TYPE_CHECKING:
    from agentpager.transcripts.context import AgentContext

Format = Literal["html", "markdown"]
Progress = Callable[[int, int], None]
OUTPUT_CHARS = 4000
"""Characters of each recorded output a page shows (the rest is counted, not shown)."""
ARGUMENT_CELLS = 160
"""Each call's arguments as its list row shows them, cut in the middle (paths keep their file names)
to this: measuring them for 10,000 took a quarter of an export."""
DIFF_LINES = 200
EVENT_CHARS = 4000
TEMPLATES = {"html": "session.html.j2", "markdown": "session.md.j2"}


class ExportError(Exception):
    """The session cannot be exported; the message says why."""


@dataclass(frozen=True)
class CallRow:
    index: int
    turn: int
    tool: str
    arguments: str
    """On one line, paths under the agent's directory relative to it."""
    status: str
    reason: str
    recorded_chars: int | None
    output: str
    """The recorded output, cut to OUTPUT_CHARS."""
    cut: int
    """Characters of the output not shown."""
    diff: list[tuple[str, str]]
    """The unified difference, recorded against replayed, when they differ (DIFF_LINES at most): each
    line with its kind (``head``, ``hunk``, ``del``, ``add`` or ``same``)."""
    depth: int


@dataclass(frozen=True)
class TurnRow:
    number: int
    context: int
    window: int | None
    outputs: int
    estimated: bool
    share: float
    """The context's share of the widest bar (the window, or the biggest context)."""


@dataclass(frozen=True)
class AgentTurns:
    name: str
    """Empty for the main agent; ``the subagent of call #12``."""
    turns: list[TurnRow]


@dataclass(frozen=True)
class Said:
    kind: str
    prompt: int
    """The user prompt it follows (calls are numbered by model turn)."""
    text: str
    cut: int
    call: int | None = None


def export_session(
    path: str, out: str, format: Format, root: str | None = None, progress: Progress | None = None
) -> None:
    """Write the session at ``path`` to ``out`` as a page (``html``) or Markdown, its calls replayed
    against ``root`` (default: the current directory); ``progress`` is told of each call replayed
    (how many, of how many: a 1 GB session's take minutes)."""
    try:
        transcript = open_transcript(path)
    except TranscriptError as error:
        raise ExportError(str(error)) from None
    partial = f"{out}.partial-{os.getpid()}"
    try:
        with open(partial, "w", encoding="utf-8") as file:
            for piece in render(transcript, format, root, progress):
                file.write(piece)
        os.replace(partial, out)
    except OSError as error:  # says the file asked for, not the one written first
        raise ExportError(f"cannot write {out}: {error.strerror or error}") from None
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


def render(
    transcript: Transcript, format: Format, root: str | None = None, progress: Progress | None = None
) -> Iterator[str]:
    """The page, a piece at a time."""
    from agentpager.transcripts.replay import Replayer

    replayer = Replayer(transcript, root)
    statuses: dict[int, str] = {}
    template = _environment().get_template(TEMPLATES[format])
    return template.generate(
        session=_facts(transcript, replayer.root),
        calls=_calls(transcript, replayer, statuses, progress),
        statuses=statuses,
        contexts=_contexts(transcript),
        conversation=_conversation(transcript),
        problems=transcript.problems,
    )


def _environment() -> Any:
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("agentpager.export", "templates"),
        autoescape=jinja2.select_autoescape(["html.j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    environment.filters["md"] = markdown_text
    environment.filters["code"] = markdown_code
    environment.filters["fence"] = markdown_fence
    return environment


def _facts(transcript: Transcript, root: str) -> dict[str, Any]:
    parsed = transcript.parsed
    prompt = next((event.text for event in transcript.events if event.kind == "prompt"), "")
    return {
        "path": transcript.path,
        "name": os.path.basename(transcript.path),
        "format": transcript.format,
        "session_id": parsed.session_id,
        "version": parsed.version,
        "model": parsed.model,
        "cwd": transcript.cwd or "",
        "branch": parsed.branch,
        "started": parsed.started,
        "ended": parsed.ended,
        "calls": len(transcript.calls),
        "title": " ".join(prompt[:400].split())[:200],
        "root": root,
    }


def _calls(
    transcript: Transcript, replayer: Any, statuses: dict[int, str], progress: Progress | None
) -> Iterator[CallRow]:
    """Each call replayed, one at a time (its status kept in ``statuses`` for the conversation)."""
    calls = transcript.calls
    for done, call in enumerate(calls, start=1):
        if progress is not None:
            progress(done, len(calls))
        replay = replayer.replay(call)
        statuses[call.index] = replay.status
        recorded = replay.recorded
        diff: list[tuple[str, str]] = []
        if replay.status in ("differs", "uncertain") and recorded is not None and replay.result is not None:
            lines = difflib.unified_diff(
                recorded.splitlines(), replay.result.text.splitlines(), "recorded", "replayed now", lineterm=""
            )
            for number, line in enumerate(lines):
                if len(diff) == DIFF_LINES:
                    diff.append(("same", "… (more lines of difference)"))
                    break
                diff.append((_diff_kind(line, number), line))
        text = recorded or ""
        yield CallRow(
            call.index,
            call.turn,
            call.tool,
            listed_arguments(call, ARGUMENT_CELLS),
            replay.status,
            replay.reason,
            None if recorded is None else len(recorded),
            text[:OUTPUT_CHARS],
            max(0, len(text) - OUTPUT_CHARS),
            diff,
            call.depth,
        )


def _diff_kind(line: str, number: int) -> str:
    if number < 2:
        return "head"
    return {"@": "hunk", "-": "del", "+": "add"}.get(line[:1], "same")


def _contexts(transcript: Transcript) -> list[AgentTurns]:
    """The main agent's turns, then each subagent's (in its own context)."""
    from agentpager.transcripts.context import agent_context, subagent_contexts, subagent_name

    contexts = [AgentTurns("", _turns(agent_context(transcript)))]
    for _source, starter, context in subagent_contexts(transcript):
        contexts.append(AgentTurns(subagent_name(starter, context.agent), _turns(context)))
    return contexts


def _turns(context: AgentContext) -> list[TurnRow]:
    fills = list(context.fills())
    widest = max((turn.window or turn.context for turn in fills), default=0) or 1
    return [
        TurnRow(
            turn.number,
            turn.context,
            turn.window,
            turn.outputs,
            turn.estimated,
            min(1.0, turn.context / (turn.window or widest)),
        )
        for turn in fills
    ]


def _conversation(transcript: Transcript) -> Iterator[Said]:
    for event in transcript.events:
        call = event.tool_call
        if event.kind == "call" and call is not None:
            arguments = (
                call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments, ensure_ascii=False)
            )
            text = f"{call.tool}({arguments})"
            yield Said(event.kind, event.prompt, text[:EVENT_CHARS], max(0, len(text) - EVENT_CHARS), call.index)
        else:
            yield Said(event.kind, event.prompt, event.text[:EVENT_CHARS], max(0, event.chars - EVENT_CHARS))


_MARKDOWN_SPECIALS = str.maketrans({char: "\\" + char for char in "\\`*_[]<>#|~"})


def markdown_text(value: Any) -> str:
    """A value as Markdown text on one line, inside a line (after ``# `` or ``- ``): the characters
    that make emphasis, code, links, tables or HTML there escaped, so a prompt shows as it was typed
    and none of it becomes markup."""
    return " ".join(str(value).split()).translate(_MARKDOWN_SPECIALS)


def _longest_backticks(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def markdown_code(value: Any) -> str:
    """A value as inline code on one line, between more backticks than any run of them in it."""
    text = " ".join(str(value).split())
    ticks = "`" * (_longest_backticks(text) + 1)
    return f"{ticks} {text} {ticks}"


def markdown_fence(text: str) -> str:
    """A fence longer than any run of backticks in ``text`` (so the text cannot close it)."""
    return "`" * max(3, _longest_backticks(text) + 1)
