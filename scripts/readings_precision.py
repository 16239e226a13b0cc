"""Print every alternative-readings finding on mined counterfactuals, for a person to confirm or dismiss.

The probe's precision is what a careful reader confirms of what it reports.
This lists, for the HumanEval variants and a seeded random sample of the
MBPP+ variants ``morph run mine ... --audit off`` writes, every finding the
audit's probe makes on the variant as a problem of its own (the parent's
slips included), and whether the quality check (which leaves the parent's
own slips to the parent audit) would hold it, with the variant's prompt,
so each can be read beside its evidence.

    benchmorph morph run mine humaneval --audit off --out he/variants.jsonl
    benchmorph morph run mine mbpp+ --data MbppPlus.jsonl --audit off --out mbpp/variants.jsonl
    python scripts/readings_precision.py he/variants.jsonl mbpp/variants.jsonl --sample 25
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from benchmorph.data.formats.native import read_native
from benchmorph.data.models import Variant
from benchmorph.data.registry import load_benchmark
from benchmorph.execution.engine import Engine
from benchmorph.validation.checks.base import CheckInput
from benchmorph.validation.checks.readings import alternative_readings, readings_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("humaneval", type=Path)
    parser.add_argument("mbpp", type=Path)
    parser.add_argument("--sample", type=int, default=25)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument(
        "--mbpp-data", type=Path, default=Path("../shared/data/evalplus/MbppPlus.dev-2023-11-16.jsonl")
    )
    args = parser.parse_args()
    he = [v for v in read_native(args.humaneval) if isinstance(v, Variant)]
    mbpp = [v for v in read_native(args.mbpp) if isinstance(v, Variant)]
    mbpp = sorted(random.Random(args.seed).sample(mbpp, min(args.sample, len(mbpp))), key=lambda v: v.id)
    parents = {**load_benchmark("humaneval").by_id(), **load_benchmark("mbpp+", args.mbpp_data).by_id()}
    findings = held = 0
    with Engine(workers=2) as engine:
        chosen = he + mbpp
        ready = {p.id: p for p in engine.prepare(chosen).problems}
        ready_parents = {p.id: p for p in engine.prepare([parents[v.parent_id] for v in chosen]).problems}
        for variant in chosen:
            problem = ready[variant.id]
            assert isinstance(problem, Variant)
            found = readings_of(problem, engine)
            check = alternative_readings(
                CheckInput(variant=problem, parent=ready_parents[variant.parent_id], engine=engine)
            )
            findings += len(found)
            held += check is not None
            print(
                f"=== {variant.id} ({variant.provenance.get('rule')}): {len(found)} finding(s); check: "
                f"{'holds' if check else 'passes'}"
            )
            for finding in found:
                print(f"  - {finding.summary}")
                for item in finding.evidence:
                    print(f"      {item.kind}: {item.text}")
            if found or check:
                print("  prompt:\n" + "\n".join("    | " + line for line in variant.prompt.splitlines()))
    print(
        f"\n{len(he)} HumanEval + {len(mbpp)} MBPP+ variants: {findings} probe findings; the quality check holds {held}"
    )


if __name__ == "__main__":
    main()
