"""The Codex CLI's tools, as its model sees them, equal to what the real programs sent it
(``tests/goldens/codex``).

- ``codex``: the newest (0.171.0, which answers as 0.169.0 did) ``exec_command`` (unified exec),
  answered in its ``Chunk ID`` / ``Wall time`` / ``Process exited with code`` / ``Original token
  count`` envelope; its ``login`` described as 0.171.0 describes it.
- ``codex@0.60``: 0.60.1's ``shell_command`` (a command line) and ``shell`` (an argv; also the
  ``local_shell`` and ``container.exec`` calls of other versions), answered ``Exit code`` /
  ``Wall time`` / ``Output`` or as JSON, as in pinouchon/rtchess's session.
- ``codex@read_file``: the ``read_file`` tool Codex offered only to internal test models.

Codex reads files with shell commands (``sed -n '1,200p' f``, ``cat``, ``nl -ba``, ``rg -n``): the
commands are emulated over the workspace (``agentpager.tools.shell``), never run. What changes from run to run (the wall time, the chunk id)
is ``AGENT.volatile`` (``__init__.py``).
"""

from __future__ import annotations

from agentpager.agents.codex.read_file import PROFILE as READ_FILE
from agentpager.agents.codex.shell import NEWEST, SHELL_TOOLS, V0_60

PROFILE = NEWEST
PROFILES = (NEWEST, V0_60, READ_FILE)

__all__ = ["PROFILE", "PROFILES", "SHELL_TOOLS"]
