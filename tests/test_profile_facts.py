"""What each profile says about a viewer's window, a call's coverage, listings and recorded calls.

Nothing above the tools asks which profile it has: a test below reads the code to check it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import agentpager
from agentpager import Workspace
from agentpager.agents import AGENTS
from agentpager.profiles import all_profiles, profile_names
from agentpager.tools.base import Coverage, RecordedCall


@pytest.fixture
def big(root: Path) -> Path:
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 1001)))
    (root / "é.txt").write_text("ééé\nb\n")
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    return root


def chars_before(line: int) -> int:
    return sum(len(f"line {n}\n") for n in range(1, line))


def read_call(root: Path, profile: str, lines: tuple[int, int] | None) -> tuple[str, dict]:
    workspace = Workspace(root, profile)
    view = workspace.open_view("big.txt")
    return workspace.read_call("big.txt", view, lines) if lines else workspace.read_call("big.txt")


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("qq", ("read_file", {"path": "big.txt", "start_line": 450})),
        ("crush", ("file_read", {"filename": "big.txt", "start_line": 450, "end_line": 500})),
        ("vault", ("read_file", {"path": "big.txt", "offset": chars_before(450)})),
        ("forge", ("fs_read", {"path": "big.txt", "start_byte": chars_before(450), "end_byte": chars_before(501)})),
        ("claude-code", ("Read", {"file_path": "big.txt", "offset": 450, "limit": 51})),
        ("codex@read_file", ("read_file", {"file_path": "big.txt", "offset": 450, "limit": 51})),
    ],
)
def test_the_call_for_the_lines_on_screen(big: Path, profile: str, expected: tuple) -> None:
    assert read_call(big, profile, (450, 500)) == expected
    tool, arguments = expected
    assert read_call(big, profile, None) == (tool, {next(iter(arguments)): "big.txt"})


@pytest.mark.parametrize(
    ("profile", "tool", "argument"), [("codex", "exec_command", "cmd"), ("codex@0.60", "shell_command", "command")]
)
def test_codex_reads_with_sed(big: Path, profile: str, tool: str, argument: str) -> None:
    """A Codex model reads a window with ``sed -n 'A,Bp'`` (200 lines when it has no window in mind)."""
    assert read_call(big, profile, (450, 500)) == (tool, {argument: "sed -n '450,500p' big.txt"})
    assert read_call(big, profile, None) == (tool, {argument: "sed -n '1,200p' big.txt"})
    assert Workspace(big, profile).read_call("a b.txt") == (tool, {argument: "sed -n '1,200p' 'a b.txt'"})


def test_forge_reads_at_most_one_range_of_the_lines_on_screen(big: Path) -> None:
    (big / "wide.txt").write_text("".join("x" * 999 + "\n" for _ in range(200)))
    workspace = Workspace(big, "forge")
    assert workspace.read_call("wide.txt", workspace.open_view("wide.txt"), (2, 150)) == (
        "fs_read",
        {"path": "wide.txt", "start_byte": 1000, "end_byte": 1000 + 65536},
    )


def test_forge_gives_a_plain_call_for_text_it_refuses(big: Path) -> None:
    (big / "utf16.txt").write_bytes("a\nb\n".encode("utf-16"))
    workspace = Workspace(big, "forge")
    assert workspace.read_call("utf16.txt", workspace.open_view("utf16.txt"), (1, 2)) == (
        "fs_read",
        {"path": "utf16.txt"},
    )


@pytest.mark.parametrize(
    ("profile", "tool", "arguments", "expected"),
    [
        ("qq", "read_file", {"path": "./big.txt", "start_line": 450}, Coverage("big.txt", 450, 649)),
        ("qq", "read_file", {"path": "big.txt", "start_line": 990, "num_lines": 50}, Coverage("big.txt", 990, 1000)),
        ("qq", "read_file", {"path": "big.txt"}, Coverage("big.txt", 1, 200)),
        ("crush", "file_read", {"filename": "big.txt"}, Coverage("big.txt", 1, 1000)),
        ("crush", "file_read", {"filename": "big.txt", "start_line": 7, "end_line": 9}, Coverage("big.txt", 7, 9)),
        ("claude-code", "Read", {"file_path": "big.txt", "offset": 998}, Coverage("big.txt", 998, 1000)),
        ("claude-code", "Read", {"file_path": "big.txt", "limit": 3}, Coverage("big.txt", 1, 3)),
        ("codex@read_file", "read_file", {"file_path": "big.txt", "offset": 5, "limit": 2}, Coverage("big.txt", 5, 6)),
        ("codex", "exec_command", {"cmd": "sed -n '5,6p' big.txt"}, Coverage("big.txt", 5, 6)),
        ("codex", "exec_command", {"cmd": "sed -n 995,2000p ./big.txt"}, Coverage("big.txt", 995, 1000)),
        ("codex", "exec_command", {"cmd": "sed -n '7p' big.txt"}, Coverage("big.txt", 7, 7)),
        ("codex", "exec_command", {"cmd": "cat big.txt"}, Coverage("big.txt", 1, 1000)),
        ("codex", "exec_command", {"cmd": "head -n 3 big.txt"}, Coverage("big.txt", 1, 3)),
        ("codex", "exec_command", {"cmd": "head big.txt"}, Coverage("big.txt", 1, 10)),
        ("codex", "exec_command", {"cmd": "nl -ba big.txt | sed -n '10,12p'"}, Coverage("big.txt", 10, 12)),
        (
            "codex@0.60",
            "shell_command",
            {"command": "sed -n '2,$p' big.txt", "workdir": "."},
            Coverage("big.txt", 2, 1000),
        ),
        (
            "vault",
            "read_file",
            {"path": "big.txt", "offset": chars_before(450) + 2, "length": 20},
            Coverage("big.txt", 450, 452, "char", chars_before(450) + 2, chars_before(450) + 22),
        ),
        (
            "forge",
            "fs_read",
            {"path": "big.txt", "start_byte": chars_before(10), "end_byte": chars_before(12)},
            Coverage("big.txt", 10, 11, "byte", chars_before(10), chars_before(12)),
        ),
        ("forge", "fs_read", {"path": "é.txt", "start_byte": 1}, Coverage("é.txt", 1, 2, "byte", 1, 9)),
    ],
)
def test_what_a_call_covers(big: Path, profile: str, tool: str, arguments: dict, expected: Coverage) -> None:
    assert Workspace(big, profile).coverage(tool, arguments) == expected


@pytest.mark.parametrize(
    ("profile", "tool", "arguments"),
    [
        ("qq", "list_files", {}),
        ("qq", "read_file", {"path": "image.png"}),
        ("qq", "read_file", {"path": "missing.txt"}),
        ("qq", "read_file", {"path": "big.txt", "start_line": "x"}),
        ("qq", "no_such_tool", {}),
        ("vault", "read_file", {"path": ".git/config"}),
        ("codex", "exec_command", {"cmd": "rg -n line big.txt"}),
        ("codex", "exec_command", {"cmd": "sed -n '5,6p' big.txt missing.txt"}),
        ("codex", "exec_command", {"cmd": "sed -n '5,6p' big.txt | head -n 1"}),
        ("codex", "exec_command", {"cmd": "sed -n '9,6p' big.txt"}),
        ("codex", "exec_command", {"cmd": "cat missing.txt"}),
    ],
)
def test_calls_that_cover_nothing(big: Path, profile: str, tool: str, arguments: dict) -> None:
    assert Workspace(big, profile).coverage(tool, arguments) is None


def test_the_listing_call_for_a_directory_page(big: Path) -> None:
    assert Workspace(big).listing_call("many", 100) == ("list_files", {"path": "many", "offset": 100, "limit": 100})
    for profile in ("forge", "crush", "vault", "claude-code", "codex@read_file"):
        assert Workspace(big, profile).listing_call("many", 0) is None
    assert Workspace(big, "codex").listing_call("many", 100) == ("exec_command", {"cmd": "ls many | tail -n +101"})
    assert Workspace(big, "codex@0.60").listing_call("a b") == ("shell_command", {"command": "ls 'a b'"})


def claimant(
    tool: str, arguments: dict, output: str | None = None, cwd: str | None = None, agent: str = ""
) -> tuple | None:
    recorded = RecordedCall(tool, arguments, output, agent, cwd=cwd)
    for profile in all_profiles():
        if (claim := profile.claim(recorded)) is not None:
            return profile.name, claim.tool, claim.arguments, claim.settings
    return None


@pytest.mark.parametrize(
    ("tool", "arguments", "output", "expected"),
    [
        ("read_file", {"path": "a", "start_line": 3}, None, "qq"),
        ("read_file", {"path": "a"}, None, "qq"),
        ("read_file", {"path": "a"}, "[File: a | Lines 1-2 of 2]", "qq"),
        ("read_file", {"path": "a"}, "Error: File 'a' does not exist.", "qq"),
        ("read_file", {"path": "a"}, "just the note", "vault"),
        ("read_file", {"path": "a", "offset": 4000}, "[Continuing from char 4000", "vault"),
        ("read_file", {"file_path": "a", "offset": 2}, "L2: x", "codex@read_file"),
        ("list_files", {"pattern": "*.py", "recursive": True}, None, "qq"),
        ("count_files", {}, None, "qq"),
        ("fs_read", {"path": "a", "start_byte": 0}, None, "forge"),
        ("file_read", {"filename": "a"}, None, "crush"),
        ("Read", {"file_path": "a"}, "1\tx", "claude-code"),
    ],
)
def test_which_profile_replays_a_recorded_call(tool: str, arguments: dict, output: str | None, expected: str) -> None:
    found = claimant(tool, arguments, output)
    assert found is not None and found[0] == expected


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [("Bash", {"command": "ls"}), ("read_file", {"path": "a", "encoding": "utf-8"}), ("Edit", {"file_path": "a"})],
)
def test_calls_no_profile_replays(tool: str, arguments: dict) -> None:
    assert claimant(tool, arguments) is None


@pytest.mark.parametrize(
    ("agent", "tool", "arguments", "output", "expected"),
    [
        (
            "codex",
            "exec_command",
            {"cmd": "ls"},
            None,
            ("codex", "exec_command", {"cmd": "ls"}, {"recorded_cwd": "/home/me/proj"}),
        ),
        (
            "codex",
            "shell_command",
            {"command": "ls", "workdir": "/home/me/proj/src", "timeout_ms": 1000},
            "Exit code: 0\nWall time: 0 seconds\nOutput:\n",
            (
                "codex@0.60",
                "shell_command",
                {"command": "ls", "workdir": "src", "timeout_ms": 1000},
                {"envelope": "text", "recorded_cwd": "/home/me/proj"},
            ),
        ),
        (
            "codex",
            "shell",
            {"command": ["cat", "a"]},
            '{"output":"…9 chars truncated…","metadata":{"exit_code":0,"duration_seconds":0.0}}',
            (
                "codex@0.60",
                "shell",
                {"command": ["cat", "a"]},
                {"envelope": "json", "truncation": "bytes", "recorded_cwd": "/home/me/proj"},
            ),
        ),
        (
            "codex",
            "local_shell",
            {"type": "exec", "command": ["ls"], "working_directory": "/home/me/proj/src"},
            None,
            ("codex@0.60", "shell", {"command": ["ls"], "workdir": "src"}, {"recorded_cwd": "/home/me/proj"}),
        ),
        (
            "claude-code",
            "Bash",
            {"command": "ls", "description": "List files"},
            "a\n\n<system-reminder>\n<total_tokens>999 tokens left</total_tokens>\n</system-reminder>",
            (
                "claude-code",
                "Bash",
                {"command": "ls", "description": "List files"},
                {"tokens_left": 999, "recorded_cwd": "/home/me/proj"},
            ),
        ),
        ("codex", "exec_command", {"cmd": "ls", "session_id": 3}, None, None),
        ("openai", "shell", {"command": ["ls"]}, None, None),
    ],
)
def test_shell_calls_are_claimed_by_their_agents_profiles(
    agent: str, tool: str, arguments: dict, output: str | None, expected: tuple | None
) -> None:
    assert claimant(tool, arguments, output, cwd="/home/me/proj", agent=agent) == expected


def test_a_claim_maps_paths_under_the_cwd_and_reads_settings_off_the_output() -> None:
    reminder = "Whenever you read a file, you should consider whether it looks malicious."
    output = f"     1→x\n\n<system-reminder>\n{reminder}\n</system-reminder>\n"
    assert claimant("Read", {"file_path": "/home/me/proj/src/a.py"}, output, cwd="/home/me/proj") == (
        "claude-code",
        "Read",
        {"file_path": "src/a.py"},
        {"line_format": "arrow", "reminder": reminder},
    )
    assert claimant("list_files", {"path": "/home/me/proj2"}, cwd="/home/me/proj") == (
        "qq",
        "list_files",
        {"path": "/home/me/proj2"},
        {},
    )


AGENT_PACKAGES = {agent.profiles_at.split(".")[2] for agent in AGENTS}
"""The agents' package names (``claude_code``...): each package may name its own agent."""


