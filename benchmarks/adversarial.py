"""Issue 17's hostile inputs, each answered by an ``agentpager`` process of its own within 5 s and
under 300 MB.

    python benchmarks/adversarial.py [--quick] [--only TEXT] [--timeout S]

Builds each hostile case of issue 17's findings (1-3, 6-12: those about time, memory or a hang) in a
temp dir: patterns that make ``re`` backtrack through Codex's ``exec_command``, ignore files, a file
that is one 256 MB line, hostile MCP requests, JSON and TOML nested 100,000 deep, FIFOs where
sessions live, a cache dir that cannot be written, a directory of a million entries, a transcript
line of 1 GB. Each case runs as ``python -m agentpager ...`` (the viewer's search: a Python child
calling ``FileView.search``) with ``HOME``, ``AGENTPAGER_CACHE_DIR`` and ``AGENTPAGER_CONFIG_DIR`` in
the temp dir, and is measured from its start to its exit: wall time, CPU time (user and system: a
case slow only because the machine is busy shows a CPU time well under its wall time), and the
peak resident memory of the largest process of its tree (``os.wait4``; a regex or converter child
counts on its own). A case that runs past ``--timeout`` (60 s) is killed and fails. ``--only``
runs the cases whose name holds a text (every input is still written). Each answer is checked too (its exit
status and a piece of its text), so that a refusal that came too early is not counted as a pass.

``AGENTPAGER_REGEX_SECONDS`` is 4 here: a pattern only ``re`` can run (a back-reference) is refused
by the engine after that limit, and the default, 5 s, could not be met by a whole process. Prints a
table and exits 1 when a case exceeds 5 s or 300 MB, or answers wrongly. ``--quick`` makes the big
inputs small (a 32 MB line, 20,000 entries, a 64 MB transcript line) to check the script itself.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

SECONDS = 5.0
MEGABYTES = 300
REGEX_SECONDS = "4"
MiB = 1 << 20


@dataclass
class Answer:
    status: int
    stdout: str  # its first and last 4,000 characters
    stderr: str


@dataclass
class Case:
    finding: str
    name: str
    argv: list[str]
    expect: Callable[[Answer], bool]
    """Whether the answer is the right one (the status and a piece of the text)."""
    cwd: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    requests: list[tuple[str, str]] | None = None
    """MCP: each line sent and a piece of the reply awaited; stdin stays open until all are in."""


@dataclass
class Measured:
    case: Case
    seconds: float
    cpu: float
    """User and system time of the case's processes: what load does not lengthen."""
    megabytes: int
    answered: bool
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.answered and self.seconds <= SECONDS and self.megabytes <= MEGABYTES


# -- running one case ------------------------------------------------------------------------------


def agentpager(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "agentpager", *arguments]


def head_and_tail(file: object) -> str:
    file.seek(0, os.SEEK_END)
    size = file.tell()
    file.seek(0)
    if size <= 8000:
        return file.read().decode(errors="replace")
    head = file.read(4000)
    file.seek(size - 4000)
    return (head + b"\n[...]\n" + file.read()).decode(errors="replace")


