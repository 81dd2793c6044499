"""What Codex makes of a command's output before its model reads it: the cuts and the envelopes.

Sources (openai/codex; the behaviour of the versions named was checked against the real binaries,
``tests/goldens/codex``):

- ``codex-rs/utils/string/src/truncate.rs``: ``truncate_middle_with_token_budget`` and
  ``truncate_middle_chars`` keep the whole characters within the first ``budget // 2`` bytes and
  the last ``budget - budget // 2`` bytes around ``…N tokens truncated…`` (N = the bytes over the
  budget / 4, rounded up) or ``…N chars truncated…`` (N = the characters left out); a token is 4
  bytes (``approx_token_count``).
- ``codex-rs/utils/output-truncation/src/lib.rs`` ``formatted_truncate_text``: over the budget, a
  ``Warning: truncated output (original token count: N)`` line (0.169.0; 0.60.1 has none) and
  ``Total output lines: L`` (Rust's ``str::lines``) before the cut text.
- ``codex-rs/core/src/tools/handlers/unified_exec.rs`` ``format_response`` (at 010d3e62; the
  repository is too large to fetch whole, so files are cited by function, at the one version the
  search index holds): ``exec_command``'s ``Chunk ID``, ``Wall time: {:.4} seconds``, ``Process
  exited with code``, ``Original token count`` (of the bytes the command wrote: 0.169.0 counts them
  before U+FFFD replaces invalid ones), ``Output:`` and the output, joined by newlines.
- ``codex-rs/core/src/unified_exec/head_tail_buffer.rs``: ``exec_command`` keeps the first and last
  512 KiB of an output over 1 MiB, joined by ``\\n... N bytes omitted ...\\n``; that line stands in
  for ``Total output lines`` (measured with 0.169.0).
- ``codex-rs/core/src/tools/mod.rs`` ``format_exec_output_for_model_freeform`` (``Exit code``,
  ``Wall time: {duration rounded to 0.1 s} seconds``, ``Total output lines`` when the cut changed
  the line count, ``Output:``) and ``_structured`` (``{"output", "metadata": {"exit_code",
  "duration_seconds"}}`` as serde_json writes it): 0.60.1's ``shell_command`` and ``shell``.

Wall time and chunk id change from run to run; answers here say ``0`` seconds and chunk ``000000``
(``AGENT.volatile`` in ``__init__.py`` names them, for comparing answers without them).
"""

from __future__ import annotations

import json
import math
from collections import deque
from dataclasses import dataclass

from agentpager.engine.lazytext import Text
from agentpager.tools.shell import ShellRun

BYTES_PER_TOKEN = 4
EXEC_MAX_TOKENS = 10_000
"""``exec_command``'s default ``max_output_tokens``, and its cap for gpt-5.5 (a larger request was
cut at 10,000 tokens too)."""
POLICY_LIMIT = 10_000
"""0.60.1's truncation policy for shell outputs: 10,000 tokens (codex models) or 10,000 bytes (others)."""
RETAINED_BYTES = 1 << 20
"""``exec_command``'s output buffer: the first and last half of this are kept."""
CHUNK_ID = "000000"
"""Stands for the random id of each ``exec_command`` output chunk (six hex digits)."""


@dataclass(frozen=True)
class Measured:
    """An output's sizes and the ends a middle cut keeps, found in one pass over it."""

    size: int
    """UTF-8 bytes."""
    chars: int
    lines: int
    """Lines as Rust's ``str::lines`` counts them (a last line without a newline counts)."""
    head: str
    """The whole characters within the first ``left`` bytes."""
    tail: str
    """The whole characters within the last ``right`` bytes."""


def measure(text: Text, left: int, right: int) -> Measured:
    """``text``'s size, characters, lines and its two ends (a lazy text is read once, a chunk at a time)."""
    if isinstance(text, str):
        data = text.encode()
        head = data[:left].decode("utf-8", "ignore")
        tail = data[len(data) - right :].decode("utf-8", "ignore") if right else ""
        return Measured(len(data), len(text), _lines(text.count("\n"), text[-1:]), head, tail)
    size = chars = newlines = 0
    last = ""
    head_parts: list[bytes] = []
    tail_parts: deque[bytes] = deque()
    tail_size = 0
    for chunk in text:
        encoded = chunk.encode()
        if size < left:
            head_parts.append(encoded[: left - size])
        size, chars, newlines = size + len(encoded), chars + len(chunk), newlines + chunk.count("\n")
        last = chunk[-1:] or last
        tail_parts.append(encoded)
        tail_size += len(encoded)
        while tail_parts and tail_size - len(tail_parts[0]) >= right:
            tail_size -= len(tail_parts.popleft())
    ending = b"".join(tail_parts)
    return Measured(
        size,
        chars,
        _lines(newlines, last),
        b"".join(head_parts).decode("utf-8", "ignore"),
        ending[len(ending) - right :].decode("utf-8", "ignore") if right else "",
    )


