"""``instruct pairs``: one counterfactual (instruction, solution) per instruction sample.

For each sample the generator is asked (through the LLM cache, so a killed run resumes without paying
twice) for a minimal change of the instruction that forces a large change of the code at the same
difficulty.  Every answer becomes a :class:`Pair`, accepted or rejected by the first check it fails:

``generation-failed`` / ``unparseable`` (no instruction and solution could be read), ``no-code`` /
``code-does-not-parse`` (the solution as written is not Python), ``instruction-is-code`` (the new
"instruction" is an implementation without a word of prose, what tiny models write), ``identical-instruction``,
``same-code`` (the same syntax tree), ``too-far`` (D_Q above ``max_dq``, when set), and, for samples
that ship assert tests, ``does-not-run`` (the new solution loads on none of the tests' inputs in the
sandbox) and ``same-outputs`` (it returns what the original does on every input: not a counterfactual).

D_Q (normalised edit distance of the instructions) and D_S (1 - cosine of the solutions' embeddings)
are the CTF-Code functions of :mod:`benchmorph.validation.distances`.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.data.models import Problem, TestCase
from benchmorph.execution.compare import outputs_match
from benchmorph.execution.engine import Engine
from benchmorph.instruct.prompts import code_block, pair_request, parse_pair, solution_request
from benchmorph.instruct.records import (
    ACCEPTED,
    REJECTED,
    InstructSample,
    Pair,
    extract_code,
    top_level_definitions,
)
from benchmorph.models import GenerationParams, LLMCache, ModelSpec, embed, parse_spec
from benchmorph.models.ask import ask
from benchmorph.validation.distances import description_distance, solution_distance

Notify = Callable[[str], None]


@dataclass
class PairsReport:
    """Every pair (accepted or not) and the rates a user must see to judge the generator."""

    pairs: list[Pair]
    asked: int = 0  # answers paid for in this run
    cached: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def accepted(self) -> list[Pair]:
        return [pair for pair in self.pairs if pair.accepted]

    @property
    def parsed(self) -> int:
        return sum(1 for pair in self.pairs if pair.check not in {"generation-failed", "unparseable"})

    @property
    def parse_rate(self) -> float:
        return self.parsed / len(self.pairs) if self.pairs else 0.0

    @property
    def acceptance_rate(self) -> float:
        return len(self.accepted) / len(self.pairs) if self.pairs else 0.0

    def checks(self) -> list[tuple[str, int]]:
        """(check, count) of the rejected pairs, most frequent first; ``accepted`` first."""
        counts = Counter(pair.check or ACCEPTED for pair in self.pairs)
        return sorted(counts.items(), key=lambda item: (item[0] != ACCEPTED, -item[1], item[0]))


def _reject(pair: Pair, check: str, reason: str) -> None:
    pair.status, pair.check, pair.reason = REJECTED, check, reason


def _normal(text: str) -> str:
    return " ".join(text.split())


def _same_tree(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def assert_inputs(tests: Sequence[str], entry_point: str) -> list[list[Any]]:
    """Argument lists of every call to ``entry_point`` in the assert lines whose arguments are literals."""
    found: list[list[Any]] = []
    for line in tests:
        try:
            tree = ast.parse(line)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry_point:
                if node.keywords:
                    continue
                try:
                    found.append([ast.literal_eval(arg) for arg in node.args])
                except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                    continue
    return found


def tests_entry_point(sample: InstructSample) -> str | None:
    """The function the sample's asserts call that its code defines (None: nothing to run)."""
    if not sample.tests:
        return None
    defined = top_level_definitions(sample.code)
    for name in defined:
        if assert_inputs(sample.tests, name):
            return name
    return None


