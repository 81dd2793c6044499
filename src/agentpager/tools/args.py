"""Tool parameters: their JSON Schemas and the argument checks of contract section 9."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from agentpager.tools.errors import ToolError

ParamType = Literal["integer", "boolean", "string", "integers", "strings", "object"]
"""``integers`` and ``strings`` are JSON arrays (of any length: the tool checks how many it wants);
``object`` is a JSON object the tool reads itself."""


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The default of a parameter that must be given."""

_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
MAX_ECHO_CHARS = 200


def echoed(text: str) -> str:
    """``text`` as an error message quotes it: past MAX_ECHO_CHARS, its start and its length.

    Forge, Claude Code and Codex have no output guard: a 50,000-character value sent back whole
    would be the whole answer.
    """
    if len(text) <= MAX_ECHO_CHARS:
        return text
    return f"{text[:MAX_ECHO_CHARS]}… ({len(text):,} characters)"


@dataclass(frozen=True)
class Param:
    """One tool parameter. A default of ``None`` means "absent" is a valid value."""

    name: str
    type: ParamType
    description: str
    default: Any = REQUIRED
    minimum: int | None = None
    """Documents the range in the schema; the tool checks it itself, with its own message."""
    is_path: bool = False
    """A file or directory in the workspace (replay maps a transcript's absolute paths into it)."""

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def schema(self) -> dict[str, Any]:
        json_type = "array" if self.type in ("integers", "strings") else self.type
        schema: dict[str, Any] = {"type": json_type if self.default is not None else [json_type, "null"]}
        if self.type in ("integers", "strings"):
            schema["items"] = {"type": "integer" if self.type == "integers" else "string"}
        schema["description"] = self.description
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if not self.required:
            schema["default"] = self.default
        return schema

    def coerce(self, value: Any) -> Any:
        """The value this argument stands for, or ToolError naming what was expected."""
        if value is None and self.default is None:
            return None
        if self.type == "integer":
            number = _integer(value)
            if number is not None:
                return number
        elif self.type == "integers":
            if isinstance(value, str):  # as typed in a form: "[1, 20]"
                try:
                    value = json.loads(value)
                except ValueError:
                    pass
            if isinstance(value, list):
                numbers = [_integer(item) for item in value]
                if None not in numbers:
                    return numbers
        elif self.type == "strings":
            if isinstance(value, str):  # one path, or as typed in a form: '["a", "b"]'
                try:
                    value = json.loads(value) if value.startswith("[") else [value]
                except ValueError:
                    value = [value]
            if isinstance(value, list) and all(isinstance(item, str) for item in value):
                return value
        elif self.type == "object":
            if isinstance(value, str):
                try:
                    value = json.loads(value)
                except ValueError:
                    pass
            if isinstance(value, dict):
                return value
        elif self.type == "boolean":
            if type(value) is bool:
                return value
        elif isinstance(value, str):
            return value
        expected = {"integers": "an array of integers", "strings": "an array of strings"}.get(self.type, self.type)
        expected = "an object" if self.type == "object" else expected
        raise ToolError(f"Invalid value for '{self.name}': expected {expected}, got {echoed(_as_json(value))}.")


def _integer(value: Any) -> int | None:
    """An integer, or the integer a string of digits stands for; None for anything else."""
    if type(value) is int:
        return value
    if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value):
        try:
            return int(value)
        except ValueError:  # more digits than Python converts
            pass
    return None


def _as_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, TypeError):
        return repr(value)


@dataclass(frozen=True)
class ToolSpec:
    """A tool's name, description and parameters, in schema order."""

    name: str
    description: str
    params: tuple[Param, ...]

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {param.name: param.schema() for param in self.params},
            "required": [param.name for param in self.params if param.required],
            "additionalProperties": False,
        }

    def bind(self, arguments: Mapping[Any, Any]) -> dict[str, Any]:
        """Every parameter's value from ``arguments``; ToolError for the first problem found."""
        names = [param.name for param in self.params]
        for name in arguments:
            if name not in names:
                raise ToolError(f"Unknown argument '{echoed(str(name))}'. Valid arguments: {', '.join(names)}.")
        for param in self.params:
            if param.required and param.name not in arguments:
                raise ToolError(f"Missing required argument '{param.name}'.")
        return {
            param.name: param.coerce(arguments[param.name]) if param.name in arguments else param.default
            for param in self.params
        }
