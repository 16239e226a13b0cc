"""Worked examples in competitive-programming statements, re-run with a new reference and rewritten in place.

Two spellings are read:

* ``stdin`` problems (AtCoder, Codeforces): headings ``Sample Input 1`` /
  ``Sample Output 1`` (numbered or not, optionally markdown ``###`` or
  ``**bold**``, optionally with the block fenced in backticks), each
  followed by its block of lines; or ``Sample Input 1: 3 5`` on one line.
* ``method`` problems (LeetCode): ``Input: nums = [2,7,11,15], target = 9``
  followed by ``Output: [0,1]``, with LeetCode's ``true``/``false``/``null``.

A variant whose statement keeps its parent's sample outputs contradicts its
own tests, and a reader who trusts the samples is punished for it.  So every
block is located precisely (only the output part is replaced, in the
statement's own style), re-run with the variant's reference in the sandbox,
and the rewritten statement is scanned again to prove it now says what the
reference prints.  A block that cannot be read, or whose input the
reference cannot run, makes the variant unusable: the caller rejects it
(check ``examples``) rather than publish a stale sample.
"""

from __future__ import annotations

import ast
import io
import json
import re
import textwrap
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmorph.data.models import Problem, TestCase, Variant
from benchmorph.data.prompt import parse_prompt_stub
from benchmorph.execution.compare import stdout_match, values_match
from benchmorph.execution.engine import Engine

# Problem kinds whose statements are read here rather than by the function-docstring scanner.
STATEMENT_KINDS = frozenset({"stdin", "method"})

# Spaces within a line: statements scraped from the web carry no-break spaces as well as blanks.
_SP = r"[^\S\r\n]"
_MARKUP = r"(?:\*\*|__|<strong>|</strong>|<b>|</b>)?"
_SAMPLE_WORDS = rf"(?P<word>sample|example){_SP}+(?P<part>input|output)(?:{_SP}*#?{_SP}*(?P<number>\d+))?"
# "Sample Input 1" alone on its line (the block follows on the next lines).
_SAMPLE_HEADING = re.compile(
    rf"^{_SP}*(?:#{{1,6}}{_SP}*)?{_MARKUP}{_SP}*{_SAMPLE_WORDS}{_SP}*:?{_SP}*{_MARKUP}{_SP}*:?{_SP}*$", re.I
)
# "Sample Input 1: 3 5" (a one-line block on the heading's own line).
_SAMPLE_INLINE = re.compile(
    rf"^{_SP}*{_MARKUP}{_SP}*{_SAMPLE_WORDS}{_SP}*{_MARKUP}{_SP}*:{_SP}*{_MARKUP}{_SP}*(?P<value>\S.*?){_SP}*$",
    re.I,
)
# Any line that starts like a sample heading: if neither form above reads it, the statement is unsafe.
_SAMPLE_MENTION = re.compile(rf"^{_SP}*(?:#{{1,6}}{_SP}*)?{_MARKUP}{_SP}*{_SAMPLE_WORDS}\b", re.I)
_FENCE = re.compile(rf"^{_SP}*(`{{3,}}|~{{3,}})")

_LEETCODE_LINE = re.compile(
    rf"^{_SP}*{_MARKUP}{_SP}*(?P<part>input|output){_SP}*{_MARKUP}{_SP}*:{_SP}*{_MARKUP}{_SP}*(?P<value>.*?){_SP}*$",
    re.I,
)
_EXAMPLE_HEADING = re.compile(
    rf"^{_SP}*(?:#{{1,6}}{_SP}*)?{_MARKUP}{_SP}*example{_SP}*\d*{_SP}*:?{_SP}*{_MARKUP}{_SP}*$", re.I
)
_EXPLANATION = re.compile(rf"^{_SP}*{_MARKUP}{_SP}*explanation\b", re.I)
_STUB_START = re.compile(rf"^class{_SP}+Solution\b", re.M)


@dataclass
class StatementExample:
    """One worked example: its input, and where its output is spelled in the statement."""

    label: str  # "Sample 1", "Example 2": how messages name it
    input: Any  # stdin text, or the argument list of a method call
    output_start: int  # offsets of the output's spelling in the whole statement
    output_end: int
    output_text: str
    style: Literal["block", "inline", "leetcode"]
    indent: str = ""
    newline: str = "\n"
    fenced: bool = False
    explained: bool = False  # prose follows the output (an Explanation): it may still argue the old value


