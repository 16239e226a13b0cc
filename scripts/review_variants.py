"""Print mined variants beside their parents, for a person to review them one by one.

A variant is only worth publishing when a careful reader of its new description
alone would write the new reference's behaviour.  The quality checks in
``benchmorph.validation.checks.base`` test that mechanically; this script is for the
human review behind docs/review.md, which must not lean on those same checks.
So it shows, per variant, what a reviewer needs to judge it independently:

- a word diff of the parent's and the variant's prompt, then both in full;
- a diff of the references, and the variant's reference in full;
- the entry point (and the parent's, when the variant renamed it);
- output statistics on the inherited inputs (share changed, distinct values,
  the most common value's share) and 6 tests spread over the test list, each
  with the parent's and the variant's expected output;
- every worked example the library's scanner reads in the new prompt, with the
  value the text claims and the value the new reference actually returns, plus
  an independent pass over ``>>>`` lines and ``assert`` lines run directly
  against the new reference (so an example the scanner misses still shows).

References run in a child interpreter with a time limit (they are the
benchmark's own trusted code), the parent's expected outputs come from the
engine's prepare (cached under $BENCHMORPH_CACHE).

Usage::

    BENCHMORPH_CACHE=/tmp/rev/cache python3 scripts/review_variants.py \
        /tmp/rev/he.jsonl humaneval > /tmp/rev/he.review.txt
    BENCHMORPH_CACHE=/tmp/rev/cache python3 scripts/review_variants.py \
        /tmp/rev/mbpp.jsonl mbpp+ --data MbppPlus.jsonl --sample 25 --seed 0

``--sample N`` reviews ``random.Random(seed).sample(sorted(ids), N)``, printed
in sorted order.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import json
import pickle
import random
import re
import subprocess
import sys
from typing import Any

from benchmorph.data import load_benchmark
from benchmorph.data.models import Problem, Variant
from benchmorph.data.values import encode
from benchmorph.execution.engine import Engine
from benchmorph.validation.examples.recompute import scan_problem

_CHILD = r"""
import pickle, sys, io, contextlib
calls, code, entry, doctests, asserts = pickle.load(sys.stdin.buffer)
ns = {"math": __import__("math")}  # MBPP asserts use math.isclose without importing it
out = {"calls": [], "doctests": [], "asserts": []}
try:
    with contextlib.redirect_stdout(io.StringIO()):
        exec(code, ns)
except BaseException as exc:
    out["error"] = repr(exc)
    calls = doctests = asserts = []
for args in calls:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            out["calls"].append(("ok", repr(ns[entry](*args))))
    except BaseException as exc:
        out["calls"].append(("error", repr(exc)))
for expr, want in doctests:
    try:
        with contextlib.redirect_stdout(io.StringIO()) as buf:
            got = eval(expr, ns)
        shown = buf.getvalue().rstrip("\n") if got is None else repr(got)
        try:
            # HumanEval's ``>>> f(x) == y`` lines show no output: they claim True
            agree = eval(want, ns) == got if want else got is None or got is True
        except BaseException:
            agree = shown.strip() == want.strip()
        out["doctests"].append((expr, want, shown, bool(agree)))
    except BaseException as exc:
        out["doctests"].append((expr, want, repr(exc), False))
for stmt in asserts:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(stmt, ns)
        out["asserts"].append((stmt, "pass"))
    except AssertionError:
        out["asserts"].append((stmt, "FAIL"))
    except BaseException as exc:
        out["asserts"].append((stmt, "error " + repr(exc)))
