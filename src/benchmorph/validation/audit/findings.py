"""What an audit says about a problem: findings with a severity, their evidence, and a fix where one is mechanical.

A finding is only worth printing if a careful reader would agree with it,
so each one carries what it rests on (the test, the reading, the sentence)
and says it in one line.  Severities, most serious first:

* ``wrong``: the problem contradicts itself: an example its reference
  disagrees with, a promise in the text that tests break, a test input the
  reference cannot run, text that asks for something else than the tests check;
* ``ambiguous``: tests decide something the description leaves open (a
  reading that differs from the reference's fails them, and no word or
  example settles it);
* ``weak``: tests that let wrong answers through (few tests, few distinct
  outputs, a mutant of the reference that passes them all), and problems
  the benchmark holds twice;
* ``cosmetic``: typos and slips that mislead nobody.

``key`` names what was found independently of which problem it was found
in (``alternative-readings:letters-add-y``), so a variant can be asked
whether it inherits its parent's finding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["wrong", "ambiguous", "weak", "cosmetic"]
SEVERITIES: tuple[Severity, ...] = ("wrong", "ambiguous", "weak", "cosmetic")
# What a transform must not pass on to a variant (``morph`` audits parents for these).
BLOCKING: frozenset[str] = frozenset({"wrong", "ambiguous"})


@dataclass(frozen=True)
class Fix:
    """The minimal change of a problem's text that removes a finding.

    ``start``/``end`` index the prompt; ``text`` replaces that span (an
    insertion has ``start == end``, a deletion empty ``text``).  A fix is
    ``mechanical`` when applying it is known to be right (the words it adds
    state what the reference does); otherwise it is a suggestion for a
    person, and nothing applies it.
    """

    says: str  # one line for a reader: "add '(y counts as a consonant)' after 'without consonants'"
    start: int = 0
    end: int = 0
    text: str = ""
    mechanical: bool = True

    def apply(self, prompt: str) -> str:
        return prompt[: self.start] + self.text + prompt[self.end :]

    def to_json(self) -> dict[str, Any]:
        return {
            "says": self.says,
            "mechanical": self.mechanical,
            **({"span": [self.start, self.end], "text": self.text} if self.mechanical else {}),
        }


@dataclass(frozen=True)
class Evidence:
    """One thing a finding rests on: ``kind`` is sentence, test, reading, example, mutant, input or problem."""

    kind: str
    text: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


@dataclass(frozen=True)
class AuditFinding:
    problem: str  # the problem's id
    check: str  # the audit check that found it
    severity: Severity
    summary: str  # one line
    key: str  # what was found, independent of the problem (see the module docstring)
    evidence: tuple[Evidence, ...] = ()
    fix: Fix | None = None

    def to_json(self, fixes: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "problem": self.problem,
            "check": self.check,
            "severity": self.severity,
            "summary": self.summary,
            "key": self.key,
            "evidence": [item.to_json() for item in self.evidence],
        }
        if fixes and self.fix is not None:
            data["fix"] = self.fix.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AuditFinding:
        fix = data.get("fix")
        span = (fix.get("span") or (0, 0)) if fix is not None else (0, 0)
        return cls(
            problem=data["problem"],
            check=data["check"],
            severity=data["severity"],
            summary=data["summary"],
            key=data["key"],
            evidence=tuple(Evidence(item["kind"], item["text"]) for item in data.get("evidence", [])),
            fix=None
            if fix is None
            else Fix(fix["says"], span[0], span[1], fix.get("text", ""), fix.get("mechanical", False)),
        )


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)  # type: ignore[arg-type]


@dataclass
class AuditReport:
    """Every finding of one audit, in problem order and most serious first within a problem."""

    benchmark: str
    problems: list[str]  # ids, in the benchmark's order
    findings: list[AuditFinding]
    checks_run: list[str] = field(default_factory=list)
    seconds: float = 0.0
    titles: dict[str, str] = field(default_factory=dict)  # problem id -> entry point (for headings)
    timings: dict[str, float] = field(default_factory=dict)  # seconds: "references", then each check

    def counts(self) -> dict[str, int]:
        """Findings per severity (every severity present, zeros included)."""
        found = Counter(finding.severity for finding in self.findings)
        return {severity: found.get(severity, 0) for severity in SEVERITIES}

    def problems_with(self) -> dict[str, int]:
        """Problems with at least one finding of each severity."""
        return {
            severity: len({f.problem for f in self.findings if f.severity == severity})
            for severity in SEVERITIES
        }

    def by_check(self) -> list[tuple[str, str, int]]:
        """(severity, check, findings) rows, most serious first."""
        counts = Counter((finding.severity, finding.check) for finding in self.findings)
        return sorted(
            ((severity, check, count) for (severity, check), count in counts.items()),
            key=lambda row: (severity_rank(row[0]), row[1]),
        )

    def for_problem(self, problem_id: str) -> list[AuditFinding]:
        return [finding for finding in self.findings if finding.problem == problem_id]


def ordered(findings: Iterable[AuditFinding], problems: Sequence[str]) -> list[AuditFinding]:
    """Findings in problem order, then by severity, then by check (stable otherwise)."""
    position = {problem: index for index, problem in enumerate(problems)}
    return sorted(
        findings, key=lambda f: (position.get(f.problem, len(position)), severity_rank(f.severity), f.check)
    )
