"""Where the probe runs an agent: namespaces of its own with no network but the loopback, every file
read-only but its temporary home, the workspace's agent config hidden, and no power to undo any of it.

``unshare`` (util-linux) makes a network, mount and PID namespace (as root; otherwise in a user
namespace too, ``--map-root-user``, where the kernel allows it). Inside, this module's ``main`` (the
namespace's first process) makes every mount read-only but the probe's directory, gives ``/tmp`` a
fresh tmpfs (that vanishes with the namespace) holding only the host's directories the run needs,
puts a minimal ``/dev`` in place of the host's (no disks), covers each config the agent would read
from the workspace and the directories above it with an empty read-only one, brings ``lo`` up, drops
every capability but reading others' files, then serves the mock on 127.0.0.1 and runs the agent. Its
recording is written to a file in the probe's directory for the probe to read. When the namespace's
first process dies, the kernel kills everything left in it, so stopping ``unshare`` stops them all.

``unavailable()`` says why no such namespace can be had here; the probe then refuses to run the agent.
"""

from __future__ import annotations

import base64
import ctypes
import fcntl
import functools
import importlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentpager.probe.mock import MockServer, Recording, Request, ToolResult
from agentpager.probe.processes import Cancelled, stop

UNSHARE_TIMEOUT = 10
STOP_TIMEOUT = 10
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
_KEPT_FLAGS = (  # statvfs's f_flag bit -> the mount flag that keeps it on a remount (a locked flag must stay)
    (os.ST_NOSUID, MS_NOSUID),
    (os.ST_NODEV, MS_NODEV),
    (os.ST_NOEXEC, MS_NOEXEC),
    (os.ST_NOATIME, MS_NOATIME),
    (os.ST_NODIRATIME, MS_NODIRATIME),
    (os.ST_RELATIME, MS_RELATIME),
)
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
"""The device files the agent gets (bound from the host's); no disk, no memory, no other device."""
KEPT_CAPABILITIES = (1, 2, 31)
"""CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: a probe run as root reads what root reads (writing is
stopped by the read-only mounts); CAP_SETFCAP: an agent's own sandbox (Codex's bubblewrap) maps root
into the user namespace it makes, which the kernel allows only with it (file capabilities it could set
give nothing: no new privileges, and the bounding set holds no more than these). Every other
capability (mounting, network setup, tracing, raw devices) is dropped."""
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs")
"""What of ``/proc`` reaches beyond the namespace (kernel settings, the SysRq trigger): read-only, as
container runtimes make it. The rest of the namespace's own ``/proc`` stays writable."""
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP = 38, 24
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 1
RECORDING = "recording.json"


class Unconfined(RuntimeError):
    """No namespace could be had: the agent is not run."""


