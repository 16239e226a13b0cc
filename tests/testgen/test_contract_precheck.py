"""The contract checked on the host rejects only what the sandbox rejects, and can do nothing else.

What must hold: an input the host check answers ``False`` for is one the
contract-checked reference rejects in the sandbox with the contract's own
mark (every eligible HumanEval+ and MBPP+ contract, on mutated inputs); an
input it answers ``True`` for is one the sandbox's contract lets through;
anything outside the subset (imports, attributes, dunders) is left to the
sandbox; and growth (huge ranges, repeats, powers, format strings, deep
recursion) makes it undecided, never slow or large.
"""

from __future__ import annotations

import random

import pytest

from benchmorph.data.models import Problem, TestCase
from benchmorph.data.registry import load_benchmark
from benchmorph.execution import Engine
from benchmorph.testgen.augment import CONTRACT_MARK, checked_reference
from benchmorph.testgen.contract import contract_check
from benchmorph.testgen.mutation import Mutator
from benchmorph.testgen.types import infer_signature
from paths import EVALPLUS, require_shared


def problem(contract: str, params: str = "x") -> Problem:
    return Problem(
        id="p",
        prompt=f"def f({params}):\n",
        entry_point="f",
        reference=f"def f({params}):\n    return 1\n",
        contract=contract,
        tests=[TestCase(input=[1])],
    )


def test_asserts_decide_and_other_errors_leave_it_undecided() -> None:
    check = contract_check(problem("assert isinstance(x, int)\nassert x > 0, 'invalid inputs'\n"))
    assert check is not None
    assert check([3]) is True and check([0]) is False and check(["a"]) is False
    loop = contract_check(problem("cnt = 0\nfor ch in x:\n    if ch == '(': cnt += 1\n    assert cnt >= 0\n"))
    assert loop is not None and loop(["(()"]) is True
    typed = contract_check(problem("assert len(x) > 1\n"))
    assert typed is not None and typed([5]) is None  # len(5) raises TypeError: the sandbox's call
    assert typed([[1]]) is False and typed([[1, 2]]) is True
    builder = contract_check(problem("assert type('A', (), {})\n"))
    assert builder is not None and builder([1]) is None  # type() takes one argument here: no classes
    helper = contract_check(problem("def ok(v):\n    assert v.isdigit()\nok(x)\n"))
    assert helper is not None and helper(["12"]) is True and helper(["1a"]) is False


@pytest.mark.parametrize(
    "contract",
    [
        "import os\nassert x\n",
        "assert x.__class__\n",
        "assert open('/etc/passwd')\n",
        "assert getattr(x, 'real')\n",
        "assert __import__('os')\n",
        "assert x.real == 0\n",
        "try:\n    assert x\nexcept Exception:\n    pass\n",
        "assert (lambda: 1)() and x.sort() is None\n",
        "assert f'{x:>999999999}'\n",
        "while True:\n    pass\n",
    ],
)
def test_a_contract_outside_the_subset_is_left_to_the_sandbox(contract: str) -> None:
    assert contract_check(problem(contract)) is None


def test_a_contract_using_a_name_the_reference_binds_is_left_to_the_sandbox() -> None:
    shadowed = problem("assert len(x) > 0\n").model_copy(
        update={"reference": "def len(v):\n    return 0\n\ndef f(x):\n    return 1\n"}
    )
    assert contract_check(shadowed) is None


@pytest.mark.parametrize(
    "contract",
    [
        "assert len(list(range(x))) >= 0\n",
        "assert len('a' * x) >= 0\n",
        "assert x ** x > 0\n",
        "assert 1 << x\n",
        "s = 'ab'\nfor i in range(40):\n    s = s + s\n",
        "total = 0\nfor i in range(10 ** 6):\n    total += i\n",
        "def deep(n):\n    return n <= 0 or deep(n - 1)\nassert deep(x)\n",
        "assert ('%' + str(x) + 'd') % 1\n",
        "assert 'a'.replace('a', 'a' * 1000).replace('a', 'a' * 1000).replace('a', 'a' * 1000)\n",
    ],
)
def test_growth_and_long_work_make_the_check_undecided(contract: str) -> None:
    check = contract_check(problem(contract))
    assert check is not None
    assert check([10**7]) is None


def _agreement(problems: list[Problem], engine: Engine, per_problem: int) -> tuple[int, int, int]:
    """Per problem: mutated inputs, the host's verdicts, and the sandbox's on the same inputs."""
    rejected = accepted = checked = 0
    rng = random.Random(0)
    for task in problems:
        check = contract_check(task)
        if check is None:
            continue
        checked += 1
        sig = infer_signature(task)
        seeds = [test.input for test in task.tests[:30]]
        mutator = Mutator(sig, [[args[i] for args in seeds] for i in range(sig.arity)])
        inputs = [mutator.mutate_args(rng.choice(seeds), rng) for _ in range(per_problem)]
        verdicts = [check(args) for args in inputs]
        decided = [
            (args, verdict) for args, verdict in zip(inputs, verdicts, strict=True) if verdict is not None
        ]
        runs = engine.run_inputs(task, [args for args, _ in decided], code=checked_reference(task))
        for (args, verdict), run in zip(decided, runs, strict=True):
            by_contract = run.status == "error" and CONTRACT_MARK in (run.error or "")
            if verdict is False:
                rejected += 1
                assert by_contract, (task.id, args, run.status, run.error)
            else:
                accepted += 1
                assert not by_contract, (task.id, args, run.error)
    return checked, rejected, accepted


def _plus(name: str, file: str) -> list[Problem]:
    require_shared(EVALPLUS / file)
    return load_benchmark(name, EVALPLUS / file).problems


@pytest.fixture(scope="module")
def engine():
    with Engine(workers=2) as engine:
        yield engine


def test_the_host_agrees_with_the_sandbox_on_some_humaneval_plus_contracts(engine: Engine) -> None:
    problems = _plus("humaneval+", "HumanEvalPlusInputs.dev-2023-04-26.jsonl")
    chosen = [p for p in problems if p.id in {"HumanEval/1", "HumanEval/11", "HumanEval/19", "HumanEval/59",
                                             "HumanEval/115", "HumanEval/144", "HumanEval/160"}]  # fmt: skip
    checked, rejected, accepted = _agreement(chosen, engine, per_problem=40)
    assert checked == len(chosen) and rejected > 20 and accepted > 20


@pytest.mark.slow
def test_the_host_agrees_with_the_sandbox_on_every_eligible_evalplus_contract(engine: Engine) -> None:
    problems = _plus("humaneval+", "HumanEvalPlusInputs.dev-2023-04-26.jsonl") + _plus(
        "mbpp+", "MbppPlus.dev-2023-11-16.jsonl"
    )
    checked, rejected, accepted = _agreement(problems, engine, per_problem=12)
    assert checked >= 540 and rejected > 500 and accepted > 2000
