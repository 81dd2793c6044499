"""agentpager's performance targets, each measured against coreutils in the same run.

    python benchmarks/run.py [--data DIR] [--quick]

Generates its data once (a 1 GB file of 10M lines, a 256 MB file that is one line, a tree of
100,000 files, a 200-page PDF) in DIR (default: $AGENTPAGER_BENCH_DIR, else the temp dir), measures
each target as a median of repeated runs interleaved with the baseline, prints the ratios and the
memory, and exits 1 when a target is missed. ``--quick`` uses a 125 MB file and 20,000 files to
check the script itself.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MiB = 1 << 20
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


@dataclass
class Row:
    what: str
    measured: str
    target: str
    ok: bool


def median_time(function: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved(ours: Callable[[], object], baseline: Callable[[], object], runs: int) -> tuple[float, float]:
    """Medians of ``ours`` and ``baseline``, run alternately so both see the same machine load."""
    mine, theirs = [], []
    for _ in range(runs):
        theirs.append(median_time(baseline, 1))
        mine.append(median_time(ours, 1))
    return statistics.median(mine), statistics.median(theirs)


def compared(what: str, ours: Callable[[], object], baseline: Callable[[], object], name: str, limit: float) -> Row:
    """A target that is a ratio to a coreutils baseline, measured in the same run (5 runs each)."""
    mine, theirs = interleaved(ours, baseline, 5)
    ratio = mine / theirs
    measured = f"{mine * 1000:.0f} ms = {ratio:.2f}x {name} ({theirs * 1000:.0f} ms)"
    return Row(what, measured, f"<= {limit:g}x {name}", ratio <= limit)


def shell(command: str) -> Callable[[], object]:
    return lambda: subprocess.run(command, shell=True, check=True, stdout=subprocess.DEVNULL)


# -- data ------------------------------------------------------------------------------------------


def make_lines_file(path: Path, size: int, lines: int) -> None:
    """Exactly ``lines`` lines of varied length and ``size`` bytes: a pool of lines, repeated."""
    if path.exists() and path.stat().st_size == size:
        return
    rng = random.Random(7)
    words = [b"alpha", b"beta", b"gamma", b"delta", b"epsilon", b"zeta", b"eta", b"theta", b"iota", b"kappa"]
    pool_lines = 10_000
    repeats = lines // pool_lines
    pool_bytes = size // repeats
    average = pool_bytes // pool_lines
    lengths = [rng.randint(average // 2, average * 3 // 2) for _ in range(pool_lines)]
    excess = sum(lengths) - pool_bytes
    for n in range(abs(excess)):  # spread the difference so the pool has exactly pool_bytes
        lengths[n % pool_lines] -= 1 if excess > 0 else -1
    pool = []
    for n, length in enumerate(lengths):
        text = b"%07d " % n + b" ".join(rng.choice(words) for _ in range(length // 5 + 2))
        pool.append(text[: length - 1] + b"\n")
    block = b"".join(pool)
    with open(path, "wb") as out:
        for _ in range(repeats):
            out.write(block)
    assert path.stat().st_size == size, "size must be a multiple of lines // 10000"


def make_one_line_file(path: Path, size: int) -> None:
    if path.exists() and path.stat().st_size == size:
        return
    piece = bytes(range(32, 127)) * 11038
    with open(path, "wb") as out:
        written = 0
        while written < size:
            chunk = piece[: size - written]
            out.write(chunk)
            written += len(chunk)


def make_tree(path: Path, files: int) -> None:
    marker = path.parent / (path.name + ".complete")
    if marker.exists():
        return
    shutil.rmtree(path, ignore_errors=True)
    per_dir = 100
    for n in range(files):
        directory = path / f"d{n // (per_dir * 10):03d}" / f"e{(n // per_dir) % 10}"
        if n % per_dir == 0:
            directory.mkdir(parents=True, exist_ok=True)
        (directory / f"file{n:06d}.{('py', 'txt', 'md', 'json')[n % 4]}").write_bytes(b"")
    marker.write_text("")


def make_pdf(path: Path, pages: int) -> None:
    from samples import pdf_bytes

    if not path.exists():
        text = "the quick brown fox jumps over the lazy dog, page {page} line {line}"
        lines = "\n".join(text.replace("{line}", str(line)) for line in range(45))
        path.write_bytes(pdf_bytes([lines.replace("{page}", str(page)) for page in range(pages)]))


# -- measurements ----------------------------------------------------------------------------------


def cli_command() -> list[str]:
    if shutil.which("agentpager"):
        return [shutil.which("agentpager") or "agentpager"]
    return [sys.executable, "-m", "agentpager"]


def tree_peak_rss(command: list[str]) -> tuple[float, int]:
    """Wall time, and the peak resident memory of the process and its children (polled)."""

    def rss(pid: int) -> int:
        total = 0
        try:
            with open(f"/proc/{pid}/status") as status:
                total += next(int(line.split()[1]) << 10 for line in status if line.startswith("VmRSS:"))
            with open(f"/proc/{pid}/task/{pid}/children") as children:
                total += sum(rss(int(child)) for child in children.read().split())
        except (OSError, StopIteration, ValueError):
            pass
        return total

    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    peak = 0
    while process.poll() is None:
        peak = max(peak, rss(process.pid))
        time.sleep(0.01)
    return time.perf_counter() - start, peak


MEMORY_PROBE = """
import json, random, sys, threading, time
from agentpager import Workspace

