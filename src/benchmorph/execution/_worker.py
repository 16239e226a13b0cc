"""The long-lived sandbox worker.  Standard library only.

It runs inside bubblewrap (no network, read-only file system, its own PID
namespace), so isolation is paid once per worker.  Each request is read and
served by a process forked for it alone (the worker keeps only test inputs, so
no child inherits earlier code or outputs).  For every sample that process
forks a fresh child that drops to an unprivileged uid of its own (so
RLIMIT_NPROC holds and the child cannot signal the worker), caps its
resources, and runs the model code in a scratch directory.  The child only
ever sees test *inputs*; outputs go back to the host, which compares them
with expected values the sandbox never holds.  That is what makes faking a
pass (patching ``==``, reading the answers) impossible by construction.

Protocol with the host: 4-byte big-endian length + UTF-8 JSON, both ways, on
the file descriptors that were stdin/stdout when the worker started.

Usage: python _worker.py VALUES_PY UID SCRATCH_ROOT [own-ipc-namespace]
"""

from __future__ import annotations

import base64
import errno
import importlib.util
import json
import os
import resource
import selectors
import shutil
import signal
import struct
import sys
import time
import traceback

sys.set_int_max_str_digits(0)

_spec = importlib.util.spec_from_file_location("benchmorph_values", sys.argv[1])
values = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(values)

CHILD_UID = int(sys.argv[2])
SCRATCH_ROOT = sys.argv[3]
# Set by the host only when the worker has an IPC namespace to itself (bwrap).
OWN_IPC_NAMESPACE = sys.argv[4:5] == ["own-ipc-namespace"]
IS_ROOT = os.geteuid() == 0
MAX_ERROR = 400
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


def read_message() -> dict | None:
    header = read_exact(PROTO_IN, 4)
    if header is None:
        return None
    body = read_exact(PROTO_IN, struct.unpack(">I", header)[0])
    return None if body is None else json.loads(body)


def write_message(message: dict) -> None:
    body = json.dumps(message).encode()
    data = struct.pack(">I", len(body)) + body
    view = memoryview(data)
    while view:
        view = view[os.write(PROTO_OUT, view) :]


