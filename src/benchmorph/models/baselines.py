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
``memorizer?recall=fuzzy`` recalls the way a contaminated model does: it
recognises the memorised prompt a new prompt keeps most of
(:mod:`benchmorph.models.recall`), when it keeps at least
``RECALL_THRESHOLD`` of it (``&threshold=X`` sets another), and answers that
original's reference renamed to the new prompt's signature (:func:`renamed_to`),
so a variant that renames the function or its parameters but keeps the text is
still answered from memory.  ``memorizer?before=DATE`` has seen only the
problems released before DATE (``source.release_date``, see
:mod:`benchmorph.data.dates`): a model with a training cutoff, the calibration of
``benchmorph contamination --cutoff``.

What the memorizer has seen (:func:`memorized`): every problem it is asked
that is not a variant (an original is its own memory), the parent of every
variant, from the ``parent_prompt`` and ``parent_reference`` the metamorphic
transform records in provenance, and, with ``memorizer?originals=BENCH``
(a benchmark name or file), every problem of that benchmark.  A variant
that records no parent prompt (other transforms) needs ``originals``.
"""

from __future__ import annotations

import ast
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from benchmorph.core.registry import Registry
from benchmorph.data.dates import parse_cutoff, release_date
from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, Variant
from benchmorph.data.prompt import anatomy, entry_def
from benchmorph.models.recall import RECALL_THRESHOLD, TextMemory


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


@dataclass(frozen=True)
class Memory:
    """One original the memorizer has seen: its prompt, its reference and the function it defines."""

    prompt: str
    reference: str
    entry_point: str
    kind: str = "function"
    released: dt.date | None = None


def memories(problems: Sequence[Problem], originals: str | None = None) -> list[Memory]:
    """Every original the memorizer knows (see the module docstring), once per prompt, in order."""
    found: dict[str, Memory] = {}

    def keep(memory: Memory) -> None:
        found.setdefault(memory.prompt, memory)

    if originals:
        from benchmorph.data.registry import load_benchmark

        for original in load_benchmark(originals).problems:
            keep(_memory_of(original))
    for problem in problems:
        if not isinstance(problem, Variant):
            keep(_memory_of(problem))
            continue
        prompt = problem.provenance.get("parent_prompt")
        reference = problem.provenance.get("parent_reference")
        if isinstance(prompt, str) and isinstance(reference, str):
            old_name = problem.provenance.get("renamed_from")
            entry_point = old_name if isinstance(old_name, str) and old_name else problem.entry_point
            keep(Memory(prompt, reference, entry_point, problem.kind, release_date(problem.source)))
        elif not originals:
            raise InputError(
                f"variant {problem.id} records no provenance.parent_prompt, so the memorizer cannot know "
                "its original: name the originals, e.g. memorizer?originals=humaneval"
            )
    return list(found.values())


def _memory_of(problem: Problem) -> Memory:
    return Memory(
        problem.prompt, problem.reference, problem.entry_point, problem.kind, release_date(problem.source)
    )


def memorized(problems: Sequence[Problem], originals: str | None = None) -> dict[str, str]:
    """Prompt -> reference for every original the memorizer knows (see the module docstring)."""
    return {memory.prompt: memory.reference for memory in memories(problems, originals)}


def _signature(prompt: str, entry_point: str) -> ast.arguments | None:
    shape = anatomy(prompt, entry_point)
    owner = entry_def(shape.tree, entry_point) if shape.tree is not None else None
    return owner.args if owner is not None else None


def _parameter_names(arguments: ast.arguments) -> list[str]:
    return [a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]]


def renamed_to(memory: Memory, problem: Problem) -> str:
    """``memory``'s reference, answering under ``problem``'s signature (its function and parameter names).

    A variant may rename the function and its parameters; a model answering from memory writes the
    solution it remembers under the names the new prompt's ``def`` line asks for.  The remembered
    function is kept whole and a function with the new signature (annotations left out, defaults kept)
    calls it with the arguments in order (keyword-only ones by their remembered names), so the
    remembered body needs no renaming inside.  Without a
    ``def`` line in the new prompt (MBPP-style text) the new name is an alias of the old one.
    """
    reference, old, new = memory.reference, memory.entry_point, problem.entry_point
    if problem.kind != "function" or memory.kind != "function" or not new or not old:
        return reference
    arguments = _signature(problem.prompt, new)
    remembered = _signature(memory.prompt, old) or _signature(memory.reference, old)
    if arguments is None or remembered is None:
        if old != new:
            return f"{reference.rstrip()}\n\n\n{new} = {old}\n"
        return reference
    if old == new and _parameter_names(arguments) == _parameter_names(remembered):
        return reference
    keep = f"_remembered_{old}"
    call = [*(a.arg for a in [*arguments.posonlyargs, *arguments.args])]
    if arguments.vararg is not None:
        call.append(f"*{arguments.vararg.arg}")
    old_keywords = [a.arg for a in remembered.kwonlyargs]
    if len(old_keywords) != len(arguments.kwonlyargs):
        old_keywords = [a.arg for a in arguments.kwonlyargs]
    call += [f"{old_kw}={a.arg}" for old_kw, a in zip(old_keywords, arguments.kwonlyargs, strict=True)]
    if arguments.kwarg is not None:
        call.append(f"**{arguments.kwarg.arg}")
    bare = ast.arguments(
        posonlyargs=[ast.arg(a.arg) for a in arguments.posonlyargs],
        args=[ast.arg(a.arg) for a in arguments.args],
        vararg=ast.arg(arguments.vararg.arg) if arguments.vararg else None,
        kwonlyargs=[ast.arg(a.arg) for a in arguments.kwonlyargs],
        kw_defaults=arguments.kw_defaults,
        kwarg=ast.arg(arguments.kwarg.arg) if arguments.kwarg else None,
        defaults=arguments.defaults,
    )
    return (
        f"{reference.rstrip()}\n\n\n{keep} = {old}\n\n\n"
        f"def {new}({ast.unparse(bare)}):\n    return {keep}({', '.join(call)})\n"
    )


def fuzzy_answers(
    problems: Sequence[Problem], known: Sequence[Memory], threshold: float = RECALL_THRESHOLD
) -> list[str | None]:
    """Per problem, the reference of the memory it keeps at least ``threshold`` of (renamed to its
    signature), or None where it keeps too little of every memory."""
    memory = TextMemory([item.prompt for item in known])
    answers: list[str | None] = []
    for problem in problems:
        found = memory.recall(problem.prompt, threshold)
        answers.append(None if found is None else renamed_to(known[found.index], problem))
    return answers


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


RECALLS = ("exact", "fuzzy")


def memorizer_options(
    options: Mapping[str, str], text: str = "memorizer"
) -> tuple[str, float, dt.date | None]:
    """(recall, threshold, before) from a memorizer spec's options, or an InputError naming the bad one."""
    recall = options.get("recall", "exact")
    if recall not in RECALLS:
        raise InputError(f"model spec '{text}': recall must be exact or fuzzy, not '{recall}'")
    threshold = RECALL_THRESHOLD
    if "threshold" in options:
        if recall != "fuzzy":
            raise InputError(f"model spec '{text}': threshold needs recall=fuzzy")
        try:
            threshold = float(options["threshold"])
        except ValueError:
            threshold = -1.0
        if not 0.0 < threshold <= 1.0:
            raise InputError(
                f"model spec '{text}': threshold must be a number above 0 and at most 1, "
                f"not '{options['threshold']}'"
            )
    before = parse_cutoff(options["before"], f"model spec '{text}': before") if "before" in options else None
    return recall, threshold, before


def _memorizer(problems: Sequence[Problem], options: Mapping[str, str]) -> list[str]:
    recall, threshold, before = memorizer_options(options)
    known = memories(problems, options.get("originals"))
    if before is not None:  # a training cutoff: only what was released before it was seen
        known = [memory for memory in known if memory.released is not None and memory.released < before]
    if recall == "fuzzy":
        answers = fuzzy_answers(problems, known, threshold)
    else:
        exact = {memory.prompt: memory.reference for memory in known}
        answers = [exact.get(problem.prompt) for problem in problems]
    return [
        known_answer if known_answer is not None else not_memorized(problem)
        for known_answer, problem in zip(answers, problems, strict=True)
    ]


BASELINES.add("reference", _reference)
BASELINES.add("original", _original, options=("originals",))
BASELINES.add(
    "memorizer",
    _memorizer,
    options=("originals", "recall", "threshold", "before"),
    check=lambda text, options: memorizer_options(options, text),
)


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
