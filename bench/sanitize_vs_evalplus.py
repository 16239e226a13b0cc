#!/usr/bin/env python
"""Our sanitizer against EvalPlus's on a corpus of raw answers: where they disagree, and who is right.

The corpus (``tests/fixtures/sanitize_corpus``): hand-written answers in the shapes models produce,
built from HumanEval's own solutions (``shapes.py``: fences, prose, bodies without a def line,
unindented bodies, copies cut off by the token limit, full revisions, tests and prints, tags,
reasoning), and the embedded model's answers (``gemma3_270m.jsonl``: Gemma 3 270M base, completion
prompts).  Each answer goes through both sanitizers, side by side in one run:

* ours: ``benchmorph.models.sanitize.sanitize(text, entry_point=..., prompt=...)``;
* EvalPlus 0.3.1's ``evalplus.sanitize.sanitize(code, entrypoint)``, in its own venv (default
  ``$TMPDIR/evalplus-venv``), given what its own ``evalplus.sanitize`` script gives it: the
  solution, or the prompt, a newline and the completion.

Both programs are judged by the same sandbox against HumanEval's tests.  A hand-written answer
always contains a correct solution, so there the right reading passes; for the model's answers a
differing verdict means the two read different programs, and the table shows both for a reader.

    python bench/sanitize_vs_evalplus.py                       # the table and the counts
    python bench/sanitize_vs_evalplus.py --show 5              # and the first 5 disagreements in full
    python bench/sanitize_vs_evalplus.py --evalplus-venv DIR   # EvalPlus installed elsewhere
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "fixtures" / "sanitize_corpus"
DEFAULT_VENV = Path(tempfile.gettempdir()) / "evalplus-venv"

# Runs in EvalPlus's venv: its public sanitize() on each item, one JSON line each, bounded per item.
_DRIVER = """
import json, signal, sys
from evalplus.sanitize import sanitize

def stop(*_):
    raise TimeoutError
signal.signal(signal.SIGALRM, stop)
for line in sys.stdin:
    item = json.loads(line)
    signal.alarm(10)
    try:
        code = sanitize(item["code"], item["entry_point"])
    except BaseException as exc:
        code = None
    signal.alarm(0)
    print(json.dumps(code), flush=True)
"""


def corpus() -> list[dict[str, Any]]:
    """Every answer of the corpus: the hand-written shapes, then the model's stored answers."""
    sys.path.insert(0, str(CORPUS))
    try:
        import shapes  # noqa: PLC0415 - beside the corpus, found through the line above
    finally:
        sys.path.remove(str(CORPUS))
    found = list(shapes.answers())
    stored = CORPUS / "gemma3_270m.jsonl"
    if stored.exists():
        found += [
            json.loads(line) for line in stored.read_text(encoding="utf-8").splitlines() if line.strip()
        ]
    return found


def ours(answers: list[dict[str, Any]], problems: dict[str, Any]) -> list[str]:
    from benchmorph.models.sanitize import sanitize

    codes = []
    for answer in answers:
        problem = problems[answer["task_id"]]
        codes.append(sanitize(answer["text"], entry_point=problem.entry_point, prompt=problem.prompt))
    return codes


def evalplus_python(venv: Path) -> Path | None:
    python = venv / "bin" / "python"
    if not python.exists():
        return None
    probe = subprocess.run([str(python), "-c", "import evalplus.sanitize"], capture_output=True)
    return python if probe.returncode == 0 else None


