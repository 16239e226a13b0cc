"""EvoEval-style export (data/formats/evoeval.write_evoeval_jsonl): what we write, our EvoEval reader reads
back as the same problems, and an evolved variant comes back as a variant of the same type and seeds."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from benchmorph.data import values
from benchmorph.data.errors import InputError
from benchmorph.data.formats.evoeval import parse_arguments, read_evoeval, write_evoeval_jsonl
from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.data.registry import load_benchmark


def test_humaneval_round_trips_through_the_evoeval_writer(tmp_path: Path) -> None:
    problems = load_benchmark("humaneval").problems
    target = tmp_path / "he.jsonl"
    write_evoeval_jsonl(problems, target)
    back = load_benchmark(str(target)).problems  # found by format detection, as a user would
    assert [p.id for p in back] == [p.id for p in problems]
    for old, new in zip(problems, back, strict=True):
        assert (new.prompt, new.entry_point, new.reference) == (old.prompt, old.entry_point, old.reference)
        assert [values.encode(t.input) for t in new.tests] == [values.encode(t.input) for t in old.tests]


def test_an_evolved_variant_keeps_its_type_and_seeds(tmp_path: Path) -> None:
    variant = Variant(
        id="HumanEval/6/evolve-combine-4",
        prompt='def f_then_g(x: str) -> float:\n    """Two steps."""\n',
        entry_point="f_then_g",
        reference="def f_then_g(x: str) -> float:\n    return float(len(x))\n",
        tests=[TestCase(input=["(()) ()"]), TestCase(input=[""])],
        parent_id="HumanEval/6",
        transform="evolve",
        label="combine",
        provenance={"parents": ["HumanEval/6", "HumanEval/4"]},
    )
    target = tmp_path / "evo.jsonl"
    write_evoeval_jsonl([variant], target)
    [back] = read_evoeval(target)
    assert isinstance(back, Variant)
    assert (back.label, back.transform, back.parent_id) == ("combine", "evolve", "HumanEval/6")
    assert back.provenance["parents"] == ["HumanEval/6", "HumanEval/4"]


@pytest.mark.parametrize(
    "arguments",
    [
        [float("inf"), -float("inf"), 1.5, -0.0],
        [(1,), (), [(1, 2), "a'b\"c"], {"k": [1, None]}, {3, 1}, frozenset({"x"})],
        [True, None, 10**40, "line\nbreak"],
    ],
)
def test_argument_sources_parse_back_to_the_same_values(arguments: list) -> None:
    from benchmorph.data.formats.evoeval import _argument_source

    text = ", ".join(_argument_source(argument) for argument in arguments)
    assert values.encode(parse_arguments(text)) == values.encode(arguments)


def test_nan_and_unwritable_values(tmp_path: Path) -> None:
    from benchmorph.data.formats.evoeval import _argument_source

    assert math.isnan(parse_arguments(_argument_source(float("nan")))[0])
    problem = Problem(id="p", prompt="def f(x):\n", entry_point="f", reference="def f(x):\n    return x\n",
                      tests=[TestCase(input=[object()])])  # fmt: skip
    with pytest.raises(InputError, match="test 0 holds a value of type object"):
        write_evoeval_jsonl([problem], tmp_path / "bad.jsonl")
