"""New worked examples: every style reads back through the example scanner, values and all."""

from __future__ import annotations

import pytest

from benchmorph.data.models import Problem, TestCase
from benchmorph.morph.transforms.metamorphic.worked import STYLES, Shown, choose, pick_style, readable, render
from benchmorph.validation.examples.scan import same_value, scan_examples

CASES = [
    ((1, 2), 3),
    (([1.0, 2.5], 0.5), True),
    (("hello world",), "dlrow"),
    (([],), None),
    ((["a", "bb"],), ["bb"]),
    (({"a": 1},), False),
    (((1, 2), (3, 4)), (4,)),
    ((3,), [1, 2.5, -3]),
    (("it's", "x"), "a'b"),
]


@pytest.mark.parametrize("style", STYLES)
def test_every_style_reads_back_as_the_example_it_shows(style: str) -> None:
    for args, value in CASES:
        names = [f"p{i}" for i in range(len(args))]
        lines = render([Shown(args, value)], style, "my_fn", names)
        body = "\n".join("    " + line for line in lines)
        prompt = f'def my_fn({", ".join(names)}):\n    """ Do it.\n\n{body}\n    """\n'
        scan = scan_examples(prompt, "my_fn")
        assert len(scan.examples) == 1 and not scan.unverifiable, (style, args, lines)
        assert same_value(list(scan.examples[0].args), list(args))
        assert same_value(scan.examples[0].claimed(), value)


def test_named_styles_need_names_and_none_is_never_a_doctest_blank() -> None:
    with pytest.raises(ValueError):
        render([Shown((1,), 2)], "for", "f", None)
    for index in range(12):
        assert pick_style({"doctest"}, index, False, "k", [None]) not in ("doctest", "for", "io")


def test_choose_keeps_the_parents_edge_cases_and_avoids_what_siblings_showed() -> None:
    prompt = 'def f(xs):\n    """Sum.\n    >>> f([])\n    0\n    >>> f([1, 2])\n    3\n    """\n'
    tests = [[[]], [[1, 2]], [[5]], [[2, 2]], [[1, 2, 3]], [[4, 4]], [[7, 1]]]
    expected = [0, 3, 5, 4, 6, 8, 8]
    parent = Problem(
        id="T/0", prompt=prompt, entry_point="f", reference="",
        tests=[TestCase(input=t, expected=e, has_expected=True) for t, e in zip(tests, expected, strict=True)],
    )  # fmt: skip
    scan = scan_examples(prompt, "f")
    first = choose(parent, scan, 0, 3)
    assert first[0].args == ([],) and first[0].edge  # the parent's edge case, kept
    assert ([1, 2],) not in [s.args for s in first]  # the parent's other example is not repeated
    from benchmorph.morph.transforms.metamorphic.worked import key

    second = choose(
        parent, scan, 1, 3, shown_before=frozenset(key(list(s.args)) for s in first if not s.edge)
    )
    assert not {key(list(s.args)) for s in second if not s.edge} & {
        key(list(s.args)) for s in first if not s.edge
    }
    assert any(not s.edge for s in first)  # the first retelling showed something new


def test_floats_are_written_with_the_digits_that_matter() -> None:
    assert readable(0.33000000000000007) == 0.33 and readable([1.2000000000000002, "x"]) == [1.2, "x"]
    assert readable(2 / 3) == pytest.approx(2 / 3, abs=1e-9)