def describe(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text[:MAX_ERROR]


# ---------------------------------------------------------------- child side


def enter_jail(scratch: str, limits: dict, cpu_seconds: int) -> None:
    """Become the unprivileged sample user, in its scratch dir, under rlimits."""
    os.setsid()
    if IS_ROOT:
        os.setgroups([])
        os.setgid(CHILD_UID)
        os.setuid(CHILD_UID)
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update({"HOME": scratch, "TMPDIR": scratch, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    caps = [
        (resource.RLIMIT_AS, limits["memory"]),
        (resource.RLIMIT_CPU, cpu_seconds),
        (resource.RLIMIT_NOFILE, limits["open_files"]),
        (resource.RLIMIT_FSIZE, limits["file_size"]),
        (resource.RLIMIT_CORE, 0),
    ]
    if IS_ROOT:
        caps.append((resource.RLIMIT_NPROC, limits["processes"]))
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


def run_function_child(job: dict, wfd: int, scratch: str, cpu_seconds: int) -> None:
    """Execute the solution once, then call the entry point on every input, streaming results."""

    def emit(record: dict) -> None:
        data = (json.dumps(record) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(wfd, view) :]

    try:
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
    namespace = {"__name__": "__solution__"}
    try:
        code = compile(job["code"], "<solution>", "exec")
        exec(code, namespace)  # noqa: S102 - this is the point of the sandbox
        if kind == "method":
            factory = namespace["Solution"]
            getattr(factory(), entry)
        else:
            target = namespace[entry]
            if not callable(target):
                raise TypeError(f"{entry} is not callable")
    except BaseException as exc:  # noqa: BLE001
        emit({"setup_error": describe(exc)})
        os._exit(0)
    emit({"ready": True})
    clock = time.perf_counter
    for index, raw in enumerate(inputs):
        args = values.decode(raw)
        started = clock()
        try:
            function = getattr(namespace["Solution"](), entry) if kind == "method" else namespace[entry]
            result = function(*args)
            elapsed = clock() - started
        except BaseException as exc:  # noqa: BLE001
            elapsed = clock() - started
            emit({"i": index, "s": "error", "t": elapsed, "e": describe(exc)})
            continue
        try:
            line = {"i": index, "s": "ok", "t": elapsed, "o": values.encode(result)}
            emit(line)
        except BaseException as exc:  # noqa: BLE001
            emit({"i": index, "s": "error", "t": elapsed, "e": "output cannot be encoded: " + describe(exc)})
    emit({"end": True})
    os._exit(0)


def run_stdin_child(job: dict, text: str, out_w: int, err_w: int, scratch: str, cpu_seconds: int) -> None:
    """Run the program as __main__ with the test input on stdin and stdout/stderr piped to the worker."""
    try:
        keep_only_fds({out_w, err_w})
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
    except BaseException as exc:  # noqa: BLE001
        os.write(2, ("sandbox setup failed: " + describe(exc)).encode())
        os._exit(121)
    code_status = 0
    try:
        exec(compile(job["code"], "<solution>", "exec"), {"__name__": "__main__"})  # noqa: S102
    except SystemExit as exc:
        code_status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001
        traceback.print_exc(limit=3)
        code_status = 1
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
        try:
            with open(f"/proc/{name}/status", encoding="ascii", errors="replace") as handle:
                status = handle.read()
        except OSError:
            continue
        state = uid = None
        for line in status.splitlines():
            if line.startswith("State:"):
                state = line.split()[1]
            elif line.startswith("Uid:"):
                uid = int(line.split()[1])
                break
        if uid == CHILD_UID and state not in ("Z", "X"):
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


def parse_record(line: bytes) -> dict | None:
    """One JSON record from the child, or None when the line is not one.

    The child runs model code, which can write anything to this pipe (it holds
    the fd): malformed JSON, nesting deep enough to raise RecursionError.  None
    of that may take the worker down.
    """
    try:
        record = json.loads(line)
    except Exception:  # noqa: BLE001 - ValueError, RecursionError, MemoryError
        return None
    return record if isinstance(record, dict) else None


# values.encode refuses anything nested deeper, so no honest output is.
MAX_OUTPUT_DEPTH = 400
CONTAINERS = (list, dict)


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


def run_function_job(job: dict, scratch: str) -> dict:
    timeouts = job["timeouts"]
    total = len(job["inputs"])
    cpu_seconds = int(job["setup_time"] + sum(timeouts)) + 2
    rfd, wfd = os.pipe()
    pid = os.fork()
    SPAWNED.append(pid)
    if pid == 0:
        os.close(rfd)
        try:
            run_function_child(job, wfd, scratch, cpu_seconds)
        finally:
            os._exit(1)
    os.close(wfd)
    results: list[dict | None] = [None] * total
    outcome = {"setup_error": None, "violation": None, "timeout_in": None}
    budget = job["limits"]["output"]
    received = 0
    buffer = bytearray()
    ready = False
    next_index = 0
    deadline = time.monotonic() + job["setup_time"]
    selector = selectors.DefaultSelector()
    selector.register(rfd, selectors.EVENT_READ)
    finished = False
    while not finished:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            outcome["timeout_in"] = "setup" if not ready else next_index
            break
        if not selector.select(remaining):
            continue
        try:
            chunk = os.read(rfd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            break
        received += len(chunk)
        if received > budget:
            outcome["violation"] = f"output limit exceeded ({budget} bytes)"
            break
        # A bytearray consumed from the front, searched only where new bytes
        # arrived: re-copying and re-scanning the whole buffer per 64 KiB chunk
        # made a large output quadratic and slow enough to pass for a timeout.
        seen = len(buffer)
        buffer += chunk
        newline = buffer.find(b"\n", seen)
        while newline >= 0:
            record = parse_record(bytes(buffer[:newline]))
            del buffer[: newline + 1]
            newline = buffer.find(b"\n")
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
            if next_index < total:
                deadline = time.monotonic() + timeouts[next_index]
            elif ready:
                deadline = time.monotonic() + 1.0
    selector.close()
    os.close(rfd)
    status = kill_and_reap(pid)
    return {
        "results": results,
        "ready": ready,
        "exit": describe_exit(status),
        **outcome,
    }


def run_stdin_job(job: dict, scratch: str) -> dict:
    results: list[dict | None] = []
    budget = job["limits"]["output"]
    outcome = {"setup_error": None, "violation": None, "timeout_in": None}
    for index, text in enumerate(job["inputs"]):
        limit = job["timeouts"][index] + job["setup_time"]
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        started = time.monotonic()
        pid = os.fork()
        SPAWNED.append(pid)
        if pid == 0:
            os.close(out_r)
            os.close(err_r)
            try:
                run_stdin_child(job, text, out_w, err_w, scratch, int(limit) + 2)
            finally:
                os._exit(1)
        os.close(out_w)
        os.close(err_w)
        selector = selectors.DefaultSelector()
        selector.register(out_r, selectors.EVENT_READ, "out")
        selector.register(err_r, selectors.EVENT_READ, "err")
        out, err, open_streams, timed_out, overflow = [], [], 2, False, False
        size = 0
        while open_streams:
            remaining = started + limit - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in selector.select(remaining):
                try:
                    chunk = os.read(key.fd, 1 << 16)
                except OSError:
                    chunk = b""
                if not chunk:
                    selector.unregister(key.fd)
                    open_streams -= 1
                    continue
                if key.data == "out":
                    size += len(chunk)
                    if size > budget:
                        overflow = True
                        open_streams = 0
                        break
                    out.append(chunk)
                elif sum(map(len, err)) < 4096:
                    err.append(chunk)
        selector.close()
        os.close(out_r)
        os.close(err_r)
        if timed_out or overflow:
            kill_and_reap(pid)
            status = None
        else:
            status = wait_status(pid)
        elapsed = time.monotonic() - started
        if overflow:
            outcome["violation"] = f"output limit exceeded ({budget} bytes)"
            break
        if timed_out:
            outcome["timeout_in"] = index
            break
        stdout = b"".join(out).decode("utf-8", "replace")
        stderr = b"".join(err).decode("utf-8", "replace")[-MAX_ERROR:]
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            results.append({"i": index, "s": "ok", "t": elapsed, "o": stdout})
        else:
            message = describe_exit(status) + (": " + stderr.strip() if stderr.strip() else "")
            results.append({"i": index, "s": "error", "t": elapsed, "e": message[:MAX_ERROR], "o": stdout})
    results += [None] * (len(job["inputs"]) - len(results))
    return {"results": results, "ready": True, "exit": "", **outcome}


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


# Exit status of a job process that found the host's pipe closed: the worker ends too.
EXIT_NO_MORE_JOBS = 3


def serve_one(token: int, learned_w: int) -> int:
    """Read one request, answer it, and hand back any new test inputs for the worker to cache.

    Runs in a process forked for this one request, which is where the
    request's code and the child's outputs live and die.  The worker itself
    never reads a request: every sample's child is forked from it, and freed
    Python memory keeps its bytes, so a sample could otherwise scan its own
    memory for a reference solution, its outputs (the expected values) or
    another sample's code from earlier requests.
    """
    job = read_message()
    if job is None:
        return EXIT_NO_MORE_JOBS
    if job.get("op") == "ping":
        write_message({"pong": True, "uid": os.getuid(), "root": IS_ROOT})
        return 0
    key = job.get("inputs_key")
    if key is not None:
        if "inputs" in job:
            # Test inputs are no secret: they are what every sample is shown.
            data = json.dumps([key, job["inputs"]]).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(learned_w, view) :]
        elif key in INPUTS:
            job["inputs"] = INPUTS[key]
        else:
            write_message({"id": job.get("id"), "need_inputs": True})
            return 0
    os.close(learned_w)
    started = time.monotonic()
    try:
        scratch = prepare_scratch(token)
    except OSError as exc:
        write_message({"id": job.get("id"), "fatal": f"cannot create scratch dir: {exc.strerror}"})
        return 0
    try:
        if job["kind"] == "stdin":
            reply = run_stdin_job(job, scratch)
        else:
            reply = run_function_job(job, scratch)
    finally:
        cleanup(scratch, list(SPAWNED))
    reply["id"] = job.get("id")
    reply["wall"] = time.monotonic() - started
    write_message(reply)
    return 0


# Modules model code imports all the time (HumanEval prompts start with `from typing import List`).
# Imported once here, every forked child finds them loaded instead of paying for the import; it
# also lets the rlimits-only fallback run them when Python lives in a directory the sample's uid
# cannot traverse.
WARM_MODULES = (
    "typing", "math", "re", "collections", "itertools", "functools", "heapq", "hashlib", "string",
    "bisect", "random", "statistics", "fractions", "decimal", "copy", "operator", "datetime", "array",
    "numbers", "cmath", "textwrap", "unicodedata", "dataclasses", "enum", "abc", "sys", "os",
)  # fmt: skip


def warm_up() -> None:
    import gc

    for name in WARM_MODULES:
        try:
            __import__(name)
        except ImportError:
            pass
    # Objects that exist now are never collected: children's collections then
    # skip them, which spares the copy-on-write page faults of touching them.
    gc.collect()
    gc.freeze()


def main() -> None:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    warm_up()
    if OWN_IPC_NAMESPACE and IS_ROOT:
        forbid_sysv_ipc()
    token = 0
    while True:
        token += 1
        learned_r, learned_w = os.pipe()
        server = os.fork()
        if server == 0:
            os.close(learned_r)
            code = 1
            try:
                code = serve_one(token, learned_w)
            finally:
                os._exit(code)
        os.close(learned_w)
        learned = []
        while chunk := os.read(learned_r, 1 << 20):
            learned.append(chunk)
        os.close(learned_r)
        status = wait_status(server)
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            # Out of requests, or the request died without a reply the host
            # would wait for: ending the worker is how the host learns.
            return
        if learned:
            key, inputs = json.loads(b"".join(learned))
            INPUTS[key] = inputs


if __name__ == "__main__":
    try:
        main()
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