def _names_of_profiles_and_agents(source: str) -> list[int]:
    """Lines where code branches on a profile's name or an agent's id (``== "qq"``, ``in ("vault",
    ...)``, a ``case``) or keeps a table by them (a dict keyed by ``"codex"``), or names an agent's
    own module (``import agentpager.agents.codex``, ``"agentpager.agents.codex.profiles"``)."""
    names = set(profile_names()) | {agent.id for agent in AGENTS}
    modules = tuple(f"agentpager.agents.{package}" for package in AGENT_PACKAGES)
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                constants = operand.elts if isinstance(operand, ast.Tuple | ast.List | ast.Set) else [operand]
                if any(isinstance(c, ast.Constant) and c.value in names for c in constants):
                    found.append(node.lineno)
        if isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue):
            value = node.pattern.value
            if isinstance(value, ast.Constant) and value.value in names:
                found.append(value.lineno)
        if isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value in names for k in node.keys):
            found.append(node.lineno)
        imported = (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [f"{node.module}.{alias.name}" for alias in node.names]
            if isinstance(node, ast.ImportFrom)
            else [node.value]
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            else []
        )
        if any(
            name == module or name.startswith((module + ".", module + ":")) for name in imported for module in modules
        ):
            found.append(node.lineno)
    return sorted(set(found))


