#!/usr/bin/env python
"""A scale model of the Ray backend: measure here, predict the wall time of 10^6 samples on a cluster.

Measured on this machine, on HumanEval references plus mutants of them (``reference_and_mutants``,
``--per-task`` per task, the agreement tests' set):

* **per-sample cost**: core-seconds per sample in the sandbox, from the local engine's wall time x
  its workers (fork, load the code, run the tests, reply, judge);
* **driver cost per sample**: what the one driver process does for every sample whatever the
  cluster size: its checkpoint key (``verdict_key``), unpickling its verdict, and the checkpoint write;
* **Ray overhead per batch**: the round trip of an empty batch to a node actor (submit, schedule,
  reply), and the end-to-end extra of the Ray backend over the local engine on the same samples,
  per batch;
* **start-up**: a local Ray instance and one node actor (its sandbox check and worker pool).

The model: nodes work in parallel, the driver serially,

    node time   = S / (N x cores) x per-sample cost + S / (N x B) x overhead per batch
    driver time = S x driver cost per sample + S / B x empty round trip
    wall        = start-up + max(node time, driver time)

for S samples, N nodes of ``--cores`` cores and batches of B.  It assumes the cluster's cores are as
fast as these, the same mix of samples, and a driver that keeps up only while its serial work is
shorter than the nodes' (it is then the bottleneck).
"""

from __future__ import annotations

import argparse
import inspect
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET = 1_000_000


def build_samples(per_task: int, limit_tasks: int | None) -> tuple[list[Any], list[tuple[str, int, str]]]:
    """HumanEval problems and (task, index, code) for each reference-or-mutant sample of theirs."""
    from benchmorph.data.formats.humaneval import humaneval_problem_records, load_humaneval
    from benchmorph.evaluation.peers import reference_and_mutants

    records = humaneval_problem_records()[:limit_tasks]
    samples = [sample for record in records for sample in reference_and_mutants(record, per_task)]
    wanted = {record["task_id"] for record in records}
    problems = [problem for problem in load_humaneval() if problem.id in wanted]
    return problems, [(sample.task_id, sample.index, sample.code) for sample in samples]


def engine_options() -> dict[str, Any]:
    """The CLI's default judging (stop at the first failing test) where this engine has it."""
    from benchmorph.execution.engine import Engine

    return {"test_details": False} if "test_details" in inspect.signature(Engine).parameters else {}


