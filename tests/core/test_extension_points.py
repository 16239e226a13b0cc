"""Each extension point takes a new part as one new file, with no other file edited.

A toy transform family, a toy quality check and a toy report section are
written to a temporary directory, named by their environment variables (as a
plug-in would be, or as a module dropped into the package's own folder), and
must show up where a user looks: ``morph list``, a candidate's record of the
checks that ran, and the HTML report.  And a check that reads only outputs
runs for every transform whose drafts have outputs.
"""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest

from benchmorph.data.formats.native import read_native
from benchmorph.data.models import Problem, Variant
from benchmorph.morph.finalize import Draft
from benchmorph.validation.checks.base import checks_for
from cli_runner import run_cli

TOY_FAMILY = '''
"""toy-shout: the description's first "Return" shouted; reference and outputs kept."""

from __future__ import annotations

from benchmorph.morph.transform import MorphReport, Transform, register_transform


@register_transform
class ShoutTransform(Transform):
    """Contract: problems whose prompt says "Return"; the variant keeps reference, inputs and outputs."""

    name = "toy-shout"
    summary = "shouts the first 'Return' (a toy family)"

    def run(self, problems, ctx):
        from benchmorph.data.models import TestCase
        from benchmorph.morph.common.derived import derived_variant
        from benchmorph.morph.finalize import Draft, finalize_variants

        parents = ctx.engine.prepare(problems).problems
        drafts = [
            Draft(
                derived_variant(
                    parent,
                    id=f"{parent.id}/shout",
                    prompt=parent.prompt.replace("Return", "RETURN", 1),
                    tests=[TestCase(input=test.input) for test in parent.tests],
                    transform=self.name,
                    label="metamorphic",
                    provenance={},
                ),
                parent,
                outputs="keep",
                examples="keep",
            )
            for parent in parents
            if "Return" in parent.prompt
        ]
        done = finalize_variants(drafts, ctx.engine)
        return MorphReport(self.name, done.variants, done.candidates, parents=len(parents))
'''

TOY_CHECK = '''
"""toy-tests-present: a variant needs at least one test (a toy check reading outputs)."""

from benchmorph.validation.checks.base import Finding, quality_check


@quality_check("toy-tests-present", reads={"outputs"})
def tests_present(item):
    return None if item.variant.tests else Finding("toy-tests-present", "no tests")
'''

TOY_SECTION = '''
"""A toy report section: how many runs the report holds."""

from benchmorph.report.section import Section, register_section


def render(report, page):
    return page.render('<section id="toy-runs"><h2>Toy</h2><p>{{ n }} runs counted by a toy</p></section>',
                       n=len(report.runs))


register_section(Section("toy-runs", "toy runs", 95, render))
'''


def _plugin(tmp_path: Path, name: str, code: str) -> Path:
    target = tmp_path / "plugins" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(textwrap.dedent(code))
    return tmp_path / "plugins"