@functools.cache
def unshare_command() -> tuple[tuple[str, ...] | None, str]:
    """The ``unshare`` command line that gives a child its own network, mount and PID namespaces,
    and, when there is none, why."""
    if not sys.platform.startswith("linux"):
        return None, "namespaces are a Linux feature"
    unshare = "/usr/bin/unshare" if os.path.exists("/usr/bin/unshare") else None
    if unshare is None:
        import shutil

        unshare = shutil.which("unshare")
    if unshare is None:
        return None, "there is no unshare (util-linux) on PATH"
    base: tuple[str, ...] = (unshare, "--net", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc")
    tried = [base] if os.geteuid() == 0 else []
    tried.append((unshare, "--map-root-user", *base[1:]))
    why = ""
    for command in tried:
        try:
            done = subprocess.run(
                [*command, "true"], capture_output=True, text=True, timeout=UNSHARE_TIMEOUT, stdin=subprocess.DEVNULL
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            why = str(error)
            continue
        if done.returncode == 0:
            return command, ""
        why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit status {done.returncode}"
    return None, f"unshare could not make the namespaces ({why}); user namespaces may be turned off"


def unavailable() -> str:
    """Why the probe cannot confine an agent here ("" when it can)."""
    return unshare_command()[1]


# -- what the parent sends and gets back ----------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """One agent run inside the namespaces, as the probe describes it to ``main``."""

    command: list[str]
    env: dict[str, str]
    cwd: str
    port: int
    dialect: str
    """``module:attribute`` of the Dialect class."""
    tool: str | None
    arguments: dict[str, Any]
    model: str
    timeout: float
    exit_grace: float
    scratch: str
    """The probe's directory (the agent's home is inside it): the one place that stays writable."""
    hidden: list[str]
    """Config files and directories to cover with an empty, read-only one."""


@dataclass(frozen=True)
class Outcome:
    recording: Recording
    returncode: int | None
    timed_out: bool


def run_confined(job: Job, timeout: float, cancel: threading.Event | None) -> Outcome:
    """Run ``job`` in its namespaces and return what the mock recorded.

    ``cancel`` set stops it (raising Cancelled), as does a child still running after ``timeout``
    seconds (raising TimeoutError): everything in the namespace is gone when either is raised.
    Raises Unconfined when no namespace can be had, or when the child could not confine itself.
    """
    command, why = unshare_command()
    if command is None:
        raise Unconfined(why)
    with open(os.path.join(job.scratch, "confinement.log"), "wb") as log:
        process = subprocess.Popen(
            [*command, sys.executable, "-m", "agentpager.probe.confinement"],
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            assert process.stdin is not None
            process.stdin.write(json.dumps(job.__dict__).encode())
            process.stdin.close()
            deadline = time.monotonic() + timeout
            while process.poll() is None:
                if cancel is not None and cancel.is_set():
                    raise Cancelled("cancelled")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the agent's namespace was still running after {timeout:.0f} s")
                time.sleep(0.05)
        except BaseException:
            stop_namespace(process)
            raise
    try:
        record = json.loads(Path(job.scratch, RECORDING).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        output = Path(job.scratch, "confinement.log").read_bytes().decode("utf-8", "replace").strip()
        raise Unconfined(f"the namespace could not be set up: {output[-2000:] or 'no output'}") from None
    return Outcome(_recording(record), record["returncode"], record["timed_out"])


def stop_namespace(process: subprocess.Popen[bytes]) -> None:
    """Kill the namespace's first process (the kernel then kills everything else in it, and lets it
    end only once they are gone), then ``unshare``, which was waiting for it."""
    children = _children(process.pid)
    for pid in children:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if children:  # unshare returns once its child is gone, and that child only once its namespace is
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            pass
    stop(process)


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            found += [int(child) for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    except OSError:
        pass
    return found


def _recording(record: Mapping[str, Any]) -> Recording:
    requests = [Request(r["method"], r["path"], base64.b64decode(r["body"])) for r in record["requests"]]
    recording = Recording(requests, list(record["offered_tools"]))
    if record["result"] is not None:
        recording.result = ToolResult(record["result"]["text"], record["result"]["is_error"])
        recording.result_request = requests[record["result"]["request"]]
        recording.done.set()
    return recording


def _record(recording: Recording, returncode: int | None, timed_out: bool) -> dict[str, Any]:
    requests = list(recording.requests)
    result = None
    if recording.result is not None and recording.result_request is not None:
        index = next(n for n, request in enumerate(requests) if request is recording.result_request)
        result = {"text": recording.result.text, "is_error": recording.result.is_error, "request": index}
    return {
        "requests": [{"method": r.method, "path": r.path, "body": base64.b64encode(r.body).decode()} for r in requests],
        "offered_tools": recording.offered_tools,
        "result": result,
        "returncode": returncode,
        "timed_out": timed_out,
    }


# -- inside the namespaces -----------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    encoded = [None if value is None else os.fsencode(value) for value in (source, target, fstype, data)]
    if _libc.mount(encoded[0], encoded[1], encoded[2], ctypes.c_ulong(flags), encoded[3]) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error), target)


def _mount_points() -> list[str]:
    """Every mount point, in the order mounted (``/proc/self/mountinfo``'s fifth field, unescaped)."""
    with open("/proc/self/mountinfo", "rb") as file:
        points = [line.split()[4] for line in file if len(line.split()) > 4]
    return [os.fsdecode(_unescape(point)) for point in points]


def _unescape(point: bytes) -> bytes:
    """mountinfo writes a space, tab, newline and backslash in a path as ``\\040`` and the like."""
    parts = point.split(b"\\")
    out = parts[0]
    for part in parts[1:]:
        out += bytes([int(part[:3], 8)]) + part[3:] if part[:3].isdigit() else b"\\" + part
    return out


def _read_only(point: str) -> None:
    """Remount ``point`` read-only, keeping its other flags (a flag locked by a parent namespace must stay)."""
    try:
        flags = os.statvfs(point).f_flag
    except OSError:
        return  # covered by a later mount: it cannot be reached
    if flags & os.ST_RDONLY:
        return
    kept = sum(bit for flag, bit in _KEPT_FLAGS if flags & flag)
    _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)


def _bind(source: str, target: str, read_only: bool) -> None:
    _mount(source, target, None, MS_BIND)
    _mount(None, target, None, MS_REMOUNT | MS_BIND | (MS_RDONLY if read_only else 0))


def _devices(staging: str) -> None:
    """A tmpfs with the few device files an agent needs, moved over ``/dev``."""
    os.makedirs(staging)
    _mount("tmpfs", staging, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k")
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            Path(staging, name).touch()
            _mount(f"/dev/{name}", os.path.join(staging, name), None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1")):
        os.symlink(target, os.path.join(staging, name))
    os.symlink("/proc/self/fd/2", os.path.join(staging, "stderr"))
    os.mkdir(os.path.join(staging, "shm"))
    _mount("tmpfs", os.path.join(staging, "shm"), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m")
    _mount(staging, "/dev", None, MS_MOVE)
    _mount(None, "/dev", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k")


def _hide(paths: Iterable[str], empty: str) -> None:
    """Cover each config directory with an empty read-only one, each config file with ``/dev/null``."""
    os.makedirs(empty, exist_ok=True)
    for path in paths:
        if os.path.isdir(path):
            _bind(empty, path, read_only=True)
        elif os.path.exists(path):
            _bind("/dev/null", path, read_only=True)


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def _drop_capabilities() -> None:
    """No new privileges for anything started from here, and no capability but KEPT_CAPABILITIES."""
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    for capability in range(last + 1):
        if capability not in KEPT_CAPABILITIES and _libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), f"prctl(PR_CAPBSET_DROP, {capability})")
    kept = sum(1 << capability for capability in KEPT_CAPABILITIES)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)(kept, kept, 0, 0, 0, 0)  # effective, permitted, inheritable (two words each)
    if _libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def _private_tmp(keep: Iterable[str], scratch: str) -> None:
    """A fresh tmpfs on ``/tmp`` (agents write there whatever their ``TMPDIR``), with the host's
    directories the run needs (the workspace, the agent, the probe's directory) bound back where
    they were: read-only, the probe's directory writable."""
    tmp = os.path.realpath("/tmp")
    paths = [*keep, *map(os.path.realpath, keep), scratch]
    tops = sorted({top for path in paths if (top := _top_under(path, tmp)) is not None})
    if not os.path.isdir(tmp):
        return
    host = os.open(tmp, os.O_PATH | os.O_DIRECTORY)
    try:
        _mount("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=256m")
        for top in tops:
            os.makedirs(os.path.join(tmp, top), exist_ok=True)
            _mount(f"/proc/self/fd/{host}/{top}", os.path.join(tmp, top), None, MS_BIND | MS_REC)
            _read_only(os.path.join(tmp, top))
    finally:
        os.close(host)


def _top_under(path: str, directory: str) -> str | None:
    """The name of the entry of ``directory`` that holds ``path`` (None when it is not under it)."""
    relative = os.path.relpath(path, directory)
    return None if relative == "." or relative.startswith("..") else relative.split(os.sep)[0]


def confine(scratch: str, hidden: Iterable[str], keep: Iterable[str]) -> None:
    """Make this (new) mount namespace read-only but ``scratch`` and a private ``/tmp`` (holding the
    ``keep`` paths the host has there), with a minimal ``/dev`` and the ``hidden`` configs covered,
    bring up the loopback and drop the capabilities that could undo it."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    for point in _mount_points():
        if not point.startswith(("/dev/", "/proc/")) and point not in ("/dev", "/proc"):
            _read_only(point)
    for name in PROC_READ_ONLY:  # the namespace's own /proc stays writable (an agent's sandbox maps uids there)
        if os.path.exists(f"/proc/{name}"):
            _bind(f"/proc/{name}", f"/proc/{name}", read_only=True)
    _private_tmp([path for path in keep if os.path.isabs(path) and os.path.lexists(path)], scratch)
    _bind(scratch, scratch, read_only=False)
    _devices(os.path.join(scratch, "dev"))
    _hide(hidden, os.path.join(scratch, "empty"))
    _loopback_up()
    _drop_capabilities()


def _serve_and_run(job: Job) -> dict[str, Any]:
    module, _, name = job.dialect.partition(":")
    dialect = getattr(importlib.import_module(module), name)()
    with MockServer(dialect, job.tool, job.arguments, job.model, port=job.port) as mock:
        with open(os.path.join(job.scratch, "home", "agent.log"), "wb") as log:
            process = subprocess.Popen(
                job.command,
                cwd=job.cwd,
                env=job.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            deadline = time.monotonic() + job.timeout
            recording = mock.recording
            while process.poll() is None and not recording.done.is_set() and time.monotonic() < deadline:
                recording.done.wait(0.05)
            timed_out = process.poll() is None and not recording.done.is_set()
            grace = time.monotonic() + job.exit_grace
            while not timed_out and process.poll() is None and time.monotonic() < grace:
                time.sleep(0.05)
            if process.poll() is None:
                stop(process)
        return _record(mock.recording, process.returncode, timed_out)


def _running_python() -> list[str]:
    """What this process runs from (its interpreter, its environment, agentpager's own package), to be
    kept in sight under the private ``/tmp``: a checkout or a virtual environment may live there, and
    the mock's dialect is imported after confining."""
    package = str(Path(__file__).resolve().parents[1])
    return [sys.executable, sys.prefix, sys.base_prefix, package]


def main() -> int:
    """The namespace's first process: confine, serve the mock, run the agent, write the recording."""
    job = Job(**json.loads(sys.stdin.read()))
    try:
        confine(job.scratch, job.hidden, [job.cwd, *job.command, *_running_python()])
    except OSError as error:
        print(f"could not confine the agent: {error}", file=sys.stderr)
        return 1
    record = _serve_and_run(job)
    Path(job.scratch, RECORDING).write_text(json.dumps(record), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
