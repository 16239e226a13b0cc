"""Output statistics against the parent, on the inherited inputs: a variant must not collapse into something trivial."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from benchmorph.validation.checks.base import (
    CheckInput,
    Finding,
    constant_outputs,
    leaves,
    quality_check,
    same_output,
    short_repr,
    value_key,
)


@quality_check("degenerate-outputs", reads={"outputs"})
def degenerate_outputs(item: CheckInput) -> Finding | None:
    """The same answer for every input is no task, unless the parent was like that too."""
    if constant_outputs(item.variant.tests) and not constant_outputs(item.parent.tests):
        return Finding("degenerate-outputs", "the reference gives the same output for every input")
    return None


def _top_share(outputs: Sequence[Any]) -> tuple[float, Any]:
    counts = Counter(value_key(output) for output in outputs)
    key, count = counts.most_common(1)[0]
    value = next(output for output in outputs if value_key(output) == key)
    return count / len(outputs), value


@quality_check("few-changes", reads={"outputs", "changes"})
def few_changes(item: CheckInput) -> Finding | None:
    """A counterfactual that changes fewer than 20% of the outputs tests almost nothing new."""
    pairs = item.paired_outputs()
    if not pairs:
        return None
    changed = sum(1 for _, old, new in pairs if not same_output(old, new, item.variant))
    if 0 < changed < 0.2 * len(pairs):  # 0: a meaning-preserving variant, which keeps every output
        return Finding(
            "few-changes",
            f"only {changed / len(pairs):.0%} of outputs changed ({changed} of {len(pairs)}; needs 20%)",
        )
    return None


@quality_check("dominant-output", reads={"outputs"})
def dominant_output(item: CheckInput) -> Finding | None:
    """One answer for 80% or more of the tests, where the parent's most common answer was far rarer."""
    pairs = item.paired_outputs()
    if len(pairs) < 5:
        return None
    new_share, value = _top_share([new for _, _, new in pairs])
    old_share, _ = _top_share([old for _, old, _ in pairs])
    if new_share >= 0.8 and old_share <= new_share - 0.25:
        return Finding(
            "dominant-output",
            f"one output ({short_repr(value)}) covers {new_share:.0%} of the tests; the parent's most common "
            f"covered {old_share:.0%}",
        )
    return None


@quality_check("fewer-distinct", reads={"outputs", "changes"})
def fewer_distinct(item: CheckInput) -> Finding | None:
    """Far fewer distinct answers than the parent: the variant lost most of the problem."""
    pairs = item.paired_outputs()
    if not pairs:
        return None
    new = len({value_key(output) for _, _, output in pairs})
    old = len({value_key(output) for _, output, _ in pairs})
    if new < 0.3 * old:
        return Finding(
            "fewer-distinct",
            f"{new} distinct outputs against the parent's {old} (needs at least 0.3x: {0.3 * old:.1f})",
        )
    return None


@quality_check("uniform-elements", reads={"outputs"})
def uniform_elements(item: CheckInput) -> Finding | None:
    """Every element of every output the same value (``[0, 0, 0]``, ``[0]``), where the parent's varied."""
    pairs = item.paired_outputs()
    new = [leaf for _, _, output in pairs for leaf in leaves(output)]
    old = [leaf for _, output, _ in pairs for leaf in leaves(output)]
    if (
        len(new) >= 3
        and len({value_key(leaf) for leaf in new}) == 1
        and len({value_key(leaf) for leaf in old}) > 1
    ):
        return Finding(
            "uniform-elements", f"every element of every output is {short_repr(new[0])} ({len(new)} elements)"
        )
    return None


_ECHOES: dict[str, Callable[[Any], Any]] = {
    "the input": lambda seq: list(seq),
    "the input sorted": lambda seq: sorted(seq),
    "the input reversed": lambda seq: list(seq)[::-1],
    "the input sorted in reverse": lambda seq: sorted(seq, reverse=True),
}


def _echo(pairs: list[tuple[Any, Any, Any]], which: int) -> str | None:
    """Which echo of an argument (itself, sorted, reversed) every test's output is, if any."""
    if len(pairs) < 3:
        return None
    for position in range(min(len(pair[0]) for pair in pairs)):
        for name, make in _ECHOES.items():
            try:
                if all(
                    isinstance(pair[0], list)
                    and isinstance(pair[0][position], list | tuple | str)
                    and type(pair[which]) is type(pair[0][position])
                    and _as_seq(pair[which]) == make(pair[0][position])
                    for pair in pairs
                ):
                    return name
            except TypeError:  # unorderable items
                continue
    return None


def _as_seq(value: Any) -> list[Any]:
    return list(value)


@quality_check("echoes-input", reads={"outputs"})
def echoes_input(item: CheckInput) -> Finding | None:
    """The output is the input, sorted or reversed, on every test, where the parent's was not."""
    pairs = [pair for pair in item.paired_outputs() if isinstance(pair[0], list) and pair[0]]
    if len(pairs) != len(item.paired_outputs()):
        return None
    echo = _echo(pairs, 2)
    if echo is not None and _echo(pairs, 1) is None:
        return Finding(
            "echoes-input", f"the output is {echo} on every test ({len(pairs)}); the parent's was not"
        )
    return None


def _baselines(arguments: Any) -> dict[str, Any]:
    """What a few programs that ignore the task would answer on one test's arguments (no code is run)."""
    answers: dict[str, Any] = {}
    if not isinstance(arguments, (list, tuple)) or not arguments:
        return answers
    first = arguments[0]
    answers["the first argument unchanged"] = first
    if isinstance(first, (list, tuple, str)):  # ``xs[0] if xs else None``
        answers["the first item of the first argument"] = first[0] if first else None
        answers["the last item of the first argument"] = first[-1] if first else None
    return answers


@quality_check("trivial-baseline", reads={"outputs", "changes"})
def trivial_baseline(item: CheckInput) -> Finding | None:
    """Tests a program that ignores the description passes (``return xs[0]``) cannot tell who read it.

    Only blamed on the variant when the same program fails the parent's tests:
    the edit is what made the tests too weak (HumanEval/12's "shortest", whose
    three tests all expect the first string).
    """
    pairs = item.paired_outputs()
    if len(pairs) < 2:
        return None
    names = set.intersection(*(set(_baselines(arguments)) for arguments, _, _ in pairs))
    for name in sorted(names):
        try:
            passes_variant = all(same_output(_baselines(a)[name], new, item.variant) for a, _, new in pairs)
            passes_parent = all(same_output(_baselines(a)[name], old, item.parent) for a, old, _ in pairs)
        except Exception:  # noqa: BLE001 - a comparison that cannot be made is no evidence
            continue
        if passes_variant and not passes_parent:
            return Finding(
                "trivial-baseline",
                f"returning {name} passes all {len(pairs)} tests of the variant (not the parent's): "
                "the tests cannot tell a solution from one that ignores the description",
            )
    return None
