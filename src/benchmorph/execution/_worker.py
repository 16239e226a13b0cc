"""The long-lived sandbox worker.  Standard library only.

It runs inside bubblewrap (no network, read-only file system, its own PID
namespace), so isolation is paid once per worker.  The worker serves requests
itself but never holds a request's code or a child's outputs in its Python
heap (they pass through anonymous mappings it unmaps, see ``Code`` and
``Relay``), so no child it forks later inherits them.  For every sample it
forks a fresh child that drops to an unprivileged uid of its own (so
RLIMIT_NPROC holds and the child cannot signal the worker), caps its
resources, and runs the model code in a scratch directory.  The child only
ever sees test *inputs*; outputs go back to the host, which compares them
with expected values the sandbox never holds.  That is what makes faking a
pass (patching ``==``, reading the answers) impossible by construction.

Protocol with the host (see ``serve``): a 4-byte big-endian length + UTF-8
JSON header, then the raw code; back, typed frames of relayed bytes, then a
JSON summary.  The host parses and checks the relayed records.  Both ways on
the file descriptors that were stdin/stdout when the worker started.

Usage: python _worker.py VALUES_PY UID SCRATCH_ROOT [own-ipc-namespace] [cgroup=FD:CONTROLLERS ...]

``cgroup=FD:memory,pids`` names an inherited, write-only ``cgroup.procs``
descriptor of the sample cgroup (see ``cgroups.py`` on the host): each
sample's child moves itself in through it, so the caps on memory and process
count hold for all its processes together, while the worker stays outside.
"""

from __future__ import annotations

import builtins
import errno
import importlib.util
import json
import mmap
import os
import resource
import select
import selectors
import shutil
import signal
import struct
import sys
import time
import traceback
from importlib.machinery import SourceFileLoader

# The worker itself reads and writes integers of any size (test inputs, outputs); a sample gets
# Python's default limit back while its own code runs (``PlainPython``).
DEFAULT_INT_DIGITS = sys.get_int_max_str_digits()
sys.set_int_max_str_digits(0)


def site_without_pth() -> None:
    """What ``site`` gives model code, without running the imports in site-packages' .pth files.

    The host starts the worker with ``-S``: .pth files run arbitrary imports
    at start-up (here one imports certifi, which pulls in threading), and
    every module loaded in the worker is a cost in each sample's fork, where
    threading alone (its after-fork hook) costs a third of a millisecond.  So
    the interpreter's site-packages go on sys.path as ``site`` would put them,
    with the directories their .pth files name (the lines that are paths, not
    ``import`` lines), and the builtins ``site`` adds (exit, quit, help,
    copyright, credits, license), since model code calls ``exit()``.
    """
    if not sys.flags.no_site:
        return
    import site

    for path in site.getsitepackages():
        if not os.path.isdir(path) or path in sys.path:
            continue
        sys.path.append(path)
        try:
            names = sorted(name for name in os.listdir(path) if name.endswith(".pth"))
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(path, name), encoding="utf-8") as handle:
                    lines = handle.read().splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            for line in lines:
                if not line.strip() or line.startswith(("#", "import ", "import\t")):
                    continue
                extra = os.path.abspath(os.path.join(path, line.rstrip()))
                if os.path.exists(extra) and extra not in sys.path:
                    sys.path.append(extra)
    site.setquit()
    site.setcopyright()
    site.sethelper()


site_without_pth()

_spec = importlib.util.spec_from_file_location("benchmorph_values", sys.argv[1])
assert _spec is not None and _spec.loader is not None
values = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(values)

CHILD_UID = int(sys.argv[2])
SCRATCH_ROOT = sys.argv[3]
FLAGS = sys.argv[4:]
# Set by the host only when the worker has an IPC namespace to itself (bwrap).
OWN_IPC_NAMESPACE = "own-ipc-namespace" in FLAGS
# Inherited cgroup.procs descriptors of the sample cgroup, with the controllers each caps.
CGROUP_FDS = {
    int(fd): set(names.split(","))
    for fd, _, names in (
        flag[len("cgroup=") :].partition(":") for flag in FLAGS if flag.startswith("cgroup=")
    )
}
MEMORY_CGROUP = any("memory" in names for names in CGROUP_FDS.values())
PIDS_CGROUP = any("pids" in names for names in CGROUP_FDS.values())
# A read-only descriptor of the sample cgroup's CPU counter, and its format: "v1" (cpuacct.usage,
# nanoseconds) or "v2" (cpu.stat, "usage_usec N" first).  None: the sample's process tree is read.
# A read-only descriptor of the sample cgroup's pids.events ("max N": forks refused), or None.
PIDS_EVENTS_FD = next((int(flag[12:]) for flag in FLAGS if flag.startswith("pids-events=")), None)
CPU_FD, CPU_FORMAT = next(
    (
        (int(fd), kind)
        for fd, _, kind in (flag[4:].partition(":") for flag in FLAGS if flag.startswith("cpu="))
    ),
    (None, ""),
)
IS_ROOT = os.geteuid() == 0
MAX_ERROR = 400
# The most coverage data one traced stdin run may send (more is cut, and the host then ignores it).
COVERAGE_BYTES = 4 << 20
# Children forked for the current job (their session ids, for cleanup without a uid of their own).
SPAWNED: list[int] = []
# Test inputs by key, so a problem's inputs cross the pipe once per worker, not once per sample.
INPUTS: dict[str, list] = {}

# Keep the protocol off fds 0/1 so children never inherit it by accident.
PROTO_IN = os.dup(0)
PROTO_OUT = os.dup(1)
_devnull = os.open(os.devnull, os.O_RDWR)
os.dup2(_devnull, 0)
os.dup2(_devnull, 1)
os.close(_devnull)


