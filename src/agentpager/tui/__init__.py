"""The Textual TUI. It reads nothing itself: every byte comes through Workspace and FileView."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentpager.workspace import Workspace

if TYPE_CHECKING:
    from agentpager.config import Config
    from agentpager.transcripts import Transcript


def run(
    workspace: Workspace, open_path: str | None = None, theme: str | None = None, config: Config | None = None
) -> None:
    from agentpager.tui.app import AgentPagerApp

    AgentPagerApp(workspace, open_path, theme, config=config).run()


def run_transcript(
    transcript: Transcript, root: str | None = None, theme: str | None = None, config: Config | None = None
) -> None:
    from agentpager.tui.app import AgentPagerApp

    AgentPagerApp.for_transcript(transcript, root, theme, config).run()