def theirs(answers: list[dict[str, Any]], problems: dict[str, Any], python: Path) -> list[str | None]:
    """EvalPlus's reading of each answer (None where it raised or took over 10 s)."""
    lines = []
    for answer in answers:
        problem = problems[answer["task_id"]]
        code = answer["text"] if answer["field"] == "solution" else problem.prompt + "\n" + answer["text"]
        lines.append(json.dumps({"code": code, "entry_point": problem.entry_point}))
    done = subprocess.run(
        [str(python), "-c", _DRIVER],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


@dataclass
class Row:
    answer: dict[str, Any]
    ours: str
    theirs: str | None
    our_status: str
    their_status: str

    @property
    def who_is_right(self) -> str:
        """For hand-written answers (a correct solution inside): whichever reading passes."""
        if self.answer["origin"] != "hand" or self.our_status == self.their_status:
            return "-" if self.answer["origin"] == "hand" else "read both"
        return (
            "ours" if self.our_status == "pass" else "EvalPlus" if self.their_status == "pass" else "neither"
        )


def judge(answers: list[dict[str, Any]], codes: list[str | None], workers: int) -> list[str]:
    """Each program's verdict status against HumanEval's tests, in the sandbox."""
    from benchmorph.data.registry import load_benchmark
    from benchmorph.execution import Engine, Job

    bench = load_benchmark("humaneval")
    with Engine(workers=workers, test_details=False) as engine:
        ready = {
            p.id: p
            for p in engine.prepare(
                [bench.by_id()[task] for task in {a["task_id"] for a in answers}]
            ).problems
        }
        jobs = [
            Job(ready[a["task_id"]], code or "", a["task_id"], i)
            for i, (a, code) in enumerate(zip(answers, codes, strict=True))
        ]
        return [verdict.status for verdict in engine.evaluate(jobs)]


def compare(venv: Path = DEFAULT_VENV, workers: int = 2) -> tuple[list[Row], bool]:
    """Every answer with both readings and their verdicts; False when EvalPlus is not installed."""
    from benchmorph.data.registry import load_benchmark

    answers = corpus()
    problems = load_benchmark("humaneval").by_id()
    mine = ours(answers, problems)
    python = evalplus_python(venv)
    other: list[str | None] = theirs(answers, problems, python) if python else [None] * len(answers)
    statuses = judge(answers + answers, mine + other, workers)
    half = len(answers)
    rows = [
        Row(answer, code, peer, statuses[i], statuses[half + i] if python else "-")
        for i, (answer, code, peer) in enumerate(zip(answers, mine, other, strict=True))
    ]
    return rows, python is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evalplus-venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=0, help="print this many disagreements in full")
    args = parser.parse_args()
    rows, with_peer = compare(args.evalplus_venv, args.workers)
    if not with_peer:
        print(f"EvalPlus is not installed in {args.evalplus_venv}: ours only", file=sys.stderr)
    by_origin: Counter[tuple[str, str, str]] = Counter()
    for row in rows:
        by_origin[(row.answer["origin"], "ours", row.our_status)] += 1
        by_origin[(row.answer["origin"], "EvalPlus", row.their_status)] += 1
    for origin in sorted({row.answer["origin"] for row in rows}):
        mine = sum(1 for row in rows if row.answer["origin"] == origin and row.our_status == "pass")
        peer = sum(1 for row in rows if row.answer["origin"] == origin and row.their_status == "pass")
        total = sum(1 for row in rows if row.answer["origin"] == origin)
        print(f"{origin}: {total} answers; pass with ours {mine}, with EvalPlus's {peer}")
    differing = [row for row in rows if with_peer and row.our_status != row.their_status]
    print(f"\n{len(differing)} answers where the two readings get different verdicts:\n")
    print(f"{'task':14} {'origin':7} {'shape':28} {'ours':18} {'EvalPlus':18} right")
    shapes: Counter[tuple[str, str, str]] = Counter()
    for row in differing:
        shape = row.answer.get("shape", "-")
        print(
            f"{row.answer['task_id']:14} {row.answer['origin']:7} {shape:28} {row.our_status:18} {row.their_status:18} {row.who_is_right}"
        )
        shapes[(shape, row.who_is_right, row.answer["origin"])] += 1
    print("\nby shape:", dict(shapes))
    for row in differing[: args.show]:
        print(
            "\n"
            + "=" * 100
            + f"\n{row.answer['task_id']} {row.answer.get('shape')}\n--- raw\n{row.answer['text']}"
        )
        print(f"--- ours ({row.our_status})\n{row.ours}\n--- EvalPlus ({row.their_status})\n{row.theirs}")


if __name__ == "__main__":
    main()