@dataclass
class StatementScan:
    examples: list[StatementExample]
    problems: list[str] = field(default_factory=list)  # why a block could not be read
    spans: list[tuple[int, int]] = field(default_factory=list)  # text that is example, not description


def _lines(text: str) -> tuple[list[str], list[int]]:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return lines, offsets


def _body(line: str) -> str:
    return line.rstrip("\r\n")


def _newline(line: str) -> str:
    return line[len(_body(line)) :] or "\n"


def _heading(line: str) -> re.Match[str] | None:
    return _SAMPLE_HEADING.match(_body(line)) or _SAMPLE_INLINE.match(_body(line))


def _sample_name(part: str, number: str | None) -> str:
    return f"Sample {part}" + (f" {number}" if number else "")


def scan_samples(text: str) -> StatementScan:
    """Every Sample Input/Output pair of a stdin statement, and what could not be read."""
    lines, offsets = _lines(text)
    scan = StatementScan([])
    items: list[tuple[str, str | None, str, StatementExample]] = []  # part, number, content, example
    number = 0
    while number < len(lines):
        line = _body(lines[number])
        heading = _SAMPLE_HEADING.match(line)
        inline = None if heading else _SAMPLE_INLINE.match(line)
        if heading is None and inline is None:
            if _SAMPLE_MENTION.match(line):
                scan.problems.append(f"cannot read the sample line {line.strip()!r}")
            number += 1
            continue
        match = heading or inline
        assert match is not None
        part, label = match["part"].lower(), match["number"]
        name = _sample_name(part.capitalize(), label)
        # Headings and their blocks are example, not description, whether or not they pair up.
        scan.spans.append((offsets[number], offsets[number + 1]))
        if inline is not None:
            value_at = offsets[number] + inline.start("value")
            example = StatementExample(
                name, None, value_at, value_at + len(inline["value"]), inline["value"], "inline"
            )
            items.append((part, label, inline["value"] + "\n", example))
            number += 1
            continue
        # A heading: the block is the next lines, up to a blank line, the next heading or the end;
        # or everything inside a fence that opens right after the heading.
        cursor = number + 1
        while cursor < len(lines) and not _body(lines[cursor]).strip():
            cursor += 1
        fence = _FENCE.match(lines[cursor]) if cursor < len(lines) else None
        if fence is not None:
            opener = fence.group(1)
            first = cursor + 1
            last = first
            while last < len(lines) and not _body(lines[last]).strip().startswith(opener):
                last += 1
            if last >= len(lines):
                scan.problems.append(f"{name}: its fenced block is never closed")
                break
            block, after = list(range(first, last)), last + 1
        else:
            last = cursor
            while last < len(lines) and _body(lines[last]).strip() and _heading(lines[last]) is None:
                last += 1
            block, after = list(range(cursor, last)), last
        if not block or not any(_body(lines[i]).strip() for i in block):
            scan.problems.append(f"{name} has no lines under it")
            number = max(after, number + 1)
            continue
        contents = [_body(lines[i]) for i in block]
        dedented = textwrap.dedent("\n".join(contents))
        indent = min((c[: len(c) - len(c.lstrip())] for c in contents if c.strip()), key=len)
        start = offsets[block[0]]
        end = offsets[block[-1]] + len(contents[-1])
        example = StatementExample(
            name,
            None,
            start,
            end,
            text[start:end],
            "block",
            indent,
            _newline(lines[block[-1]]),
            fence is not None,
        )
        scan.spans.append((offsets[number], offsets[after]))
        following = after
        while following < len(lines) and not _body(lines[following]).strip():
            following += 1
        example.explained = following < len(lines) and _heading(lines[following]) is None
        items.append((part, label, dedented.rstrip("\n") + "\n", example))
        number = after
    pending: tuple[str | None, str] | None = None  # the input's number and text
    for part, label, content, example in items:
        if part == "input":
            if pending is not None:
                scan.problems.append(f"{_sample_name('Input', pending[0])} has no Sample Output")
            pending = (label, content)
            continue
        if pending is None:
            scan.problems.append(f"{example.label} follows no Sample Input")
            continue
        if pending[0] != label:
            scan.problems.append(
                f"{_sample_name('Input', pending[0])} is followed by {_sample_name('Output', label)}"
            )
            pending = None
            continue
        example.input = pending[1]
        example.label = "Sample" + (f" {label}" if label else "")
        scan.examples.append(example)
        pending = None
    if pending is not None:
        scan.problems.append(f"{_sample_name('Input', pending[0])} has no Sample Output")
    return scan


