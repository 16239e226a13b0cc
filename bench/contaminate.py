"""Make a genuinely contaminated model, then measure it like any other: the trained memoriser.

Trains a small transformer from scratch (``benchmorph.models.tinylm``: ALiBi
decoder, about 2M parameters) on a benchmark's completion prompts followed by
their reference solutions, until it reproduces them (or the time limit), and
saves it as a checkpoint that ``trained:PATH`` names.  Then it asks that model
through the normal ``run`` path (``run_benchmark``: the LLM cache, the
sandbox, the run directory) on the originals and on their metamorphic
variants, and prints static pass@1, DyPass@1..K, and the contamination
verdict over the runs you add with ``--runs`` (e.g. reference, original,
local, memorizer).

    pip install 'benchmorph[torch]'          # torch, CPU wheels are enough
    python bench/contaminate.py --out runs/contaminate                        # HumanEval, rules variants
    python bench/contaminate.py --out runs/contaminate --checkpoint ckpt.pt   # measure an existing one
    python bench/contaminate.py --out /tmp/c --limit 3 --epochs 30 --skip-variants  # the smoke

The defaults train on CPU with one torch thread (on a loaded machine two
threads wait on each other more than they gain) for at most 45 minutes of CPU
time (``--time-limit``; CPU time, so a machine shared with other work trains
as much as an idle one, only slower: ``--wall-limit`` caps the wall clock).  No
GPU path is built, since this project's machines have none to test it on: on
a CUDA machine the same approach would fine-tune the embedded Gemma 3 270M
(its unquantised weights; the GGUF the `local` model runs is quantised and
cannot be trained) instead of training from scratch.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--benchmark", default="humaneval", help="what to memorise (default humaneval)")
    parser.add_argument("--data", help="local data file for the benchmark")
    parser.add_argument(
        "--out", type=Path, default=Path("runs/contaminate"), help="checkpoint and runs go here"
    )
    parser.add_argument("--checkpoint", type=Path, help="measure this checkpoint instead of training one")
    parser.add_argument(
        "--variants",
        type=Path,
        help="metamorphic variants (default: morph run metamorphic --generator rules)",
    )
    parser.add_argument("--skip-variants", action="store_true", help="train and measure the originals only")
    parser.add_argument(
        "--runs", type=Path, nargs="*", default=[], help="other models' run directories for the verdict"
    )
    parser.add_argument("--limit", type=int, help="only the first N problems (a smoke run)")
    parser.add_argument("--epochs", type=int, default=400)
    parser.add_argument(
        "--time-limit", type=float, default=45 * 60, help="CPU seconds of training at most (default 45 min)"
    )
    parser.add_argument(
        "--wall-limit", type=float, help="wall-clock seconds of training at most (default: none)"
    )
    parser.add_argument("--context", type=int, default=64)
    parser.add_argument("--width", type=int, default=192)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--lr", type=float, default=5e-3)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="sandbox workers for the runs")
    args = parser.parse_args(argv)

    import torch

    from benchmorph.data.registry import load_benchmark, select_problems
    from benchmorph.models import tinylm

    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    benchmark = load_benchmark(args.benchmark, args.data)
    problems = select_problems(benchmark.problems, limit=args.limit)
    facts: dict[str, object] = {"benchmark": args.benchmark, "problems": len(problems)}

    checkpoint = args.checkpoint
    if checkpoint is None:
        checkpoint = args.out / "tinylm.pt"
        pairs = [tinylm.completion_pair(problem) for problem in problems]
        config = tinylm.Config(args.context, args.width, args.layers, args.heads)
        print(f"training on {len(pairs)} problems of {args.benchmark}; {_load()}", flush=True)

        def show(entry: dict[str, float]) -> None:
            print(
                f"  epoch {entry['epoch']:.0f}: loss {entry['loss']:.4f}, token accuracy "
                f"{entry['token_accuracy']:.4f}, solutions reproduced {entry['exact']:.3f}, "
                f"{entry['seconds']:.0f} s ({entry['cpu_seconds']:.0f} s CPU); {_load()}",
                flush=True,
            )

        model, vocabulary, report = tinylm.train(
            pairs,
            config,
            epochs=args.epochs,
            batch_size=args.batch,
            learning_rate=args.lr,
            seed=args.seed,
            time_limit=args.time_limit,
            wall_limit=args.wall_limit,
            progress=show,
        )
        parameters = sum(p.numel() for p in model.parameters())
        facts["training"] = {
            "seconds": round(report.seconds, 1),
            "cpu_seconds": round(report.cpu_seconds, 1),
            "epochs": report.epochs,
            "stopped": report.stopped,
            "token_accuracy": report.token_accuracy,
            "solutions_reproduced": report.exact,
            "parameters": parameters,
            "vocabulary": len(vocabulary),
            "config": config.__dict__,
            "threads": args.threads,
            "load_after": _load(),
        }
        tinylm.save(
            checkpoint,
            model,
            vocabulary,
            {"benchmark": args.benchmark, "problems": len(pairs), **facts["training"]},
        )  # type: ignore[dict-item]
        print(
            f"trained in {report.seconds / 60:.1f} min wall, {report.cpu_seconds / 60:.1f} min CPU "
            f"({report.epochs} epochs, {report.stopped}); "
            f"{parameters:,} parameters, vocabulary {len(vocabulary)}, {checkpoint.stat().st_size / 1e6:.1f} MB; "
            f"teacher-forced: {report.exact:.3f} of the solutions reproduced; {_load()}",
            flush=True,
        )
    facts["checkpoint"] = str(checkpoint)
    spec = f"trained:{checkpoint}"

    from benchmorph.evaluation.rundir import load_run
    from benchmorph.evaluation.runs import run_benchmark
    from benchmorph.execution import Engine
    from benchmorph.models.params import GenerationParams

    params = GenerationParams(max_tokens=512)
    with Engine(workers=args.workers) as engine:
        started = time.perf_counter()
        static = run_benchmark(benchmark, spec, args.out / "static", engine, problems=problems, params=params)
        facts["static"] = {
            "pass@1": static.summary["pass@1"],
            "seconds": round(time.perf_counter() - started, 1),
        }
        print(
            f"static pass@1 {static.summary['pass@1']:.3f} on {len(problems)} originals ({static.out_dir})",
            flush=True,
        )
        runs = [static.out_dir, *args.runs]
        if not args.skip_variants:
            variants_file = args.variants or _rules_variants(problems, args.out, engine)
            variants = load_benchmark(str(variants_file))
            seeds = {problem.id for problem in problems}
            chosen = [v for v in variants.problems if getattr(v, "parent_id", None) in seeds]
            started = time.perf_counter()
            dynamic = run_benchmark(
                variants, spec, args.out / "variants", engine, problems=chosen, params=params
            )
            dypass = {k: v for k, v in dynamic.summary.items() if k.startswith("dypass@")}
            facts["variants"] = {
                "file": str(variants_file),
                "variants": len(chosen),
                "pass@1": dynamic.summary["pass@1"],
                **dypass,
                "seconds": round(time.perf_counter() - started, 1),
            }
            print(
                f"variants: pass@1 {dynamic.summary['pass@1']:.3f} on {len(chosen)} variants; "
                + ", ".join(f"{k} {v:.3f}" for k, v in dypass.items()),
                flush=True,
            )
            runs.append(dynamic.out_dir)
        if args.runs:
            from benchmorph.report.contamination import contamination

            groups = contamination([load_run(path) for path in runs])
            for group in groups:
                facts.setdefault("verdict", []).append(group.to_json())  # type: ignore[union-attr]
                for row in group.models:
                    flag = "FLAGGED" if row.flagged and row.side == "below" else "ok"
                    print(
                        f"  {row.model}: static {row.static:.3f}, dynamic {row.dynamic:.3f}, gap {row.gap:+.3f} "
                        f"[{row.gap_ci_low:.3f}, {row.gap_ci_high:.3f}], {flag}"
                    )
    (args.out / "contaminate.json").write_text(
        json.dumps(facts, indent=1, default=str) + "\n", encoding="utf-8"
    )
    print(f"facts: {args.out / 'contaminate.json'}")
    return 0


def _rules_variants(problems, out: Path, engine) -> Path:  # type: ignore[no-untyped-def]
    """Today's offline metamorphic variants of the problems (K = 5)."""
    from benchmorph.morph.transform import MorphContext, run_transform, write_morph_report

    target = out / "metamorphic.jsonl"
    if not target.exists():
        report = run_transform("metamorphic", problems, MorphContext(engine=engine), {"variants": 5})
        write_morph_report(report, target)
    return target


if __name__ == "__main__":
    sys.exit(main())