def read_exact(fd: int, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = os.read(fd, size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


# A zero length header is the host's "stop this job" (see ``take_cancel``); between jobs it is skipped.
CANCEL = b"\0\0\0\0"


def read_message() -> dict | None:
    while True:
        header = read_exact(PROTO_IN, 4)
        if header is None:
            return None
        size = struct.unpack(">I", header)[0]
        if size:  # a zero size is a cancel that came after its job had already ended
            break
    body = read_exact(PROTO_IN, size)
    return None if body is None else json.loads(body)


def take_cancel() -> None:
    """Consume the host's cancel, which arrived while a job ran: the caller then ends the job.

    The host sends nothing else while a job runs (its next request waits for
    this one's reply), so anything but a cancel (or end of file: the host is
    gone, and the next ``read_message`` says so) means the framing is lost.
    """
    if read_exact(PROTO_IN, 4) not in (None, CANCEL):
        os._exit(3)


def write_frame(kind: bytes, payload: bytes | memoryview) -> None:
    """One reply frame: a kind byte, a 4-byte big-endian length, the payload."""
    header = kind + struct.pack(">I", len(payload))
    with memoryview(payload) as body:
        # One system call for both, as a rule; a short write finishes piece by piece.
        written = os.writev(PROTO_OUT, [header, body])
        if written < len(header):
            view = memoryview(header)[written:]
            while view:
                view = view[os.write(PROTO_OUT, view) :]
            written = len(header)
        rest = body[written - len(header) :]
        while rest:
            rest = rest[os.write(PROTO_OUT, rest) :]


class Code:
    """The request's source text, in an anonymous mapping the worker never copies into its heap.

    Read straight from the host's pipe into the mapping; each child takes a
    copy into its own memory and unmaps it, and the worker unmaps it when the
    request ends, so no later child can find it (see ``Relay``).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.map = mmap.mmap(-1, max(size, 1))
        with memoryview(self.map) as view:
            done = 0
            while done < size:
                got = os.readv(PROTO_IN, [view[done:size]])
                if not got:
                    raise EOFError("host closed the pipe mid-request")
                done += got

    def take(self) -> str:
        """In a child: the source, as its own text, with the shared mapping gone."""
        source = self.map[: self.size].decode("utf-8", "surrogatepass")
        self.map.close()
        return source

    def close(self) -> None:
        self.map.close()


def describe(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text[:MAX_ERROR]


# ------------------------------------------------------------------ time


# How often a running test's CPU time is looked at (seconds of wall time, at most).
CHECK_EVERY = 0.1
# The pure wall-clock cap, as a multiple of the backstop: a last resort that nothing but a
# machine loaded far beyond anything the backstop allows for reaches.
WALL_CAP = 4.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class SampleClock:
    """CPU seconds a sample's processes used, and how long its threads were running or queued for a CPU.

    Time limits are charged in CPU time so that a verdict does not depend on
    how busy the machine is.  With a cgroup, its counter (every process and
    thread of the sample, reaped or not); without one, the sample's process
    tree in /proc (the child's own threads and the children it waited for,
    plus the live processes below it).  ``main_busy`` and ``others_busy`` say
    how long the sample's threads have been running or ready to run
    (/proc/.../schedstat: CPU time plus run-queue delay), which the wall-clock
    backstop does not count, so that a busy machine does not stop a sample
    that merely waits its turn for a CPU.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.sched_fd = self._open(f"/proc/{pid}/schedstat")
        self.stat_fd = self._open(f"/proc/{pid}/stat") if CPU_FD is None else None

    @staticmethod
    def _open(path: str) -> int | None:
        try:
            return os.open(path, os.O_RDONLY)
        except OSError:
            return None

    def cpu(self) -> float:
        if CPU_FD is not None:
            try:
                data = os.pread(CPU_FD, 512, 0)
                if CPU_FORMAT == "v1":
                    return int(data) / 1e9
                return int(data.split(None, 2)[1]) / 1e6  # "usage_usec N ..."
            except (OSError, ValueError, IndexError):
                pass
        return self.tree_cpu()

    def tree_cpu(self) -> float:
        """CPU seconds of the child (all its threads, and the children it reaped) and its live descendants."""
        ticks = 0
        pending = [self.pid]
        seen = 0
        while pending and seen < 4096:
            pid = pending.pop()
            seen += 1
            try:
                if pid == self.pid and self.stat_fd is not None:
                    stat = os.pread(self.stat_fd, 4096, 0)
                else:
                    fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
                    try:
                        stat = os.read(fd, 4096)
                    finally:
                        os.close(fd)
                fields = stat.rpartition(b")")[2].split()
                # utime, stime, cutime, cstime (fields 14-17 of stat; 3 is the first after the name).
                ticks += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
                fd = os.open(f"/proc/{pid}/task/{pid}/children", os.O_RDONLY)
                try:
                    pending.extend(int(child) for child in os.read(fd, 1 << 16).split())
                finally:
                    os.close(fd)
            except (OSError, ValueError, IndexError):
                continue
        return ticks / CLOCK_TICKS

    def main_busy(self) -> float:
        """Seconds the child's main thread has been running or ready to run (CPU + run-queue delay)."""
        if self.sched_fd is None:
            return 0.0
        try:
            fields = os.pread(self.sched_fd, 256, 0).split()
            return (int(fields[0]) + int(fields[1])) / 1e9
        except (OSError, ValueError, IndexError):
            return 0.0

    def others_busy(self) -> float:
        """The most seconds any other thread or process of the sample has been running or ready to run.

        Read only when a test has run for a while (``TestTimer.expired``): a parent that waits
        for its workers is not idle while they are busy or queued for a CPU.  Threads and
        processes the sample left running from before the test count whole, which only makes
        the backstop later, never earlier.
        """
        busiest = 0.0
        pending = [self.pid]
        seen = 0
        while pending and seen < 4096:
            pid = pending.pop()
            try:
                threads = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in threads:
                seen += 1
                base = f"/proc/{pid}/task/{tid}"
                try:
                    if tid != str(self.pid):
                        fd = os.open(base + "/schedstat", os.O_RDONLY)
                        try:
                            fields = os.read(fd, 256).split()
                        finally:
                            os.close(fd)
                        busiest = max(busiest, (int(fields[0]) + int(fields[1])) / 1e9)
                    fd = os.open(base + "/children", os.O_RDONLY)
                    try:
                        pending.extend(int(child) for child in os.read(fd, 1 << 16).split())
                    finally:
                        os.close(fd)
                except (OSError, ValueError, IndexError):
                    continue
        return busiest

    @staticmethod
    def refused_forks() -> int:
        """How many forks the sample cgroup's pids.max has refused so far (0 without the counter)."""
        if PIDS_EVENTS_FD is None:
            return 0
        try:
            return int(os.pread(PIDS_EVENTS_FD, 128, 0).split()[1])
        except (OSError, ValueError, IndexError):
            return 0

    def close(self) -> None:
        for fd in (self.sched_fd, self.stat_fd):
            if fd is not None:
                os.close(fd)
        self.sched_fd = self.stat_fd = None


class TestTimer:
    """One limit at a time (a test's, or the load's): CPU seconds, with a wall-clock backstop.

    ``expired`` is asked only when ``check_at`` has passed, so a test that
    ends quickly costs two counter reads (at its start) and no more.  The
    backstop is ``factor`` times the limit, in wall time during which no
    thread of the sample was running or queued for a CPU: it stops a sample
    that sleeps or blocks (which uses no CPU), not one that is slow because
    the machine is busy.  ``WALL_CAP`` times that, in plain wall time, is the
    last resort.
    """

    def __init__(self, clock: SampleClock, factor: float) -> None:
        self.clock = clock
        self.factor = factor
        # A refused fork ends the job at the next check ("cap"): the host then reports the cap by name.
        self.refused = clock.refused_forks()
        self.limit = 0.0
        self.started = self.check_at = 0.0
        self.cpu_start = self.busy_start = 0.0

    def start(self, limit: float) -> None:
        self.limit = limit
        self.started = time.monotonic()
        self.cpu_start = self.clock.cpu()
        self.busy_start = self.clock.main_busy()
        self.check_at = self.started + min(limit, CHECK_EVERY)

    def used(self) -> float:
        return self.clock.cpu() - self.cpu_start

    def expired(self, now: float) -> str | None:
        """ "cpu" or "wall" when the limit or the backstop ran out, "cap" when the task cap refused a
        fork; else None, and ``check_at`` moves on.

        The backstop counts the wall time in which no thread of the sample was running or
        ready to run: the time it chose to wait (sleep, block), not the time it queued for a CPU.
        """
        if self.clock.refused_forks() != self.refused:
            return "cap"
        used = self.used()
        if used >= self.limit:
            return "cpu"
        wall = now - self.started
        backstop = self.factor * self.limit
        if wall >= backstop:
            busy = self.clock.main_busy() - self.busy_start
            if wall - busy >= backstop:
                busy = max(busy, self.clock.others_busy())
            if wall - busy >= backstop or wall >= WALL_CAP * backstop:
                return "wall"
            idle = wall - busy
        else:
            idle = wall  # at most: the backstop cannot have run out before ``backstop`` seconds
        self.check_at = now + max(0.002, min(self.limit - used, backstop - idle, CHECK_EVERY))
        return None


# ---------------------------------------------------------------- child side


def join_sample_cgroup() -> None:
    """First thing in a sample's child: move into the sample cgroup, and be the OOM killer's first pick.

    Done while still root, through descriptors the host opened (the kernel
    checks the opener), which are closed at once: model code never holds
    them.  Failing here fails the sample: it never runs without the caps the
    host announced.
    """
    for fd in CGROUP_FDS:
        os.write(fd, b"0")  # 0: the writing process itself (and any threads)
    for fd in CGROUP_FDS:
        os.close(fd)
    try:
        # os.open, not open(): the io stack would cost a child a fifth of a millisecond here.
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        try:
            os.write(fd, b"1000")
        finally:
            os.close(fd)
    except OSError:
        pass


def enter_jail(scratch: str, limits: dict, cpu_seconds: int) -> None:
    """Become the unprivileged sample user, in its scratch dir, under rlimits.

    A process group of its own, not a session: ``setsid`` makes the kernel
    build a scheduler autogroup per sample (half a millisecond here), and a
    session buys nothing the group does not.  The worker already leads a
    session with no controlling terminal (bwrap --new-session, or the host's
    start_new_session), so the sample has none either, and as a group leader
    outside the worker's group it is still found by ``killpg`` at clean-up
    (in the root mode clean-up is by uid anyway, and the uid is what keeps it
    from signalling the worker).
    """
    os.setpgid(0, 0)
    if IS_ROOT:
        os.setgroups([])
        os.setgid(CHILD_UID)
        os.setuid(CHILD_UID)
    os.chdir(scratch)
    # The worker's environment is already exactly the sample's (``sample_environment``) but for
    # these two: plain assignments, where clearing and refilling os.environ costs 0.2 ms a child.
    os.environ["HOME"] = scratch
    os.environ["TMPDIR"] = scratch
    caps = [
        (resource.RLIMIT_CPU, cpu_seconds),
        (resource.RLIMIT_NOFILE, limits["open_files"]),
        (resource.RLIMIT_FSIZE, limits["file_size"]),
        (resource.RLIMIT_CORE, 0),
    ]
    if not MEMORY_CGROUP:
        # Per process only: the weaker cap, when no cgroup sums the sample's memory.
        caps.append((resource.RLIMIT_AS, limits["memory"]))
    if IS_ROOT:
        # Processes and threads alike (the kernel counts tasks).  With pids.max in force this is
        # only a backstop, set above it so that the cgroup is what refuses a fork (and the host
        # reports the cap by name).
        caps.append((resource.RLIMIT_NPROC, limits["tasks"] * (2 if PIDS_CGROUP else 1)))
    for which, value in caps:
        resource.setrlimit(which, (value, value))
    # A write past RLIMIT_FSIZE should fail with EFBIG, not kill the child.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def keep_only_fds(keep: set[int]) -> None:
    low = 3
    for fd in sorted(keep):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, 1 << 16)


class Coverage:
    """Lines and arcs (line -> next line) the solution's own code executes in one call, by ``sys.settrace``.

    Only frames whose code was compiled from the solution (its file name)
    are followed, so the standard library and the harness
    never count.  An arc starts at minus the function's first line on entry
    and ends there on return, as coverage.py writes them, so that "entered"
    and "returned from" are items too.  Used on trusted references, to keep
    the tests that exercise what the others do not (the jail has no coverage
    package; this is the standard library's hook).
    """

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.lines: set[int] = set()
        self.arcs: set[tuple[int, int]] = set()

    def _call(self, frame, event, arg):  # noqa: ANN001, ANN202 - sys.settrace's signature
        code = frame.f_code
        if code.co_filename != self.filename:
            return None
        lines, arcs = self.lines, self.arcs
        start = -code.co_firstlineno
        last = [start]

        def local(frame, event, arg):  # noqa: ANN001, ANN202
            if event == "line":
                number = frame.f_lineno
                lines.add(number)
                arcs.add((last[0], number))
                last[0] = number
            elif event == "return":
                arcs.add((last[0], start))
            return local

        return local

    def start(self) -> None:
        self.lines, self.arcs = set(), set()
        sys.settrace(self._call)

    def stop(self) -> dict:
        sys.settrace(None)
        return {"l": sorted(self.lines), "a": sorted([a, b] for a, b in self.arcs)}


def plain_python(kind: str, scratch: str, source: str) -> tuple[dict, str]:
    """The namespace a sample's code runs in, the file name to compile it as, and the interpreter
    state plain Python would give it there.

    A sample's semantics must be exactly plain Python's: nothing of the
    harness (its ``__future__`` flags, globals, ``__main__``, argv, path or
    integer limit) may leak in.  The code itself is compiled with
    ``dont_inherit=True`` (``compile_sample``), and its source is written to
    the file its ``__file__`` names, in the scratch dir (so ``inspect`` and
    tracebacks find it, as they would).

    * function and method problems: the module ``python -c "import solution"``
      imports: a module of its own (``__solution__``, from ``__solution__.py``,
      with its spec, loader, ``__file__`` and ``__cached__``), registered in
      ``sys.modules`` (pickle and ``typing.get_type_hints`` find it), whose
      ``if __name__ == "__main__"`` demo does not run; ``sys.argv`` is
      ``['-c']`` and ``sys.path[0]`` is ``''`` (the current directory);
    * stdin problems: the program ``python main.py`` runs in its scratch dir,
      as ``__main__`` with ``__file__``, a loader, and the builtins module as
      ``__builtins__``; ``sys.argv == ["main.py"]``, ``sys.path[0]`` the
      scratch dir.

    Both are compiled under their file's name relative to the scratch dir
    (plain Python would give the absolute path), so that a traceback in a
    verdict never names the per-request scratch dir and the same program gets
    the same verdict every time.  In both, ``import __main__`` no longer finds
    the worker, and integers convert to text under Python's default limit (the
    harness lifts it only around its own encoding, ``HarnessDigits``).
    """
    module_type = type(sys)
    if kind == "stdin":
        filename = PROGRAM
        path = os.path.join(scratch, filename)
        module = module_type("__main__")
        module.__file__ = path
        # What a script's module holds: the builtins module itself (an imported module gets its
        # dict), and the empty ``__annotations__`` Python's start-up gives ``__main__``.
        module.__dict__.update(
            __builtins__=builtins,
            __cached__=None,
            __loader__=SourceFileLoader("__main__", path),
            __annotations__={},
        )
        sys.modules["__main__"] = module
        sys.argv[:] = [PROGRAM]
        sys.path[0] = scratch
    else:
        filename = MODULE_FILE
        path = os.path.join(scratch, filename)
        spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        main = module_type("__main__")
        main.__dict__["__builtins__"] = builtins
        sys.modules[MODULE_NAME] = module
        sys.modules["__main__"] = main
        sys.argv[:] = ["-c"]
        sys.path[0] = ""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        data = memoryview(source.encode("utf-8", "surrogatepass"))
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)
    sys.set_int_max_str_digits(DEFAULT_INT_DIGITS)
    return module.__dict__, filename


