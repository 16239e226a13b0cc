"""What a sample's code is: the field it came from, whether it parses, and the sanitizer's reading of it.

A samples file holds ``solution`` (a whole program) or ``completion`` (text appended to the
prompt).  Messages about a sample name the field it has and the line inside that field, not a
line of prompt + completion.  ``sanitize_samples`` is ``evaluate --sanitize``: raw chat answers
(fences, prose, repeated or truncated copies) become the program they contain, the raw text is
kept, and the run counts how many samples it changed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from benchmorph.data.models import Problem, Sample
from benchmorph.models.sanitize import looks_like_raw_answer, sanitize

_LINE = re.compile(r"\bline (\d+)\b")
# A hint needs more than a few such samples, and more than a sliver of the file.
HINT_AT_LEAST = 3
HINT_SHARE = 0.02


@dataclass(frozen=True)
class CodeSource:
    """Where a sample's program came from: its samples-file ``field``, that field's ``text``, and
    ``offset``, the program lines before the field's first line (the prompt, for a completion)."""

    field: str
    text: str
    offset: int = 0


def code_source(sample: Sample, problem: Problem | None) -> CodeSource:
    """The field a sample's code came from, as ``read_samples`` built it (prompt + completion, or solution)."""
    raw = sample.raw
    if problem is not None and raw is not None and sample.code == problem.prompt + raw and problem.prompt:
        return CodeSource("completion", raw, problem.prompt.count("\n"))
    return CodeSource("solution", sample.code)


def _syntax_error(code: str) -> SyntaxError | ValueError | None:
    try:
        compile(code, "<sample>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return exc
    return None


def _in_field(message: str, offset: int) -> str:
    """A parser message whose line numbers count the whole program, renumbered to count the field's lines."""
    if not offset:
        return message

    def renumber(match: re.Match[str]) -> str:
        line = int(match.group(1))
        return f"line {line - offset}" if line > offset else f"line {line} of the prompt"

    return _LINE.sub(renumber, message)


def unparsable_message(sample: Sample, problem: Problem | None) -> str | None:
    """One line saying why a sample is not Python, naming its field and the line in it; None when it parses."""
    error = _syntax_error(sample.code)
    if error is None:
        return None
    source = code_source(sample, problem)
    reason = getattr(error, "msg", None) or str(error)
    lineno = getattr(error, "lineno", None)
    where = sample.origin or sample.task_id
    parts = [] if where.endswith(".py") else [f"field '{source.field}'"]  # a samples dir: one file each
    if isinstance(lineno, int):
        parts.append(
            f"line {lineno - source.offset}" if lineno > source.offset else f"line {lineno} of the prompt"
        )
    place = ", ".join(parts) + ": " if parts else ""
    return f"{where}: {place}not valid Python ({_in_field(str(reason), source.offset)}); judged as an error"


def raw_answer_hint(samples: Sequence[Sample], problems: Mapping[str, Problem]) -> str | None:
    """One hint line when more than a few samples do not parse and read like raw model answers."""
    raw = 0
    for sample in samples:
        if sample.error is not None or _syntax_error(sample.code) is None:
            continue
        if looks_like_raw_answer(code_source(sample, problems.get(sample.task_id)).text):
            raw += 1
    if raw < HINT_AT_LEAST or raw < HINT_SHARE * len(samples):
        return None
    return (
        f"{raw} of {len(samples)} samples are not Python and read like raw model answers (code fences, "
        "prose): --sanitize extracts the code they contain before judging"
    )


@dataclass
class SanitizeReport:
    """What sanitizing did: ``changed`` samples whose program it changed (by their index in the
    list), ``no_code`` ones where it found nothing (kept as written), out of ``samples``."""

    samples: int = 0
    changed: dict[int, str] = field(default_factory=dict)  # index -> the raw text it read
    no_code: int = 0

    def summary(self) -> dict[str, int | bool]:
        return {
            "applied": True,
            "samples": self.samples,
            "changed": len(self.changed),
            "no_code": self.no_code,
        }


def _same_program(first: str, second: str) -> bool:
    try:
        return ast.dump(ast.parse(first)) == ast.dump(ast.parse(second))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return first == second


def sanitize_samples(
    samples: Sequence[Sample], problems: Mapping[str, Problem]
) -> tuple[list[Sample], SanitizeReport]:
    """Each sample's code as the sanitizer reads its ``completion`` or ``solution`` field (see ``sanitize``).

    A completion is read with its problem's prompt (a body for the prompt's
    signature, or a whole new function).  The text read stays in ``raw``; where
    the sanitizer finds no code, the sample is kept as written (it is then judged
    an error, with the parser's reason).  A sample counts as changed when its
    program is not the same as written (ASTs compared, so blank lines and
    comments do not count).
    """
    report = SanitizeReport(samples=len(samples))
    cleaned: list[Sample] = []
    for index, sample in enumerate(samples):
        problem = problems.get(sample.task_id)
        if sample.error is not None or problem is None:
            cleaned.append(sample)
            continue
        text = code_source(sample, problem).text
        prompt = problem.prompt if problem.kind != "stdin" else None
        code = sanitize(text, entry_point=problem.entry_point, kind=problem.kind, prompt=prompt)
        if not code.strip():
            report.no_code += 1
            cleaned.append(sample)
            continue
        if not _same_program(code, sample.code):
            report.changed[index] = text
        cleaned.append(sample.model_copy(update={"code": code, "raw": text}))
    return cleaned, report


def generated_changes(samples: Sequence[Sample], problems: Mapping[str, Problem]) -> SanitizeReport:
    """For generated samples (``run``, sanitized as they were made): which programs differ from the
    model's text as written (the answer alone, or the prompt followed by it)."""
    report = SanitizeReport(samples=len(samples))
    for index, sample in enumerate(samples):
        if sample.error is not None or sample.raw is None:
            continue
        problem = problems.get(sample.task_id)
        written = [sample.raw] + ([problem.prompt + sample.raw] if problem is not None else [])
        if not any(_same_program(sample.code, text) for text in written):
            report.changed[index] = sample.raw
    return report
