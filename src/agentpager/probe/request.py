"""The whole request an agent sent its model, in parts: the system prompt, the tool definitions, each
message; each part with its cl100k token count (``engine.tokens``: an estimate of what the model's
own tokenizer counts) and its share of a context window.

The probe keeps the request that carried the tool result (``ProbeResult.request()``); its agent's
API dialect says where each part is (``Dialect.sections``). No Textual here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agentpager.engine.tokens import count_tokens
from agentpager.probe.mock import Dialect


@dataclass(frozen=True)
class Part:
    label: str
    """``system prompt``, ``tools (12)``, ``messages (3)``, ``message 2 · user``."""
    text: str
    """What the part holds: its text, or its JSON."""
    tokens: int
    depth: int = 0
    """1 for a message under ``messages``."""

    def share(self, window: int) -> float:
        return self.tokens / window if window > 0 else 0.0


def _text(value: Any) -> str:
    """A text as it is; the API's text blocks joined; anything else as indented JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(b, dict) and set(b) >= {"text"} for b in value):
        return "\n\n".join(str(block["text"]) for block in value)
    return json.dumps(value, indent=2, ensure_ascii=False)


def parts_of(dialect: Dialect, body: Any) -> list[Part]:
    """The request's parts, in the order the model reads them; the messages also one by one."""
    sections = dialect.sections(body)
    system = "" if sections.system is None else _text(sections.system)
    tools = json.dumps(sections.tools, indent=2, ensure_ascii=False)
    messages = [(role, json.dumps(message, indent=2, ensure_ascii=False)) for role, message in sections.messages]
    each = [
        Part(f"message {number} · {role}", text, count_tokens(text), 1)
        for number, (role, text) in enumerate(messages, 1)
    ]
    return [
        Part("system prompt", system, count_tokens(system)),
        Part(f"tools ({len(sections.tools)})", tools, count_tokens(tools)),
        Part(f"messages ({len(each)})", "\n\n".join(text for _, text in messages), sum(p.tokens for p in each)),
        *each,
    ]
