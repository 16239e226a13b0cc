#!/usr/bin/env python
"""Generation throughput against one local llama.cpp server: concurrency 1 against the default.

One server is started on 127.0.0.1 with the embedded Gemma 3 270M GGUF, then
the first ``--problems`` HumanEval problems are generated greedily (cache off,
so every request reaches the server) at concurrency 1 and at the OpenAI
backend's default concurrency, alternating which goes first over ``--rounds``.
The ratio default/1 says what concurrency buys on that server:

* ``python -m llama_cpp.server`` (the default) serves one request at a time,
  so the ratio should stay near 1;
* ``--llama-server PATH`` runs llama.cpp's native server with parallel slots
  and continuous batching, where concurrent requests share each decoding step.

Prompt caching is switched off on the native server (``--no-cache-prompt``)
so that the phase that runs second does not reuse the first one's prompts;
``--prompt-cache`` keeps it on.  Both servers get the same thread count.

Last, the sanitizer's time on 400-line answers (``measure`` of bench/sanitize_speed.py).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmorph.data.models import Problem
from benchmorph.data.registry import load_benchmark
from benchmorph.models import GenerationParams, LLMCache, parse_spec
from benchmorph.models.backends import Backend, Completion, make_backend
from benchmorph.models.backends.openai_compat import DEFAULT_CONCURRENCY
from benchmorph.models.generate import agenerate
from benchmorph.models.gguf import local_model_path
from benchmorph.models.params import RetryPolicy
from benchmorph.models.prompts import Request
from benchmorph.models.spec import ModelSpec

SANITIZE_SPEED = Path(__file__).resolve().parent / "sanitize_speed.py"
SANITIZER_LINES = 400
STARTUP_TIMEOUT = 180.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """One llama.cpp server process on 127.0.0.1, its output in a log file."""

    def __init__(
        self,
        gguf: Path,
        n_ctx: int,
        threads: int,
        log: Path,
        llama_server: Path | None,
        slots: int,
        prompt_cache: bool,
    ) -> None:
        self.port = free_port()
        self.log = log
        host = ["--host", "127.0.0.1", "--port", str(self.port)]
        if llama_server is None:
            self.name = "llama_cpp.server (one request at a time)"
            self.command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), *host]
            self.command += ["--n_ctx", str(n_ctx)]
            if threads > 0:
                self.command += ["--n_threads", str(threads), "--n_threads_batch", str(threads)]
        else:
            self.name = f"llama-server (--parallel {slots}, continuous batching)"
            self.command = [str(llama_server), "--model", str(gguf), *host, "--parallel", str(slots)]
            self.command += ["--cont-batching", "-c", str(slots * n_ctx)]
            if threads > 0:
                self.command += ["--threads", str(threads), "--threads-batch", str(threads)]
            if not prompt_cache:
                self.command += ["--no-cache-prompt"]
        self.process: subprocess.Popen[bytes] | None = None
        self._handle: Any = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _log_tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def start(self) -> float:
        """Start the server and wait until /v1/models answers; returns the seconds it took."""
        started = time.perf_counter()
        self._handle = self.log.open("wb")
        self.process = subprocess.Popen(self.command, stdout=self._handle, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}:\n{self._log_tail()}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return time.perf_counter() - started
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        raise RuntimeError(
            f"server did not answer /v1/models in {STARTUP_TIMEOUT:.0f} s:\n{self._log_tail()}"
        )

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._handle is not None:
            self._handle.close()
            self._handle = None


class MeteredBackend(Backend):
    """Passes requests through to the real backend and adds up the tokens the server reports."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.default_concurrency = inner.default_concurrency
        self.completion_tokens = 0
        self.reported = 0  # answers that came with usage numbers

    async def complete(self, request: Request, params: GenerationParams, index: int) -> Completion:
        completion = await self.inner.complete(request, params, index)
        tokens = (completion.usage or {}).get("completion_tokens")
        if isinstance(tokens, int):
            self.completion_tokens += tokens
            self.reported += 1
        return completion

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class Phase:
    concurrency: int
    seconds: float
    samples: int
    tokens: int | None
    answers: list[str | None] = field(repr=False)

    @property
    def samples_per_s(self) -> float:
        return self.samples / self.seconds

    @property
    def tokens_per_s(self) -> float | None:
        return None if self.tokens is None else self.tokens / self.seconds