def method_arguments(prompt: str, entry_point: str) -> ast.arguments | None:
    """The parameters of ``entry_point`` in the prompt's ``class Solution`` stub (None without one).

    The stub ends in a method header with no body; a ``pass`` is supplied at
    the method body's depth so it parses.
    """
    stub = solution_stub(prompt)
    if stub is None:
        return None
    text = stub.rstrip()
    trees = [parse_prompt_stub(text + "\n")]
    if text.endswith(":"):
        trees += [parse_prompt_stub(f"{text}\n{' ' * width}pass\n") for width in (8, 4, 12)]
    for tree in trees:
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == entry_point:
                return node.args
    return None


def method_parameters(prompt: str, entry_point: str) -> list[str] | None:
    """Parameter names (without ``self``) of ``entry_point`` in the prompt's ``class Solution`` stub."""
    arguments = method_arguments(prompt, entry_point)
    if arguments is None:
        return None
    names = [arg.arg for arg in arguments.posonlyargs + arguments.args]
    return names[1:] if names and names[0] == "self" else names


def solution_stub(prompt: str) -> str | None:
    """The ``class Solution`` starter code at the end of a LeetCode-style prompt (None without one)."""
    starts = [match.start() for match in _STUB_START.finditer(prompt)]
    return prompt[starts[-1] :] if starts else None


def _python_spelling(text: str) -> str:
    """LeetCode's JSON-ish literals as Python: ``true``/``false``/``null`` outside strings."""
    swap = {"true": "True", "false": "False", "null": "None"}
    tokens = []
    text = re.sub(_SP, " ", text.strip())
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME and token.string in swap:
            token = token._replace(string=swap[token.string])
        tokens.append(token)
    return tokenize.untokenize(tokens)


def read_literal(text: str) -> Any:
    """A value as LeetCode or Python spells it; ValueError when it is not a literal."""
    try:
        return ast.literal_eval(_python_spelling(text).strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, tokenize.TokenError) as exc:
        raise ValueError(f"not a literal: {text!r}") from exc


def _call_arguments(text: str, parameters: list[str] | None) -> list[Any]:
    """``nums = [2,7], target = 9`` (or positional values) as the argument list of the method."""
    try:
        node = ast.parse(f"_({_python_spelling(text).strip()})", mode="eval").body
    except (SyntaxError, tokenize.TokenError, ValueError) as exc:
        raise ValueError(f"cannot read the input {text!r}") from exc
    if not isinstance(node, ast.Call) or any(isinstance(arg, ast.Starred) for arg in node.args):
        raise ValueError(f"cannot read the input {text!r}")
    try:
        positional = [ast.literal_eval(arg) for arg in node.args]
        named = {keyword.arg: ast.literal_eval(keyword.value) for keyword in node.keywords}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        raise ValueError(f"an input value is not a literal: {text!r}") from exc
    if None in named:
        raise ValueError(f"cannot read the input {text!r}")
    if not named:
        if parameters is not None and len(positional) != len(parameters):
            raise ValueError(f"the input {text!r} does not give the {len(parameters)} parameters")
        return positional
    if parameters is None:
        raise ValueError("named inputs, but the prompt has no method signature to order them by")
    given = parameters[: len(positional)]
    rest = parameters[len(positional) :]
    if set(named) != set(rest) or len(given) != len(positional):
        raise ValueError(f"the input {text!r} does not name the parameters {', '.join(parameters)}")
    return positional + [named[name] for name in rest]


