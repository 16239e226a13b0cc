"""Models that need no LLM: calibration points for every measurement.

``reference`` answers with the problem's own reference solution (it should
score 1.0 everywhere).  ``original`` answers a variant with its parent's
reference: a model that ignores whatever the variant changed, so its score
on variants shows how much a benchmark punishes answering the original
(``original?originals=BENCH`` finds the parent by id in that benchmark, for
variants that do not carry its reference, as EvoEval's published sets).
``memorizer`` is perfect contamination: it answers the original reference
when the prompt is byte for byte one it has seen, and otherwise a function
raising ``NotImplementedError``.  It scores 1.0 on the originals and 0.0 on
any rewrite of them, the point the contamination verdict must flag.

What the memorizer has seen (:func:`memorized`): every problem it is asked
that is not a variant (an original is its own memory), the parent of every
variant, from the ``parent_prompt`` and ``parent_reference`` the metamorphic
transform records in provenance, and, with ``memorizer?originals=BENCH``
(a benchmark name or file), every problem of that benchmark.  A variant
that records no parent prompt (other transforms) needs ``originals``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from benchmorph.core.registry import Registry
from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, Variant


def parent_reference(problem: Problem, originals: Mapping[str, Problem] | None = None) -> str:
    """The reference of the problem a variant was made from.

    Our transforms record it in the variant's provenance.  Variants made
    elsewhere (EvoEval's published sets) only name their parent, so with
    ``original?originals=BENCH`` it is looked up by that id; a parent that
    asked under another function name is still called under the variant's.
    """
    if not isinstance(problem, Variant):
        return problem.reference
    reference = problem.provenance.get("parent_reference")
    old_name = problem.provenance.get("renamed_from")
    if not isinstance(reference, str) and originals is not None:
        parent = originals.get(problem.parent_id)
        if parent is None:
            raise InputError(
                f"variant {problem.id}: its parent {problem.parent_id or '(unknown: the set does not say)'} "
                "is not among the originals, so the 'original' baseline cannot answer it"
            )
        reference, old_name = parent.reference, parent.entry_point if parent.kind == "function" else None
    if not isinstance(reference, str):
        raise InputError(
            f"variant {problem.id} has no provenance.parent_reference, so the 'original' baseline cannot "
            "answer it: name the originals, e.g. original?originals=humaneval"
        )
    if isinstance(old_name, str) and old_name not in ("", problem.entry_point):
        # A model that ignores the change still answers under the name the prompt asks for.
        reference = f"{reference.rstrip()}\n\n\n{problem.entry_point} = {old_name}\n"
    return reference


def memorized(problems: Sequence[Problem], originals: str | None = None) -> dict[str, str]:
    """Prompt -> reference for every original the memorizer knows (see the module docstring)."""
    memory: dict[str, str] = {}
    if originals:
        from benchmorph.data.registry import load_benchmark

        for original in load_benchmark(originals).problems:
            memory.setdefault(original.prompt, original.reference)
    for problem in problems:
        if not isinstance(problem, Variant):
            memory.setdefault(problem.prompt, problem.reference)
            continue
        prompt = problem.provenance.get("parent_prompt")
        reference = problem.provenance.get("parent_reference")
        if isinstance(prompt, str) and isinstance(reference, str):
            memory.setdefault(prompt, reference)
        elif not originals:
            raise InputError(
                f"variant {problem.id} records no provenance.parent_prompt, so the memorizer cannot know "
                "its original: name the originals, e.g. memorizer?originals=humaneval"
            )
    return memory


def not_memorized(problem: Problem) -> str:
    """The memorizer's answer to a prompt it has not seen: the entry point, raising NotImplementedError."""
    raising = 'raise NotImplementedError("the memorizer has not seen this prompt")'
    if problem.kind == "method" and problem.entry_point:
        return f"class Solution:\n    def {problem.entry_point}(self, *args, **kwargs):\n        {raising}\n"
    if problem.kind == "function" and problem.entry_point:
        return f"def {problem.entry_point}(*args, **kwargs):\n    {raising}\n"
    return raising + "\n"


Baseline = Callable[[Sequence[Problem], Mapping[str, str]], list[str]]

# Models that need no LLM, by name: ``reference``, ``original``, ``memorizer`` and any a plug-in adds
# (an entry point in ``benchmorph.baselines`` naming a module that calls ``BASELINES.add``).  Each gets
# the whole batch of problems and its spec's ``?options``, and answers every problem; ``options`` in
# the metadata are the ``?key=`` options it takes.
BASELINES: Registry[Baseline] = Registry("baseline", group="benchmorph.baselines", unknown=InputError)


def _reference(problems: Sequence[Problem], options: Mapping[str, str]) -> list[str]:
    return [problem.reference for problem in problems]


def _original(problems: Sequence[Problem], options: Mapping[str, str]) -> list[str]:
    originals = None
    if options.get("originals"):
        from benchmorph.data.registry import load_benchmark

        originals = load_benchmark(options["originals"]).by_id()
    return [parent_reference(problem, originals) for problem in problems]


def _memorizer(problems: Sequence[Problem], options: Mapping[str, str]) -> list[str]:
    memory = memorized(problems, options.get("originals"))
    answers = [memory.get(problem.prompt) for problem in problems]
    return [
        known if known is not None else not_memorized(problem)
        for known, problem in zip(answers, problems, strict=True)
    ]


BASELINES.add("reference", _reference)
BASELINES.add("original", _original, options=("originals",))
BASELINES.add("memorizer", _memorizer, options=("originals",))


def baseline_code(
    name: str,
    problem: Problem,
    memory: Mapping[str, str] | None = None,
    originals: Mapping[str, Problem] | None = None,
) -> str:
    """One problem's answer from a built-in baseline; ``memory`` (from :func:`memorized`) is the memorizer's,
    ``originals`` (id -> problem) the original baseline's parents for variants that do not carry their
    reference."""
    if name == "reference":
        return problem.reference
    if name == "original":
        return parent_reference(problem, originals)
    if name == "memorizer":
        known = (memory or {}).get(problem.prompt)
        return known if known is not None else not_memorized(problem)
    raise ValueError(f"not a baseline: {name}")