async def _timed_run(
    problems: Sequence[Problem], spec: ModelSpec, params: GenerationParams, concurrency: int
) -> Phase:
    """One generation pass; the clock covers requests only (the client is built before, closed after)."""
    backend = MeteredBackend(make_backend(spec, RetryPolicy(retries=0)))
    cache = LLMCache(enabled=False)
    try:
        started = time.perf_counter()
        report = await agenerate(problems, spec, params, cache, backend=backend, concurrency=concurrency)
        seconds = time.perf_counter() - started
    finally:
        await backend.aclose()
        cache.close()
    if report.errors:
        raise RuntimeError(
            f"{report.errors} failed requests at concurrency {concurrency}:\n"
            + "\n".join(report.error_messages[:5])
        )
    tokens = backend.completion_tokens if backend.reported == len(report.samples) else None
    return Phase(concurrency, seconds, len(report.samples), tokens, [sample.raw for sample in report.samples])


def run_phase(
    problems: Sequence[Problem], spec: ModelSpec, params: GenerationParams, concurrency: int
) -> Phase:
    return asyncio.run(_timed_run(problems, spec, params, concurrency))


def _load_sanitize_speed() -> Any | None:
    if not SANITIZE_SPEED.is_file():
        return None
    module_spec = importlib.util.spec_from_file_location("bench_sanitize_speed", SANITIZE_SPEED)
    if module_spec is None or module_spec.loader is None:
        return None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_spec.name] = module
    module_spec.loader.exec_module(module)
    return module if callable(getattr(module, "measure", None)) else None


def synthetic_answer(lines: int) -> str:
    """A chat-style answer of about ``lines`` lines: prose, one fenced block (helpers, the entry point,
    tests and prints), more prose."""
    body = ["Here is my solution.", "", "```python", "from typing import List", ""]
    helper = 0
    while len(body) < lines - 30:
        body += [
            f"def helper_{helper}(values: List[int]) -> int:",
            f'    """Helper number {helper}."""',
            "    total = 0",
            "    for value in values:",
            f"        if value % {helper + 2} == 0:",
            "            total += value",
            "    return total",
            "",
        ]
        helper += 1
    body += [
        "def solve(values: List[int]) -> int:",
        "    return " + " + ".join(f"helper_{i}(values)" for i in range(3)),
    ]
    body += ["", "", "def test_solve():", "    assert solve([1, 2, 3]) >= 0", ""]
    while len(body) < lines - 4:
        body.append(f"print(solve(list(range({len(body)}))))")
    body += ["```", "", "It adds up the helpers."]
    return "\n".join(body[:lines])


def measure_sanitizer(lines: int, repeat: int) -> dict[str, Any]:
    """bench/sanitize_speed.py's numbers when it is there, otherwise our own timing of sanitize()."""
    module = _load_sanitize_speed()
    if module is not None:
        result = dict(module.measure(lines=lines, repeat=repeat))
        result.setdefault("source", "bench/sanitize_speed.py")
        return result
    from benchmorph.models.sanitize import sanitize

    raw = synthetic_answer(lines)
    sanitize(raw, entry_point="solve")
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        sanitize(raw, entry_point="solve")
        times.append(time.perf_counter() - started)
    return {
        "source": "our synthetic fenced answer (bench/sanitize_speed.py not found)",
        "lines": lines,
        "repeat": repeat,
        "answers": {
            "fenced": {
                "lines": raw.count("\n") + 1,
                "ours_median_ms": statistics.median(times) * 1000,
                "ours_min_ms": min(times) * 1000,
            }
        },
    }


