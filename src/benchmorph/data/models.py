"""The four nouns every layer speaks: Problem, Variant, Sample, Verdict.

Test values (inputs, expected outputs) are kept as live Python values in
memory (tuples stay tuples) and go through :mod:`benchmorph.data.values` when
written, so a problem read from any format compares the same way.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from benchmorph.data import values

SCHEMA_VERSION = 1

ProblemKind = Literal["function", "stdin", "method"]
VerdictStatus = Literal["pass", "fail", "timeout", "error", "sandbox-violation"]
TestStatus = Literal["pass", "fail", "timeout", "error", "not-run"]


class TestCase(BaseModel):
    """One call (function/method: a list of arguments) or one run (stdin: the input text).

    ``expected`` is only meaningful once ``has_expected`` is set: expected
    outputs come from running the reference, and ``None`` is a legitimate
    expected value.
    """

    __test__ = False  # not a pytest class
    model_config = ConfigDict(arbitrary_types_allowed=True)

    input: Any
    expected: Any = None
    has_expected: bool = False
    ref_time: float | None = None
    origin: str = "base"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"input": values.encode(self.input), "origin": self.origin}
        if self.has_expected:
            data["expected"] = values.encode(self.expected)
        if self.ref_time is not None:
            data["ref_time"] = self.ref_time
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TestCase:
        return cls(
            input=values.decode(data["input"]),
            expected=values.decode(data.get("expected")),
            has_expected="expected" in data,
            ref_time=data.get("ref_time"),
            origin=data.get("origin", "base"),
        )


class Problem(BaseModel):
    """A task a model must solve, with tests computed from a trusted reference."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    id: str
    kind: ProblemKind = "function"
    prompt: str
    entry_point: str = ""
    reference: str
    tests: list[TestCase] = Field(default_factory=list)
    atol: float = 0.0
    oracle: str | None = None
    contract: str | None = None
    # When False, a tuple answer equals a list with the same items (formats such
    # as LiveCodeBench's JSON cannot tell them apart); human-eval style asserts are strict.
    strict_sequences: bool = True
    source: dict[str, Any] = Field(default_factory=dict)

    @field_validator("oracle")
    @classmethod
    def _known_oracle(cls, value: str | None) -> str | None:
        if value is not None:
            from benchmorph.data.oracles import ORACLES

            if value not in ORACLES:
                raise ValueError(f"unknown oracle {value!r} (known: {', '.join(sorted(ORACLES.names()))})")
        return value

    def content_hash(self) -> str:
        """Hash of everything that determines expected outputs and reference timings."""
        payload = {
            "kind": self.kind,
            "prompt": self.prompt,
            "entry_point": self.entry_point,
            "reference": self.reference,
            "contract": self.contract,
            "inputs": [values.encode(test.input) for test in self.tests],
        }
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
        return hashlib.sha256(blob).hexdigest()

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(exclude={"tests"})
        data["tests"] = [test.to_json() for test in self.tests]
        data["schema_version"] = SCHEMA_VERSION
        data["record"] = "problem"
        return data


class Variant(Problem):
    """A problem derived from another one by a transform (ctf, metamorphic, an EvoEval type)."""

    parent_id: str
    transform: str
    label: str = "unreviewed"
    provenance: dict[str, Any] = Field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["record"] = "variant"
        return data


class Sample(BaseModel):
    """One model answer for one task."""

    task_id: str
    index: int = 0
    code: str
    raw: str | None = None
    model: str = "unknown"
    params: dict[str, Any] = Field(default_factory=dict)
    # Where it came from (file and line), so an error can point at it.
    origin: str | None = None
    # Why there is no code: the model was asked and gave no answer (retries spent,
    # malformed response).  Such a sample is judged an error without running.
    error: str | None = None


def _writable(text: str) -> str:
    """Text that UTF-8 files and SQLite can store: lone surrogates become backslash escapes.

    Verdict texts quote model code's own words (an exception message, a
    value's repr), and ``raise ValueError(chr(0xD800))`` must not make the
    verdict unwritable, which would stop the run.
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# A message from or about model code, safe to write anywhere.
VerdictText = Annotated[str, AfterValidator(_writable)]


class TestResult(BaseModel):
    __test__ = False

    index: int
    status: TestStatus
    time: float | None = None
    diff: VerdictText | None = None
    error: VerdictText | None = None


class Verdict(BaseModel):
    """The outcome of running one sample against every test of its problem."""

    task_id: str
    index: int = 0
    status: VerdictStatus
    passed: int = 0
    total: int = 0
    tests: list[TestResult] = Field(default_factory=list)
    time: float = 0.0
    error: VerdictText | None = None
    isolation: str = "bwrap"

    @property
    def ok(self) -> bool:
        return self.status == "pass"