sys.stdout.buffer.write(pickle.dumps(out))
"""


def run_reference(
    code: str, entry: str, calls: list[tuple[Any, ...]], doctests: list[tuple[str, str]], asserts: list[str]
) -> dict[str, Any]:
    """Run ``code`` in a child interpreter: the calls, the doctests and the asserts, each on its own."""
    payload = pickle.dumps((calls, code, entry, doctests, asserts))
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD], input=payload, capture_output=True, timeout=30, check=False
        )
    except subprocess.TimeoutExpired:
        return {"error": "timed out", "calls": [], "doctests": [], "asserts": []}
    if done.returncode != 0 or not done.stdout:
        return {
            "error": done.stderr.decode(errors="replace")[-300:],
            "calls": [],
            "doctests": [],
            "asserts": [],
        }
    return pickle.loads(done.stdout)


def word_diff(old: str, new: str) -> str:
    """The new text with removed words as [-old-] and added ones as {+new+}, whitespace kept."""
    a = re.split(r"(\s+)", old)
    b = re.split(r"(\s+)", new)
    parts: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            parts.append("".join(b[j1:j2]))
            continue
        if i2 > i1:
            parts.append("[-" + "".join(a[i1:i2]) + "-]")
        if j2 > j1:
            parts.append("{+" + "".join(b[j1:j2]) + "+}")
    return "".join(parts)


def changed_lines(old: str, new: str) -> str:
    """Only the changed lines of a unified diff."""
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), "parent", "variant", n=0, lineterm="")
    return "\n".join(diff)


def doctest_pairs(prompt: str) -> list[tuple[str, str]]:
    """``>>> call`` lines (with continuations) and the output lines under them, read without the library."""
    lines = prompt.splitlines()
    pairs: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped.startswith(">>>"):
            expr = stripped[3:].strip()
            i += 1
            while i < len(lines) and lines[i].strip().startswith("..."):
                expr += "\n" + lines[i].strip()[3:].strip()
                i += 1
            want: list[str] = []
            while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(">>>"):
                if lines[i].strip() in ('"""', "'''"):
                    break
                want.append(lines[i].strip())
                i += 1
            pairs.append((expr, " ".join(want)))
        else:
            i += 1
    return pairs


def assert_lines(prompt: str) -> list[str]:
    """``assert ...`` lines of an MBPP-style prompt."""
    return [line.strip() for line in prompt.splitlines() if line.strip().startswith("assert ")]


def short(value: Any, width: int = 110) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def key(value: Any) -> str:
    return json.dumps(encode(value), sort_keys=True)


def statistics(parent: Problem, variant: Variant) -> tuple[str, list[tuple[Any, Any, Any]]]:
    """A one-line summary of the outputs on shared inputs, and (input, parent, variant) triples."""
    parent_out = {key(test.input): test.expected for test in parent.tests if test.has_expected}
    rows = [
        (t.input, parent_out[key(t.input)], t.expected) for t in variant.tests if key(t.input) in parent_out
    ]
    if not rows:
        return "no shared inputs", []
    changed = sum(key(p) != key(v) for _, p, v in rows)
    pc = collections.Counter(key(p) for _, p, _ in rows)
    vc = collections.Counter(key(v) for _, _, v in rows)
    top = vc.most_common(1)[0]
    line = (
        f"{len(rows)} shared tests ({len(variant.tests)} in variant); changed {changed} ({changed / len(rows):.0%}); "
        f"distinct parent {len(pc)} variant {len(vc)}; most common variant output {top[0][:40]} "
        f"x{top[1]} ({top[1] / len(rows):.0%}), parent's most common {pc.most_common(1)[0][1] / len(rows):.0%}"
    )
    return line, rows


def _trivial(args: list[Any], constant: Any) -> dict[str, Any]:
    """What a few solutions that ignore the task return on ``args`` (a missing one cannot apply)."""
    out: dict[str, Any] = {"constant": constant}
    first = args[0] if args else None
    out["first argument"] = first
    if isinstance(first, list | tuple | str) and first:
        out["its first item"] = first[0]
        out["its last item"] = first[-1]
        try:
            out["it sorted"] = (
                type(first)(sorted(first)) if not isinstance(first, str) else "".join(sorted(first))
            )
            out["it sorted, reversed"] = (
                type(first)(sorted(first, reverse=True))
                if not isinstance(first, str)
                else "".join(sorted(first, reverse=True))
            )
        except TypeError:
            pass
    return out


def trivial_passes(rows: list[tuple[Any, Any, Any]]) -> list[str]:
    """Trivial solutions that pass every shared test of the variant but not the parent's."""
    if not rows:
        return []
    constant = collections.Counter(key(v) for _, _, v in rows).most_common(1)[0][0]
    constant_value = next(v for _, _, v in rows if key(v) == constant)
    passing: dict[str, list[bool]] = {}
    for args, p, v in rows:
        for name, got in _trivial(list(args), constant_value).items():
            passing.setdefault(name, [True, True])
            passing[name][0] &= key(got) == key(v)
            passing[name][1] &= key(got) == key(p)
    return [name for name, (variant_ok, parent_ok) in passing.items() if variant_ok and not parent_ok]


