"""The Textual TUI. It reads nothing itself: every byte comes through Workspace and FileView.

A widget's messages are nested in it, as Textual's own are (``FileViewer.WindowChanged``,
``Tree.NodeSelected``), so no module of messages ties the widgets into a circle. They are
dataclasses, after toolong's ``messages.py``; one that reports progress or the latest state says,
with ``can_replace``, that a newer one of its kind makes it stale, and Textual then drops it from
the queue instead of handling every report of a fast scroll or a long scan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentpager.workspace import Workspace

if TYPE_CHECKING:
    from agentpager.config import Config
    from agentpager.demo import Demo
    from agentpager.transcripts import Transcript
    from agentpager.tui.app import AgentPagerApp


def run(
    workspace: Workspace,
    open_path: str | None = None,
    theme: str | None = None,
    config: Config | None = None,
    start_with_sessions: bool = False,
) -> None:
    from agentpager.tui.app import AgentPagerApp

    AgentPagerApp(workspace, open_path, theme, config=config, start_with_sessions=start_with_sessions).run()


def run_transcript(
    transcript: Transcript, root: str | None = None, theme: str | None = None, config: Config | None = None
) -> None:
    from agentpager.tui.app import AgentPagerApp

    AgentPagerApp.for_transcript(transcript, root, theme, config).run()


DEMO_WELCOME = """\
A shop's nightly export failed. Its {size} log is open; the panel shows the call an agent would \
make for it and the exact answer.
Try t (the agent's session), / (search), ? (every key)."""


def demo_app(demo: Demo, config: Config | None = None) -> AgentPagerApp:
    """The app on the demo, with the config's profile: its log open, its session offered on t, a note."""
    from agentpager.config import Config
    from agentpager.tui.app import AgentPagerApp

    config = config or Config()
    workspace = demo.workspace.with_profile(config.profile, config.profile_settings())
    app = AgentPagerApp(workspace, demo.log, config=config)
    app.offered_transcript = demo.session
    size = (demo.root / demo.log).stat().st_size
    app.welcome = DEMO_WELCOME.format(size=f"{size / 1e6:,.0f} MB" if size >= 1e6 else f"{size / 1e3:,.0f} kB")
    return app
