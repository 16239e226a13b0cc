"""What is left of a parent's wording in a retelling, once the retelling's own additions are set aside.

A retelling adds a scenario ("the station's readings") and renames the
function and its parameters.  Neither makes the text new for a memoriser
that recognises the rest, so the residual similarity is measured on the
variant *with its renames mapped back* (``readings`` read as ``numbers``
again) and *its scenario's words removed* (a word of the scenario that the
parent does not use).  Both steps can only make the variant look more like
its parent, never less: the figures are upper bounds on what was kept.

Every retelling writes what it added to its provenance: ``renames`` (old
parameter name -> new), ``renamed_from`` (the parent's function name where
it changed) and ``scenario_terms`` (the words its scenario brought).  The
texts compared are the whole docstrings, worked examples included (the
"BLEU-4 with examples" of the issue that introduced these gates), so that
examples copied from the parent count as kept wording.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from benchmorph.data.models import Problem, Variant
from benchmorph.data.prompt import anatomy
from benchmorph.validation.diversity import bleu4
from benchmorph.validation.overlap import matching_ratio, ngram_share, words

RUN = 8  # words in a run a memoriser would recognise


@dataclass(frozen=True)
class Rewording:
    """What a retelling added: names to map back (new -> old) and the words of its scenario."""

    names_back: dict[str, str]
    scenario_terms: frozenset[str]

    @classmethod
    def of(cls, variant: Variant, parent: Problem) -> Rewording:
        provenance = variant.provenance
        back: dict[str, str] = {}
        renames = provenance.get("renames")
        if isinstance(renames, Mapping):
            back.update({str(new): str(old) for old, new in renames.items() if old != new})
        if variant.entry_point != parent.entry_point:
            back[variant.entry_point] = parent.entry_point
        terms = provenance.get("scenario_terms")
        scenario = frozenset(
            word for term in (terms if isinstance(terms, list | tuple) else []) for word in words(str(term))
        )
        return cls(back, scenario)


def docstring(problem: Problem) -> str:
    """The text a reader sees as the task: the description's docstring with its examples, or the prompt."""
    found = anatomy(problem.prompt, problem.entry_point)
    return found.content if found.docstring is not None else problem.prompt


def map_back(text: str, names_back: Mapping[str, str]) -> str:
    """``text`` with every renamed name (a whole word) written as the parent's name again."""
    if not names_back:
        return text
    pattern = re.compile(
        r"(?<![\w])("
        + "|".join(re.escape(n) for n in sorted(names_back, key=len, reverse=True))
        + r")(?![\w])"
    )
    return pattern.sub(lambda match: names_back[match.group(1)], text)


def without_terms(text: str, terms: Iterable[str], keep: Iterable[str]) -> str:
    """``text`` less every word of ``terms`` that is not among the words in ``keep`` (the parent's)."""
    drop = {term.lower() for term in terms} - {word.lower() for word in keep}
    if not drop:
        return text
    pattern = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9_]+(?![A-Za-z0-9_])")
    return pattern.sub(lambda match: "" if match.group(0).lower() in drop else match.group(0), text)


def residual(variant: Variant, parent: Problem) -> str:
    """The variant's docstring as a memoriser would compare it: renames mapped back, scenario words out."""
    rewording = Rewording.of(variant, parent)
    parent_text = docstring(parent)
    text = map_back(docstring(variant), rewording.names_back)
    return without_terms(text, rewording.scenario_terms, words(parent_text))


@dataclass(frozen=True)
class Similarity:
    """How much of one text another keeps: BLEU-4, share of ``RUN``-word runs, difflib's word ratio."""

    bleu: float
    runs: float
    ratio: float

    def figures(self, prefix: str) -> dict[str, float]:
        return {
            f"{prefix}_bleu4": round(self.bleu, 4),
            f"{prefix}_runs{RUN}": round(self.runs, 4),
            f"{prefix}_difflib": round(self.ratio, 4),
        }


def similarity(text: str, original: str) -> Similarity:
    """``text`` against ``original``: BLEU-4 (text as hypothesis), share of the original's runs kept, ratio.

    An original too short to hold a run of ``RUN`` words has none to keep: its share is 0.
    """
    kept = ngram_share(text, original, RUN)
    return Similarity(bleu4(text, original), kept or 0.0, matching_ratio(text, original))


def residual_similarity(variant: Variant, parent: Problem) -> Similarity:
    """The residual of ``variant`` against its parent's docstring."""
    return similarity(residual(variant, parent), docstring(parent))


def residual_description(variant: Variant, parent: Problem) -> str:
    """The residual of the variant's description alone, its worked examples out."""
    from benchmorph.validation.distances import description_text

    rewording = Rewording.of(variant, parent)
    text = map_back(description_text(variant.prompt, variant.entry_point, variant.kind), rewording.names_back)
    return without_terms(text, rewording.scenario_terms, words(docstring(parent)))


def sibling_description_bleu(variant: Variant, sibling: Variant, parent: Problem) -> float:
    """BLEU-4 between two retellings' descriptions alone (residuals, examples out), the larger way round:
    two siblings with one description and different examples are one retelling shown twice."""
    a, b = residual_description(variant, parent), residual_description(sibling, parent)
    return max(bleu4(a, b), bleu4(b, a))


def sibling_similarity(variant: Variant, sibling: Variant, parent: Problem) -> Similarity:
    """Two retellings of one parent against each other, measured as each is against the parent: both as
    residuals of their whole docstrings, symmetric (the larger of both ways)."""
    a, b = residual(variant, parent), residual(sibling, parent)
    one, other = similarity(a, b), similarity(b, a)
    return Similarity(max(one.bleu, other.bleu), max(one.runs, other.runs), one.ratio)


def sibling_description_run(variant: Variant, sibling: Variant, parent: Problem) -> tuple[int, str]:
    """The longest phrase two retellings' descriptions share, and its words, once each is read with its
    synonym swaps undone (toward the parent's words, then toward the other's) and articles set aside,
    the larger way round: "a supplied number is prime" and "a provided number is prime" share four."""
    from benchmorph.validation.distances import description_text
    from benchmorph.validation.overlap import longest_phrase
    from benchmorph.validation.synonyms import swapped_back_text

    original = description_text(parent.prompt, parent.entry_point, parent.kind)
    one = swapped_back_text(residual_description(variant, parent), original)
    other = swapped_back_text(residual_description(sibling, parent), original)
    shared = max(
        (
            longest_phrase(swapped_back_text(text, against), against)
            for text, against in ((one, other), (other, one))
        ),
        key=len,
    )
    return len(shared), " ".join(shared)