def rss_anon():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) * 1024
peak = [rss_anon()]
done = threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], rss_anon())
        time.sleep(0.001)
threading.Thread(target=sample, daemon=True).start()
root, name, calls = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
workspace = Workspace(root)
start = time.perf_counter()
results = [workspace.call("read_file", {"path": name, **arguments}) for arguments in calls]
elapsed = time.perf_counter() - start
done.set()
peak[0] = max(peak[0], rss_anon())
print(json.dumps({"elapsed": elapsed, "peak_anon": peak[0], "truncated": results[-1].truncated,
                  "error": results[-1].is_error}))
"""


def memory_probe(root: Path, name: str, calls: list[dict]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(root), name, json.dumps(calls)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def benchmark(data: Path, quick: bool) -> list[Row]:
    from agentpager import Workspace

    rows: list[Row] = []
    size, lines = (125_000_000, 1_250_000) if quick else (1_000_000_000, 10_000_000)
    tree_files = 20_000 if quick else 100_000
    big, one_line, tree = data / f"lines-{size}.txt", data / "one-line-256M.txt", data / f"tree-{tree_files}"
    print(f"data in {data} (generated once)", flush=True)
    make_lines_file(big, size, lines)
    make_one_line_file(one_line, 256 * MiB)
    make_tree(tree, tree_files)
    wc = shell(f"wc -l {big}")
    wc()  # warm the page cache

    cache = Path(os.environ["AGENTPAGER_CACHE_DIR"])

    def first_read() -> None:
        shutil.rmtree(cache / "indexes", ignore_errors=True)
        result = Workspace(data).call("read_file", {"path": big.name, "start_line": lines // 2})
        assert result.text.startswith(f"[File: {big.name} | Lines {lines // 2}-"), result.text[:200]

    rows.append(
        compared("first read_file, middle of the big file (index build included)", first_read, wc, "wc -l", 1.5)
    )

    middle = [
        *cli_command(),
        "call",
        "--root",
        str(data),
        "read_file",
        json.dumps({"path": big.name, "start_line": lines // 2}),
    ]

    def fresh_call() -> None:
        shutil.rmtree(cache / "indexes", ignore_errors=True)
        subprocess.run(middle, check=True, stdout=subprocess.DEVNULL)

    rows.append(
        compared(
            "agentpager call read_file, middle of the fresh big file (whole process)", fresh_call, wc, "wc -l", 1.5
        )
    )
    subprocess.run(middle, check=True, stdout=subprocess.DEVNULL)  # saves the index
    rows.append(
        compared(
            "the same call again, in a new process (the saved index)",
            lambda: subprocess.run(middle, check=True, stdout=subprocess.DEVNULL),
            wc,
            "wc -l",
            1.0,
        )
    )

    workspace = Workspace(data)
    workspace.call("read_file", {"path": big.name})
    rng = random.Random(3)
    window_times = []
    for _ in range(2000):
        start_line = rng.randint(1, lines)
        start = time.perf_counter()
        workspace.call("read_file", {"path": big.name, "start_line": start_line})
        window_times.append(time.perf_counter() - start)
    window_times.sort()
    p50, p99 = window_times[len(window_times) // 2], window_times[int(len(window_times) * 0.99)]
    rows.append(
        Row(
            "later 200-line windows, anywhere (2000 random)",
            f"p50 {p50 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms",
            "p99 <= 2 ms",
            p99 <= 0.002,
        )
    )

    paging = [{"start_line": 1 + rng.randint(0, lines - 1)} for _ in range(500)]
    probe = memory_probe(data, big.name, paging)
    rows.append(
        Row(
            "anonymous memory while paging the big file (index + 500 windows)",
            f"{probe['peak_anon'] / MiB:.1f} MB",
            "<= 50 MB",
            probe["peak_anon"] <= 50 * MiB,
        )
    )

    probe = memory_probe(data, one_line.name, [{}])
    rows.append(
        Row(
            "read_file of a 256 MB file that is one line",
            f"{probe['elapsed']:.2f} s, {probe['peak_anon'] / MiB:.1f} MB, guarded={probe['truncated']}",
            "<= 2 s, <= 100 MB, guarded",
            probe["elapsed"] <= 2 and probe["peak_anon"] <= 100 * MiB and probe["truncated"],
        )
    )

    char_offset = size // 2

    def vault_read() -> None:
        result = Workspace(data, "vault").call("read_file", {"path": big.name, "offset": char_offset})
        assert result.text.startswith(f"[Continuing from char {char_offset} of {size}]"), result.text[:200]

    rows.append(compared(f"vault read_file at char offset {char_offset:,} (fresh)", vault_read, wc, "wc -l", 2))

    find = shell(f"find {tree} -type f | wc -l")
    find()

    def first_page() -> None:
        result = Workspace(tree).call("list_files", {"recursive": True, "limit": 100})
        assert result.text.startswith(f"[Files 1-100 of {tree_files}]"), result.text[:200]

    rows.append(
        compared(f"list_files(recursive=True, limit=100) over {tree_files:,} files", first_page, find, "find", 2)
    )
    workspace = Workspace(tree)
    workspace.call("list_files", {"recursive": True, "limit": 100})
    next_page = median_time(lambda: workspace.call("list_files", {"recursive": True, "limit": 100, "offset": 100}), 20)
    rows.append(Row("the next page", f"{next_page * 1000:.2f} ms", "<= 10 ms", next_page <= 0.010))

    pdf = data / "pages-200.pdf"
    make_pdf(pdf, 200)
    shutil.rmtree(cache / "documents", ignore_errors=True)
    elapsed, peak = tree_peak_rss(
        [*cli_command(), "call", "--root", str(data), "read_file", '{"path": "pages-200.pdf"}']
    )
    rows.append(
        Row(
            "agentpager call read_file of a 200-page PDF (process and converter child)",
            f"{elapsed:.1f} s, peak {peak / MiB:.0f} MB",
            "<= 300 MB",
            peak <= 300 * MiB,
        )
    )

    small = data / "small.txt"
    small.write_text("".join(f"line {n}\n" for n in range(300)))
    command = [*cli_command(), "call", "--root", str(data), "read_file", '{"path": "small.txt"}']
    process = median_time(lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL), 11)
    rows.append(
        Row(
            "agentpager call read_file on a small file (whole process)",
            f"{process * 1000:.0f} ms",
            "<= 150 ms",
            process <= 0.150,
        )
    )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(os.environ.get("AGENTPAGER_BENCH_DIR", tempfile.gettempdir())) / "agentpager-bench",
    )
    parser.add_argument("--quick", action="store_true", help="small data, to check the script itself")
    options = parser.parse_args()
    options.data.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("AGENTPAGER_CACHE_DIR", str(options.data / "cache"))
    from agentpager.engine import newline_scan

    counter = "the C module" if newline_scan.native() else "numpy (the C module was not built)"
    print(f"newlines counted by {counter}", flush=True)
    rows = benchmark(options.data, options.quick)
    width = max(len(row.what) for row in rows)
    print()
    for row in rows:
        print(f"{'ok  ' if row.ok else 'MISS'} {row.what:<{width}}  {row.measured}  (target {row.target})")
    missed = [row for row in rows if not row.ok]
    print(textwrap.dedent(f"\n{len(rows) - len(missed)} of {len(rows)} targets met."))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
