"""Problems the benchmark holds twice, or nearly: a model that saw one has seen the other.

Two problems are compared as a reader sees them: the description's words
(case and spacing aside, every symbol kept: HumanEval/56's ``"<" and ">"``
is not HumanEval/61's ``"(" and ")"``) and the code the prompt shows
besides (helper functions: HumanEval/38 and 50 share their words but decode
different ciphers).  Three signs:

* the same words and code, and each reference gives the other's answers:
  a copy (``weak``); the same words with other answers is worse, since a
  reader cannot know which problem the words mean (``ambiguous``);
* the same function name with one reference giving the other's answers on
  most of its tests (``validation.copies``, as the miner checks its
  variants): a near copy;
* the same code and words but for one word: MBPP+'s Mbpp/8 ("find squares
  of individual elements in a list") and Mbpp/447 (cubes) are each other's
  counterfactual, and a variant mined from either is the other.  Two such
  problems are no defect in themselves (they test different formulas), so
  the note is ``cosmetic``: it tells a transform what it must not make.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz.distance import Levenshtein

from benchmorph.data.models import Problem, TestCase
from benchmorph.execution.compare import values_match
from benchmorph.testgen.mutation import input_key
from benchmorph.validation.audit.base import AuditContext, Subject, audit_check
from benchmorph.validation.audit.findings import AuditFinding, Evidence
from benchmorph.validation.copies import NEAR_COPY, find_copies

CHECK = "near-duplicates"
MIN_WORDS = 6  # shorter descriptions one word apart are templates, not copies


def words(subject: Subject) -> list[str]:
    """The description as a reader compares it: lower case, split on spaces and around symbols."""
    return re.findall(r"\w+|[^\w\s]", subject.description.lower())


def shown_code(subject: Subject) -> str:
    """The code the prompt shows besides its docstrings and the entry point's def line, name neutral."""
    from benchmorph.data.prompt import anatomy

    problem = subject.problem
    if problem.kind != "function":
        return ""
    prompt = problem.prompt
    keep = [True] * len(prompt)
    for start, end in anatomy(prompt, problem.entry_point).regions:
        for i in range(start, min(end, len(prompt))):
            keep[i] = False
    code = "".join(ch if keep[i] or ch == "\n" else " " for i, ch in enumerate(prompt))
    lines = [line for line in code.splitlines() if line.strip() and not line.lstrip().startswith("def ")]
    text = " ".join(" ".join(lines).split())
    return re.sub(rf"\b{re.escape(problem.entry_point)}\b", "<f>", text) if problem.entry_point else text


def _agreement(pairs: Sequence[tuple[Subject, Subject]], ctx: AuditContext) -> dict[tuple[str, str], bool]:
    """Per (a, b): whether b's reference gives a's answer on at least ``NEAR_COPY`` of a's tests."""
    probes: list[tuple[Subject, Subject, Problem]] = []
    for a, b in pairs:
        if not (a.runs and b.runs) or a.problem.kind != b.problem.kind:
            continue
        tests = [TestCase(input=test.input) for test in a.problem.tests]
        probe = b.problem.model_copy(
            update={"id": f"{a.id}#as-{b.id}", "tests": tests, "entry_point": b.problem.entry_point}
        )
        probes.append((a, b, probe))
    ready = (
        {p.id: p for p in ctx.engine.prepare([probe for _, _, probe in probes]).problems} if probes else {}
    )
    result: dict[tuple[str, str], bool] = {}
    for a, b, probe in probes:
        done = ready.get(probe.id)
        theirs = {input_key(t.input): t.expected for t in done.tests} if done else {}
        same = sum(
            1
            for test in a.problem.tests
            if input_key(test.input) in theirs
            and values_match(test.expected, theirs[input_key(test.input)], a.problem.atol)
        )
        result[(a.id, b.id)] = bool(a.problem.tests) and same >= NEAR_COPY * len(a.problem.tests)
    return result


@audit_check(
    CHECK, severities={"ambiguous", "weak", "cosmetic"}, inherited=False, scope="benchmark", version=2
)
def near_duplicates(subjects: Sequence[Subject], ctx: AuditContext) -> list[AuditFinding]:
    """Copies and near copies of another problem of the same benchmark, naming it."""
    keyed = {s.id: (words(s), shown_code(s)) for s in subjects}
    groups: dict[tuple[str, str], list[Subject]] = {}
    for subject in subjects:
        text, code = keyed[subject.id]
        if text:
            groups.setdefault((" ".join(text), code), []).append(subject)
    twins = [(a, b) for group in groups.values() for a in group for b in group if a.id != b.id]
    agrees = _agreement(twins, ctx)
    found = []
    reported: set[tuple[str, str]] = set()
    for a, b in twins:
        if (a.id, b.id) in reported:
            continue
        reported.add((a.id, b.id))
        if agrees.get((a.id, b.id)):
            found.append(
                AuditFinding(
                    a.id,
                    CHECK,
                    "weak",
                    f"a copy of {b.id}: the same words, and its reference gives these answers",
                    f"{CHECK}:copy",
                    (Evidence("problem", b.id),),
                )
            )
        else:
            found.append(
                AuditFinding(
                    a.id,
                    CHECK,
                    "ambiguous",
                    f"its description is {b.id}'s word for word, but the tests expect other answers: "
                    "the words do not say which problem is meant",
                    f"{CHECK}:same-text-other-answers",
                    (Evidence("problem", b.id),),
                )
            )
    # The same function name, the other reference giving most answers (different words).
    ready = [s.problem for s in subjects if s.runs]
    for problem_id, why in (
        find_copies(ready, [s.problem for s in subjects], ctx.engine) if ready else {}
    ).items():
        if "word for word" in why or any(problem_id == a.id for a, _ in twins):
            continue  # the loose normalization of the miner; the strict one above decides
        found.append(AuditFinding(problem_id, CHECK, "weak", why, f"{CHECK}:near-copy"))
    ordered = [s for s in subjects if len(keyed[s.id][0]) >= MIN_WORDS]
    for index, left in enumerate(ordered):
        text_a, code_a = keyed[left.id]
        for right in ordered[index + 1 :]:
            text_b, code_b = keyed[right.id]
            if len(text_a) != len(text_b) or text_a == text_b or code_a != code_b:
                continue
            if Levenshtein.distance(text_a, text_b) != 1:
                continue
            at = next(i for i, (x, y) in enumerate(zip(text_a, text_b, strict=True)) if x != y)
            word_a, word_b = text_a[at], text_b[at]
            if not (word_a.isalpha() and word_b.isalpha()):
                continue  # a symbol or a number apart: a template filled twice
            for one, other, mine, theirs in ((left, right, word_a, word_b), (right, left, word_b, word_a)):
                found.append(
                    AuditFinding(
                        one.id,
                        CHECK,
                        "cosmetic",
                        f"its description is {other.id}'s but for one word ({mine!r} for {theirs!r}): "
                        "each is the other's counterfactual, so a counterfactual of one may be the other",
                        f"{CHECK}:one-word",
                        (Evidence("problem", other.id),),
                    )
                )
    return found