def _example_span(lines: list[str], offsets: list[int], first: int, last: int) -> tuple[int, int]:
    """An example's text for D_Q: its ``Example 1:`` heading, Input and Output, and its Explanation."""
    before = first - 1
    while before >= 0 and not _body(lines[before]).strip():
        before -= 1
    if before >= 0 and _EXAMPLE_HEADING.match(_body(lines[before])):
        first = before
    if last + 1 < len(lines) and _EXPLANATION.match(_body(lines[last + 1])):
        last += 1
        while last + 1 < len(lines) and _body(lines[last + 1]).strip():
            last += 1
    return offsets[first], offsets[last + 1]


def scan_leetcode(text: str, entry_point: str) -> StatementScan:
    """Every ``Input: ...`` / ``Output: ...`` pair of a LeetCode statement, and what could not be read."""
    lines, offsets = _lines(text)
    parameters = method_parameters(text, entry_point)
    scan = StatementScan([])
    stub = solution_stub(text)
    stub_at = len(text) - len(stub) if stub else len(text)
    pending: tuple[int, list[Any] | None] | None = None  # line of the Input, its arguments
    count = 0
    for number, raw in enumerate(lines):
        if offsets[number] >= stub_at:
            break
        line = _body(raw)
        match = _LEETCODE_LINE.match(line)
        if match is None:
            if pending is not None and line.strip():
                scan.problems.append(f"an Input line is not followed by its Output: {line.strip()!r}")
                pending = None
            continue
        part, value = match["part"].lower(), match["value"]
        scan.spans.append(_example_span(lines, offsets, number, number))  # read or not, not description
        if part == "input":
            count += 1
            if pending is not None:
                scan.problems.append("an Input line has no Output line")
            arguments: list[Any] | None = None
            if not value:
                scan.problems.append(f"Example {count}: the Input line shows no value")
            else:
                try:
                    arguments = _call_arguments(value, parameters)
                except ValueError as exc:
                    scan.problems.append(f"Example {count}: {exc}")
            pending = (number, arguments)
            continue
        if pending is None:
            scan.problems.append(f"an Output line follows no Input line: {line.strip()!r}")
            continue
        _, arguments = pending
        pending = None
        if arguments is None:
            continue
        try:
            read_literal(value)
        except ValueError:
            scan.problems.append(f"Example {count}: cannot read the output {value!r}")
            continue
        start = offsets[number] + match.start("value")
        example = StatementExample(
            f"Example {count}", arguments, start, start + len(value), value, "leetcode"
        )
        example.explained = number + 1 < len(lines) and bool(_EXPLANATION.match(_body(lines[number + 1])))
        scan.examples.append(example)
    if pending is not None:
        scan.problems.append("an Input line has no Output line")
    if stub is not None:
        scan.spans.append((stub_at, len(text)))
    return scan


def scan_statement(problem: Problem) -> StatementScan:
    """The worked examples of a stdin or method problem's statement."""
    if problem.kind == "stdin":
        return scan_samples(problem.prompt)
    if problem.kind == "method":
        return scan_leetcode(problem.prompt, problem.entry_point)
    raise ValueError(f"not a statement kind: {problem.kind}")


def statement_prose(prompt: str, kind: str, entry_point: str = "") -> str:
    """The statement without its worked examples and starter code: what D_Q compares.

    Rewriting a sample's output is not a change of wording, and the
    ``class Solution`` stub is the same in every variant, so both are left out.
    """
    if kind == "stdin":
        spans = scan_samples(prompt).spans
    else:
        spans = scan_leetcode(prompt, entry_point).spans
    pieces, cursor = [], 0
    for start, end in sorted(spans):
        if start > cursor:
            pieces.append(prompt[cursor:start])
        cursor = max(cursor, end)
    pieces.append(prompt[cursor:])
    return "".join(pieces)