def converse(process: subprocess.Popen, requests: list[tuple[str, str]], replies: list[str]) -> None:
    """Sends each line, then reads replies until one holds each awaited piece; then closes stdin (at
    its end the SDK would cancel what is still in flight). Read from the pipe itself, as the replies
    come in any order and together (a buffered reader would keep the second where select cannot see
    it); the timeout's kill ends the reading."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(line + "\n" for line, _ in requests).encode())
    process.stdin.flush()
    awaited = [piece for _, piece in requests]
    received = b""
    while awaited:
        chunk = os.read(process.stdout.fileno(), 1 << 16)
        if not chunk:
            break
        received += chunk
        text = received.decode(errors="replace")
        awaited = [piece for piece in awaited if piece not in text]
    replies.append(received.decode(errors="replace"))
    process.stdin.close()


def measure(case: Case, base_env: dict[str, str], timeout: float) -> Measured:
    env = base_env | case.env
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        talking = case.requests is not None
        start = time.perf_counter()
        process = subprocess.Popen(
            case.argv,
            cwd=case.cwd,
            env=env,
            stdin=subprocess.PIPE if talking else subprocess.DEVNULL,
            stdout=subprocess.PIPE if talking else out,
            stderr=err,
            start_new_session=True,
        )
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            os.killpg(process.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        replies: list[str] = []
        if case.requests is not None:
            converse(process, case.requests, replies)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        if talking:
            process.stdout.close()
        megabytes, cpu = usage.ru_maxrss >> 10, usage.ru_utime + usage.ru_stime
        if killed.is_set():
            return Measured(case, seconds, cpu, megabytes, False, f"killed after {timeout:g} s")
        answer = Answer(process.returncode, "".join(replies) if talking else head_and_tail(out), head_and_tail(err))
    answered = case.expect(answer)
    note = "" if answered else f"status {answer.status}: {(answer.stdout + answer.stderr)[-300:]!r}"
    return Measured(case, seconds, cpu, megabytes, answered, note)


# -- the hostile inputs ----------------------------------------------------------------------------


def exited(status: int, piece: str = "", stream: str = "stdout") -> Callable[[Answer], bool]:
    return lambda answer: answer.status == status and piece in getattr(answer, stream)


def codex(cmd: str) -> list[str]:
    return agentpager("call", "--profile", "codex", "exec_command", json.dumps({"cmd": cmd}))


def one_line_file(path: Path, size: int) -> None:
    """``size`` bytes of ``ab c``, no newline: written a MiB at a time."""
    block = b"ab c" * (MiB // 4)
    with open(path, "wb") as out:
        for _ in range(size // MiB):
            out.write(block)


def empty_files(directory: Path, count: int) -> None:
    directory.mkdir()
    for n in range(count):
        os.close(os.open(directory / f"file_{n:07d}_name.txt", os.O_CREAT | os.O_WRONLY, 0o644))


CWD = "/home/dev/proj"


def record(kind: str, block: dict) -> str:
    content = {"role": kind, "content": [block]}
    return json.dumps({"type": kind, "cwd": CWD, "sessionId": "s", "message": content}, separators=(",", ":"))


def read_call(call_id: str) -> str:
    use = {"type": "tool_use", "id": call_id, "name": "Read", "input": {"file_path": f"{CWD}/a.py"}}
    return record("assistant", use)


def read_result(call_id: str, content: str = "1\timport os\n2\t") -> str:
    return record("user", {"type": "tool_result", "tool_use_id": call_id, "content": content})


def deep_transcript(path: Path, depth: int, padding: int) -> None:
    """A Read, a line nested ``depth`` deep (after ``padding`` characters, so that long lines are
    skimmed), the Read's result."""
    nested = "[" * depth + "]" * depth
    deep = f'{{"type":"user","cwd":"{CWD}","message":{{"content":"{"x" * padding}","more":{nested}}}}}'
    path.write_text("\n".join([read_call("t1"), deep, read_result("t1")]) + "\n")


def huge_line_transcript(path: Path, size: int) -> None:
    """A Read whose result is one line of ``size`` bytes, then a second Read and its result."""
    head, tail = read_result("t1", "HERE").split('"HERE"')
    with open(path, "w") as out:
        out.write(read_call("t1") + "\n" + head + '"')
        block = "x" * MiB
        for _ in range(size // MiB):
            out.write(block)
        out.write('"' + tail + "\n" + read_call("t2") + "\n" + read_result("t2") + "\n")


INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}},
    }
)
DEEP = "[" * 100_000 + "]" * 100_000
MCP_REQUESTS = {
    "lone surrogate": (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"\\ud800"}}}',
        "1",
    ),
    "batch array": (
        '[{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x"}]',
        "2",
    ),
    "no method": ('{"jsonrpc":"2.0","id":3}', "3"),
    "params as a string": ('{"jsonrpc":"2.0","id":4,"method":"tools/list","params":"x"}', "4"),
    "100k-deep nesting": (
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":{"path":'
        + DEEP
        + "}}}",
        "5",
    ),
    "5,000-digit integer": (
        '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt",'
        '"start_line":' + "9" * 5000 + '}},"id":6}',
        "6",
    ),
    "5,000-digit id": ('{"jsonrpc":"2.0","id":' + "7" * 5000 + ',"method":"tools/list"}', "7" * 5000),
}
"""Each line and its id: the answer awaited is an error echoing it."""