def _answers(
    samples: Sequence[InstructSample],
    generator: ModelSpec,
    params: GenerationParams,
    cache: LLMCache,
    progress: ProgressFactory,
    options: dict[str, Any],
) -> tuple[list[Pair], int, int]:
    """Ask the generator; one pair per sample holding the raw answer and what could be read from it."""
    pairs: list[Pair] = []
    requests = [pair_request(sample.prompt, sample.code, generator.mode) for sample in samples]
    with progress(f"pairs: ask {generator.text}", len(requests)) as advance:
        first = ask(requests, generator, params, cache, progress=advance, **options)
    asked, cached = first.requests, first.cached
    texts: list[tuple[str, str] | None] = []
    errors: list[str | None] = []
    if generator.mode == "completion":  # a base model writes the instruction, then is asked its solution
        instructions = [(answers[0].text or "").strip() for answers in first.answers]
        follow = [
            (index, solution_request(request, instructions[index]))
            for index, request in enumerate(requests)
            if instructions[index]
        ]
        with progress("pairs: ask solutions", len(follow)) as advance:
            second = ask(
                [request for _, request in follow], generator, params, cache, progress=advance, **options
            )
        asked, cached = asked + second.requests, cached + second.cached
        solutions = {index: answers[0] for (index, _), answers in zip(follow, second.answers, strict=True)}
        for index, answers in enumerate(first.answers):
            answer = solutions.get(index)
            if answers[0].text is None:
                texts.append(None)
                errors.append(answers[0].error)
            elif answer is None or answer.text is None:
                texts.append(None)
                errors.append(answer.error if answer is not None else None)
            else:
                texts.append((instructions[index], "```python\n" + answer.text + "\n```"))
                errors.append(None)
        raws = [
            None
            if answers[0].text is None
            else answers[0].text
            + ("\n" + (solutions[i].text or "") if i in solutions and solutions[i].text else "")
            for i, answers in enumerate(first.answers)
        ]
    else:
        raws = [answers[0].text for answers in first.answers]
        for answers in first.answers:
            text = answers[0].text
            texts.append(None if text is None else parse_pair(text))
            errors.append(answers[0].error)
    for sample, request, raw, parsed, error in zip(samples, requests, raws, texts, errors, strict=True):
        pair = Pair(
            id=f"{sample.id}/ctf",
            source_id=sample.id,
            instruction=sample.prompt,
            output=sample.output,
            code=sample.code,
            generator=generator.text,
            prompt_hash=request.digest(),
            raw=raw,
        )
        if raw is None or (parsed is None and error):
            _reject(pair, "generation-failed", f"no answer: {error}")
        elif parsed is None:
            _reject(
                pair, "unparseable", "no instruction and solution (JSON or headed sections with a code block)"
            )
        else:
            pair.cf_instruction, pair.cf_output = parsed
        pairs.append(pair)
    return pairs, asked, cached


def _check_code(pair: Pair, sample: InstructSample, max_dq: float | None) -> None:
    """The text checks, in order; the pair stays pending (status unset) when it passes them."""
    block, problem = code_block(pair.cf_output)
    if problem is not None:
        _reject(pair, "code-does-not-parse", f"the new solution does not parse: {problem}")
        return
    entry = tests_entry_point(sample) or ""
    pair.cf_code = extract_code(block, entry)
    if not pair.cf_code.strip():
        _reject(pair, "no-code", "the answer holds no Python solution")
        return
    if _is_code(pair.cf_instruction):
        _reject(pair, "instruction-is-code", "the new instruction is code, not a task description")
        return
    if _normal(pair.cf_instruction) == _normal(sample.prompt):
        _reject(pair, "identical-instruction", "the instruction did not change")
        return
    pair.d_q = description_distance(sample.prompt, pair.cf_instruction)
    if _same_tree(pair.cf_code, sample.code):
        _reject(pair, "same-code", "the new solution is the original one")
        return
    if max_dq is not None and pair.d_q > max_dq:
        _reject(pair, "too-far", f"D_Q {pair.d_q:.3f} > {max_dq}")
        return
    pair.status = "pending"