def _format_sanitizer(result: dict[str, Any]) -> str:
    answers = result.get("answers") or {}
    parts = [f"{name} ({row['lines']} lines) {row['ours_median_ms']:.2f} ms" for name, row in answers.items()]
    return f"median of {result.get('repeat')}: " + ", ".join(parts) + f"  [{result.get('source', '?')}]"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", type=int, default=16, help="first N HumanEval problems (default 16)")
    parser.add_argument("--max-tokens", type=int, default=128, help="max tokens per answer (default 128)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds; the order alternates (default 1)")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        help=f"the concurrency compared with 1 (default: the OpenAI backend's, {DEFAULT_CONCURRENCY})",
    )
    parser.add_argument(
        "--llama-server", type=Path, help="llama.cpp's native llama-server binary to use instead"
    )
    parser.add_argument("--slots", type=int, default=8, help="llama-server --parallel (default 8)")
    parser.add_argument("--n-ctx", type=int, default=2048, help="context per request/slot (default 2048)")
    parser.add_argument(
        "--threads",
        type=int,
        default=os.cpu_count() or 1,
        help="server threads, same for both servers (default: CPU count; 0: the server's own default)",
    )
    parser.add_argument("--prompt-cache", action="store_true", help="keep llama-server's prompt cache on")
    parser.add_argument(
        "--sanitizer-repeat", type=int, default=50, help="sanitizer timing repeats (default 50)"
    )
    parser.add_argument("--json", type=Path, help="also write the numbers to this JSON file")
    args = parser.parse_args(argv)
    if args.problems < 1 or args.max_tokens < 1 or args.rounds < 1 or args.concurrency < 1:
        parser.error("--problems, --max-tokens, --rounds and --concurrency must be at least 1")
    if args.llama_server is not None and not args.llama_server.is_file():
        parser.error(f"--llama-server: no file at {args.llama_server}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    problems = load_benchmark("humaneval").problems[: args.problems]
    params = GenerationParams(n=1, temperature=0.0, max_tokens=args.max_tokens)
    gguf = local_model_path()
    levels = [1, args.concurrency]
    phases: dict[int, list[Phase]] = {level: [] for level in levels}

    with tempfile.TemporaryDirectory(prefix="benchmorph-gen-bench-") as tmp:
        server = Server(
            gguf,
            args.n_ctx,
            args.threads,
            Path(tmp) / "server.log",
            args.llama_server,
            args.slots,
            args.prompt_cache,
        )
        try:
            startup = server.start()
            spec = parse_spec(f"openai:gemma@{server.base_url}?mode=completion")
            print(
                f"server: {server.name}, threads {args.threads or 'server default'}, ready in {startup:.1f} s"
            )
            print(f"  {' '.join(server.command)}")
            print(
                f"problems: first {len(problems)} of HumanEval, max_tokens {args.max_tokens}, greedy, "
                f"cache off, rounds {args.rounds}"
            )
            run_phase(problems[:1], spec, params.model_copy(update={"max_tokens": 8}), 1)  # warm-up, untimed
            for round_index in range(args.rounds):
                order = levels if round_index % 2 == 0 else levels[::-1]
                for level in order:
                    phase = run_phase(problems, spec, params, level)
                    phases[level].append(phase)
                    print(
                        f"  round {round_index + 1}, concurrency {level}: {phase.seconds:.2f} s, "
                        f"{phase.samples_per_s:.3f} samples/s",
                        flush=True,
                    )
        finally:
            server.stop()

    def totals(level: int) -> dict[str, Any]:
        runs = phases[level]
        seconds = sum(run.seconds for run in runs)
        samples = sum(run.samples for run in runs)
        tokens = None if any(run.tokens is None for run in runs) else sum(run.tokens or 0 for run in runs)
        return {
            "concurrency": level,
            "seconds": seconds,
            "samples": samples,
            "samples_per_s": samples / seconds,
            "completion_tokens": tokens,
            "tokens_per_s": None if tokens is None else tokens / seconds,
            "rounds_samples_per_s": [run.samples_per_s for run in runs],
        }

    rows = [totals(level) for level in levels]
    ratio = rows[1]["samples_per_s"] / rows[0]["samples_per_s"]
    first, other = phases[1][0].answers, phases[args.concurrency][0].answers
    identical = sum(a == b for a, b in zip(first, other, strict=True))

    print()
    print(f"{'concurrency':>11}  {'seconds':>8}  {'samples':>7}  {'samples/s':>9}  {'tokens/s':>9}")
    for row in rows:
        tokens = "n/a" if row["tokens_per_s"] is None else f"{row['tokens_per_s']:.1f}"
        print(
            f"{row['concurrency']:>11}  {row['seconds']:>8.2f}  {row['samples']:>7}  "
            f"{row['samples_per_s']:>9.3f}  {tokens:>9}"
        )
    print(f"ratio concurrency {args.concurrency}/1: {ratio:.2f}x samples/s  [{server.name}]")
    print(f"identical greedy answers at both concurrencies: {identical}/{len(first)}")

    sanitizer = measure_sanitizer(SANITIZER_LINES, args.sanitizer_repeat)
    print(f"sanitizer, {SANITIZER_LINES}-line answers, {_format_sanitizer(sanitizer)}")

    if args.json is not None:
        payload = {
            "server": server.name,
            "server_command": server.command,
            "problems": len(problems),
            "max_tokens": args.max_tokens,
            "rounds": args.rounds,
            "threads": args.threads,
            "results": rows,
            "ratio": ratio,
            "identical_answers": identical,
            "sanitizer": sanitizer,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
