"""How close must a text stay to an original for a memoriser to recall it, and where variants sit.

A fuzzy memoriser (``memorizer?recall=fuzzy``, :mod:`benchmorph.models.recall`)
answers from memory when a prompt keeps at least a threshold share of an
original's tokens.  Which threshold is right is a question about the
originals, not about any variant file, so it is answered from two sets made
from the originals alone:

- **near-copies**: light edits a contaminated model would still recognise, made
  deterministically per original (:func:`near_copies`): every parameter of the
  entry point renamed, a framing sentence added to the description, a tenth of
  the description's words replaced, and all three at once (``light edit``);
  and, to show how far a text may drift, a fifth, three tenths, half and
  seven tenths of the words replaced;
- **unrelated originals**: each original against the *other* original it
  keeps most of (HumanEval/56 and /61 differ only in their brackets): what a
  memoriser must not take for a copy.

:func:`recall_curve` sweeps the threshold and gives, at each, the share of
each near-copy kind recalled (the nearest original is its own and the share
reaches the threshold), the share of originals mistaken for an unrelated one,
and, for the variants a report holds, the share recalled.  The threshold the
baseline uses is the one that best separates ``light edit`` from unrelated
originals (Youden's J, :func:`choose_threshold`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import median

from benchmorph.data.models import Problem, Variant
from benchmorph.data.prompt import anatomy, entry_def
from benchmorph.models.recall import RECALL_THRESHOLD, TextMemory
from benchmorph.report.analysis import Pairing

METAMORPHIC = "metamorphic"

# The sentence a framing edit adds: about as long as a scenario sentence, about nothing in particular.
FRAME = (
    "This helper is part of a small inventory tool of a local shop, which calls it with the day's records. "
)
# Names a renaming edit gives the parameters, in order (skipping any the prompt already uses).
FRESH_NAMES = ("items", "values", "data", "amount", "limit", "text", "count", "key", "size", "flag", "extra")
LIGHT = "light edit"
DRIFTS = (0.2, 0.3, 0.5, 0.7)
KINDS = ("renamed", "framed", "reworded 10%", LIGHT, *(f"reworded {round(share * 100)}%" for share in DRIFTS))
THRESHOLDS = tuple(round(0.5 + step / 100, 2) for step in range(51))  # 0.50 .. 1.00
_WORD = re.compile(r"[A-Za-z]+")


def _parameters(problem: Problem) -> list[str]:
    shape = anatomy(problem.prompt, problem.entry_point)
    owner = entry_def(shape.tree, problem.entry_point) if shape.tree is not None else None
    if owner is None:
        return []
    arguments = owner.args
    names = [a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]]
    return [name for name in names if name not in ("self", "cls")]


def renamed(problem: Problem) -> str:
    """The prompt with every parameter of the entry point renamed, wherever it appears as a word."""
    text = problem.prompt
    taken = set(re.findall(r"\w+", text))
    fresh = iter(name for name in FRESH_NAMES if name not in taken)
    for name in _parameters(problem):
        new = next(fresh, f"{name}_value")
        text = re.sub(rf"\b{re.escape(name)}\b", new, text)
    return text


def _description_span(problem: Problem, text: str) -> tuple[int, int]:
    shape = anatomy(text, problem.entry_point)
    if shape.docstring is None:
        return 0, len(text)
    return shape.docstring.content_start, shape.docstring.content_end


def framed(problem: Problem, text: str | None = None) -> str:
    """The prompt with :data:`FRAME` opening its description."""
    text = problem.prompt if text is None else text
    start, _ = _description_span(problem, text)
    lead = text[start : len(text) - len(text[start:].lstrip(" "))]
    return text[:start] + lead + FRAME + text[start + len(lead) :]


def reworded(problem: Problem, share: float, vocabulary: Sequence[str], text: str | None = None) -> str:
    """The prompt with ``share`` of its description's words replaced by words of ``vocabulary``
    (seeded by the problem's id, so every run makes the same copy)."""
    text = problem.prompt if text is None else text
    start, end = _description_span(problem, text)
    words = list(_WORD.finditer(text, start, end))
    rng = random.Random(f"{problem.id}:{share}")
    picked = sorted(rng.sample(range(len(words)), round(share * len(words)))) if words else []
    pieces, position = [], 0
    for index in picked:
        match = words[index]
        replacement = rng.choice(vocabulary)
        while replacement.lower() == match.group().lower() and len(vocabulary) > 1:
            replacement = rng.choice(vocabulary)
        pieces += [text[position : match.start()], replacement]
        position = match.end()
    return "".join(pieces) + text[position:]


def vocabulary_of(problems: Iterable[Problem]) -> list[str]:
    """The words the originals' descriptions use (what a rewording edit draws from)."""
    words: set[str] = set()
    for problem in problems:
        start, end = _description_span(problem, problem.prompt)
        words.update(word.lower() for word in _WORD.findall(problem.prompt[start:end]))
    return sorted(words)


def near_copies(problem: Problem, vocabulary: Sequence[str]) -> dict[str, str]:
    """Every kind of :data:`KINDS` made from ``problem``'s prompt."""
    copies = {
        "renamed": renamed(problem),
        "framed": framed(problem),
        "reworded 10%": reworded(problem, 0.1, vocabulary),
        LIGHT: reworded(problem, 0.1, vocabulary, framed(problem, renamed(problem))),
    }
    for share in DRIFTS:
        copies[f"reworded {round(share * 100)}%"] = reworded(problem, share, vocabulary)
    return copies


@dataclass
class RecallCurve:
    """The sweep over one benchmark's originals (and the variants of a report, where given)."""

    benchmark: str
    originals: int
    thresholds: list[float]
    recalled: dict[str, list[float]]  # near-copy kind -> share recalled at each threshold
    mistaken: list[float]  # share of originals whose nearest other original reaches each threshold
    chosen: float  # the threshold of the fuzzy memorizer (RECALL_THRESHOLD)
    best: float  # the threshold Youden's J picks on these originals
    similarity: dict[str, float] = field(default_factory=dict)  # median share kept, per kind
    variants: int = 0
    variants_recalled: list[float] = field(default_factory=list)  # share of variants recalled
    variants_similarity: float | None = None  # median share of its nearest original a variant keeps
    variant_benchmark: str | None = None

    def at(self, threshold: float) -> dict[str, float]:
        """Every share at the threshold nearest ``threshold``."""
        index = min(range(len(self.thresholds)), key=lambda i: abs(self.thresholds[i] - threshold))
        row = {kind: shares[index] for kind, shares in self.recalled.items()}
        row["unrelated originals"] = self.mistaken[index]
        if self.variants_recalled:
            row["variants"] = self.variants_recalled[index]
        return row


def _share_at_least(values: Sequence[float], thresholds: Sequence[float]) -> list[float]:
    return [sum(value >= t - 1e-12 for value in values) / len(values) if values else 0.0 for t in thresholds]


def choose_threshold(
    positives: Sequence[float], negatives: Sequence[float], thresholds: Sequence[float]
) -> float:
    """The threshold with the largest Youden's J (recalled positives minus recalled negatives); among
    equals, the middle one, so that the choice does not lean on the grid's edge."""
    hits = _share_at_least(positives, thresholds)
    false = _share_at_least(negatives, thresholds)
    scores = [hit - miss for hit, miss in zip(hits, false, strict=True)]
    best = max(scores)
    tied = [t for t, score in zip(thresholds, scores, strict=True) if score >= best - 1e-12]
    return tied[len(tied) // 2]


def recall_curve(
    benchmark: str,
    originals: Sequence[Problem],
    variants: Sequence[Variant] = (),
    thresholds: Sequence[float] = THRESHOLDS,
) -> RecallCurve:
    """The sweep for ``originals`` (all of a benchmark: the memory) and, if given, their variants.

    A near-copy counts as recalled only when its nearest memory is its own original; a variant, when
    its nearest memory is its parent's prompt (``provenance.parent_prompt``, else the original of that
    id)."""
    memory = TextMemory([problem.prompt for problem in originals])
    vocabulary = vocabulary_of(originals)
    kept: dict[str, list[float]] = {kind: [] for kind in KINDS}
    mistaken: list[float] = []
    for index, problem in enumerate(originals):
        for kind, text in near_copies(problem, vocabulary).items():
            found = memory.nearest(text)
            kept[kind].append(found.similarity if found is not None and found.index == index else 0.0)
        other = memory.nearest(problem.prompt, exclude=index)
        mistaken.append(other.similarity if other is not None else 0.0)
    curve = RecallCurve(
        benchmark=benchmark,
        originals=len(originals),
        thresholds=list(thresholds),
        recalled={kind: _share_at_least(values, thresholds) for kind, values in kept.items()},
        mistaken=_share_at_least(mistaken, thresholds),
        chosen=RECALL_THRESHOLD,
        best=choose_threshold(kept[LIGHT], mistaken, thresholds),
        similarity={kind: round(median(values), 4) for kind, values in kept.items() if values},
    )
    if variants:
        shares = variant_shares(originals, variants, memory)
        curve.variants = len(shares)
        curve.variants_recalled = _share_at_least(shares, thresholds)
        curve.variants_similarity = round(median(shares), 4) if shares else None
    return curve


def variant_shares(
    originals: Sequence[Problem], variants: Sequence[Variant], memory: TextMemory | None = None
) -> list[float]:
    """Per variant, the share of its parent's prompt it keeps, or 0.0 when another original is nearer
    (a memoriser would then answer the wrong problem)."""
    memory = memory or TextMemory([problem.prompt for problem in originals])
    position = {problem.id: index for index, problem in enumerate(originals)}
    prompts = {problem.prompt: index for index, problem in enumerate(originals)}
    shares = []
    for variant in variants:
        parent_prompt = variant.provenance.get("parent_prompt")
        parent = prompts.get(parent_prompt) if isinstance(parent_prompt, str) else None
        if parent is None:
            parent = position.get(variant.parent_id)
        found = memory.nearest(variant.prompt)
        shares.append(found.similarity if found is not None and found.index == parent else 0.0)
    return shares


def report_curves(pairs: Sequence[Pairing]) -> list[RecallCurve]:
    """One curve per original benchmark and metamorphic variant file among the paired runs (whatever
    the models): the originals are the memory, the variants are placed on the curve."""
    curves: dict[tuple[str, str], RecallCurve] = {}
    for pairing in pairs:
        key = (pairing.original.benchmark, pairing.variant.benchmark)
        ids = [vid for vid, family in pairing.families.items() if family == METAMORPHIC]
        if key in curves or not ids:
            continue
        problems = pairing.variant.problems()
        variants = [p for vid in ids if isinstance(p := problems.get(vid), Variant)]
        originals = list(pairing.original.problems().values())
        curve = recall_curve(pairing.original.benchmark, originals, variants)
        curve.variant_benchmark = pairing.variant.benchmark
        curves[key] = curve
    return [curves[key] for key in sorted(curves)]
