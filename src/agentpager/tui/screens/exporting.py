"""``E``: a session written as one HTML page (or Markdown, for a name ending in .md), from the
session browser or from the transcript shown."""

from __future__ import annotations

import os

from textual import work
from textual.screen import Screen

from agentpager.tui.screens.prompt import PromptScreen

EXPORT_SAID_FROM = 1000
"""An export of this many calls or more says it began (the 1 GB session's 89,342 took 100 s)."""


class ExportsSessions(Screen[object]):
    """A screen that exports the session at a path, asking where to."""

    async def ask_export(self, path: str, session_id: str) -> None:
        """Ask where to write the session at ``path`` (offering a page named after ``session_id``
        in the current directory), then write it in a worker."""
        default = os.path.join(os.getcwd(), f"{session_id or 'session'}.html")

        def named(answer: str | None) -> None:
            if answer is not None:
                self._export(path, os.path.expanduser(answer) or default)

        await self.app.push_screen(
            PromptScreen(
                "Export the session to (empty: the name shown)",
                default,
                lambda _: None,
                hint="A page with its calls, replay statuses, differences, context and conversation; .md for Markdown.",
            ),
            named,
        )

    @work(thread=True, group="export", exit_on_error=False, description="exporting a session")
    def _export(self, session: str, path: str) -> None:
        from agentpager.export import ExportError, export_session

        def started(done: int, calls: int) -> None:
            if done == 1 and calls >= EXPORT_SAID_FROM:  # a big session's export takes minutes
                self.notify(f"Replaying its {calls:,} calls for {path}…", title="Export", timeout=10)

        try:
            root = self.app.workspace.root.path  # type: ignore[attr-defined]
            export_session(session, path, "markdown" if path.endswith(".md") else "html", root, started)
        except (ExportError, OSError) as error:
            self.notify(f"Not exported: {error}", severity="error")
        else:
            self.notify(f"Wrote {path}", title="Export")
