"""``instruct score``: difficulty 1-5 for both sides of each pair, and the paper's Table 2.

Two scorers:

* **heuristic** (offline, deterministic), a weighted sum of five features, each capped, from 1 to 5:

  ====================  ======  ====================================================================
  feature               weight  saturates at
  ====================  ======  ====================================================================
  solution length       1.0     40 non-blank lines of code
  nesting               1.0     depth 5 of nested blocks (def, loops, if, try, with, comprehensions)
  constraints           0.75    4 constraint phrases in the instruction (must, only, without, at most,
                                unless, in place, O(...), ...)
  algorithmic keywords  0.75    3 of dynamic programming, recursion, graph, heap, binary search, ...
                                (instruction and solution)
  instruction length    0.5     120 words
  ====================  ======  ====================================================================

  It ranks, it does not judge: a short trick question scores low.  Use an LLM judge for real numbers.
* **an LLM judge** (any model spec): a fixed rubric, a JSON answer ``{"difficulty": N}``, greedy and
  cached; an answer that cannot be read leaves that side unscored (reported).

Table 2 of the paper: percentiles of the absolute difficulty difference within pairs (the share of pairs
whose difference is at most the value) and of the embedding similarity of the two solutions
(1 - D_S; the share of pairs whose similarity is at least the value).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchmorph.core.progress import ProgressFactory, no_progress
from benchmorph.instruct.records import Pair
from benchmorph.models import GenerationParams, LLMCache, ModelSpec, parse_spec
from benchmorph.models.ask import ask
from benchmorph.models.prompts import Request

HEURISTIC = "heuristic"
PERCENTILES = (25, 50, 75, 95)

_CONSTRAINTS = re.compile(
    r"\b(must|should|only|without|unless|except|exactly|at (?:least|most)|in[- ]place|constant (?:space|time)"
    r"|ensure|handle|edge cases?|efficient(?:ly)?|do not|don't|cannot|otherwise|if and only if|not)\b|O\(",
    re.I,
)
_KEYWORDS = re.compile(
    r"dynamic programming|\bdp\b|memo|recurs|graph|\bbfs\b|\bdfs\b|breadth|depth[- ]first|dijkstra|heap|"
    r"priority queue|binary search|bisect|\btrie\b|\btree\b|backtrack|bitmask|bitwise|sliding window|"
    r"two pointers|union[- ]find|topolog|permutation|combination|subsets?\b|greedy|matrix|interval|"
    r"prime|modulo|regex|regular expression|shortest path|deque|sort",
    re.I,
)
_BLOCKS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.If,
    ast.Try,
    ast.With,
    ast.AsyncWith,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.Lambda,
)


def nesting_depth(code: str) -> int:
    """The deepest chain of nested blocks (0 for straight-line code or code that does not parse)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return 0

    def depth(node: ast.AST) -> int:
        below = max((depth(child) for child in ast.iter_child_nodes(node)), default=0)
        return below + (1 if isinstance(node, _BLOCKS) else 0)

    try:
        return depth(tree)
    except RecursionError:
        return 0


def features(instruction: str, code: str) -> dict[str, int]:
    return {
        "lines": sum(1 for line in code.splitlines() if line.strip() and not line.strip().startswith("#")),
        "nesting": nesting_depth(code),
        "constraints": len(_CONSTRAINTS.findall(instruction)),
        "keywords": len({match.lower() for match in _KEYWORDS.findall(f"{instruction}\n{code}")}),
        "words": len(instruction.split()),
    }


def heuristic_difficulty(instruction: str, code: str) -> float:
    """1 (trivial) to 5 (hard) from the features above; see the module docstring for the weights."""
    f = features(instruction, code)
    score = (
        1.0
        + 1.0 * min(1.0, f["lines"] / 40)
        + 1.0 * min(1.0, max(0, f["nesting"] - 1) / 4)
        + 0.75 * min(1.0, f["constraints"] / 4)
        + 0.75 * min(1.0, f["keywords"] / 3)
        + 0.5 * min(1.0, f["words"] / 120)
    )
    return round(score, 2)