def test_nothing_above_the_agents_names_a_profile_or_an_agent() -> None:
    """Profiles' names and agents' ids are theirs: nothing but the contract's profiles (``tools``) and
    the agents' own packages says them, but the list of agents (``agents/__init__.py``) names the packages."""
    package = Path(agentpager.__file__).parent
    offenders = {
        str(path.relative_to(package)): lines
        for path in package.rglob("*.py")
        if not _owns_names(path.relative_to(package))
        and (lines := _names_of_profiles_and_agents(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


def _owns_names(path: Path) -> bool:
    """The contract's profiles, each agent's package, and the list of agents (which imports them)."""
    parts = path.parts
    return parts[0] == "tools" or (parts[0] == "agents" and (parts[1] in AGENT_PACKAGES or parts[1] == "__init__.py"))


def test_the_check_finds_names_of_profiles_and_agents() -> None:
    source = (
        'if profile == "vault":\n    pass\nok = p in ("qq", "x")\nshort = {"gemini-cli": "gemini"}\n'
        "from agentpager.agents.codex.shell import SHELL_TOOLS\nlater = 'agentpager.agents.codex.profiles:PROFILES'\n"
    )
    assert _names_of_profiles_and_agents(source) == [1, 3, 4, 5, 6]


def test_the_listing_call_an_agent_makes_first(big: Path) -> None:
    assert Workspace(big).listing_call("many") == ("list_files", {"path": "many"})


@pytest.mark.parametrize(
    ("profile", "path", "expected"),
    [
        ("vault", ".git", "Access to '.git' is not allowed."),
        ("vault", "notes/.obsidian/app.json", "Access to 'notes/.obsidian/app.json' is not allowed."),
        ("vault", ".trash", "Access to '.trash' is not allowed."),
        ("vault", "notes/.gitignore", None),
        ("qq", ".git", None),
        ("crush", ".obsidian", None),
    ],
)
def test_paths_a_profile_refuses(big: Path, profile: str, path: str, expected: str | None) -> None:
    assert Workspace(big, profile).refuses(path) == expected
    if expected:  # the read tool's own answer, whether the path exists or not
        assert Workspace(big, profile).call("read_file", {"path": path}).text == f"Error: {expected}"


@pytest.mark.parametrize(
    ("profile", "tool", "before", "after", "expected"),
    [
        (
            "crush",
            "file_read",
            {"filename": "a", "start_line": 1, "end_line": 40},
            {"filename": "a", "start_line": 450, "end_line": 40},
            {"filename": "a", "start_line": 450, "end_line": 489},
        ),
        (
            "crush",
            "file_read",
            {"filename": "a", "start_line": 1, "end_line": 40},
            {"filename": "a", "start_line": 1, "end_line": 90},
            {"filename": "a", "start_line": 1, "end_line": 90},
        ),
        (
            "crush",
            "file_read",
            {"filename": "a", "end_line": 40},
            {"filename": "a", "start_line": 30, "end_line": 40},
            {"filename": "a", "start_line": 30, "end_line": 40},
        ),
        (
            "forge",
            "fs_read",
            {"path": "a", "start_byte": 100, "end_byte": 300},
            {"path": "a", "start_byte": 1000, "end_byte": 300},
            {"path": "a", "start_byte": 1000, "end_byte": 1200},
        ),
        (
            "qq",
            "read_file",
            {"path": "a", "start_line": 1, "num_lines": 50},
            {"path": "a", "start_line": 450, "num_lines": 50},
            {"path": "a", "start_line": 450, "num_lines": 50},
        ),
    ],
)
def test_moving_a_windows_start_moves_its_end(
    big: Path, profile: str, tool: str, before: dict, after: dict, expected: dict
) -> None:
    assert Workspace(big, profile).after_edit(tool, before, after) == expected


def test_crush_start_line_past_the_old_end_line_is_not_an_error(big: Path) -> None:
    workspace = Workspace(big, "crush")
    before = {"filename": "big.txt", "start_line": 1, "end_line": 40}
    edited = workspace.after_edit("file_read", before, before | {"start_line": 450})
    assert workspace.call("file_read", edited).text.startswith("# File: big.txt (Lines 450-489)\n")


@pytest.mark.parametrize(
    ("profile", "tool", "arguments", "cut"),
    [
        # Cut at 300 characters, back to the last line break when one is in the last fifth.
        ("qq", "read_file", {"path": "big.txt", "start_line": 1}, (22, 7)),
        ("qq", "read_file", {"path": "big.txt", "start_line": 450}, (467, 8)),
        ("crush", "file_read", {"filename": "big.txt", "start_line": 1, "end_line": 100}, (34, 7)),
        ("vault", "read_file", {"path": "big.txt", "offset": 0}, (38, 7)),
        ("vault", "read_file", {"path": "big.txt", "offset": chars_before(450) + 3}, (478, 8)),
        # Inside a line: 300 minus the header (132, 22, 39 characters) are shown of it.
        ("qq", "read_file", {"path": "wide.txt", "start_line": 2}, (2, 168)),
        ("crush", "file_read", {"filename": "wide.txt"}, (1, 278)),
        ("vault", "read_file", {"path": "wide.txt", "offset": 1003}, (2, 2 + 261)),
    ],
)
def test_where_the_output_guard_cuts_in_the_file(
    big: Path, profile: str, tool: str, arguments: dict, cut: tuple[int, int]
) -> None:
    (big / "wide.txt").write_text("".join(f"{n:04d}" + "x" * 996 + "\n" for n in range(1, 201)))
    workspace = Workspace(big, profile, max_output_chars=300)
    result = workspace.call(tool, arguments)
    assert result.truncated
    coverage = workspace.coverage(tool, arguments, result.text)
    assert coverage is not None and coverage.cut == cut
    line, column = cut
    with workspace.open_view(coverage.path).open() as reader:
        shown_of_line = str(reader.lines_text(line, line))[:column]
    kept = result.text[: result.text.index("\n\n[OUTPUT TRUNCATED]")]
    assert kept.endswith(shown_of_line[-12:]), "the output ends where the cut falls in that line"


def test_outputs_that_do_not_hold_the_text_as_it_is_have_no_cut(big: Path) -> None:
    workspace = Workspace(big, "claude-code")
    result = workspace.call("Read", {"file_path": "big.txt", "limit": 5})
    coverage = workspace.coverage("Read", {"file_path": "big.txt", "limit": 5}, result.text)
    assert coverage == Coverage("big.txt", 1, 5)


@pytest.mark.parametrize(
    ("offset", "unit", "expected"),
    [(0, "char", (1, 0)), (2, "char", (1, 2)), (4, "char", (2, 0)), (2, "byte", (1, 1)), (7, "byte", (2, 0))],
)
def test_a_views_positions_of_offsets(big: Path, offset: int, unit: str, expected: tuple[int, int]) -> None:
    view = Workspace(big).open_view("é.txt")  # "ééé\nb\n": é takes two bytes
    assert view.position(offset, unit) == expected  # type: ignore[arg-type]


def test_the_files_a_file_finder_offers_are_the_files_list_files_lists(big: Path) -> None:
    (big / "sub").mkdir()
    (big / "sub" / "a.py").write_text("x\n")
    workspace = Workspace(big)
    assert workspace.files() == ["big.txt", "image.png", "sub/a.py", "é.txt"]
    listed = workspace.call("list_files", {"recursive": True, "limit": 100}).text
    assert listed.splitlines()[1:-1] == workspace.files()


def test_a_real_agent_is_one_agentpager_can_run_at_a_version_its_goldens_were_recorded_from() -> None:
    from agentpager.agents import probed_agents

    goldens = Path(__file__).parent / "goldens"
    real = {profile.name: profile.real_agent for profile in all_profiles() if profile.real_agent is not None}
    assert {name: (agent.agent, agent.version) for name, agent in real.items()}.items() >= {
        "claude-code": ("claude-code", "2.1.332"),
        "claude-code@2.1.84": ("claude-code", "2.1.84"),
        "claude-code@2.0": ("claude-code", "2.0.21"),
        "gemini-cli": ("gemini-cli", "0.61.0"),
        "codex": ("codex", "0.171.0"),
        "codex@0.60": ("codex", "0.60.1"),
    }.items()
    for agent in real.values():
        assert agent.agent in {agent.id for agent in probed_agents()}
        assert (goldens / agent.agent / agent.version).is_dir()
    for name in ("qq", "forge", "crush", "vault", "openhands", "swe-agent", "codex@read_file"):
        assert name not in real