def _lines(newlines: int, last: str) -> int:
    return newlines + (1 if last and last != "\n" else 0)


def line_count(text: str) -> int:
    return _lines(text.count("\n"), text[-1:])


def tokens_of(size: int) -> int:
    """``approx_token_count``: 4 bytes a token, rounded up."""
    return math.ceil(size / BYTES_PER_TOKEN)


def cut_tokens(measured: Measured, budget: int, size: int | None = None) -> str:
    """The middle cut to ``budget`` bytes (a token budget times 4), counted in tokens; ``size`` is
    the length of the text cut when it is not the measured one (a buffer that dropped its middle)."""
    removed = tokens_of((measured.size if size is None else size) - budget)
    return f"{measured.head}…{removed} tokens truncated…{measured.tail}"


def cut_chars(measured: Measured, budget: int) -> str:
    """The middle cut to ``budget`` bytes, counted in the characters left out."""
    removed = measured.chars - len(measured.head) - len(measured.tail)
    return f"{measured.head}…{removed} chars truncated…{measured.tail}"


def exec_command_text(run: ShellRun, max_output_tokens: int | None) -> tuple[str, str]:
    """``exec_command``'s answer to a finished command (0.169.0), and why it may differ ("" when exact)."""
    tokens = min(EXEC_MAX_TOKENS if max_output_tokens is None else max(max_output_tokens, 0), EXEC_MAX_TOKENS)
    budget = tokens * BYTES_PER_TOKEN
    measured = measure(run.stdout, budget // 2, budget - budget // 2)
    uncertain = ""
    if measured.size <= budget:
        body = str(run.stdout)
    else:
        size, counted = measured.size, f"Total output lines: {measured.lines}"
        if run.stdout_bytes > RETAINED_BYTES:  # the buffer kept its two ends and a marker
            omitted = run.stdout_bytes - RETAINED_BYTES
            counted = f"... {omitted} bytes omitted ..."
            size = RETAINED_BYTES + len(f"\n{counted}\n")
            if "\ufffd" in measured.head + measured.tail or measured.size != run.stdout_bytes:
                uncertain = "the bytes Codex keeps of an output over 1 MiB that is not UTF-8 are not known exactly"
        warning = f"Warning: truncated output (original token count: {tokens_of(measured.size)})"
        body = f"{warning}\n{counted}\n\n{cut_tokens(measured, budget, size)}"
    sections = (
        f"Chunk ID: {CHUNK_ID}",
        "Wall time: 0.0000 seconds",
        f"Process exited with code {run.exit_code}",
        f"Original token count: {tokens_of(run.stdout_bytes)}",
        "Output:",
        body,
    )
    return "\n".join(sections), uncertain


def policy_cut(text: Text, in_tokens: bool) -> tuple[str, int, bool]:
    """0.60.1's cut of a shell output (10,000 tokens or bytes): the text shown, the output's line
    count, and whether it was cut."""
    budget = POLICY_LIMIT * (BYTES_PER_TOKEN if in_tokens else 1)
    measured = measure(text, budget // 2, budget - budget // 2)
    if measured.size <= budget:
        return str(text), measured.lines, False
    return (cut_tokens if in_tokens else cut_chars)(measured, budget), measured.lines, True


def freeform_text(run: ShellRun, in_tokens: bool) -> str:
    """0.60.1's ``Exit code``/``Wall time``/``Output`` answer."""
    shown, lines, _ = policy_cut(run.stdout, in_tokens)
    sections = [f"Exit code: {run.exit_code}", "Wall time: 0 seconds"]
    if lines != line_count(shown):
        sections.append(f"Total output lines: {lines}")
    return "\n".join([*sections, "Output:", shown])


def structured_text(run: ShellRun, in_tokens: bool) -> str:
    """0.60.1's JSON answer (models offered ``shell``): ``Total output lines`` before a cut output."""
    shown, lines, cut = policy_cut(run.stdout, in_tokens)
    output = f"Total output lines: {lines}\n\n{shown}" if cut else shown
    payload = {"output": output, "metadata": {"exit_code": run.exit_code, "duration_seconds": 0.0}}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