def measure(per_task: int, limit_tasks: int | None, workers: int, batch_size: int) -> dict[str, float]:
    from benchmorph.evaluation.checkpoint import VerdictStore
    from benchmorph.execution.backends.ray_cluster import RayBackend
    from benchmorph.execution.engine import Engine, Job

    problems, rows = build_samples(per_task, limit_tasks)
    options = engine_options()
    numbers: dict[str, float] = {"samples": len(rows), "workers": workers, "batch": batch_size}

    with Engine(workers=workers, **options) as engine:
        prepared = {problem.id: problem for problem in engine.prepare(problems).problems}
        jobs = [Job(prepared[task], code, task, index) for task, index, code in rows if task in prepared]
        engine.evaluate(jobs[: 2 * workers])  # workers started and warm
        start = time.perf_counter()
        verdicts = engine.evaluate(jobs)
        numbers["local_s"] = time.perf_counter() - start
    numbers["samples"] = len(jobs)
    numbers["per_sample_core_s"] = numbers["local_s"] * workers / len(jobs)

    # What the driver does per sample, whatever the cluster: key, unpickle the verdict, checkpoint it.
    keys = Engine(workers=workers, **options)
    start = time.perf_counter()
    job_keys = [keys.verdict_key(job, sandbox=["bwrap", "rlimits"]) for job in jobs]
    key_s = time.perf_counter() - start
    blob = pickle.dumps(verdicts)
    start = time.perf_counter()
    pickle.loads(blob)
    unpickle_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        store = VerdictStore(Path(tmp) / "checkpoint.sqlite")
        start = time.perf_counter()
        for key, verdict in zip(job_keys, verdicts, strict=True):
            store.put(key, verdict)
        put_s = time.perf_counter() - start
        store.close()
    numbers["driver_key_s"] = key_s / len(jobs)
    numbers["driver_unpickle_s"] = unpickle_s / len(jobs)
    numbers["driver_put_s"] = put_s / len(jobs)
    numbers["driver_per_sample_s"] = (key_s + unpickle_s + put_s) / len(jobs)

    start = time.perf_counter()
    backend = RayBackend(workers=workers, batch_size=batch_size, engine_options=options)
    try:
        numbers["startup_s"] = time.perf_counter() - start
        import ray

        actor = backend._slots[0].actor  # noqa: SLF001 - the scale model looks inside on purpose
        tables = [ray.put({})]
        ray.get(actor.run_batch_from.remote(tables, []))
        rounds = 50
        start = time.perf_counter()
        for _ in range(rounds):
            ray.get(actor.run_batch_from.remote(tables, []))
        numbers["empty_batch_s"] = (time.perf_counter() - start) / rounds
        backend.prepare(problems)  # the node's reference cache: measured above, read here
        backend.evaluate(jobs[: 2 * workers])
        start = time.perf_counter()
        backend.evaluate(jobs)
        numbers["ray_s"] = time.perf_counter() - start
    finally:
        backend.close()
    batches = -(-len(jobs) // batch_size)
    # On a shared machine the end-to-end difference is noisy (it can come out negative): never less than
    # the bare round trip of a batch.
    numbers["extra_per_batch_s"] = (numbers["ray_s"] - numbers["local_s"]) / batches
    numbers["overhead_per_batch_s"] = max(numbers["empty_batch_s"], numbers["extra_per_batch_s"])
    return numbers


def predict(numbers: dict[str, float], nodes: int, cores: int, batch: int, samples: int) -> dict[str, float]:
    node = samples / (nodes * cores) * numbers["per_sample_core_s"]
    node += samples / (nodes * batch) * numbers["overhead_per_batch_s"]
    driver = samples * numbers["driver_per_sample_s"] + samples / batch * numbers["empty_batch_s"]
    wall = numbers["startup_s"] + max(node, driver)
    return {"node_s": node, "driver_s": driver, "startup_s": numbers["startup_s"], "wall_s": wall}


def show(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.2f} h"
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.1f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-task", type=int, default=10, help="samples per HumanEval task (default 10)")
    parser.add_argument("--limit-tasks", type=int, default=None, help="first N HumanEval tasks (default all)")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="workers here (default: cores)"
    )
    parser.add_argument("--batch-size", type=int, default=32, help="samples per Ray task (default 32)")
    parser.add_argument("--cores", type=int, default=32, help="cores per node in the prediction (default 32)")
    parser.add_argument("--nodes", default="1,8,64", help="node counts to predict (default 1,8,64)")
    parser.add_argument("--target", type=int, default=TARGET, help="samples to predict for (default 10^6)")
    args = parser.parse_args(argv)
    if args.per_task < 1 or args.workers < 1 or args.batch_size < 1 or args.cores < 1:
        print("error: --per-task, --workers, --batch-size and --cores must be at least 1", file=sys.stderr)
        return 2
    try:
        nodes = [int(n) for n in args.nodes.split(",")]
    except ValueError:
        print(f"error: --nodes: expected comma-separated integers, got {args.nodes!r}", file=sys.stderr)
        return 2

    numbers = measure(args.per_task, args.limit_tasks, args.workers, args.batch_size)
    n = int(numbers["samples"])
    print(f"measured here on {n} samples, {args.workers} workers, batches of {args.batch_size}:")
    print(
        f"  local engine                 {numbers['local_s']:.2f} s  ({n / numbers['local_s']:.0f} samples/s)"
    )
    print(f"  per-sample cost              {numbers['per_sample_core_s'] * 1e3:.2f} ms per core")
    print(
        f"  driver per sample            {numbers['driver_per_sample_s'] * 1e6:.0f} us "
        f"(key {numbers['driver_key_s'] * 1e6:.0f}, unpickle {numbers['driver_unpickle_s'] * 1e6:.0f}, "
        f"checkpoint {numbers['driver_put_s'] * 1e6:.0f})"
    )
    print(f"  Ray backend                  {numbers['ray_s']:.2f} s  ({n / numbers['ray_s']:.0f} samples/s)")
    print(f"  Ray empty-batch round trip   {numbers['empty_batch_s'] * 1e3:.2f} ms")
    print(
        f"  Ray extra per batch          {numbers['extra_per_batch_s'] * 1e3:.1f} ms (end to end, vs local)"
    )
    print(
        f"  Ray overhead per batch       {numbers['overhead_per_batch_s'] * 1e3:.2f} ms (the larger: the model's)"
    )
    print(f"  start-up (Ray + node actor)  {numbers['startup_s']:.1f} s")
    print(
        f"\npredicted for {args.target:,} samples, nodes of {args.cores} cores, batches of {args.batch_size}:"
    )
    print(f"  {'nodes':>5}  {'wall':>9}  {'nodes busy':>10}  {'driver':>9}  {'start-up':>8}  dominated by")
    for count in nodes:
        p = predict(numbers, count, args.cores, args.batch_size, args.target)
        parts = {"sandboxed execution": p["node_s"], "the driver": p["driver_s"], "start-up": p["startup_s"]}
        top = max(parts, key=lambda name: parts[name])
        print(
            f"  {count:>5}  {show(p['wall_s']):>9}  {show(p['node_s']):>10}  {show(p['driver_s']):>9}  "
            f"{show(p['startup_s']):>8}  {top}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
