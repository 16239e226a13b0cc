"""The one road from a proposed variant to a published one, shared by every transform.

``finalize_variants`` prepares each draft in the sandbox (the variant's
outputs come from running its own reference on the inherited inputs),
rewrites the worked examples of its description to agree with that
reference, runs every registered quality check whose declared reads the draft
offers (``benchmorph.validation.checks``), and writes provenance.  Every draft
comes back as a candidate with a status, the check that decided it, a one-line
reason and the names of the checks that ran on it; only accepted ones are
variants.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from benchmorph.core.progress import Advance
from benchmorph.data.models import Problem, Variant
from benchmorph.execution.engine import Engine
from benchmorph.morph.transform import ACCEPTED, NEEDS_REVIEW, REJECTED
from benchmorph.validation.checks.base import (
    CHECKS,
    CheckInput,
    Edit,
    Finding,
    Steps,
    changed_fraction,
    checks_for,
    same_output,
)
from benchmorph.validation.examples.recompute import Recomputed, kept_examples_disagree, recompute_examples
from benchmorph.validation.lost_power import PowerProbe, restore_test_power


@dataclass
class Draft:
    """A proposed variant before it is trusted.

    ``variant`` holds the new prompt and reference and the inherited inputs
    (their outputs are recomputed here); ``parent`` is the prepared parent
    (its tests carry the parent's outputs).  ``failed_inputs`` says what an
    inherited input the new reference cannot run means: ``reject`` (a rule
    edit must run on every input) or ``flag`` (an LLM counterfactual may make
    some inputs invalid; they are listed as ``needs_new_tests``).
    ``outputs`` says whether the variant must change the parent's outputs
    (counterfactuals, evolutions), keep them (meaning-preserving rewrites),
    or either (``any``: a new problem verified on its own, such as an
    evolution whose inputs need not be the parent's).  ``twin`` says whether
    the variant is its parent with one detail changed (a counterfactual), so
    that its output changes measure that detail; an evolution that builds a
    new problem from its parent is not.  ``parent_defects``: ``blame`` (a
    finding is the variant's) or ``record`` (a rewording inherits its parent's
    text and tests, so a finding the parent has too is recorded in
    ``provenance["parent_findings"]`` and decides nothing).

    ``baselines``: programs (name -> code defining the variant's entry point)
    that ignore what a new problem adds, such as its parent's reference or
    one step of a combined problem alone; each runs on the variant's prepared
    tests and the share it passes is recorded (``provenance["baselines"]``) for
    the checks.  ``suite``: ``own`` when the variant's tests are a suite built
    for it (an evolved problem), so that checks of a suite's size apply;
    ``inherited`` when they are the parent's inputs.  ``steps``: what a
    problem built from its parents' texts quotes of them.

    Which quality checks run follows from :meth:`offers`: every registered
    check whose declared reads the draft offers.
    """

    variant: Variant
    parent: Problem
    edit: Edit | None = None
    failed_inputs: Literal["reject", "flag"] = "reject"
    outputs: Literal["change", "keep", "any"] = "change"
    # "keep": the worked examples are the parent's, left as written (a rewording; the transform checks
    # that they did not change), so none is rewritten, and the "examples" check should be off; each is
    # still run, and a draft whose example disagrees with its reference is rejected (check "examples").
    examples: Literal["recompute", "keep"] = "recompute"
    twin: bool = True
    parent_defects: Literal["blame", "record"] = "blame"
    extra: dict[str, Any] = field(default_factory=dict)
    baselines: dict[str, str] = field(default_factory=dict)
    suite: Literal["inherited", "own"] = "inherited"
    steps: Steps | None = None

    def offers(self) -> frozenset[str]:
        """What the quality checks may read of this draft (``validation.checks.base.READS``)."""
        offered = {"text", "outputs"}
        if self.edit is not None:
            offered.add("edit")
        if self.examples == "recompute":
            offered.add("examples")
        if self.outputs == "change" and self.twin:
            offered.add("changes")
        if self.baselines:
            offered.add("baselines")
        if self.suite == "own":
            offered.add("suite")
        if self.steps is not None:
            offered.add("steps")
        return frozenset(offered)


@dataclass
class Finalized:
    variants: list[Variant]  # accepted, in draft order
    candidates: list[Variant]  # every draft, with provenance status / check / reason


def decided(variant: Variant, status: str, check: str | None = None, reason: str | None = None) -> Variant:
    """The candidate record: the variant with its status, deciding check and reason in its provenance."""
    provenance = {"checks_run": [], **variant.provenance, "status": status, "check": check, "reason": reason}
    return variant.model_copy(update={"provenance": provenance})


POWER = "tests-lost-power"


def _probe_record(probe: PowerProbe) -> dict[str, Any]:
    """What the near-miss probe found, for provenance: lost, added tests, still uncaught."""
    return {
        "lost": len(probe.lost),
        "tests_added": probe.added,
        "uncaught": probe.unkilled,  # after ``searched`` valid inputs: most likely equivalent
        "searched": probe.searched,
    }


def _inherited(item: CheckInput, findings: Sequence[Finding]) -> list[str]:
    """The checks among ``findings`` that the parent fails too, read as if it were the variant.

    A rewording inherits its parent's tests and meaning, so a defect of the
    parent (MBPP's unexplained ``N``: Mbpp/101, 556, 559, 564, 597, 644) is
    neither caused nor cured by it; holding the variant would drop the seed
    from the dynamic benchmark while it stays in the static one.
    """
    parent = item.parent
    as_parent = item.variant.model_copy(
        update={"prompt": parent.prompt, "reference": parent.reference, "entry_point": parent.entry_point}
    )
    twin = CheckInput(variant=as_parent, parent=parent)
    return [finding.check for finding in findings if CHECKS[finding.check](twin) is not None]


def baseline_passes(variant: Problem, baselines: dict[str, str], engine: Engine) -> dict[str, float]:
    """Per baseline program, the share of the prepared variant's tests it passes (one sandbox batch)."""
    tests = [test for test in variant.tests if test.has_expected]
    if not baselines or not tests:
        return {}
    names = list(baselines)
    runs = engine.run_outputs(variant, [baselines[name] for name in names])
    shares = {}
    for name, run in zip(names, runs, strict=True):
        passed = sum(
            1
            for test, ok, output in zip(variant.tests, run.ok, run.outputs, strict=True)
            if test.has_expected and ok and same_output(test.expected, output, variant)
        )
        shares[name] = round(passed / len(tests), 4)
    return shares


def finalize_variants(drafts: Sequence[Draft], engine: Engine, progress: Advance | None = None) -> Finalized:
    """Prepare, recompute tests and examples, check and record provenance for every draft."""
    outcome: dict[int, Variant] = {}
    prepared = engine.prepare([draft.variant for draft in drafts], progress)
    # prepare hands back what it was given (Variants here), with their tests' outputs filled.
    ready = {problem.id: cast(Variant, problem) for problem in prepared.problems}
    alive: list[tuple[int, Draft, Variant]] = []
    for index, draft in enumerate(drafts):
        variant = draft.variant
        done = ready.get(variant.id)
        dropped = prepared.dropped_tests.get(variant.id, [])
        if done is None:
            reason = prepared.unusable.get(variant.id) or "its reference fails on every inherited input"
            outcome[index] = decided(
                variant, REJECTED, "runs-on-inputs", f"the reference cannot run: {reason}"
            )
            continue
        if dropped and draft.failed_inputs == "reject":
            outcome[index] = decided(
                variant, REJECTED, "runs-on-inputs", f"the reference fails on {len(dropped)} inherited inputs"
            )
            continue
        provenance = {**done.provenance, "parent_reference": draft.parent.reference}
        if dropped:
            provenance["needs_new_tests"] = sorted(set(provenance.get("needs_new_tests", [])) | set(dropped))
        alive.append((index, draft, done.model_copy(update={"provenance": provenance})))

    parents = {variant.id: draft.parent for _, draft, variant in alive}
    recompute = [variant for _, draft, variant in alive if draft.examples == "recompute"]
    recomputed = recompute_examples(recompute, engine, parents)
    # Kept examples are not rewritten, so each must already agree with the reference.
    kept = [variant for _, draft, variant in alive if draft.examples == "keep"]
    wrong = kept_examples_disagree(kept, engine)
    for index, draft, variant in alive:
        examples = recomputed.get(variant.id) or Recomputed(variant)
        new = examples.result
        if isinstance(new, str):
            outcome[index] = decided(variant, REJECTED, "examples", new)
            continue
        shown = None if examples.values is None else (examples.parent_values or [], examples.values)
        item = CheckInput(
            variant=new, parent=draft.parent, edit=draft.edit, example_outputs=shown, extra=draft.extra,
            steps=draft.steps,
        )  # fmt: skip
        change = changed_fraction(item)
        if draft.outputs == "change" and change == 0.0:
            outcome[index] = decided(
                new, REJECTED, "changes-outputs", "same outputs as the parent on every input (robust)"
            )
            continue
        if draft.outputs == "keep" and change > 0.0:
            outcome[index] = decided(
                new, REJECTED, "keeps-outputs", f"{change:.0%} of the outputs differ from the parent's"
            )
            continue
        if variant.id in wrong:
            outcome[index] = decided(new, REJECTED, "examples", wrong[variant.id])
            continue
        stamped: dict[str, Any] = {"behavior_change": round(change, 4)}
        if draft.baselines:
            item.baseline_passes = stamped["baselines"] = baseline_passes(variant, draft.baselines, engine)
        item.variant = new = new.model_copy(update={"provenance": {**new.provenance, **stamped}})
        applicable = checks_for(draft.offers())
        ran = [check.name for check in applicable if check.name != POWER]
        findings = [finding for check in applicable if check.name != POWER and (finding := check(item))]
        inherited: list[str] = []
        if findings and draft.parent_defects == "record":
            inherited = _inherited(item, findings)
            findings = [finding for finding in findings if finding.check not in inherited]
        power = next((check for check in applicable if check.name == POWER), None)
        if not findings and power is not None:
            new, probe = restore_test_power(new, draft.parent, engine)
            item.variant = new = new.model_copy(
                update={"provenance": {**new.provenance, "near_misses": _probe_record(probe)}}
            )
            item.extra["lost_power"] = probe.unkilled if probe.unsearched else []
            ran.append(POWER)
            findings = [finding for finding in [power(item)] if finding is not None]
        stamp: dict[str, Any] = {"checks_run": ran}
        if inherited:
            stamp["parent_findings"] = inherited
        new = new.model_copy(update={"provenance": {**new.provenance, **stamp}})
        rejects = [finding for finding in findings if finding.severity == "reject"]
        if rejects:
            outcome[index] = decided(new, REJECTED, rejects[0].check, rejects[0].reason)
        elif findings:
            outcome[index] = decided(new, NEEDS_REVIEW, findings[0].check, findings[0].reason)
        else:
            outcome[index] = decided(new, ACCEPTED)
    candidates = [outcome[index] for index in range(len(drafts))]
    return Finalized([c for c in candidates if c.provenance["status"] == ACCEPTED], candidates)
