"""The Textual TUI. It reads nothing itself: every byte comes through Workspace and FileView."""

from __future__ import annotations

from agentpager.workspace import Workspace


def run(workspace: Workspace, open_path: str | None = None, theme: str | None = None) -> None:
    from agentpager.tui.app import AgentPagerApp

    AgentPagerApp(workspace, open_path, theme).run()


def run_transcript(transcript, root: str | None = None, theme: str | None = None) -> None:  # noqa: ANN001
    from agentpager.tui.app import AgentPagerApp

    AgentPagerApp.for_transcript(transcript, root, theme).run()