# The file names and module name a sample runs as (``plain_python``).
PROGRAM = "main.py"
MODULE_NAME = "__solution__"
MODULE_FILE = "__solution__.py"


def compile_sample(source: str, filename: str):  # noqa: ANN201 - a code object
    """The sample's code object: no future flag of this module (``annotations``) is inherited."""
    return compile(source, filename, "exec", dont_inherit=True)


class HarnessDigits:
    """Lifts the int-to-text limit while the harness encodes a result, and gives the sample its own back.

    The sample may change the limit itself (``sys.set_int_max_str_digits``);
    what it set is what its next call runs under.
    """

    def __enter__(self) -> None:
        self.sample = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)

    def __exit__(self, *_exc: object) -> None:
        sys.set_int_max_str_digits(self.sample)


def run_function_child(job: dict, source: str, wfd: int, scratch: str, cpu_seconds: int) -> None:
    """Execute the solution once, then call the entry point on every input, streaming results.

    Each result carries the call's wall time (``t``) and CPU time (``u``,
    this process's, threads included): references are calibrated in CPU time.
    """

    def emit(record: dict) -> None:
        data = (json.dumps(record) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(wfd, view) :]

    try:
        join_sample_cgroup()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        keep_only_fds({wfd})
        enter_jail(scratch, job["limits"], cpu_seconds)
    except BaseException as exc:  # noqa: BLE001
        emit({"setup_error": "sandbox setup failed: " + describe(exc)})
        os._exit(1)
    inputs = job["inputs"]
    kind = job["kind"]
    entry = job["entry_point"]
    digits = HarnessDigits()
    try:
        namespace, filename = plain_python(kind, scratch, source)
    except BaseException as exc:  # noqa: BLE001
        emit({"setup_error": "sandbox setup failed: " + describe(exc)})
        os._exit(1)
    try:
        code = compile_sample(source, filename)
        exec(code, namespace)  # noqa: S102 - this is the point of the sandbox
        if kind == "method":
            factory = namespace["Solution"]
            getattr(factory(), entry)
        else:
            target = namespace[entry]
            if not callable(target):
                raise TypeError(f"{entry} is not callable")
    except BaseException as exc:  # noqa: BLE001
        with digits:
            emit({"setup_error": describe(exc)})
        os._exit(0)
    with digits:
        emit({"ready": True})
    clock = time.perf_counter
    # The call's CPU seconds: this thread's (precise), or the whole process's where other threads
    # worked too.  With RLIMIT_CPU set the kernel keeps a process-wide CPU timer, and the process
    # clock then moves in scheduler ticks (a 1 ms call reads 0), so neither alone will do.
    thread_clock, process_clock = time.thread_time, time.process_time
    trace = Coverage(filename) if job.get("trace") else None
    # Without per-test details the first failing test decides: a raise ends the run here, a
    # wrong answer (which only the host can tell) when the host cancels the job.
    stop_on_error = bool(job.get("first_failure"))
    for index, raw in enumerate(inputs):
        with digits:
            args = values.decode(raw)
        thread_started, process_started = thread_clock(), process_clock()
        started = clock()
        if trace is not None:
            trace.start()
        try:
            function = getattr(namespace["Solution"](), entry) if kind == "method" else namespace[entry]
            result = function(*args)
            elapsed = clock() - started
            cpu = max(thread_clock() - thread_started, process_clock() - process_started)
        except BaseException as exc:  # noqa: BLE001
            elapsed = clock() - started
            cpu = max(thread_clock() - thread_started, process_clock() - process_started)
            if trace is not None:
                trace.stop()
            with digits:
                emit({"i": index, "s": "error", "t": elapsed, "u": cpu, "e": describe(exc)})
            if stop_on_error:
                break
            continue
        covered = trace.stop() if trace is not None else None
        with digits:
            try:
                line = {"i": index, "s": "ok", "t": elapsed, "u": cpu, "o": values.encode(result)}
                if covered is not None:
                    line["c"] = covered
                emit(line)
            except BaseException as exc:  # noqa: BLE001
                message = "output cannot be encoded: " + describe(exc)
                emit({"i": index, "s": "error", "t": elapsed, "u": cpu, "e": message})
                if stop_on_error:
                    break
    with digits:
        emit({"end": True})
    os._exit(0)


