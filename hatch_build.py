"""Builds the optional C modules of the engine into the wheel: the newline counter
(src/agentpager/engine/_newlines.c) and the directory scan (src/agentpager/engine/_dirscan.c).

Compiled in place beside their sources, so an editable install finds them too. Where no C compiler
works the wheel is built without them: the line index counts with numpy instead, and directories
are read with os.scandir.
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

SOURCES = {
    Path("src/agentpager/engine/_newlines.c"): "the C newline counter was not built; numpy counts instead",
    Path("src/agentpager/engine/_dirscan.c"): "the C directory scan was not built; os.scandir reads instead",
}


class NativeModulesHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        link = ["-bundle", "-undefined", "dynamic_lookup"] if sys.platform == "darwin" else ["-shared"]
        compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
        for relative, fallback in SOURCES.items():
            source = Path(self.root) / relative
            built = source.with_name(source.stem + sysconfig.get_config_var("EXT_SUFFIX"))
            command = [*compiler, "-O2", "-fPIC", "-pthread", *link, f"-I{sysconfig.get_paths()['include']}", str(source)]
            try:
                subprocess.run([*command, "-o", str(built)], check=True, capture_output=True, text=True)
            except (OSError, subprocess.CalledProcessError) as error:
                output = getattr(error, "stderr", "") or str(error)
                self.app.display_warning(f"agentpager: {fallback}.\n{output}")
                continue
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
            build_data["force_include"][str(built)] = f"agentpager/engine/{built.name}"
