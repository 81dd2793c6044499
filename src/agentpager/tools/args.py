"""Tool parameters: their JSON Schemas and the argument checks of contract section 9."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from agentpager.tools.errors import ToolError

ParamType = Literal["integer", "boolean", "string", "integers"]
"""``integers`` is a JSON array of integers (of any length: the tool checks how many it wants)."""


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The default of a parameter that must be given."""

_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")


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
        json_type = "array" if self.type == "integers" else self.type
        schema: dict[str, Any] = {"type": json_type if self.default is not None else [json_type, "null"]}
        if self.type == "integers":
            schema["items"] = {"type": "integer"}
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
        elif self.type == "boolean":
            if type(value) is bool:
                return value
        elif isinstance(value, str):
            return value
        expected = "an array of integers" if self.type == "integers" else self.type
        raise ToolError(f"Invalid value for '{self.name}': expected {expected}, got {_as_json(value)}.")


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
                raise ToolError(f"Unknown argument '{name}'. Valid arguments: {', '.join(names)}.")
        for param in self.params:
            if param.required and param.name not in arguments:
                raise ToolError(f"Missing required argument '{param.name}'.")
        return {
            param.name: param.coerce(arguments[param.name]) if param.name in arguments else param.default
            for param in self.params
        }
