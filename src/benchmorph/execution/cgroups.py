"""Caps on a sample's memory and process count that hold across all its processes: cgroups.

RLIMIT_AS is per process and RLIMIT_NPROC per uid, so a sample that forks
could take N times the memory cap.  A cgroup caps the sum.  Layout:

- Each sandbox worker gets a cgroup of its own, ``benchmorph-<host pid>-<n>``,
  created under the cgroup this process is in (read from /proc/self/cgroup):
  with cgroup v2 one directory holding both the ``memory`` and ``pids``
  controllers; with v1 one in the ``memory`` hierarchy and one in ``pids``.
- The worker itself never enters it, so the OOM killer and ``pids.max`` only
  ever reach a sample's processes.  Each sample's forked child moves *itself*
  in, before it drops to the sample's uid, by writing ``0`` to a
  ``cgroup.procs`` file descriptor the host opened and passed down.  The
  kernel checks the credentials and cgroup namespace of whoever *opened* that
  file, so this works from inside bubblewrap's namespaces with no cgroup file
  system in the sandbox, and the child closes the descriptor before any
  model code runs.
- The host sets the limits before each job (only when they change) and reads
  the cgroup's OOM-kill and pids-max counters after it.  Nothing else runs in
  the cgroup, so a rise between two jobs is the sample's doing: the job
  becomes a ``sandbox-violation`` naming memory or processes.
- The cgroups go with their worker (``remove`` kills what is left, then
  removes the directories), and ones left by benchmorph processes that died
  are cleaned up the first time a process looks for cgroup support.

Detection order: cgroup v2 where memory and pids can be delegated to a child
of our cgroup; else v1 ``memory`` (and ``pids`` when it is writable too) where
mounted writable; else none, and the caps are rlimits per process, a weaker
mode that is named in every summary.  ``BENCHMORPH_CGROUP=none`` asks for the
weaker mode; ``BENCHMORPH_CGROUP=DIR`` names a delegated cgroup v2 directory to
create the workers' cgroups in.
"""

from __future__ import annotations

import atexit
import errno
import functools
import itertools
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

CGROUP_ENV = "BENCHMORPH_CGROUP"
PREFIX = "benchmorph-"
# benchmorph-<pid namespace>-<pid>-<n>: a cgroup hierarchy may be shared by containers with PID
# namespaces of their own, where a pid says nothing; only our own namespace's are judged stale.
_STALE = re.compile(r"^benchmorph-(\d+)-(\d+)-(?:probe)?\d+$")
_numbers = itertools.count()


def pid_namespace() -> str:
    """This process's PID namespace, as the number of its inode."""
    try:
        return re.sub(r"\D", "", os.readlink("/proc/self/ns/pid")) or "0"
    except OSError:
        return "0"


def _name(kind: str = "") -> str:
    """A fresh cgroup name for this process: its PID namespace and pid, then a counter."""
    return f"{PREFIX}{pid_namespace()}-{os.getpid()}-{kind}{next(_numbers)}"


# Sample cgroups not removed yet: removed at exit too, for engines that were never closed.
_live: set[SampleCgroup] = set()
_live_lock = threading.Lock()
_warned = False
_warn_lock = threading.Lock()


@dataclass(frozen=True)
class CgroupSupport:
    """Where this process can create sample cgroups, and with which cgroup version."""

    mode: str  # "cgroup-v2" or "cgroup-v1"
    memory_parent: str
    pids_parent: str | None  # v2: the memory parent; v1: None when pids is not writable here
    # Where the sample's CPU time is counted: v2, the memory parent (every cgroup has cpu.stat);
    # v1, the cpuacct hierarchy, None when it is not writable here (then /proc is read).
    cpu_parent: str | None = None

    @property
    def cpu_clock(self) -> str:
        """What charges a sample's CPU time, in words: ``cgroup-v2``, ``cgroup-v1`` or ``process-tree``."""
        return self.mode if self.cpu_parent else "process-tree"