def _is_code(text: str) -> bool:
    """Whether an instruction is bare code rather than a task: Python (fenced or not) that defines or
    imports something and carries no docstring. A completion-style prompt (a signature with its
    docstring, as HumanEval's) is an instruction; an implementation with no words is not, and prose
    such as "Write `f(x)` ..." never parses."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.split("```", 1)[0]
    try:
        tree = ast.parse(stripped)
    except (SyntaxError, ValueError):
        return False
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
    if not any(isinstance(node, kinds) for node in tree.body):
        return False
    documented = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return not any(ast.get_docstring(node) for node in ast.walk(tree) if isinstance(node, documented))


def _aliased(code: str, entry_point: str) -> tuple[str, str]:
    """The new code callable as ``entry_point``: a counterfactual may rename the function it defines."""
    names = [name for name in top_level_definitions(code) if not name[:1].isupper()]
    if entry_point in names or not names:
        return code, entry_point
    return f"{code.rstrip()}\n\n{entry_point} = {names[-1]}\n", names[-1]


def run_tests(pairs: Sequence[Pair], samples: dict[str, InstructSample], engine: Engine) -> None:
    """For samples with assert tests: the new solution must run on their inputs and change an output."""
    problems: list[Problem] = []
    for pair in pairs:
        sample = samples[pair.source_id]
        entry = tests_entry_point(sample)
        if entry is None:
            continue
        tests = [TestCase(input=args) for args in assert_inputs(sample.tests, entry)]
        problems.append(
            Problem(
                id=pair.source_id, prompt=sample.prompt, entry_point=entry, reference=sample.code, tests=tests
            )
        )
    if not problems:
        return
    report = engine.prepare(problems)
    prepared = {problem.id: problem for problem in report.problems}
    for pair in pairs:
        sample = samples[pair.source_id]
        entry = tests_entry_point(sample)
        if entry is None:
            continue
        if pair.source_id not in prepared:
            why = report.unusable.get(pair.source_id, "the original solution does not run on its tests")
            pair.tests = {"status": "original-does-not-run", "reason": why}
            continue
        parent = prepared[pair.source_id]
        code, name = _aliased(pair.cf_code, entry)
        run = engine.run_outputs(parent, [code])[0]
        ran = sum(run.ok)
        changed = sum(
            1
            for test, ok, output in zip(parent.tests, run.ok, run.outputs, strict=True)
            if ok
            and not outputs_match(parent.kind, test.expected, output, parent.atol, parent.strict_sequences)
        )
        pair.tests = {
            "status": "runs" if ran else "does-not-run",
            "entry_point": name,
            "inputs": len(parent.tests),
            "ran": ran,
            "changed": changed,
        }
        if run.error is not None or not ran:
            pair.tests["error"] = (run.error or "every test input raised or timed out")[:240]
            _reject(
                pair, "does-not-run", f"the new solution runs on none of the {len(parent.tests)} test inputs"
            )
        elif not changed:
            _reject(
                pair,
                "same-outputs",
                f"the new solution returns the original's outputs on all {ran} inputs it runs",
            )


def measure_solutions(pairs: Sequence[Pair], embedder: ModelSpec | str, cache: LLMCache) -> None:
    """D_S for every pair with a parsed new solution (embeddings cached per text)."""
    measured = [pair for pair in pairs if pair.cf_code.strip()]
    if not measured:
        return
    vectors = embed([text for pair in measured for text in (pair.code, pair.cf_code)], embedder, cache)
    for number, pair in enumerate(measured):
        pair.d_s = solution_distance(vectors[2 * number], vectors[2 * number + 1])


def make_pairs(
    samples: Sequence[InstructSample],
    generator: ModelSpec | str,
    cache: LLMCache,
    engine: Engine | None,
    *,
    embedder: ModelSpec | str = "local",
    params: GenerationParams | None = None,
    max_dq: float | None = None,
    progress: ProgressFactory = no_progress,
    **options: Any,
) -> PairsReport:
    """One pair per sample; ``engine`` runs the tests of samples that have them (None: not run, noted).

    ``options`` go to :func:`benchmorph.models.ask` (``concurrency``, ``policy``).
    """
    generator = parse_spec(generator) if isinstance(generator, str) else generator
    params = params or GenerationParams(temperature=0.7, max_tokens=1024, seed=0)
    pairs, asked, cached = _answers(samples, generator, params, cache, progress, options)
    by_id = {sample.id: sample for sample in samples}
    for pair in pairs:
        if pair.check is None:
            _check_code(pair, by_id[pair.source_id], max_dq)
    pending = [pair for pair in pairs if pair.status == "pending"]
    notes: list[str] = []
    with_tests = [pair for pair in pending if by_id[pair.source_id].tests]
    if with_tests and engine is None:
        notes.append(f"{len(with_tests)} pairs have tests that were not run (no sandbox engine)")
    elif with_tests and engine is not None:
        with progress(f"pairs: run {len(with_tests)} new solutions on their tests", None):
            run_tests(with_tests, by_id, engine)
    with progress("pairs: embed solutions (D_S)", None):
        measure_solutions(pairs, embedder, cache)
    for pair in pairs:
        if pair.status == "pending":
            pair.status, pair.check, pair.reason = ACCEPTED, None, None
    report = PairsReport(pairs, asked, cached, notes)
    if report.pairs and report.acceptance_rate < 0.5:
        notes.append(
            f"only {len(report.accepted)} of {len(report.pairs)} answers became pairs "
            f"(parse rate {report.parse_rate:.0%}, acceptance rate {report.acceptance_rate:.0%}): "
            f"the generator {generator.text} is weak for this task"
        )
    return report
