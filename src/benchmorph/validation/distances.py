"""D_Q and D_S from the CTF paper: how much a variant's wording and its solution moved.

D_Q is the normalized Levenshtein distance (distance / longer length) between
the two *descriptions*: the prose of the docstring, without the signature,
code or worked examples, so rewriting an example's value does not count as
a change of wording.  D_S is 1 - cosine similarity of solution embeddings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rapidfuzz.distance import Levenshtein

from benchmorph.data.prompt import anatomy
from benchmorph.validation.examples.scan import ExampleScan, scan_examples
from benchmorph.validation.examples.statements import STATEMENT_KINDS, statement_prose

if TYPE_CHECKING:
    import numpy as np


def prose(prompt: str, scan: ExampleScan | None = None, entry_point: str = "") -> str:
    """The description with everything else blanked to spaces, so offsets still index ``prompt``.

    Blanked: code outside the docstrings, worked-example lines and their
    value lines, and ``assert`` lines (MBPP's examples).
    """
    keep = [False] * len(prompt)
    for start, end in anatomy(prompt, entry_point).regions:
        for i in range(start, min(end, len(prompt))):
            keep[i] = True
    lines = prompt.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    # Every line an example (or an unreadable one, with its explanation) occupies, values spanning lines included.
    dropped_lines = set(scan.blank_lines) if scan is not None else set()
    for number, line in enumerate(lines):
        if line.strip().startswith((">>>", "assert ")):
            dropped_lines.add(number)
    for number in dropped_lines:
        if number < len(lines):
            for i in range(offsets[number], offsets[number + 1]):
                keep[i] = False
    return "".join(ch if keep[i] or ch == "\n" else " " for i, ch in enumerate(prompt))


def description_text(prompt: str, entry_point: str, kind: str = "function") -> str:
    """The description as words: prose with whitespace runs collapsed and the quotes removed.

    A ``stdin`` or ``method`` prompt is a statement, not code: the whole
    statement is the description, less its sample blocks and starter code.
    """
    if kind in STATEMENT_KINDS:
        return " ".join(statement_prose(prompt, kind, entry_point).split())
    text = prose(prompt, scan_examples(prompt, entry_point), entry_point)
    return " ".join(text.replace('"""', " ").replace("'''", " ").split())


def description_distance(
    original: str, candidate: str, entry_point: str = "", kind: str = "function"
) -> float:
    """D_Q: normalized Levenshtein distance between the two descriptions (0 identical, 1 disjoint)."""
    return float(
        Levenshtein.normalized_distance(
            description_text(original, entry_point, kind), description_text(candidate, entry_point, kind)
        )
    )


def solution_distance(original_vector: np.ndarray, candidate_vector: np.ndarray) -> float:
    """D_S: 1 - cosine similarity of two solution embeddings."""
    from benchmorph.models.embed import cosine_distance

    return cosine_distance(original_vector, candidate_vector)