def _mountinfo() -> list[tuple[str, str, str, set[str]]]:
    """(mount root, mount point, fs type, super options) of every cgroup mount this process sees."""
    mounts = []
    try:
        lines = Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        mounts.append((fields[3], fields[4], tail[0], set(tail[2].split(","))))
    return mounts


def _own_paths() -> dict[str, str]:
    """This process's cgroup path per v1 controller, and under ``""`` its v2 path."""
    paths: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return paths
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(",") if parts[1] else [""]:
            paths[controller] = parts[2]
    return paths


def _own_dir(mount_root: str, mount_point: str, path: str) -> str | None:
    """The directory of our own cgroup in this mount: the one whose cgroup.procs lists us."""
    candidates = [path]
    if mount_root != "/" and (path == mount_root or path.startswith(mount_root + "/")):
        candidates.insert(0, path[len(mount_root) :] or "/")
    me = str(os.getpid())
    for relative in candidates:
        directory = os.path.normpath(mount_point + "/" + relative.lstrip("/"))
        try:
            with open(os.path.join(directory, "cgroup.procs"), encoding="ascii") as handle:
                if me in handle.read().split():
                    return directory
        except OSError:
            continue
    return None


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)


def _probe(parent: str, needed: tuple[str, ...]) -> str | None:
    """Why no sample cgroup can be made and joined under ``parent``; None when one can."""
    probe = os.path.join(parent, _name("probe"))
    try:
        os.mkdir(probe)
    except OSError as exc:
        return f"cannot create a cgroup in {parent}: {exc.strerror}"
    try:
        missing = [name for name in needed if not os.path.exists(os.path.join(probe, name))]
        if missing:
            return f"{parent}: a new cgroup has no {', '.join(missing)}"
        fd = os.open(os.path.join(probe, "cgroup.procs"), os.O_WRONLY)
        try:
            # A process other than this one (which must stay where it is) joins and leaves.
            joined = subprocess.run(
                ["/bin/sh", "-c", "echo 0"], stdout=fd, stderr=subprocess.PIPE, timeout=10
            )
        finally:
            os.close(fd)
        if joined.returncode != 0:
            said = joined.stderr.decode(errors="replace").strip()[:200]
            return f"cannot move a process into a cgroup under {parent}: {said}"
        return None
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot use a cgroup under {parent}: {exc}"
    finally:
        _remove_dir(probe)


def _v2_parent(explicit: str | None) -> tuple[str | None, str]:
    """A cgroup v2 directory whose children get memory and pids, or None and why not."""
    parent: str | None
    if explicit:
        parent = explicit
    else:
        mounts = [m for m in _mountinfo() if m[2] == "cgroup2"]
        path = _own_paths().get("")
        if not mounts or path is None:
            return None, "no cgroup v2 hierarchy"
        found = [_own_dir(root, point, path) for root, point, _, _ in mounts]
        parent = next((directory for directory in found if directory), None)
        if parent is None:
            return None, "cannot find this process's cgroup v2 directory"
    try:
        available = Path(parent, "cgroup.controllers").read_text(encoding="ascii").split()
        enabled = Path(parent, "cgroup.subtree_control").read_text(encoding="ascii").split()
    except OSError as exc:
        return None, f"cannot read {parent}: {exc.strerror}"
    if not {"memory", "pids"} <= set(available):
        return None, f"cgroup v2 at {parent} does not offer memory and pids"
    wanted = [name for name in ("memory", "pids") if name not in enabled]
    if wanted:
        try:
            # Refused (EBUSY) while the cgroup holds processes, unless it is the root:
            # v2 gives controllers only to the children of a cgroup without processes.
            _write(os.path.join(parent, "cgroup.subtree_control"), " ".join(f"+{n}" for n in wanted))
        except OSError as exc:
            return None, f"cannot delegate memory and pids below {parent} ({exc.strerror})"
    problem = _probe(parent, ("memory.max", "memory.events", "pids.max", "pids.events"))
    return (None, problem) if problem else (parent, "")


