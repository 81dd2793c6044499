"""OpenCode (``opencode-ai`` on npm), as one package: everything agentpager knows of it.

- ``probe``: how it is installed and run against the mock, offline and with no project config;
- ``chat``: the OpenAI Chat Completions API its ``@ai-sdk/openai-compatible`` provider speaks;
- ``profile``, ``read``, ``search``: its ``read``, ``glob`` and ``grep`` tools over a workspace, equal
  to the goldens recorded from 1.18.33 (``tests/goldens/opencode``);
- ``sessions``: where it keeps its sessions (SQLite from 1.2, JSON files before) and how one is
  exported; ``transcript``: reading an exported session into calls.

Importing this package imports none of them.
"""

NAME = "opencode"
TITLE = "OpenCode"