def run_stdin_child(
    job: dict,
    source: str,
    text: str,
    out_w: int,
    err_w: int,
    scratch: str,
    cpu_seconds: int,
    cov_w: int | None = None,
) -> None:
    """Run the program as __main__ with the test input on stdin and stdout/stderr piped to the worker.

    With ``cov_w`` (a traced job), the lines and arcs the program executed go
    there as one JSON object when it ends.
    """
    try:
        join_sample_cgroup()
        keep_only_fds({out_w, err_w} | ({cov_w} if cov_w is not None else set()))
        enter_jail(scratch, job["limits"], cpu_seconds)
        path = os.path.join(scratch, ".stdin")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        fd = os.open(path, os.O_RDONLY)
        os.dup2(fd, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for extra in {fd, out_w, err_w} - {0, 1, 2}:
            os.close(extra)
        namespace, filename = plain_python("stdin", scratch, source)
    except BaseException as exc:  # noqa: BLE001
        os.write(2, ("sandbox setup failed: " + describe(exc)).encode())
        os._exit(121)
    code_status = 0
    trace = Coverage(filename) if cov_w is not None else None
    try:
        if trace is not None:
            trace.start()
        exec(compile_sample(source, filename), namespace)  # noqa: S102
    except SystemExit as exc:
        code_status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException as exc:  # noqa: BLE001
        # As plain Python prints it: from the program's own frame, not this one.
        traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next if exc.__traceback__ else None)
        code_status = 1
    if trace is not None and cov_w is not None:
        covered = json.dumps(trace.stop()).encode()
        view = memoryview(covered)
        while view:
            view = view[os.write(cov_w, view) :]
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        code_status = code_status or 1
    os._exit(code_status)