RUBRIC = """Rate the difficulty of this programming task and its solution on a scale of 1 to 5:
1: a one-step exercise (a single built-in or loop);
2: a few steps of plain logic;
3: several cases or a standard algorithm (sorting, searching, a dictionary of counts);
4: a non-trivial algorithm or data structure (dynamic programming, graphs, heaps), or many constraints;
5: a hard algorithmic problem (competition level).

Task:
~~~~
{instruction}
~~~~

Solution:
```python
{code}
```

Reply with JSON only: {{"difficulty": <1-5>}}"""


def judge_request(instruction: str, code: str, spec: ModelSpec) -> Request:
    text = RUBRIC.format(instruction=instruction.strip(), code=code.rstrip())
    if spec.mode == "chat":
        return Request("chat", messages=(("user", text),))
    return Request("completion", prompt=text + '\n{"difficulty": ', stop=("}", "\n"))


def parse_judgement(text: str | None, mode: str) -> float | None:
    """The 1-5 score in a judge's answer (JSON, or the bare number a base model continues with)."""
    if text is None:
        return None
    if mode == "completion":
        text = '{"difficulty": ' + text + "}"
    for match in re.finditer(r"\{", text):
        try:
            value, _ = json.JSONDecoder().raw_decode(text[match.start() :])
        except json.JSONDecodeError:
            continue
        score = value.get("difficulty") if isinstance(value, dict) else None
        if isinstance(score, int | float) and not isinstance(score, bool) and 1 <= score <= 5:
            return float(score)
    return None


@dataclass
class ScoreReport:
    pairs: list[Pair]
    scorer: str
    unscored: int = 0  # pair sides a judge's answer did not score
    table: dict[str, dict[int, float | None]] = field(default_factory=dict)


def table2(pairs: Sequence[Pair]) -> dict[str, dict[int, float | None]]:
    """The paper's Table 2 over pairs scored on both sides (difference) and with D_S (similarity)."""
    differences = [
        abs(pair.difficulty["original"] - pair.difficulty["counterfactual"])
        for pair in pairs
        if pair.difficulty
        and pair.difficulty.get("original") is not None
        and pair.difficulty.get("counterfactual") is not None
    ]
    similarities = [1.0 - pair.d_s for pair in pairs if pair.d_s is not None]

    def at(values: list[float], percentile: float) -> float | None:
        return round(float(np.percentile(values, percentile)), 4) if values else None

    return {
        "similarity": {p: at(similarities, 100 - p) for p in PERCENTILES},
        "difficulty_difference": {p: at(differences, p) for p in PERCENTILES},
    }


def score_pairs(
    pairs: Sequence[Pair],
    scorer: ModelSpec | str = HEURISTIC,
    cache: LLMCache | None = None,
    *,
    progress: ProgressFactory = no_progress,
    **options: Any,
) -> ScoreReport:
    """Set ``pair.difficulty`` = {"original", "counterfactual", "scorer"} on every pair; Table 2 over all."""
    pairs = list(pairs)
    if isinstance(scorer, str) and scorer == HEURISTIC:
        for pair in pairs:
            pair.difficulty = {
                "original": heuristic_difficulty(pair.instruction, pair.code),
                "counterfactual": heuristic_difficulty(pair.cf_instruction, pair.cf_code),
                "scorer": HEURISTIC,
            }
        return ScoreReport(pairs, HEURISTIC, 0, table2(pairs))
    if cache is None:
        raise ValueError("an LLM judge needs the LLM cache")
    spec = parse_spec(scorer) if isinstance(scorer, str) else scorer
    requests = [
        judge_request(text, code, spec)
        for pair in pairs
        for text, code in ((pair.instruction, pair.code), (pair.cf_instruction, pair.cf_code))
    ]
    params = GenerationParams(temperature=0.0, max_tokens=32, seed=0)
    with progress(f"score: ask {spec.text}", len(requests)) as advance:
        asked = ask(requests, spec, params, cache, progress=advance, **options)
    scores = [parse_judgement(answers[0].text, spec.mode) for answers in asked.answers]
    for number, pair in enumerate(pairs):
        pair.difficulty = {
            "original": scores[2 * number],
            "counterfactual": scores[2 * number + 1],
            "scorer": spec.text,
        }
    return ScoreReport(pairs, spec.text, sum(1 for score in scores if score is None), table2(pairs))
