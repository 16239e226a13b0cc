"""Where the tests find the project, their fixtures and the shared data: one place, so moving a test
module never changes what a path means.

The shared data (MBPP+, HumanEval+ inputs and contracts) is never vendored: it lives in
``../shared/data`` next to the project root, found relative to this checkout (never by an absolute
path). Tests take it through the ``shared_data`` fixture (tests/conftest.py), which fails, naming the
missing file, when it is not there; ``BENCHMORPH_TESTS_WITHOUT_SHARED=1`` turns that into a skip
for a checkout without the data.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
FIXTURES = TESTS / "fixtures"

SHARED_DATA = ROOT.parent / "shared" / "data"
EVALPLUS = SHARED_DATA / "evalplus"
MBPP_PLUS = EVALPLUS / "MbppPlus.dev-2023-11-16.jsonl"
HUMANEVAL_PLUS_INPUTS = EVALPLUS / "HumanEvalPlusInputs.dev-2023-04-26.jsonl"
HUMANEVAL_PLUS_CONTRACTS = EVALPLUS / "HumanEvalPlusContracts.dev-2023-04-26.jsonl"
SHARED_FILES = (MBPP_PLUS, HUMANEVAL_PLUS_INPUTS, HUMANEVAL_PLUS_CONTRACTS)

WITHOUT_SHARED = "BENCHMORPH_TESTS_WITHOUT_SHARED"


@dataclass(frozen=True)
class SharedData:
    """The shared EvalPlus files, each checked present: what the ``shared_data`` fixture gives a test."""

    root: Path = SHARED_DATA
    mbpp_plus: Path = MBPP_PLUS
    humaneval_plus_inputs: Path = HUMANEVAL_PLUS_INPUTS
    humaneval_plus_contracts: Path = HUMANEVAL_PLUS_CONTRACTS


def require_shared(*paths: Path) -> None:
    """Fail the calling test (skip it only when ``$BENCHMORPH_TESTS_WITHOUT_SHARED`` is 1) if a file is missing.

    Tests and fixtures ask for the ``shared_data`` fixture; this is for the plain (cached) helpers
    that load a shared file for several tests.

    A failure, not a skip, by default: a skip would let CI pass green on a checkout whose
    ``../shared`` is elsewhere while every test of MBPP+ and HumanEval+ silently did nothing.
    """
    missing = [path for path in paths if not path.is_file()]
    if not missing:
        return
    message = (
        f"shared data missing: {missing[0]} (../shared/data beside the project root; "
        f"{WITHOUT_SHARED}=1 skips the tests that need it)"
    )
    if os.environ.get(WITHOUT_SHARED) == "1":
        pytest.skip(message, allow_module_level=True)
    pytest.fail(message, pytrace=False)