def test_a_toy_family_and_a_toy_check_are_one_file_each(tmp_path: Path) -> None:
    family_dir = tmp_path / "plugins" / "toy_shout"
    family_dir.mkdir(parents=True)
    (family_dir / "__init__.py").write_text(TOY_FAMILY)
    plugins = _plugin(tmp_path, "toy_check.py", TOY_CHECK)
    env = {
        "BENCHMORPH_TRANSFORMS": "toy_shout",
        "BENCHMORPH_CHECKS": "toy_check",
        "PYTHONPATH": str(plugins),
    }
    listed = run_cli("morph", "list", cache=tmp_path / "cache", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "toy-shout" in listed.stdout and "shouts the first" in listed.stdout
    out = tmp_path / "shout.jsonl"
    ran = run_cli(
        "morph", "run", "toy-shout", "humaneval", "--tasks", "HumanEval/2,HumanEval/12",
        "--out", str(out), cache=tmp_path / "cache", env=env,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    candidates = read_native(tmp_path / "shout.candidates.jsonl")
    assert [c.id for c in candidates] == ["HumanEval/2/shout", "HumanEval/12/shout"]
    for candidate in candidates:
        assert "toy-tests-present" in candidate.provenance["checks_run"], candidate.provenance
    mined = run_cli(
        "morph", "run", "mine", "humaneval", "--tasks", "HumanEval/2,HumanEval/12,HumanEval/35",
        "--out", str(tmp_path / "mined.jsonl"), cache=tmp_path / "cache", env=env,
    )  # fmt: skip
    assert mined.returncode == 0, mined.stderr
    checked = [c for c in read_native(tmp_path / "mined.candidates.jsonl") if c.provenance["checks_run"]]
    assert checked and all("toy-tests-present" in c.provenance["checks_run"] for c in checked)


def test_a_toy_report_section_is_one_file(tmp_path: Path) -> None:
    plugins = _plugin(tmp_path, "toy_section.py", TOY_SECTION)
    run_dir = tmp_path / "he-reference"
    ran = run_cli(
        "run", "humaneval", "--model", "reference", "--tasks", "HumanEval/0,HumanEval/1",
        "--out", str(run_dir), cache=tmp_path / "cache",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    html = tmp_path / "report.html"
    env = {"BENCHMORPH_REPORT_SECTIONS": "toy_section", "PYTHONPATH": str(plugins)}
    done = run_cli("report", str(run_dir), "--html", str(html), cache=tmp_path / "cache", env=env)
    assert done.returncode == 0, done.stderr
    page = html.read_text()
    assert '<section id="toy-runs">' in page and "1 runs counted by a toy" in page
    assert '<a href="#toy-runs">toy runs</a>' in page
    # The built-in sections are still there, in their order.
    order = [page.index(f'id="{name}"') for name in ("leaderboard", "charts", "toy-runs")]
    assert order == sorted(order)


def _problem() -> Problem:
    return Problem(
        id="T/0",
        prompt="def f(x):\n    'Return x.'\n",
        entry_point="f",
        reference="def f(x):\n    return x\n",
    )


@pytest.mark.parametrize(
    ("outputs", "examples", "twin", "edit"),
    list(itertools.product(("change", "keep", "any"), ("recompute", "keep"), (True, False), (None, "edit"))),
)
def test_checks_that_read_outputs_run_for_every_kind_of_draft(
    outputs: str, examples: str, twin: bool, edit: str | None
) -> None:
    """Whatever a transform's drafts look like, they have outputs, so every check reading only outputs runs."""
    from benchmorph.validation.checks.base import Edit

    parent = _problem()
    variant = Variant(
        **parent.model_dump(exclude={"id"}), id="T/0/v", parent_id="T/0", transform="toy", label="toy"
    )
    rule_edit = Edit("sign", "x", "a", "b", (0, 1), "c", "d", (0, 1)) if edit else None
    draft = Draft(variant, parent, edit=rule_edit, outputs=outputs, examples=examples, twin=twin)  # type: ignore[arg-type]
    names = {check.name for check in checks_for(draft.offers())}
    readers = {check.name for check in checks_for(frozenset({"text", "outputs"}))}
    assert readers and readers <= names
    assert {"degenerate-outputs", "dominant-output", "uniform-elements", "echoes-input"} <= readers


@pytest.mark.parametrize(
    ("transform", "options"),
    [("mine", []), ("metamorphic", ["--variants", "2"]), ("evolve", ["--type", "combine,tool_use"])],
)
def test_every_offline_transform_runs_the_output_checks(
    tmp_path: Path, transform: str, options: list[str]
) -> None:
    out = tmp_path / "v.jsonl"
    ran = run_cli(
        "morph", "run", transform, "humaneval", "--limit", "12", "--out", str(out), *options,
        cache=tmp_path / "cache",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    readers = {check.name for check in checks_for(frozenset({"text", "outputs"}))}
    checked = [c for c in read_native(tmp_path / "v.candidates.jsonl") if c.provenance.get("checks_run")]
    assert checked, f"no {transform} candidate reached the quality checks"
    for candidate in checked:
        missing = readers - set(candidate.provenance["checks_run"])
        assert not missing, f"{candidate.id} lacks {sorted(missing)}"


def test_an_unknown_oracle_is_one_line_when_the_problem_is_loaded(tmp_path: Path) -> None:
    problems = tmp_path / "problems.jsonl"
    row = (
        '{"record": "problem", "schema_version": 1, "id": "T/1", "prompt": "def f(x):\\n    pass\\n", '
        '"entry_point": "f", "reference": "def f(x):\\n    return x\\n", "oracle": "nope", '
        '"tests": [{"input": [1]}]}'
    )
    problems.write_text(row + "\n")
    done = run_cli(
        "run", str(problems), "--model", "reference", "--out", str(tmp_path / "r"), cache=tmp_path / "c"
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().endswith(
        "problems.jsonl:1: field 'oracle': unknown oracle 'nope' (known: polynomial_root)"
    ), done.stderr


def test_a_check_must_declare_what_it_reads() -> None:
    from benchmorph.core.registry import RegistryError
    from benchmorph.validation.checks.base import quality_check

    with pytest.raises(RegistryError, match="must declare what it reads.*got tea"):
        quality_check("toy-bad", reads={"tea"})