def spread(rows: list[Any], count: int = 6) -> list[Any]:
    """``count`` rows spread evenly over ``rows`` (the first and the last included)."""
    if len(rows) <= count:
        return rows
    return [rows[round(i * (len(rows) - 1) / (count - 1))] for i in range(count)]


def review(parent: Problem, variant: Variant) -> str:
    """The whole printout for one variant."""
    out: list[str] = []
    prov = variant.provenance or {}
    out.append("=" * 100)
    out.append(
        f"{variant.id}   rule={prov.get('rule')}   d_q={prov.get('d_q')}   change={prov.get('behavior_change')}"
    )
    renamed = prov.get("renamed_from")
    out.append(f"entry point: {variant.entry_point}" + (f"   (renamed from {renamed})" if renamed else ""))
    out.append("-- prompt word diff " + "-" * 80)
    out.append(word_diff(parent.prompt, variant.prompt))
    out.append("-- parent prompt " + "-" * 83)
    out.append(parent.prompt)
    out.append("-- variant prompt " + "-" * 82)
    out.append(variant.prompt)
    out.append("-- reference diff " + "-" * 82)
    out.append(changed_lines(parent.reference, variant.reference))
    out.append("-- variant reference " + "-" * 79)
    out.append(variant.reference)
    line, rows = statistics(parent, variant)
    out.append("-- tests " + "-" * 91)
    out.append(line)
    trivial = trivial_passes(rows)
    if trivial:
        out.append(f"!! passes every test though the parent's would not: {', '.join(trivial)}")
    for args, p, v in spread(rows):
        mark = "  " if key(p) == key(v) else "* "
        out.append(f"{mark}in  {short(args)}")
        out.append(f"    parent {short(p)}   variant {short(v)}")
    changed = [r for r in rows if key(r[1]) != key(r[2])]
    out.append(f"   ({len(changed)} changed; first changed ones:)")
    for args, p, v in changed[:3]:
        out.append(f"*   in {short(args)} : parent {short(p)} -> variant {short(v)}")
    out.append("-- examples " + "-" * 88)
    scan = scan_problem(variant)
    calls = [tuple(example.args) for example in scan.examples]
    ran = run_reference(
        variant.reference,
        variant.entry_point,
        calls,
        doctest_pairs(variant.prompt),
        assert_lines(variant.prompt),
    )
    if "error" in ran:
        out.append(f"reference failed to run: {ran['error']}")
    for example, result in zip(scan.examples, ran["calls"], strict=False):
        status, got = result
        out.append(
            f"  [{example.kind}] args {short(example.args, 70)} text {example.expected_text!r:.60} -> ref {got:.60}"
        )
    if scan.unverifiable:
        out.append(f"  unverifiable: {scan.unverifiable}")
    for expr, want, shown, agree in ran["doctests"]:
        out.append(
            f"  doctest {'ok ' if agree else 'BAD'} {expr[:60]!r} text {want[:50]!r} ref {shown[:50]!r}"
        )
    for stmt, status in ran["asserts"]:
        out.append(f"  assert {status}: {stmt[:100]}")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", help="variants JSONL written by `benchmorph morph run mine`")
    parser.add_argument("benchmark", help="the parent benchmark (humaneval, mbpp+, ...)")
    parser.add_argument("--data", help="the parent benchmark's data file")
    parser.add_argument("--sample", type=int, help="review this many variants, chosen at random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    variants = [v for v in load_benchmark(args.variants).problems if isinstance(v, Variant)]
    by_id = {v.id: v for v in variants}
    ids = sorted(by_id)
    if args.sample is not None and args.sample < len(ids):
        ids = sorted(random.Random(args.seed).sample(ids, args.sample))
    parents_raw = load_benchmark(args.benchmark, args.data).by_id()
    wanted = [parents_raw[by_id[i].parent_id] for i in ids]
    with Engine() as engine:
        parents = {p.id: p for p in engine.prepare(wanted).problems}
    print(f"{len(ids)} variants: {', '.join(ids)}")
    for variant_id in ids:
        variant = by_id[variant_id]
        print(review(parents[variant.parent_id], variant))


if __name__ == "__main__":
    main()