# --------------------------------------------------------------- worker side


def kill_and_reap(pid: int) -> int:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return wait_status(pid)


def wait_status(pid: int) -> int:
    while True:
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return 0
        except InterruptedError:
            continue


def describe_exit(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = str(number)
        return f"killed by {name}"
    return f"exited with code {os.WEXITSTATUS(status)}"


def prepare_scratch(token: int) -> str:
    path = os.path.join(SCRATCH_ROOT, f"s{token}")
    # Owned by the worker, writable by the sample through its group: the sample
    # cannot chmod it, and the worker can still list and empty it without a fork.
    os.mkdir(path, 0o700)
    if IS_ROOT:
        os.chown(path, 0, CHILD_UID)
        os.chmod(path, 0o770)
    return path


def sample_processes_left() -> bool:
    """Whether any live (non-zombie) process of the sample's uid remains, besides the caller."""
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        # os.open and bytes, not open(): this runs after every sample.
        try:
            fd = os.open(f"/proc/{name}/status", os.O_RDONLY)
        except OSError:
            continue
        try:
            status = os.read(fd, 1 << 16)
        except OSError:
            continue
        finally:
            os.close(fd)
        state = uid = None
        for line in status.splitlines():
            if line.startswith(b"State:"):
                state = line.split()[1]
            elif line.startswith(b"Uid:"):
                uid = int(line.split()[1])
                break
        if uid == CHILD_UID and state not in (b"Z", b"X"):
            return True
    return False


def reap_children() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def quick_cleanup(scratch: str) -> bool:
    """The common case, without forking: no process left and only plain files in scratch."""
    if not IS_ROOT or sample_processes_left():
        return False
    try:
        entries = list(os.scandir(scratch))
        if any(entry.is_dir(follow_symlinks=False) for entry in entries):
            return False
        for entry in entries:
            os.unlink(entry.path)
        os.rmdir(scratch)
    except OSError:
        return False
    return True


def cleanup(scratch: str, child_groups: list[int]) -> None:
    """Kill everything the sample left behind (fork bombs included) and wipe its scratch dir."""
    reap_children()
    if quick_cleanup(scratch):
        return
    helper = os.fork()
    if helper == 0:
        try:
            for fd in CGROUP_FDS:
                os.close(fd)
            if IS_ROOT:
                os.setgroups([])
                os.setgid(CHILD_UID)
                os.setuid(CHILD_UID)
                # As the sample's own uid, -1 reaches exactly its processes (never the
                # worker); kill(-1) does not report when nothing was left, so look.
                for _ in range(2000):
                    try:
                        os.kill(-1, signal.SIGKILL)
                    except ProcessLookupError:
                        break
                    if not sample_processes_left():
                        break
                    time.sleep(0.0005)
            else:
                # Without a uid of its own the sample can only be found by its session.
                for group in child_groups:
                    try:
                        os.killpg(group, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass

            def unlock(function, path, _info):
                try:
                    os.chmod(os.path.dirname(path), 0o700)
                    os.chmod(path, 0o700)
                    function(path)
                except OSError:
                    pass

            for name in os.listdir(scratch):
                target = os.path.join(scratch, name)
                if os.path.isdir(target) and not os.path.islink(target):
                    shutil.rmtree(target, onerror=unlock)
                else:
                    os.unlink(target)
        except BaseException:  # noqa: BLE001
            pass
        finally:
            os._exit(0)
    wait_status(helper)
    reap_children()
    try:
        os.rmdir(scratch)
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)


class Relay:
    """Moves a child's bytes to the host through one anonymous mapping, never the Python heap.

    The worker outlives every request and forks every sample's child, and
    freed Python memory keeps its bytes: outputs (expected values, when the
    job runs a reference) that passed through ``bytes`` objects here could be
    read back by a later sample scanning its own memory.  A mapping of our own
    is filled by ``readinto``, written out from a view, and unmapped when the
    request ends, so its pages go back to the kernel.
    """

    SIZE = 1 << 16

    def __init__(self) -> None:
        self.map = mmap.mmap(-1, self.SIZE)
        self.view = memoryview(self.map)

    def read(self, fd: int) -> int:
        """Read what is there (up to SIZE) into the mapping; 0 at end of file."""
        try:
            return os.readv(fd, [self.view])
        except OSError:
            return 0

    def count(self, byte: bytes, size: int, most: int) -> int:
        """How many ``byte`` the last read holds, counting no further than ``most``.

        The bound keeps a stream of bare newlines from costing a Python loop
        turn per byte: past the lines it waits for, the worker stops reading.
        """
        found, at = 0, self.map.find(byte, 0, size)
        while at >= 0 and found < most:
            found += 1
            at = self.map.find(byte, at + 1, size)
        return found

    def forward(self, kind: bytes, size: int) -> None:
        write_frame(kind, self.view[:size])

    def close(self) -> None:
        self.view.release()
        self.map.close()


def run_function_job(job: dict, code: Code, scratch: str, relay: Relay) -> dict:
    """Run the child and relay its result stream verbatim; the host parses and checks the records.

    The worker only counts lines (one record each) to enforce the limit of
    the test running now (``TestTimer``), and the output budget: the first
    line is the harness's "ready", each next one a test's result, then "end".
    """
    timeouts = job["timeouts"]
    total = len(job["inputs"])
    factor = float(job.get("wall_factor") or 3.0)
    # RLIMIT_CPU: a backstop per process, above everything the tests may use together.
    cpu_seconds = int(job["setup_time"] + sum(timeouts)) + 2
    rfd, wfd = os.pipe()
    pid = os.fork()
    SPAWNED.append(pid)
    if pid == 0:
        os.close(rfd)
        relay.close()
        try:
            run_function_child(job, code.take(), wfd, scratch, cpu_seconds)
        finally:
            os._exit(1)
    os.close(wfd)
    clock = SampleClock(pid)
    job_cpu = clock.cpu()
    outcome: dict[str, object] = {"violation": None, "timed_out": False}
    budget = job["limits"]["output"]
    received = 0
    lines = 0
    timer = TestTimer(clock, factor)
    timer.start(job["setup_time"])
    selector = selectors.DefaultSelector()
    selector.register(rfd, selectors.EVENT_READ)
    if job.get("first_failure"):
        selector.register(PROTO_IN, selectors.EVENT_READ)
    while lines < total + 2:
        now = time.monotonic()
        if now >= timer.check_at:
            ran_out = timer.expired(now)
            if ran_out == "cap":
                outcome["capped"] = True  # the host names the cap (the sample cgroup's counters)
                break
            if ran_out is not None:
                outcome["timed_out"] = True
                outcome["timeout_by"] = ran_out
                break
        events = selector.select(max(0.0, timer.check_at - now))
        if not events:
            continue
        if any(key.fd == PROTO_IN for key, _ in events):
            take_cancel()
            outcome["cancelled"] = True
            break
        size = relay.read(rfd)
        if not size:
            break
        received += size
        if received > budget:
            outcome["violation"] = f"output limit exceeded ({budget} bytes)"
            break
        relay.forward(b"D", size)
        new_lines = relay.count(b"\n", size, total + 2 - lines)
        if new_lines:
            lines += new_lines
            done = lines - 1  # results so far, after the "ready" line
            timer.start(timeouts[done] if done < total else 1.0)
    selector.close()
    os.close(rfd)
    used = clock.cpu() - job_cpu
    status = kill_and_reap(pid)
    clock.close()
    return {"lines": lines, "exit": describe_exit(status), "cpu": used, **outcome}


def run_stdin_job(job: dict, code: Code, scratch: str, relay: Relay) -> dict:
    """One child per input; its stdout ("O") and stderr ("E") are relayed, then a "T" frame per test.

    Each run is limited like a function job's test (``TestTimer``): its test's
    CPU limit plus the load's, with the wall-clock backstop.
    """
    budget = job["limits"]["output"]
    factor = float(job.get("wall_factor") or 3.0)
    outcome: dict[str, object] = {"violation": None, "timeout_in": None}
    cpu_total = 0.0
    first_failure = bool(job.get("first_failure"))
    for index, text in enumerate(job["inputs"]):
        if first_failure and index and _host_spoke():
            take_cancel()
            outcome["cancelled"] = True
            break
        limit = job["timeouts"][index] + job["setup_time"]
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        cov_r, cov_w = os.pipe() if job.get("trace") else (None, None)
        started = time.monotonic()
        pid = os.fork()
        SPAWNED.append(pid)
        if pid == 0:
            os.close(out_r)
            os.close(err_r)
            if cov_r is not None:
                os.close(cov_r)
            relay.close()
            try:
                run_stdin_child(job, code.take(), text, out_w, err_w, scratch, int(limit) + 2, cov_w)
            finally:
                os._exit(1)
        os.close(out_w)
        os.close(err_w)
        clock = SampleClock(pid)
        timer = TestTimer(clock, factor)
        timer.start(limit)
        selector = selectors.DefaultSelector()
        selector.register(out_r, selectors.EVENT_READ, b"O")
        selector.register(err_r, selectors.EVENT_READ, b"E")
        open_streams, overflow = 2, False
        ran_out: str | None = None
        status: int | None
        if cov_r is not None and cov_w is not None:
            os.close(cov_w)
            selector.register(cov_r, selectors.EVENT_READ, b"C")
            open_streams += 1
        size = err_size = cov_size = 0
        while open_streams:
            now = time.monotonic()
            if now >= timer.check_at:
                ran_out = timer.expired(now)
                if ran_out is not None:
                    break
            for key, _ in selector.select(max(0.0, timer.check_at - now)):
                got = relay.read(key.fd)
                if not got:
                    selector.unregister(key.fd)
                    open_streams -= 1
                    continue
                if key.data == b"O":
                    size += got
                    if size > budget:
                        overflow = True
                        open_streams = 0
                        break
                    relay.forward(b"O", got)
                elif key.data == b"C":
                    if cov_size < COVERAGE_BYTES:
                        cov_size += got
                        relay.forward(b"C", got)
                elif err_size < 4096:
                    err_size += got
                    relay.forward(b"E", got)
        selector.close()
        os.close(out_r)
        os.close(err_r)
        if cov_r is not None:
            os.close(cov_r)
        if ran_out is not None or overflow:
            used = timer.used()
            kill_and_reap(pid)
            status = None
        else:
            # The streams closed: the program is ending.  Its exit is waited for under the same limit.
            status, ran_out, used = wait_within(pid, timer)
        clock.close()
        elapsed = time.monotonic() - started
        cpu_total += used
        if overflow:
            outcome["violation"] = f"output limit exceeded ({budget} bytes)"
            break
        if ran_out == "cap":
            outcome["capped"] = True
            break
        if ran_out is not None:
            outcome["timeout_in"] = index
            outcome["timeout_by"] = ran_out
            break
        assert status is not None
        ok = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        test = {"i": index, "t": elapsed, "u": used, "ok": ok, "exit": describe_exit(status)}
        write_frame(b"T", json.dumps(test).encode())
        if first_failure and not ok:
            break
    outcome["cpu"] = cpu_total
    return outcome


def wait_within(pid: int, timer: TestTimer) -> tuple[int | None, str | None, float]:
    """The child's exit status, None, and the CPU its test used; or None, what ran out (``TestTimer``), used.

    A program that closed stdout and stderr may still run (or sleep); it is
    killed at its limit like one that kept them open.  Its exit is waited for
    on a pidfd (Linux 5.3+), else by polling.
    """
    try:
        pidfd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    try:
        while True:
            try:
                done, status, usage = os.wait4(pid, os.WNOHANG)
            except ChildProcessError:
                return 0, None, timer.used()
            if done:
                if CPU_FD is not None:
                    return status, None, timer.used()
                # Without a cgroup: the child's own CPU and its reaped children's, from the kernel.
                return status, None, usage.ru_utime + usage.ru_stime
            now = time.monotonic()
            ran_out = timer.expired(now) if now >= timer.check_at else None
            if ran_out is not None:
                used = timer.used()
                kill_and_reap(pid)
                return None, ran_out, used
            wait = max(0.0, timer.check_at - now)
            if pidfd is not None:
                select.select([pidfd], [], [], wait)
            else:
                time.sleep(min(0.001, wait))
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _host_spoke() -> bool:
    """Whether the host wrote something (a cancel) since the job began; never waits."""
    with selectors.DefaultSelector() as selector:
        selector.register(PROTO_IN, selectors.EVENT_READ)
        return bool(selector.select(0))


def forbid_sysv_ipc() -> None:
    """Allow no System V IPC objects (nor POSIX queues) in this worker's own IPC namespace.

    A shared memory segment outlives the process that made it and, once
    detached, counts against no rlimit: a sample could loop create, attach,
    fill, detach to take unbounded memory, and it would stay taken after the
    sample's processes are gone.  With no identifiers to hand out, shmget,
    msgget and semget fail with ENOSPC.  These sysctls belong to the IPC
    namespace, so the host's are untouched; never called outside bwrap.
    """
    settings = {"kernel/shmmni": "0", "kernel/shmall": "0", "kernel/msgmni": "0", "fs/mqueue/queues_max": "0"}
    try:
        with open("/proc/sys/kernel/sem", encoding="ascii") as handle:
            # SEMMSL SEMMNS SEMOPM SEMMNI: no semaphore sets.
            settings["kernel/sem"] = " ".join(handle.read().split()[:3] + ["0"])
    except OSError:
        pass
    for name, value in settings.items():
        try:
            with open(f"/proc/sys/{name}", "w", encoding="ascii") as handle:
                handle.write(value)
        except OSError:
            pass  # the hostile-code tests show whether it held


def serve(token: int) -> bool:
    """Read one request and answer it; False when the host has gone.

    Request: a framed JSON header (everything but the code), then exactly
    ``code_len`` raw bytes of source.  Reply: frames of relayed child bytes
    (see ``Relay``), then one "R" frame with the JSON summary.  Nothing a
    sample must not see (its or another sample's code, any outputs) enters
    this process's heap; what it keeps across requests are test inputs only.
    """
    job = read_message()
    if job is None:
        return False
    try:
        code = Code(int(job.get("code_len") or 0))
    except EOFError:
        return False
    try:
        reply = answer(job, code, token)
    finally:
        code.close()
    reply["id"] = job.get("id")
    write_frame(b"R", json.dumps(reply).encode())
    return True


def answer(job: dict, code: Code, token: int) -> dict:
    if job.get("op") == "ping":
        return {"pong": True, "uid": os.getuid(), "root": IS_ROOT}
    key = job.get("inputs_key")
    if key is not None:
        if "inputs" in job:
            # Test inputs are no secret: they are what every sample is shown.
            INPUTS[key] = job["inputs"]
        elif key in INPUTS:
            job["inputs"] = INPUTS[key]
        else:
            return {"need_inputs": True}
    started = time.monotonic()
    try:
        scratch = prepare_scratch(token)
    except OSError as exc:
        return {"fatal": f"cannot create scratch dir: {exc.strerror}"}
    relay = Relay()
    SPAWNED.clear()
    try:
        if job["kind"] == "stdin":
            reply = run_stdin_job(job, code, scratch, relay)
        else:
            reply = run_function_job(job, code, scratch, relay)
    finally:
        relay.close()
        cleanup(scratch, list(SPAWNED))
    reply["total"] = len(job["inputs"])
    reply["wall"] = time.monotonic() - started
    return reply


# Modules model code imports all the time (HumanEval prompts start with `from typing import List`).
# Imported once here, every forked child finds them loaded instead of paying for the import; it
# also lets the rlimits-only fallback run them when Python lives in a directory the sample's uid
# cannot traverse.
WARM_MODULES = (
    "typing", "math", "re", "collections", "itertools", "functools", "heapq", "hashlib", "string",
    "bisect", "fractions", "decimal", "copy", "operator", "datetime", "array",
    "numbers", "cmath", "textwrap", "unicodedata", "dataclasses", "enum", "abc", "sys", "os",
)  # fmt: skip
# Not loaded in bubblewrap: their after-fork hooks would run in every sample's child (random reseeds,
# threading rebuilds its locks: 0.15 and 0.35 ms a fork), and a sample that imports them pays for that
# once itself.  The rlimits-only fallback loads them all the same, for the reason above.
NOT_WARM = ("random", "statistics", "threading")


def warm_up() -> None:
    import gc

    for name in WARM_MODULES if OWN_IPC_NAMESPACE else WARM_MODULES + NOT_WARM:
        try:
            __import__(name)
        except ImportError:
            pass
    # Objects that exist now are never collected: children's collections then
    # skip them, which spares the copy-on-write page faults of touching them.
    gc.collect()
    gc.freeze()


def become_subreaper() -> None:
    """Be the parent of orphaned sample processes, so clean-up reaps them at once.

    Killed orphans otherwise wait for init (the host's, in the rlimits-only
    mode) to reap them, and until then still count against the next sample's
    process cap (``pids.max``, RLIMIT_NPROC).
    """
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (ImportError, OSError, AttributeError):
        pass


# One thread each for the numeric libraries' pools (OpenBLAS, OpenMP, MKL and kin), which otherwise
# start one per core: on a 64-core node a sample would hit the task cap, and its CPU time (its
# limit) would go to threads contending with every other worker's.
SINGLE_THREADED = {
    name: "1"
    for name in (
        "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "GOTO_NUM_THREADS",
    )
}  # fmt: skip


def sample_environment() -> None:
    """Make the worker's own environment the one every sample gets, less its scratch dir.

    Set once here, in this order, so that a child only assigns HOME and TMPDIR
    (``enter_jail``) and sees exactly these variables.  The worker needs none
    of what it started with (PYTHONHASHSEED and the like took effect at
    start-up).
    """
    os.environ.clear()
    os.environ.update(
        {
            "HOME": SCRATCH_ROOT,
            "TMPDIR": SCRATCH_ROOT,
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            **SINGLE_THREADED,
        }
    )


def main() -> None:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    become_subreaper()
    sample_environment()
    warm_up()
    if OWN_IPC_NAMESPACE and IS_ROOT:
        forbid_sysv_ipc()
    token = 0
    while True:
        token += 1
        if not serve(token):
            return


if __name__ == "__main__":
    try:
        main()
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