def _v1_parent(controller: str, needed: tuple[str, ...]) -> tuple[str | None, str]:
    mounts = [m for m in _mountinfo() if m[2] == "cgroup" and controller in m[3]]
    path = _own_paths().get(controller)
    if not mounts or path is None:
        return None, f"no cgroup v1 {controller} hierarchy"
    for root, point, _, _ in mounts:
        parent = _own_dir(root, point, path)
        if parent is None:
            continue
        problem = _probe(parent, needed)
        return (None, problem) if problem else (parent, "")
    return None, f"cannot find this process's cgroup v1 {controller} directory"


@functools.cache
def _detect() -> tuple[CgroupSupport | None, str]:
    setting = os.environ.get(CGROUP_ENV, "").strip()
    if setting.lower() in ("none", "off", "rlimits"):
        return None, f"disabled by {CGROUP_ENV}={setting}"
    explicit = setting or None
    if explicit and not os.path.isdir(explicit):
        return None, f"{CGROUP_ENV}={setting}: no such directory"
    parent, why_not_v2 = _v2_parent(explicit)
    if parent is not None:
        clean_stale(parent)
        return CgroupSupport("cgroup-v2", parent, parent, parent), ""
    if explicit:
        return None, why_not_v2
    memory, why_not_v1 = _v1_parent("memory", ("memory.limit_in_bytes", "memory.oom_control"))
    if memory is None:
        return None, f"{why_not_v2}; {why_not_v1}"
    if "oom_kill " not in Path(memory, "memory.oom_control").read_text(encoding="ascii"):
        return None, "cgroup v1 memory.oom_control has no oom_kill counter (Linux < 4.13)"
    pids, _ = _v1_parent("pids", ("pids.max", "pids.events"))
    cpu, _ = _v1_parent("cpuacct", ("cpuacct.usage",))
    for parent in dict.fromkeys((memory, pids, cpu)):
        if parent:
            clean_stale(parent)
    return CgroupSupport("cgroup-v1", memory, pids, cpu), ""


def detect() -> CgroupSupport | None:
    """Cgroup support for per-sample caps here, or None (then a warning, once per process)."""
    support, why = _detect()
    if support is None:
        global _warned
        with _warn_lock:
            if not _warned:
                _warned = True
                print(
                    f"benchmorph: WARNING: no cgroup for per-sample caps ({why}); memory and processes are "
                    "capped per process by rlimits only, so a sample that forks can use a multiple of the "
                    "memory cap",
                    file=sys.stderr,
                    flush=True,
                )
    return support


def memory_mode() -> str:
    """The memory cap in force: 'cgroup-v2', 'cgroup-v1', or 'rlimits' (per process only)."""
    support = detect()
    return support.mode if support else "rlimits"


def cpu_clock() -> str:
    """What charges a sample's CPU time: 'cgroup-v2', 'cgroup-v1', or 'process-tree' (/proc, no cgroup)."""
    support = detect()
    return support.cpu_clock if support else "process-tree"


def _kill_members(directory: str, wait: float = 2.0) -> None:
    """SIGKILL every process in a cgroup until it is empty (or ``wait`` seconds have passed)."""
    kill_file = os.path.join(directory, "cgroup.kill")
    if os.path.exists(kill_file):
        try:
            _write(kill_file, "1")
        except OSError:
            pass
    deadline = time.monotonic() + wait
    while True:
        try:
            with open(os.path.join(directory, "cgroup.procs"), encoding="ascii") as handle:
                members = [int(pid) for pid in handle.read().split()]
        except (OSError, ValueError):
            return
        if not members or time.monotonic() > deadline:
            return
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.005)


