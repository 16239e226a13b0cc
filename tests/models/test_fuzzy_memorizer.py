"""The fuzzy memorizer: it recalls a near-copy of an original under the new prompt's signature, and not
a retelling; its options are checked when the spec is parsed."""

from __future__ import annotations

import pytest

from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.models.baselines import BASELINES, Memory, memories, renamed_to
from benchmorph.models.recall import RECALL_THRESHOLD, TextMemory, kept_share
from benchmorph.models.spec import parse_spec


def _call(code: str, name: str, *args: object, **kwargs: object) -> object:
    namespace: dict[str, object] = {}
    exec(compile(code, "<answer>", "exec"), namespace)  # our own reference code, not a model's
    function = namespace[name]
    assert callable(function)
    return function(*args, **kwargs)


def _humaneval(task: str) -> Problem:
    return load_benchmark("humaneval").by_id()[task]


def _variant(parent: Problem, prompt: str, entry_point: str | None = None, **provenance: object) -> Variant:
    return Variant(
        **parent.model_dump(exclude={"id", "prompt", "entry_point"}),
        id=f"{parent.id}/meta-0",
        prompt=prompt,
        entry_point=entry_point or parent.entry_point,
        parent_id=parent.id,
        transform="metamorphic",
        provenance={"parent_prompt": parent.prompt, "parent_reference": parent.reference, **provenance},
    )


def test_a_near_copy_is_answered_from_memory_under_its_own_names() -> None:
    parent = _humaneval("HumanEval/0")  # has_close_elements(numbers, threshold)
    prompt = (
        parent.prompt.replace("has_close_elements", "any_two_close")
        .replace("numbers", "readings")
        .replace("threshold", "gap")
        .replace('""" Check', '""" A weather station logs these values every hour. Check')
    )
    copy = _variant(parent, prompt, "any_two_close", renamed_from="has_close_elements")
    assert kept_share(parent.prompt, prompt) >= RECALL_THRESHOLD
    [answer] = BASELINES.get("memorizer")([copy], {"recall": "fuzzy"})
    assert "NotImplementedError" not in answer
    assert _call(answer, "any_two_close", [1.0, 2.8, 3.0], 0.3) is True
    assert _call(answer, "any_two_close", readings=[1.0, 2.0, 3.0], gap=0.5) is False  # the new names
    [exact] = BASELINES.get("memorizer")([copy], {})
    assert "NotImplementedError" in exact  # the exact memorizer knows only the bytes


def test_a_retelling_keeps_too_little_of_the_original_to_be_recalled() -> None:
    parent = _humaneval("HumanEval/0")
    retold = (
        "from typing import List\n\n\ndef any_two_close(readings: List[float], gap: float) -> bool:\n"
        '    """A weather station logs one reading an hour. Tell whether some pair of readings\n'
        "    differs by less than `gap`: True if so, else False.\n"
        "    For readings 1.0, 2.0 and 3.0 with gap 0.5 the answer is False; for 1.0, 2.8, 3.0, 4.0, 5.0\n"
        '    and 2.0 with gap 0.3 it is True.\n    """\n'
    )
    variant = _variant(parent, retold, "any_two_close", renamed_from="has_close_elements")
    assert kept_share(parent.prompt, retold) < RECALL_THRESHOLD
    [answer] = BASELINES.get("memorizer")([variant], {"recall": "fuzzy"})
    assert answer.startswith("def any_two_close(*args, **kwargs):") and "NotImplementedError" in answer
    [recalled] = BASELINES.get("memorizer")([variant], {"recall": "fuzzy", "threshold": "0.3"})
    assert _call(recalled, "any_two_close", [1.0, 2.8, 3.0], 0.3) is True  # a laxer memoriser does


def test_the_nearest_original_wins_and_originals_recall_themselves() -> None:
    problems = load_benchmark("humaneval").problems[:30]
    memory = TextMemory([p.prompt for p in problems])
    for index, problem in enumerate(problems):
        found = memory.recall(problem.prompt)
        assert found is not None and (found.index, found.similarity) == (index, 1.0)
    answers = BASELINES.get("memorizer")(problems, {"recall": "fuzzy"})
    assert answers == [p.reference for p in problems]  # same names: the reference as it is


def test_renaming_keeps_defaults_keyword_only_parameters_and_aliases_text_prompts() -> None:
    remembered = Memory(
        prompt='def scale(xs, factor=2, *, offset=0):\n    """Scale."""\n',
        reference="def scale(xs, factor=2, *, offset=0):\n    return [x * factor + offset for x in xs]\n",
        entry_point="scale",
    )
    asked = Problem(
        id="t",
        prompt='def stretch(values, by=2, *, plus=0):\n    """Stretch."""\n',
        entry_point="stretch",
        reference="",
    )
    code = renamed_to(remembered, asked)
    assert _call(code, "stretch", [1, 2]) == [2, 4]
    assert _call(code, "stretch", values=[1], by=3, plus=1) == [4]
    text = Problem(
        id="m", prompt="Write a function stretch that scales a list.", entry_point="stretch", reference=""
    )
    assert _call(renamed_to(remembered, text), "stretch", [1], 5) == [5]


def test_the_memorizer_with_a_cutoff_has_seen_only_what_was_released_before_it() -> None:
    def dated(i: int, day: str) -> Problem:
        prompt = f'def f{i}(x):\n    """Return x plus {i}."""\n'
        return Problem(
            id=f"D/{i}", prompt=prompt, entry_point=f"f{i}", reference=prompt + f"    return x + {i}\n",
            source={"release_date": day},
        )  # fmt: skip

    problems = [dated(0, "2023-12-31"), dated(1, "2024-01-01"), dated(2, "2024-05-01")]
    answers = BASELINES.get("memorizer")(problems, {"before": "2024-01-01"})
    assert answers[0] == problems[0].reference
    assert all("NotImplementedError" in answer for answer in answers[1:])
    assert [m.released.isoformat() for m in memories(problems) if m.released] == [
        "2023-12-31", "2024-01-01", "2024-05-01",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("memorizer?recall=maybe", "recall must be exact or fuzzy, not 'maybe'"),
        ("memorizer?threshold=0.5", "threshold needs recall=fuzzy"),
        ("memorizer?recall=fuzzy&threshold=1.5", "threshold must be a number above 0 and at most 1"),
        ("memorizer?recall=fuzzy&threshold=high", "not 'high'"),
        ("memorizer?before=last-year", "'last-year' is not a date"),
        ("reference?recall=fuzzy", "belongs to memorizer specs only"),
    ],
)
def test_bad_memorizer_options_are_refused_when_the_spec_is_parsed(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("?", r"\?").replace(".", r"\.")):
        parse_spec(spec)


def test_good_memorizer_specs_parse() -> None:
    spec = parse_spec("memorizer?recall=fuzzy&threshold=0.9&originals=humaneval")
    assert spec.is_baseline and spec.options == {
        "recall": "fuzzy",
        "threshold": "0.9",
        "originals": "humaneval",
    }
    assert parse_spec("memorizer?before=2024-01-01").options == {"before": "2024-01-01"}
