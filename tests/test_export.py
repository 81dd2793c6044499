"""Sharing a session: one self-contained HTML page (hostile text escaped) or Markdown, written as
the template makes it while the calls are replayed one at a time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentpager.export import export_session, markdown_code, markdown_fence, markdown_text, render
from agentpager.transcripts import open_transcript
from agentpager.transcripts.replay import Replayer

CWD = "/home/me/shop"
HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


def line(kind: str, **fields: object) -> str:
    record = {"type": kind, "cwd": CWD, "sessionId": "s1", "version": "2.1.84", "timestamp": "2026-01-01T10:00:00Z"}
    return json.dumps(record | fields) + "\n"


def call(call_id: str, tool: str, arguments: dict, context: int) -> str:
    content = [{"type": "tool_use", "id": call_id, "name": tool, "input": arguments}]
    usage = {"input_tokens": 0, "cache_read_input_tokens": context, "output_tokens": 1}
    message = {"id": call_id, "role": "assistant", "model": "claude-x", "content": content, "usage": usage}
    return line("assistant", message=message)


def result(call_id: str, text: str) -> str:
    return line(
        "user", message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": text}]}
    )


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, Path]:
    """A session of two reads of a.txt (the first is the same replayed, the second differs), and the
    workspace to replay it against."""
    root = tmp_path / "shop"
    root.mkdir()
    (root / "a.txt").write_text("alpha\nbeta\n")
    session = tmp_path / "s1.jsonl"
    session.write_text(
        line("user", message={"role": "user", "content": "Check | a.txt *now*"})
        + call("a", "Read", {"file_path": f"{CWD}/a.txt"}, 100)
        + result("a", "     1→alpha\n     2→beta\n     3→")
        + call("b", "Read", {"file_path": f"{CWD}/a.txt", "offset": 2}, 150)
        + result("b", "     2→gamma ``` \n     3→")
    )
    return session, root


def test_markdown(shop: tuple[Path, Path], tmp_path: Path) -> None:
    session, root = shop
    out = tmp_path / "s1.md"
    export_session(str(session), str(out), "markdown", str(root))
    assert (
        out.read_text()
        == f"""# Check \\| a.txt \\*now\\*

- Session: ` {session} `
- Agent: claude-code 2.1.84
- Model: claude-x
- Directory: ` /home/me/shop `
- Time: 2026-01-01T10:00:00Z to 2026-01-01T10:00:00Z
- Calls: 2, replayed against ` {root} `

## Calls

### \\#0 Read: same

Turn 1, arguments ` file_path="a.txt" `

Recorded, 32 characters:

```
     1→alpha
     2→beta
     3→
```

### \\#1 Read: differs

Turn 2, arguments ` file_path="a.txt" offset=2 `

Recorded, 25 characters:

````
     2→gamma ``` 
     3→
````

Recorded against replayed now:

````diff
--- recorded
+++ replayed now
@@ -1,2 +1,2 @@
-     2→gamma ``` 
+     2→beta
      3→
````

## Context

| turn | context | window | tool outputs |
| ---: | ---: | ---: | ---: |
| 1 | 100 | 200,000 | 0 |
| 2 | 150 | 200,000 | 23 |

## Conversation

**prompt**, prompt 1:

```
Check | a.txt *now*
```

**call \\#0**, prompt 1, same:

```
Read({{"file_path": "/home/me/shop/a.txt"}})
```

**call \\#1**, prompt 1, differs:

```
Read({{"file_path": "/home/me/shop/a.txt", "offset": 2}})
```