def _remove_dir(directory: str, wait: float = 2.0) -> None:
    deadline = time.monotonic() + wait
    while True:
        try:
            os.rmdir(directory)
            return
        except FileNotFoundError:
            return
        except OSError:
            # EBUSY while killed members are still exiting.
            if time.monotonic() > deadline:
                return
            _kill_members(directory, 0.1)
            time.sleep(0.01)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for a slow init to reap it does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            state = handle.read().rpartition(")")[2].split()[:1]
    except OSError:
        return False
    return state not in (["Z"], ["X"])


def clean_stale(parent: str) -> list[str]:
    """Remove the sample cgroups of benchmorph processes that are gone (killed before they could)."""
    removed: list[str] = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    for name in names:
        match = _STALE.match(name)
        if match is None or match.group(1) != pid_namespace() or _alive(int(match.group(2))):
            continue
        directory = os.path.join(parent, name)
        _kill_members(directory)
        _remove_dir(directory)
        if not os.path.exists(directory):
            removed.append(directory)
    return removed


def _read_small(path: str) -> bytes:
    """The whole of a small control file, read without the io stack (read after every sample)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 4096):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _read_counter(path: str, key: str) -> int:
    wanted = key.encode("ascii")
    for line in _read_small(path).splitlines():
        name, _, value = line.partition(b" ")
        if name == wanted:
            return int(value)
    return 0


class SampleCgroup:
    """One worker's sample cgroup(s): limits, the counters of caps hit, and clean-up."""

    def __init__(self, support: CgroupSupport) -> None:
        self.mode = support.mode
        name = _name()
        self.memory_dir = os.path.join(support.memory_parent, name)
        self.pids_dir = os.path.join(support.pids_parent, name) if support.pids_parent else None
        self.cpu_dir = os.path.join(support.cpu_parent, name) if support.cpu_parent else None
        self.dirs = list(dict.fromkeys(d for d in (self.memory_dir, self.pids_dir, self.cpu_dir) if d))
        self._applied: tuple[int, int] | None = None
        made: list[str] = []
        try:
            for directory in self.dirs:
                os.mkdir(directory)
                made.append(directory)
            if self.mode == "cgroup-v2":
                for setting, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
                    if os.path.exists(os.path.join(self.memory_dir, setting)):
                        _write(os.path.join(self.memory_dir, setting), value)
        except OSError:
            for directory in made:
                _remove_dir(directory)
            raise
        self._last = self.counters()
        with _live_lock:
            _live.add(self)

    @property
    def controllers(self) -> dict[str, str]:
        """Per directory, the controllers it caps (the worker's argument: ``memory,pids``)."""
        places = (("memory", self.memory_dir), ("pids", self.pids_dir), ("cpuacct", self.cpu_dir))
        return {
            directory: ",".join(name for name, where in places if where == directory)
            for directory in self.dirs
        }

    def open_procs(self) -> list[tuple[int, str]]:
        """Write-only ``cgroup.procs`` descriptors to pass to a worker, with the controllers of each."""
        opened = []
        try:
            for directory, names in self.controllers.items():
                opened.append((os.open(os.path.join(directory, "cgroup.procs"), os.O_WRONLY), names))
        except OSError:
            for fd, _ in opened:
                os.close(fd)
            raise
        return opened

    def open_cpu(self) -> tuple[int, str] | None:
        """A read-only descriptor of the cgroup's CPU counter for the worker, and its format (v1, v2)."""
        if self.cpu_dir is None:
            return None
        if self.mode == "cgroup-v2":
            return os.open(os.path.join(self.cpu_dir, "cpu.stat"), os.O_RDONLY), "v2"
        return os.open(os.path.join(self.cpu_dir, "cpuacct.usage"), os.O_RDONLY), "v1"

    def open_pids_events(self) -> int | None:
        """A read-only descriptor of ``pids.events`` for the worker: it ends a job as soon as a fork is
        refused there, instead of letting a fork bomb spin to its time limit."""
        if self.pids_dir is None:
            return None
        return os.open(os.path.join(self.pids_dir, "pids.events"), os.O_RDONLY)

    def apply(self, memory: int, processes: int) -> None:
        """Set the caps for the next job, writing only what changed since the last one."""
        if self._applied == (memory, processes):
            return
        if self.mode == "cgroup-v2":
            _write(os.path.join(self.memory_dir, "memory.max"), str(memory))
        else:
            self._apply_v1_memory(memory)
        if self.pids_dir:
            _write(os.path.join(self.pids_dir, "pids.max"), str(processes))
        self._applied = (memory, processes)

    def _apply_v1_memory(self, memory: int) -> None:
        limit = os.path.join(self.memory_dir, "memory.limit_in_bytes")
        memsw = os.path.join(self.memory_dir, "memory.memsw.limit_in_bytes")
        has_memsw = os.path.exists(memsw)  # only with swap accounting
        try:
            _write(limit, str(memory))
        except OSError as exc:
            if exc.errno == errno.EINVAL and has_memsw:
                # memory + swap may never be below memory alone: raise that first.
                _write(memsw, str(memory))
            elif exc.errno == errno.EBUSY:
                # Cached pages of earlier samples above a lowered limit.
                _write(os.path.join(self.memory_dir, "memory.force_empty"), "0")
            else:
                raise
            _write(limit, str(memory))
        if has_memsw:
            _write(memsw, str(memory))

    def counters(self) -> tuple[int, int]:
        """(OOM kills, refused forks) so far in this cgroup."""
        if self.mode == "cgroup-v2":
            oom = _read_counter(os.path.join(self.memory_dir, "memory.events"), "oom_kill")
        else:
            oom = _read_counter(os.path.join(self.memory_dir, "memory.oom_control"), "oom_kill")
        refused = _read_counter(os.path.join(self.pids_dir, "pids.events"), "max") if self.pids_dir else 0
        return oom, refused

    def settle(self, wait: float = 1.0) -> None:
        """Wait (a little) until the last job's processes are released from the pids count.

        The worker kills them all, but the orphans among them are reaped by the
        namespace's (or the host's) init, a moment later: until then they count
        against ``pids.max`` and the next sample would start short of processes.
        """
        if self.pids_dir is None:
            return
        current = os.path.join(self.pids_dir, "pids.current")
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if _read_small(current).strip() == b"0":
                return
            time.sleep(0.002)

    def exceeded(self) -> str | None:
        """Which cap the job that just ended hit, in words; None when it stayed under both."""
        self.settle()
        now = self.counters()
        oom, refused = (after - before for after, before in zip(now, self._last, strict=True))
        self._last = now
        memory, processes = self._applied or (0, 0)
        reasons = []
        if oom > 0:
            reasons.append(
                f"memory limit exceeded: the sample's processes together used more than "
                f"{memory // 2**20} MB (cgroup cap; the kernel killed {oom} of them)"
            )
        if refused > 0:
            reasons.append(
                f"process limit reached: the sample tried to run more than {processes} processes and "
                "threads at once"
            )
        return "; ".join(reasons) or None

    def members(self) -> list[int]:
        """Host pids of the processes in this cgroup now."""
        found: set[int] = set()
        for directory in self.dirs:
            try:
                with open(os.path.join(directory, "cgroup.procs"), encoding="ascii") as handle:
                    found.update(int(pid) for pid in handle.read().split())
            except OSError:
                continue
        return sorted(found)

    def remove(self) -> None:
        """Kill whatever is left in the cgroup and remove it."""
        with _live_lock:
            _live.discard(self)
        for directory in self.dirs:
            _kill_members(directory)
        for directory in self.dirs:
            _remove_dir(directory)


@atexit.register
def _remove_left() -> None:
    with _live_lock:
        left = list(_live)
    for cgroup in left:
        cgroup.remove()