def _leetcode_style(old: str, value: Any) -> str | None:
    """``value`` spelled as the old output was: JSON (LeetCode) or Python; None when it cannot be."""
    python = bool(re.search(r"\b(?:True|False|None)\b", old)) or old.lstrip().startswith("'")
    try:
        if python:
            text = repr(value)
        else:
            separators = (", ", ": ") if re.search(r"[,:] ", old) else (",", ":")
            text = json.dumps(value, separators=separators, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None
    try:
        back = read_literal(text)
    except ValueError:
        return None
    return text if values_match(value, back, 0.0, strict_sequences=False) else None


def render_output(example: StatementExample, value: Any) -> str:
    """The new spelling of an example's output, or raise ValueError saying why it has none."""
    if example.style == "leetcode":
        text = _leetcode_style(example.output_text, value)
        if text is None:
            raise ValueError(f"{example.label}: the new output {value!r} has no literal spelling")
        return text
    lines = [line.rstrip() for line in str(value).replace("\r\n", "\n").rstrip("\n").split("\n")]
    if not any(lines):
        raise ValueError(f"{example.label}: the new output is empty, which the statement cannot show")
    if example.style == "inline":
        if len(lines) != 1:
            raise ValueError(f"{example.label}: the new output has several lines, the statement one")
        return lines[0]
    if not example.fenced and not all(lines):
        raise ValueError(f"{example.label}: the new output has blank lines, which would end its block")
    return example.newline.join(example.indent + line if line else line for line in lines)


def rewrite_statement(text: str, examples: Sequence[StatementExample], spellings: Sequence[str]) -> str:
    """``text`` with each example's output replaced by its new spelling; nothing else changes."""
    pieces, cursor = [], 0
    for example, spelling in sorted(zip(examples, spellings, strict=True), key=lambda p: p[0].output_start):
        pieces.append(text[cursor : example.output_start])
        pieces.append(spelling)
        cursor = example.output_end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _agrees(problem: Problem, example: StatementExample, value: Any) -> bool:
    """Whether the statement's spelling of an example's output says ``value``."""
    if example.style == "leetcode":
        try:
            return values_match(
                value, read_literal(example.output_text), problem.atol, strict_sequences=False
            )
        except ValueError:
            return False
    return stdout_match(str(value), example.output_text, problem.atol)


def recompute_statement_examples(variants: Sequence[Variant], engine: Engine) -> dict[str, Variant | str]:
    """Per variant id: the variant with its statement's example outputs rewritten, or why it cannot be.

    Each example's input runs under the variant's reference in the sandbox
    (as a test of a probe problem, so the reference cache serves repeats).
    """
    scans = {variant.id: scan_statement(variant) for variant in variants}
    probes = [
        variant.model_copy(
            update={
                "id": f"{variant.id}#statement",
                "tests": [TestCase(input=example.input) for example in scans[variant.id].examples],
            }
        )
        for variant in variants
        if scans[variant.id].examples and not scans[variant.id].problems
    ]
    prepared = engine.prepare(probes)
    computed = {problem.id: problem for problem in prepared.problems}
    results: dict[str, Variant | str] = {}
    for variant in variants:
        scan = scans[variant.id]
        if scan.problems:
            results[variant.id] = f"a worked example of the statement cannot be read: {scan.problems[0]}"
            continue
        if not scan.examples:
            results[variant.id] = variant
            continue
        probe = computed.get(f"{variant.id}#statement")
        if probe is None or len(probe.tests) != len(scan.examples):
            why = prepared.unusable.get(f"{variant.id}#statement") or "; ".join(
                prepared.dropped_tests.get(f"{variant.id}#statement", [])
            )
            results[variant.id] = f"the reference cannot run a worked example of the statement ({why})"
            continue
        outputs = [test.expected for test in probe.tests]
        try:
            spellings = [render_output(e, value) for e, value in zip(scan.examples, outputs, strict=True)]
        except ValueError as exc:
            results[variant.id] = str(exc)
            continue
        prompt = rewrite_statement(variant.prompt, scan.examples, spellings)
        again = scan_statement(variant.model_copy(update={"prompt": prompt}))
        if (
            again.problems
            or len(again.examples) != len(scan.examples)
            or not all(
                _agrees(variant, example, value)
                for example, value in zip(again.examples, outputs, strict=True)
            )
        ):
            results[variant.id] = "the rewritten examples do not read back as the reference's outputs"
            continue
        changed = [
            example
            for example, value in zip(scan.examples, outputs, strict=True)
            if not _agrees(variant, example, value)
        ]
        provenance = {
            **variant.provenance,
            "examples_rewritten": len(scan.examples),
            "examples_changed": len(changed),
        }
        # The explanation under a changed output still argues for the old value; a reviewer must read it.
        stale = [example.label for example in changed if example.explained]
        if stale:
            provenance["explanations_to_check"] = stale
        results[variant.id] = variant.model_copy(update={"prompt": prompt, "provenance": provenance})
    return results
