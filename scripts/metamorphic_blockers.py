"""What blocks the offline retellings: for every candidate, the gate that decided it and the parent's phrase it
kept; the phrase shapes ranked by how many seeds they block.

    benchmorph morph run metamorphic humaneval --variants 5 --out he.jsonl
    python scripts/metamorphic_blockers.py he.candidates.jsonl [--top 40] [--json per-candidate.json]

The residual gates record figures, not the words they found; this reads the
candidates file and measures, for each candidate, the longest run of the
parent description's words it keeps (renames mapped back, scenario words
out: the text ``residual-description`` measures), and sorts the rejected
ones' kept phrases into shapes (``SHAPES``: a request frame, "return True
if ... False otherwise", "given a list of ...", "the number of ...", "the N
of a M", ...).  A shape that blocks many seeds is one a restatement
(``morph/transforms/metamorphic/restate.py``) is worth writing for.  It also
sums the generator's own counts of sentences restated and not restated.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from benchmorph.validation.distances import description_text
from benchmorph.validation.overlap import words
from benchmorph.validation.residual import map_back, without_terms

# Shapes of a kept phrase, first match wins (on the phrase's lower-case words).
SHAPES: tuple[tuple[str, str], ...] = (
    ("request frame (write a function to ...)", r"\b(?:write|a function|python function|function to)\b"),
    ("true if ... false otherwise", r"\b(?:true|false)\b"),
    ("given / input phrase (given a list of ...)", r"\b(?:given|input|supplied|provided)\b"),
    ("count (the number of, how many)", r"\b(?:number of|how many|count)\b"),
    ("check whether / if", r"\b(?:check|whether)\b"),
    ("container phrase (in a list, of a string)", r"\b(?:in|of|from)\s+(?:a|an|the)\s+\w+"),
    ("the N of a M", r"\bthe\s+\w+(?:\s+\w+)?\s+of\b"),
    ("relative clause (that, which)", r"\b(?:that|which|who|whose)\b"),
    ("condition (if, when, such that)", r"\b(?:if|when|unless|such that)\b"),
    ("comparison (greater, less, than)", r"\b(?:than|greater|less|larger|smaller|equal)\b"),
)


def shape_of(phrase: str) -> str:
    for name, pattern in SHAPES:
        if re.search(pattern, phrase):
            return name
    return "other"


def kept_phrase(row: dict[str, Any]) -> tuple[int, str]:
    """The longest run of the parent description's words the candidate's description keeps, and the run."""
    provenance = row["provenance"]
    parent_entry = provenance.get("renamed_from", row["entry_point"])
    back = {str(new): str(old) for old, new in (provenance.get("renames") or {}).items() if old != new}
    if parent_entry != row["entry_point"]:
        back[row["entry_point"]] = parent_entry
    original = description_text(provenance["parent_prompt"], parent_entry)
    told = map_back(description_text(row["prompt"], row["entry_point"]), back)
    terms = [word for term in provenance.get("scenario_terms", []) for word in words(str(term))]
    told = without_terms(told, terms, words(original))
    left, right = words(original), words(told)
    if not left or not right:
        return 0, ""
    match = SequenceMatcher(None, left, right, autojunk=False).find_longest_match(0, len(left), 0, len(right))
    return match.size, " ".join(left[match.a : match.a + match.size])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("candidates", type=Path)
    parser.add_argument("--top", type=int, default=30, help="phrases to list")
    parser.add_argument("--json", type=Path, help="write one record per candidate here")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.candidates.read_text().splitlines() if line.strip()]
    records = []
    by_check: Counter[str] = Counter()
    shapes: dict[str, set[str]] = defaultdict(set)
    shape_rows: Counter[str] = Counter()
    phrases: dict[str, set[str]] = defaultdict(set)
    sentences: Counter[str] = Counter()
    for row in rows:
        provenance = row["provenance"]
        if "parent_prompt" not in provenance:
            continue
        status = provenance.get("status")
        check = provenance.get("check") or "-"
        by_check[check] += 1
        sentences.update({k: int(v) for k, v in (provenance.get("sentences") or {}).items()})
        size, phrase = kept_phrase(row)
        records.append(
            {"id": row["id"], "parent": row["parent_id"], "status": status, "check": check, "run": size,
             "phrase": phrase, "reason": provenance.get("reason")}
        )  # fmt: skip
        if status != "accepted" and size > 5:
            shape = shape_of(phrase)
            shapes[shape].add(row["parent_id"])
            shape_rows[shape] += 1
            phrases[phrase].add(row["parent_id"])
    rejected = sum(1 for r in records if r["status"] != "accepted")
    long_runs = sum(1 for r in records if r["status"] != "accepted" and r["run"] > 5)
    print(
        f"{len(records)} candidates, {rejected} rejected; {long_runs} of these keep a run of more than 5 words"
    )
    print("by the check that decided: " + ", ".join(f"{k} {v}" for k, v in by_check.most_common()))
    print("sentences (all candidates): " + ", ".join(f"{k} {v}" for k, v in sorted(sentences.items())))
    print("\nshapes of the kept phrase (rejected, run > 5): seeds, candidates")
    for shape, seeds in sorted(shapes.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(seeds):4d} {shape_rows[shape]:6d}  {shape}")
    print(f"\nphrases blocking most seeds (top {args.top}):")
    for phrase, seeds in sorted(phrases.items(), key=lambda kv: (-len(kv[1]), kv[0]))[: args.top]:
        print(f"  {len(seeds):3d}  {phrase}")
    if args.json:
        args.json.write_text(json.dumps(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