"""
    )


def test_the_page_escapes_what_the_session_holds(tmp_path: Path) -> None:
    session = tmp_path / "hostile.jsonl"
    session.write_text(
        line("user", message={"role": "user", "content": f"prompt {HOSTILE}"})
        + call("a", f"Tool{HOSTILE}", {"file_path": HOSTILE}, 100)
        + result("a", f"output {HOSTILE}")
    )
    out = tmp_path / "page.html"
    export_session(str(session), str(out), "html", str(tmp_path))
    page = out.read_text()
    assert "<script" not in page and "<img" not in page
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img src=x onerror=alert(2)&gt;"
    assert f"prompt {escaped}" in page and f"output {escaped}" in page and f"Tool{escaped}" in page
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")


def test_markdown_keeps_text_as_text() -> None:
    assert markdown_text("a *b* | <i>c</i> `d`") == "a \\*b\\* \\| \\<i\\>c\\</i\\> \\`d\\`"
    assert markdown_code("x ``y`` z") == "``` x ``y`` z ```"
    assert markdown_fence("no ticks") == "```" and markdown_fence("````") == "`````"


def test_the_page_is_written_while_the_calls_are_replayed(
    shop: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    session, root = shop
    transcript = open_transcript(str(session))
    replayed = []
    replay = Replayer.replay

    def noted(self: Replayer, call):  # noqa: ANN001, ANN202 - Replayer.replay, counted
        replayed.append(call.index)
        return replay(self, call)

    monkeypatch.setattr(Replayer, "replay", noted)
    pieces = render(transcript, "html", str(root))
    written = ""
    while '<td class="n">0</td>' not in written:
        written = "".join([written, next(pieces)])  # pieces are str or Markup: + would escape the str
    assert replayed == [0], "the first call's row is out before the second call is replayed"
    assert "".join(pieces).rstrip().endswith("</html>") and replayed == [0, 1]


def test_what_a_log_does_not_say_is_left_out(tmp_path: Path) -> None:
    """A stream-json run logs no times, a ``codex exec --json`` log no model or directory either: the
    page said ``Time:  to`` (``<dd> – </dd>``) and named an empty model and directory."""
    sessions = Path(__file__).parent / "sessions"
    facts = {}
    for name in ("claude-stream-subagent", "codex-exec-review"):
        export_session(str(sessions / f"{name}.jsonl"), str(tmp_path / "s.md"), "markdown", str(tmp_path))
        head = (tmp_path / "s.md").read_text().split("\n## Calls\n")[0]
        export_session(str(sessions / f"{name}.jsonl"), str(tmp_path / "s.html"), "html", str(tmp_path))
        page = (tmp_path / "s.html").read_text()
        facts[name] = [line[2:].split(":")[0] for line in head.splitlines() if line.startswith("- ")]
        terms = ("Session", "Agent", "Model", "Directory", "Time", "Calls")
        assert facts[name] == [term for term in terms if f"<dt>{term}</dt>" in page], "the page says the same"
    assert facts == {
        "claude-stream-subagent": ["Session", "Agent", "Model", "Directory", "Calls"],
        "codex-exec-review": ["Session", "Agent", "Calls"],
    }


def test_a_subagent_has_its_own_context_table(tmp_path: Path) -> None:
    """The Context part held the main agent's turns only: a Task's subagent's went unsaid (a real
    run's four subagents: 215 of its 251 turns)."""
    session = Path(__file__).parent / "sessions" / "claude-stream-subagent.jsonl"
    export_session(str(session), str(tmp_path / "s.md"), "markdown", str(tmp_path))
    context = (tmp_path / "s.md").read_text().split("\n## Context\n\n")[1].split("\n## Conversation\n")[0]
    table = "| turn | context | window | tool outputs |\n| ---: | ---: | ---: | ---: |\n"
    assert context == (
        f"{table}| 1 | 35,181 | 200,000 | 0 |\n| 2 | 40,547 | 200,000 | 4,921 |\n\n"
        f"### The subagent of call \\#0, in its own context\n\n{table}| 1 | 11,730 | 200,000 | 0 |\n"
    )
    export_session(str(session), str(tmp_path / "s.html"), "html", str(tmp_path))
    page = (tmp_path / "s.html").read_text()
    assert page.count("<h3>The subagent of call #0, in its own context</h3>\n<table>") == 1
    assert page.count('<td class="n">11,730</td>') == 1


def test_the_export_command(shop: tuple[Path, Path], tmp_path: Path) -> None:
    session, root = shop
    env = os.environ | {"AGENTPAGER_CACHE_DIR": str(tmp_path / "cache")}
    out = tmp_path / "out.html"
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "export", str(session), "--html", str(out), "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert (done.returncode, done.stderr) == (0, f"agentpager: wrote {out}\n")
    assert '<td class="same">same</td>' in out.read_text()
    home = tmp_path / "home"
    projects = home / ".claude" / "projects" / "p"
    projects.mkdir(parents=True)
    (projects / "s1.jsonl").write_text(session.read_text())
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "export", "s1", "--home", str(home), "--markdown", str(tmp_path / "o.md")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=root,
    )
    assert done.returncode == 0 and (tmp_path / "o.md").read_text().startswith("# Check \\| a.txt \\*now\\*\n")
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "export", "nope", "--home", str(home), "--html", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert (done.returncode, done.stderr) == (
        2,
        "agentpager: nope: not a file, and no session has that id (agentpager sessions lists them).\n",
    )


def test_an_export_tells_how_far_it_is_and_the_command_says_it_on_a_terminal(
    shop: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from agentpager import cli

    session, root = shop
    told: list[tuple[int, int]] = []
    export_session(str(session), str(tmp_path / "s1.md"), "markdown", str(root), lambda *how_far: told.append(how_far))
    assert told == [(1, 2), (2, 2)]

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = tmp_path / "out.html"
    monkeypatch.setattr(cli, "TELL_SECONDS", 3600.0)  # the first call only is told
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert cli.main(["export", str(session), "--html", str(out), "--root", str(root)]) == 0
    assert sys.stderr.getvalue() == (
        f"\ragentpager: replaying the calls for {out}: 1 of 2 \r\x1b[Kagentpager: wrote {out}\n"
    )


def test_a_page_that_cannot_be_written_is_named_as_asked(shop: tuple[Path, Path], tmp_path: Path) -> None:
    """Not as the temporary file written first (``x.html.partial-6926``), and nothing is left behind."""
    from agentpager.export import ExportError

    session, root = shop
    out = tmp_path / "missing" / "x.html"
    with pytest.raises(ExportError) as raised:
        export_session(str(session), str(out), "html", str(root))
    assert str(raised.value) == f"cannot write {out}: No such file or directory"
    (tmp_path / "taken").mkdir()
    with pytest.raises(ExportError, match="^cannot write .*taken: Is a directory$"):
        export_session(str(session), str(tmp_path / "taken"), "html", str(root))
    assert not list(tmp_path.glob("taken.partial-*"))
