"""Shell reads replayed on a 1 GB, 10M-line file and a 256 MB file that is one line, each against
the real program in the same run.

    python benchmarks/shell.py [--data DIR] [--quick]

Uses (and makes once) the files of ``benchmarks/run.py`` in DIR (default: $AGENTPAGER_BENCH_DIR,
else the temp dir). Each row is a median of interleaved runs; the emulation runs in this process
with a fresh ContentStore (so ``sed -n`` pays for indexing up to its window), the real program
through ``bash -c``; the one-line rows also give this process's peak anonymous memory (GNU grep
holds the whole line: about 514 MB for ``grep -c a``). ``--quick`` uses the 125 MB lines file.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run import interleaved, make_lines_file, make_one_line_file, median_time  # noqa: E402

from agentpager.engine.content import ContentStore  # noqa: E402
from agentpager.tools.paths import Root  # noqa: E402
from agentpager.tools.shell import ShellRun, emulate  # noqa: E402


def emulated(root: Path, cache: Path, command: str, fresh: bool) -> Callable[[], object]:
    shared = ContentStore(cache)

    def run() -> object:
        result = emulate(Root.of(root), ContentStore(cache) if fresh else shared, command)
        assert isinstance(result, ShellRun), result
        return len(result.stdout)

    return run


def real(root: Path, command: str) -> Callable[[], object]:
    # Into a pipe: grep notices a stdout on /dev/null and stops at the first match.
    return lambda: subprocess.run(["bash", "-c", command], cwd=root, check=False, stdout=subprocess.PIPE)


_EMULATE = """
import sys
from pathlib import Path
from agentpager.engine.content import ContentStore
from agentpager.tools.paths import Root
from agentpager.tools.shell import emulate
root = Path(sys.argv[1])
emulate(Root.of(root), ContentStore(root / ".bench-cache"), sys.argv[2])
"""


def peak_mb(argv: list[str], cwd: Path) -> int:
    """The peak resident memory of a process (and of what it waited for), in MB."""
    process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return usage.ru_maxrss >> 10


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = Path(os.environ.get("AGENTPAGER_BENCH_DIR", tempfile.gettempdir())) / "agentpager-bench"
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    size, lines = (125_000_000, 1_250_000) if options.quick else (1_000_000_000, 10_000_000)
    options.data.mkdir(parents=True, exist_ok=True)
    name = "lines-quick.txt" if options.quick else "lines.txt"
    make_lines_file(options.data / name, size, lines)
    middle = lines // 5
    with tempfile.TemporaryDirectory() as cache:
        commands = [
            f"sed -n '{middle},{middle + 200}p' {name}",
            f"sed -n '{lines - 200},{lines}p' {name}",
            f"tail -n 200 {name}",
            f"head -n 200 {name}",
            f"wc -l {name}",
            f"grep -c 'beta gamma delta' {name}",
            f"nl -ba {name} | sed -n '{lines // 100},{lines // 100 + 200}p'",
        ]
        print(f"{'command':<58} {'emulated':>10} {'real':>10} {'ratio':>7}")
        for command in commands:
            mine, theirs = interleaved(
                emulated(options.data, Path(cache), command, True), real(options.data, command), 3
            )
            print(f"{command:<58} {mine * 1000:>8.1f}ms {theirs * 1000:>8.1f}ms {mine / theirs:>7.3f}")
        window = f"sed -n '{middle},{middle + 200}p' {name}"
        again = median_time(emulated(options.data, Path(cache), window, fresh=False), 20)
        print(f"{'the same sed window again (index kept)':<58} {again * 1000:>8.2f}ms")
        one_line = "one-line-256M.txt"
        make_one_line_file(options.data / one_line, 256 << 20)
        print(f"{'one line of 256 MB':<58} {'emulated':>10} {'real':>10} {'ratio':>7} {'peak':>7} {'real':>7}")
        for command in [
            f"grep -c a {one_line}",
            f"grep -c -v '~$' {one_line}",
            f"sed -n '/~$/=' {one_line}",
            f"nl -ba {one_line} | head -c 100",
            *([f"rg -c 'a.c' {one_line}"] if shutil.which("rg") else []),
        ]:
            mine, theirs = interleaved(
                emulated(options.data, Path(cache), command, True), real(options.data, command), 3
            )
            peaks = [
                peak_mb([sys.executable, "-c", _EMULATE, str(options.data), command], options.data),
                peak_mb(["bash", "-c", command], options.data),
            ]
            print(f"{command:<58} {mine * 1000:>8.1f}ms {theirs * 1000:>8.1f}ms {mine / theirs:>7.3f} ", end="")
            print(f"{peaks[0]:>5}MB {peaks[1]:>5}MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
