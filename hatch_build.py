"""Builds the optional C newline counter (src/agentpager/engine/_newlines.c) into the wheel.

Compiled in place beside its source, so an editable install finds it too. Where no C compiler
works the wheel is built without it, and the line index counts with numpy instead.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = Path("src/agentpager/engine/_newlines.c")


class NewlineCounterHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        source = Path(self.root) / SOURCE
        built = source.with_name("_newlines" + sysconfig.get_config_var("EXT_SUFFIX"))
        link = ["-bundle", "-undefined", "dynamic_lookup"] if sys.platform == "darwin" else ["-shared"]
        compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
        command = [*compiler, "-O2", "-fPIC", *link, f"-I{sysconfig.get_paths()['include']}", str(source)]
        try:
            subprocess.run([*command, "-o", str(built)], check=True, capture_output=True, text=True)
        except (OSError, subprocess.CalledProcessError) as error:
            output = getattr(error, "stderr", "") or str(error)
            self.app.display_warning(f"agentpager: the C newline counter was not built; numpy counts instead.\n{output}")
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        build_data["force_include"][str(built)] = f"agentpager/engine/{built.name}"