_SEARCH = """
import sys
from agentpager import Workspace
from agentpager.engine.patterns import compile_regex
from agentpager.fileview import ViewError
view = Workspace(sys.argv[1]).open_view("f.txt")
try:
    with compile_regex(sys.argv[2]) as matcher:
        print(list(view.search(matcher)))
except ViewError as error:
    print(error.message)
"""
"""The viewer's ``/`` search, as the TUI runs it (through FileView)."""


def read_only_cache(cache: Path, argv: list[str], how: str) -> list[str] | None:
    """``argv`` in a mount namespace where ``cache`` is read-only (``ro``) or a full 16 KiB tmpfs
    (``full``); None where no namespace can be had."""
    if shutil.which("unshare") is None:
        return None
    if how == "ro":
        setup = f"mount --bind -o ro '{cache}' '{cache}'"
    else:
        setup = f"mount -t tmpfs -o size=16k tmpfs '{cache}' && (head -c 1M /dev/zero > '{cache}/filler' || true)"
    probe = subprocess.run(["unshare", "--mount", "sh", "-c", setup], capture_output=True, check=False)
    if probe.returncode != 0:
        return None
    return ["unshare", "--mount", "sh", "-c", setup + ' && exec "$@"', "sh", *argv]


def build(tmp: Path, quick: bool) -> list[Case]:
    """Every case, its inputs written under ``tmp``."""
    line_size, entries, transcript_size = (32 * MiB, 20_000, 64 * MiB) if quick else (256 * MiB, 1_000_000, 1 << 30)
    cases: list[Case] = []

    # 1. Patterns that make re backtrack, through Codex's exec_command.
    work = tmp / "work"
    work.mkdir()
    hostile = "a" * 60 + "!"
    (work / "hostile.txt").write_text(hostile + "\n")
    for command, status in [
        (f"echo {hostile} | grep -E '(a+)+$'", 1),
        ("grep -E '(a+)+$' hostile.txt", 1),
        ("rg '(a+)+$' hostile.txt", 1),
        ("sed -nE '/(a+)+$/p' hostile.txt", 0),
        ("sed -n '/\\(a*\\)*b/p' hostile.txt", 0),
    ]:
        cases.append(Case("1", f"codex {command}", codex(command), exited(0, f"exited with code {status}\n"), work))
    for command in ["grep '\\(a*\\)*\\1b' hostile.txt", "sed -n '/\\(a\\|aa\\)*\\1c/p' hostile.txt"]:
        refused = exited(1, f"took longer than {REGEX_SECONDS} s")
        cases.append(Case("1", f"codex {command} (back-reference: re, in the child)", codex(command), refused, work))

    # 2. Ignore files.
    star = "*a*a*a*a*a*a*a*a*b"
    for ignore_file, line, name in [
        (".gitignore", star, "a" * 60),
        (".geminiignore", star, "a" * 60),
        (".geminiignore", "a" + " " * 30_000 + "b", "a"),
    ]:
        root = tmp / f"ignore-{len(cases)}"
        root.mkdir()
        if ignore_file == ".gitignore":
            subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / ignore_file).write_text(line + "\n")
        (root / name).write_text("x\n")
        shown = line if len(line) < 30 else f"a + {len(line) - 2:,} spaces + b"
        listing = agentpager("call", "--profile", "gemini-cli", "list_directory", '{"dir_path": "."}')
        cases.append(
            Case("2", f"gemini-cli list_directory, {ignore_file} {shown}", listing, exited(0, "(2 bytes)"), root)
        )
        read = agentpager("call", "--profile", "gemini-cli", "read_file", json.dumps({"file_path": name}))
        cases.append(Case("2", f"gemini-cli read_file, {ignore_file} {shown}", read, exited(0, "x\n"), root))

    # 3. A file that is one line, without a newline.
    one_line_file(work / "line.txt", line_size)
    mb = f"{line_size >> 20} MB line"
    for command, piece in [
        ("grep -c a line.txt", "Output:\n1\n"),
        ("rg -c 'b c$' line.txt", "Output:\n1\n"),
        ("rg -n 'b c$' line.txt", "bytes omitted ...\n\n1:ab c"),
        ("nl -ba line.txt | head -c 100", "     1\tab cab c"),
        ("sed -nE '/(c|y)$/p' line.txt", "bytes omitted ...\n\nab c"),
    ]:
        cases.append(Case("3", f"codex {command} ({mb})", codex(command), exited(0, piece), work))
    claude = agentpager("call", "--profile", "claude-code@2.0", "Bash", '{"command": "sed -n 1p line.txt"}')
    cases.append(Case("3", f"claude-code@2.0 Bash sed -n 1p ({mb})", claude, exited(0, "ab cab c"), work))
    swe = agentpager("call", "--profile", "swe-agent", "open", '{"path": "line.txt"}')
    cases.append(Case("3", f"swe-agent open ({mb})", swe, exited(0, "ab cab c"), work))

    # 6. The MCP server: every request with an id gets an answer.
    (work / "a.txt").write_text("one\ntwo\n")
    for what, (line, request_id) in MCP_REQUESTS.items():
        awaited = [(INITIALIZE, '"id":0,"result"'), (line, f'"id":{request_id},"error"')]
        cases.append(Case("6", f"mcp: {what}", agentpager("mcp", "--root", str(work)), exited(0), requests=awaited))

    # 7. Deep nesting: replay, config.
    proj = tmp / "proj"
    proj.mkdir()
    (proj / "a.py").write_text("import os\n")
    for depth, padding in [(1000, 0), (100_000, 40_000)]:
        path = tmp / f"deep-{depth}.jsonl"
        deep_transcript(path, depth, padding)
        replay = agentpager("replay", str(path), "--root", str(proj))
        cases.append(Case("7", f"replay, a line {depth:,} deep", replay, exited(0, "nested deeper", "stderr")))
    for text in ["x = " + "[" * 100_000 + "]" * 100_000, "x = " + "{a = " * 100_000 + "1" + "}" * 100_000]:
        config = tmp / f"config-{len(cases)}"
        config.mkdir()
        (config / "config.toml").write_text(text + "\n")
        shown = "[[[...]]]" if "[" in text else "{a = {a = ...}}"
        cases.append(
            Case(
                "7",
                f"config, x = {shown} 100,000 deep",
                agentpager("config"),
                exited(1, "not valid TOML: values nested too deeply", "stderr"),
                env={"AGENTPAGER_CONFIG_DIR": str(config)},
            )
        )

    # 8. The viewer's search, stopped in the child.
    view = tmp / "view"
    view.mkdir()
    (view / "f.txt").write_text("a" * 5000 + "\n")
    for pattern, piece in [("(a*)*\\1b", f"took longer than {REGEX_SECONDS} s"), ("(?<=a+)b", "look-behind")]:
        search = [sys.executable, "-c", _SEARCH, str(view), pattern]
        cases.append(Case("8", f"FileView.search /{pattern}/ on 5,000 a's", search, exited(0, piece)))

    # 9. FIFOs where sessions live.
    fifo_home = tmp / "home-fifo"
    (fifo_home / ".claude" / "projects" / "p").mkdir(parents=True)
    os.mkfifo(fifo_home / ".claude" / "projects" / "p" / "x.jsonl")
    (fifo_home / ".gemini" / "tmp" / "p" / "chats").mkdir(parents=True)
    os.mkfifo(fifo_home / ".gemini" / "tmp" / "p" / ".project_root")
    for flags in [["--json"], ["--json", "--full"]]:
        sessions = agentpager("sessions", *flags)
        fifo = exited(0, "not a regular file")
        cases.append(Case("9", f"sessions {' '.join(flags)}, FIFOs", sessions, fifo, env={"HOME": str(fifo_home)}))

    # 10. A cache dir that cannot be written: the converted text is still served.
    from samples import write_docx

    documents = tmp / "documents"
    documents.mkdir()
    write_docx(documents / "a.docx", ["hello world", "second"])
    read_docx = agentpager("call", "--root", str(documents), "--profile", "vault", "read_file", '{"path": "a.docx"}')
    served = exited(0, "hello world\n\nsecond")
    (tmp / "a-file").write_text("")
    cases.append(
        Case(
            "10",
            "vault read_file a.docx, cache dir under a file",
            read_docx,
            served,
            env={"AGENTPAGER_CACHE_DIR": str(tmp / "a-file" / "cache")},
        )
    )
    for how, shown in [("ro", "read-only"), ("full", "full")]:
        cache = tmp / f"cache-{how}"
        cache.mkdir()
        wrapped = read_only_cache(cache, read_docx, how)
        if wrapped is None:
            print(f"no mount namespace here: the {shown} cache dir is left out", file=sys.stderr)
            continue
        env = {"AGENTPAGER_CACHE_DIR": str(cache), **({"TMPDIR": str(cache)} if how == "full" else {})}
        cases.append(Case("10", f"vault read_file a.docx, {shown} cache dir", wrapped, served, env=env))

    # 11. Unbounded but finishing: a huge directory, a huge transcript line.
    many = tmp / "many"
    many.mkdir()
    started = time.perf_counter()
    empty_files(many / "d", entries)
    print(f"made {entries:,} empty files in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    for tool, arguments, piece in [
        ("list_directory", {"dir_path": "d"}, f"file_{entries - 1:07d}_name.txt (0 bytes)"),
        ("read_many_files", {"include": ["d"]}, "--- End of content ---"),
    ]:
        call = agentpager("call", "--profile", "gemini-cli", tool, json.dumps(arguments))
        cases.append(Case("11", f"gemini-cli {tool}, {entries:,} entries", call, exited(0, piece), many))
    big_home = tmp / "home-big"
    sessions_dir = big_home / ".claude" / "projects" / CWD.replace("/", "-")
    sessions_dir.mkdir(parents=True)
    transcript = sessions_dir / "big.jsonl"
    huge_line_transcript(transcript, transcript_size)
    size = f"{transcript_size >> 20} MB line" if transcript_size < 1 << 30 else "1 GB line"
    replay = agentpager("replay", str(transcript), "--root", str(proj))
    cases.append(Case("11", f"replay, a transcript {size}", replay, exited(0, " 1 same, 0 differs", "stderr")))
    full = agentpager("sessions", "--json", "--full")
    cases.append(
        Case("11", f"sessions --json --full, a {size}", full, exited(0, '"calls": 2'), env={"HOME": str(big_home)})
    )

    # 12. Smaller: a root that does not exist, a pattern of brackets.
    nowhere = agentpager("replay", str(tmp / "deep-1000.jsonl"), "--root", str(tmp / "nonexistent"))
    cases.append(
        Case("12", "replay --root /nonexistent", nowhere, lambda answer: answer.status == 2 and not answer.stdout)
    )
    brackets = "rg -c '" + "[" * 999 + "]' hostile.txt"
    refused = lambda answer: exited(1, "a nested class")(answer) and "Warning" not in answer.stderr  # noqa: E731
    cases.append(Case("12", "codex rg -c '[[[...' (999 brackets)", codex(brackets), refused))
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", help="run the cases whose name holds this text")
    parser.add_argument("--timeout", type=float, default=60.0)
    options = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="agentpager-adversarial-"))
    try:
        started = time.perf_counter()
        cases = [case for case in build(tmp, options.quick) if options.only is None or options.only in case.name]
        print(
            f"inputs written in {time.perf_counter() - started:.1f} s; load {os.getloadavg()[0]:.2f}", file=sys.stderr
        )
        (tmp / "home").mkdir()
        (tmp / "config").mkdir()
        base_env = {name: value for name, value in os.environ.items() if not name.startswith("AGENTPAGER_")} | {
            "HOME": str(tmp / "home"),
            "AGENTPAGER_CONFIG_DIR": str(tmp / "config"),
            "AGENTPAGER_REGEX_SECONDS": REGEX_SECONDS,
        }
        print(f"{'#':>3} {'case':<72} {'s':>6} {'cpu s':>6} {'MB':>5}  ok")
        results = []
        for number, case in enumerate(cases):
            cache = tmp / "caches" / str(number)
            cache.mkdir(parents=True)
            measured = measure(case, base_env | {"AGENTPAGER_CACHE_DIR": str(cache)}, options.timeout)
            results.append(measured)
            verdict = "yes" if measured.ok else "NO"
            print(
                f"{case.finding:>3} {case.name[:72]:<72} {measured.seconds:>6.2f} {measured.cpu:>6.2f} {measured.megabytes:>5}  {verdict}",
                flush=True,
            )
            if measured.note:
                print(f"      {measured.note}")
        failed = [result for result in results if not result.ok]
        print(
            f"{len(results) - len(failed)} of {len(results)} within {SECONDS:g} s and {MEGABYTES} MB, answered right;"
            f" slowest {max(r.seconds for r in results):.2f} s, largest {max(r.megabytes for r in results)} MB;"
            f" load {os.getloadavg()[0]:.2f}"
        )
        return 1 if failed else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
