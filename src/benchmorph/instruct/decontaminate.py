"""``instruct decontaminate``: drop pairs that duplicate a benchmark problem, so training data does not leak.

Two tests, as in the decontamination of WizardCoder that the CTF paper follows:

* **n-grams**: a pair is dropped when any of its four texts (both instructions, both solutions) shares
  an n-gram (10 by default) of normalised tokens with a benchmark problem's prompt or reference.
  Normalised tokens are the lower-cased words and numbers of the text (``[a-z0-9_]+``), so spacing,
  punctuation, quotes and case do not hide a copy;
* **embeddings** (optional): a pair is dropped when the cosine similarity between either instruction and
  a benchmark prompt is above a threshold (0.95 by default), which catches paraphrases.

The benchmarks come from the benchmark registry (names such as ``humaneval`` or ``mbpp+``, with ``--data``
for a local copy) or are files: our own variant files are read the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from benchmorph.data.models import Problem
from benchmorph.instruct.records import Pair
from benchmorph.models import LLMCache, ModelSpec, embed

_TOKEN = re.compile(r"[a-z0-9_]+")
DEFAULT_N = 10
DEFAULT_COSINE = 0.95


def normalised_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def ngrams(text: str, n: int = DEFAULT_N) -> Iterable[tuple[str, ...]]:
    tokens = normalised_tokens(text)
    return (tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


@dataclass
class Contaminant:
    """Where a benchmark text came from: benchmark name, problem id and which text."""

    benchmark: str
    problem: str
    part: str  # prompt or reference


@dataclass
class DecontaminationReport:
    kept: list[Pair]
    dropped: list[Pair]  # each with extra["decontamination"] = {"test", "benchmark", "problem", "reason"}
    benchmarks: dict[str, int] = field(default_factory=dict)  # name -> problems compared

    def counts(self) -> dict[str, int]:
        """Dropped pairs per (test, benchmark), e.g. ``ngram humaneval``."""
        counts: dict[str, int] = {}
        for pair in self.dropped:
            why = pair.extra["decontamination"]
            key = f"{why['test']} {why['benchmark']}"
            counts[key] = counts.get(key, 0) + 1
        return counts


def _index(benchmarks: Sequence[tuple[str, Sequence[Problem]]], n: int) -> dict[tuple[str, ...], Contaminant]:
    index: dict[tuple[str, ...], Contaminant] = {}
    for name, problems in benchmarks:
        for problem in problems:
            for part, text in (("prompt", problem.prompt), ("reference", problem.reference)):
                for gram in ngrams(text, n):
                    index.setdefault(gram, Contaminant(name, problem.id, part))
    return index


def _pair_texts(pair: Pair) -> list[tuple[str, str]]:
    return [
        ("instruction", pair.instruction),
        ("counterfactual instruction", pair.cf_instruction),
        ("solution", pair.code),
        ("counterfactual solution", pair.cf_code),
    ]


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def decontaminate(
    pairs: Sequence[Pair],
    benchmarks: Sequence[tuple[str, Sequence[Problem]]],
    *,
    n: int = DEFAULT_N,
    embedder: ModelSpec | str | None = None,
    cosine: float = DEFAULT_COSINE,
    cache: LLMCache | None = None,
) -> DecontaminationReport:
    """Split ``pairs`` into kept and dropped; ``embedder=None`` runs the n-gram test only."""
    index = _index(benchmarks, n)
    report = DecontaminationReport([], [], {name: len(problems) for name, problems in benchmarks})
    survivors: list[Pair] = []
    for pair in pairs:
        hit = None
        for side, text in _pair_texts(pair):
            for gram in ngrams(text, n):
                found = index.get(gram)
                if found is not None:
                    hit = (side, gram, found)
                    break
            if hit:
                break
        if hit is None:
            survivors.append(pair)
            continue
        side, gram, found = hit
        pair.extra["decontamination"] = {
            "test": "ngram",
            "benchmark": found.benchmark,
            "problem": found.problem,
            "reason": f"the {side} shares the {n}-gram '{' '.join(gram)}' with {found.problem}'s {found.part}",
        }
        report.dropped.append(pair)
    if embedder is not None and survivors:
        survivors = _embedding_test(survivors, benchmarks, embedder, cosine, cache, report)
    report.kept = survivors
    return report


def _embedding_test(
    pairs: list[Pair],
    benchmarks: Sequence[tuple[str, Sequence[Problem]]],
    embedder: ModelSpec | str,
    cosine: float,
    cache: LLMCache | None,
    report: DecontaminationReport,
) -> list[Pair]:
    owners = [(name, problem.id) for name, problems in benchmarks for problem in problems]
    prompts = [problem.prompt for _, problems in benchmarks for problem in problems]
    if not prompts:
        return pairs
    bench = _unit(embed(prompts, embedder, cache))
    texts = [text for pair in pairs for text in (pair.instruction, pair.cf_instruction)]
    ours = _unit(embed(texts, embedder, cache))
    similarity = ours @ bench.T  # (2 * pairs, problems)
    kept = []
    for number, pair in enumerate(pairs):
        rows = similarity[2 * number : 2 * number + 2]
        row, column = np.unravel_index(int(np.argmax(rows)), rows.shape)
        best = float(rows[row, column])
        if best <= cosine:
            kept.append(pair)
            continue
        name, problem = owners[int(column)]
        side = "instruction" if row == 0 else "counterfactual instruction"
        pair.extra["decontamination"] = {
            "test": "embedding",
            "benchmark": name,
            "problem": problem,
            "reason": f"the {side} has cosine {best:.3f} > {cosine} with {problem}'s prompt",
        }
        report.dropped.append(pair)
    return kept
