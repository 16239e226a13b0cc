"""The two nouns of CTF-Instruct: an instruction sample and a counterfactual pair made from it.

Samples come from any of the instruction formats :mod:`benchmorph.instruct.read` knows; a pair keeps
both sides (the original and its counterfactual) and everything measured on the way, as one JSON
object per line, so each step of the recipe reads the previous step's file and adds to it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmorph.data.errors import InputError
from benchmorph.data.jsonl import check_unique_ids, read_jsonl, require, write_jsonl
from benchmorph.models.sanitize import sanitize

ACCEPTED = "accepted"
REJECTED = "rejected"


@dataclass(frozen=True)
class InstructSample:
    """One instruction and its answer; ``code`` is the Python the sanitizer found in the answer."""

    id: str
    instruction: str
    output: str
    input: str = ""
    code: str = ""
    tests: tuple[str, ...] = ()  # assert lines, when the data ships tests
    format: str = "alpaca"
    where: str = ""  # file:line (or dataset:index) for messages

    @property
    def prompt(self) -> str:
        """The instruction as a model sees it: Alpaca's ``input`` follows the instruction."""
        return self.instruction if not self.input.strip() else f"{self.instruction}\n\n{self.input}"


def top_level_definitions(code: str) -> list[str]:
    """Names of the functions and classes the code defines at top level (empty if it does not parse)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]


def extract_code(answer: str, entry_point: str = "") -> str:
    """The code of an answer: its definitions when it defines any, else the whole script.

    The sanitizer's ``function`` mode keeps imports and definitions and drops demos and prints,
    which is what a library-style answer is; an answer that is a script (no definitions) keeps
    every statement (``stdin`` mode).  ``""`` when the answer holds no Python.
    """
    code = sanitize(answer, entry_point=entry_point, kind="function")
    if code.strip() and top_level_definitions(code):
        return code
    return sanitize(answer, kind="stdin")


@dataclass
class Pair:
    """An original sample, its counterfactual and what was measured; one line of ``pairs.jsonl``."""

    id: str
    source_id: str
    instruction: str  # the original prompt (instruction plus input)
    output: str
    code: str
    cf_instruction: str = ""
    cf_output: str = ""
    cf_code: str = ""
    status: str = REJECTED
    check: str | None = None  # what decided a rejection
    reason: str | None = None
    d_q: float | None = None
    d_s: float | None = None
    tests: dict[str, Any] | None = None  # the sandbox run of the new solution, when the sample has tests
    generator: str = ""
    prompt_hash: str = ""
    raw: str | None = None
    difficulty: dict[str, Any] | None = None  # {"original", "counterfactual", "scorer"}
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.status == ACCEPTED

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Pair:
        known = {name: row[name] for name in cls.__dataclass_fields__ if name in row}
        return cls(**known)


_PAIR_TEXT_FIELDS = ("id", "source_id", "instruction", "code", "cf_instruction", "cf_code")


def read_pairs(path: str | Path) -> list[Pair]:
    """A pairs file written by :func:`write_pairs`; a bad record names file, line and field."""
    pairs: list[Pair] = []
    lines: list[int] = []
    for line, row in read_jsonl(path):
        lines.append(line)
        for name in _PAIR_TEXT_FIELDS:
            require(row, name, str, path=path, line=line)
        for name in ("d_q", "d_s"):
            if row.get(name) is not None and not isinstance(row[name], int | float):
                raise InputError(
                    f"expected a number, got {type(row[name]).__name__}", path=path, line=line, field=name
                )
        pairs.append(Pair.from_json(row))
    check_unique_ids(
        ((pair.id, line) for pair, line in zip(pairs, lines, strict=True)), path=path, field="id"
    )
    return pairs


def write_pairs(path: str | Path, pairs: Iterable[Pair]) -> None:
    write_jsonl(path, (pair.to_json() for pair in pairs))
