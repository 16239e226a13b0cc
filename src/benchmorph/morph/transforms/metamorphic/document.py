"""A description taken apart for retelling: prose sentences, list items, lines kept as written, examples.

The rewriter retells prose sentence by sentence, so it needs them whole,
and needs to know what is *not* prose: a table (HumanEval/81's GPA table),
a definition by formula (``fib4(n) -> fib4(n-1) + ...``), a legend
(``'o' - whole note, lasts four beats``).  Those are kept as written, with
renames, and counted.  Worked examples and their headers ("Examples:",
"For example:") are taken out: the retelling shows new ones.

:func:`read` gives the :class:`Description` of a prompt, or the reason it
cannot be retold (no triple-quoted docstring, examples whose values are
explained in prose: an explanation is a requirement in disguise, and
dropping it with its example could lose one).  :func:`assemble` writes the
retold blocks back into the prompt's docstring.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

from benchmorph.data.prompt import anatomy
from benchmorph.validation.concepts import statements
from benchmorph.validation.examples.scan import ExampleScan, scan_examples

_ITEM = re.compile(r"^(?P<marker>[-*•]\s+|\d+[.)]\s+|\(\d+\)\s+)(?P<text>\S.*)$")
_EXAMPLE_HEADER = re.compile(
    r"^(?:for\s+)?(?:examples?|example\s*\d+|examble|sample|\[input/output\]\s+samples?|for\s+example)"
    r"\s*[:.]?\s*$",
    re.IGNORECASE,
)
_LABEL = re.compile(
    r"^(?P<label>note|notes|constraints?|constrain|restrictions?|variables?|task)\s*:?\s*(?P<rest>.*)$", re.I
)
_LEAD_IN = re.compile(
    r"(?:like\s+this|as\s+follows|for\s+example|for\s+instance|examples?|e\.g\.)\s*:?\s*$", re.I
)
_FORMULA_CHARS = re.compile(r"[=<>|^*+/%\[\]{}@→➞≤≥]|->")


@dataclass
class Block:
    """One part of the description, in order.

    ``prose``: ``sentences`` of one paragraph; ``item``: one list item
    (``marker`` + ``sentences[0]``); ``label``: a header such as "Note:" or
    "Constraints:" standing on its own line; ``verbatim``: ``lines`` kept as
    written (relative indentation kept).  ``gap`` says a blank line stood
    before the block.
    """

    kind: str
    sentences: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    marker: str = ""
    label: str = ""
    gap: bool = False


@dataclass
class Description:
    """A prompt's description as blocks, and what the retelling needs to put it back."""

    blocks: list[Block]
    scan: ExampleScan
    indent: str  # of the docstring's text lines
    content_start: int
    content_end: int
    lead: str  # what opens the docstring's text ("\n    " or " ")
    dropped: int = 0  # lines that held only an example header or a stray quote


def _formula(text: str) -> bool:
    """A line a sentence grammar would garble: mostly symbols, or a formula/table/legend line."""
    stripped = text.strip()
    letters = sum(ch.isalpha() for ch in stripped)
    words = re.findall(r"[A-Za-z]{2,}", stripped)
    if not stripped:
        return False
    if stripped.startswith(("@", "'", '"', "#")) or re.match(r"^\w+\s*\(.*\)\s*(?:->|==|=|→)", stripped):
        return True
    if letters < 0.5 * len(stripped):
        return True
    symbols = len(_FORMULA_CHARS.findall(re.sub(r"'[^']*'|\"[^\"]*\"", "", stripped)))
    return symbols >= 2 and len(words) <= 6


def _prose_before_example(line: str, entry_point: str) -> bool:
    """Whether a line the scanner took for an example holds prose before the call ("... from zero. For
    example f(14.5) should"): three words or more that are not an example's lead-in."""
    at = line.find(entry_point + "(")
    if at < 0:
        return False
    before = re.sub(
        r"(?i)\b(?:for\s+example|for\s+instance|e\.g\.|example\s*\d*|examples?|assert|>>>|\*|-|for|then)\b|[:>*-]",
        " ",
        line[:at],
    )
    return len(re.findall(r"[A-Za-z]{2,}", before)) >= 3


_NAMES_EXAMPLES = re.compile(r"(?i)\b(?:examples?|instance|e\.g\.|samples?)\b")


def _defining_examples(lines: list[str], skip: set[int]) -> bool:
    """Whether the lines the scanner read as examples are the base cases of a definition.

    HumanEval/63 states ``fibfib(0) == 0``, ``fibfib(1) == 0``, ``fibfib(2) == 1`` after "defined as
    follows:" and the recurrence after them: they read as examples, yet they *are* the requirement, and
    new examples from the tests would drop two of them (a strict review found the retelling lost
    them).  Such lines follow a sentence ending in a colon that does not announce examples, and prose
    of the description comes after them.
    """
    shown = sorted(n for n in skip if 0 <= n < len(lines))
    if not shown:
        return False
    before = shown[0] - 1
    while before >= 0 and not lines[before].strip():
        before -= 1
    if before < 0:
        return False
    lead = lines[before].strip()
    if not lead.endswith(":") or _EXAMPLE_HEADER.match(lead) or _NAMES_EXAMPLES.search(lead):
        return False
    return any(
        line.strip() and number not in skip and not _EXAMPLE_HEADER.match(line.strip())
        for number, line in enumerate(lines)
        if number > shown[0]
    )


def read(prompt: str, entry_point: str) -> Description | str:
    """The description of ``prompt``, or why it cannot be retold."""
    found = anatomy(prompt, entry_point)
    doc = found.docstring
    if doc is None or len(doc.quote) != 3:
        return "the prompt has no triple-quoted description"
    if doc.raw or "\\" in prompt[doc.content_start : doc.content_end]:
        return "the description holds backslashes (escapes the retelling would have to reproduce)"
    scan = scan_examples(prompt, entry_point)
    if scan.unverifiable:
        return "an example is explained or cannot be read (its explanation could hold a requirement)"
    body = prompt[doc.content_start : doc.content_end]
    first_line = prompt.count("\n", 0, doc.content_start)
    skip = {line - first_line for line in scan.blank_lines}
    lines = body.split("\n")
    indent = doc.indent
    blocks: list[Block] = []
    dropped = 0
    gap = False
    paragraph: list[str] = []

    def close_paragraph() -> None:
        nonlocal gap
        if paragraph:
            blocks.append(Block("prose", statements("\n".join(paragraph)), gap=gap))
            paragraph.clear()
            gap = False

    for number in sorted(skip):
        if 0 <= number < len(lines) and _prose_before_example(lines[number], entry_point):
            return "an example shares its line with prose (taking the example out would cut a sentence)"
    if _defining_examples(lines, skip):
        return "examples are part of a definition (base cases introduced by a colon, the description goes on)"
    previous = ""
    for number, raw in enumerate(lines):
        text = raw.strip()
        depth = len(raw) - len(raw.lstrip())
        after_colon = previous.endswith(":")
        continues = bool(paragraph) and not re.search(r"[.!?:;]$", paragraph[-1])
        if text:
            previous = text
        if number == 0 and re.fullmatch(r"[\"']+", text):
            dropped += 1  # a stray fourth quote (HumanEval/142)
            continue
        if number == 0 and text[:1] in "\"'" and text[1:2].isalpha():
            text = text[1:]  # a stray quote before the first word (HumanEval/68)
        if number in skip or _EXAMPLE_HEADER.match(text):
            if text:
                dropped += 1
            if paragraph and _LEAD_IN.search(paragraph[-1]) and len(paragraph[-1].split()) <= 8:
                paragraph.pop()  # "It must be implemented like this:" introduced the examples that go
                dropped += 1
            close_paragraph()
            continue
        if not text:
            close_paragraph()
            gap = bool(blocks)
            continue
        label = _LABEL.match(text)
        item = _ITEM.match(text)
        if label and not label.group("rest"):
            close_paragraph()
            if label.group("label").lower() == "task":
                dropped += 1
                continue
            blocks.append(Block("label", label=label.group("label"), gap=gap))
            gap = False
            continue
        table = depth > len(indent) + 4 and (
            after_colon or (blocks and blocks[-1].kind == "verbatim" and not paragraph)
        )
        if (_formula(text) and not (continues and not table)) or table:
            close_paragraph()
            relative = raw[len(indent) :] if raw.startswith(indent) else raw.lstrip()
            if blocks and blocks[-1].kind == "verbatim" and not gap:
                blocks[-1].lines.append(relative.rstrip())
            else:
                blocks.append(Block("verbatim", lines=[relative.rstrip()], gap=gap))
            gap = False
            continue
        if item:
            close_paragraph()
            relative = raw[len(indent) : depth] if raw.startswith(indent) else ""
            blocks.append(
                Block(
                    "item",
                    [" ".join(item.group("text").split())],
                    marker=relative + item.group("marker").strip(),
                    gap=gap,
                )
            )
            gap = False
            continue
        if (
            blocks
            and blocks[-1].kind == "item"
            and not paragraph
            and not gap
            and raw.startswith(indent + " ")
        ):
            blocks[-1].sentences[0] += " " + text  # an item's continuation line
            continue
        paragraph.append(text)
    close_paragraph()
    # Every block must hold words: a paragraph of only punctuation is dropped.
    blocks = [b for b in blocks if b.kind != "prose" or any(re.search(r"[A-Za-z]", s) for s in b.sentences)]
    lead = body[: len(body) - len(body.lstrip())]
    return Description(blocks, scan, indent, doc.content_start, doc.content_end, lead, dropped)


def assemble(
    prompt: str,
    described: Description,
    blocks: list[Block],
    examples: list[str],
    example_header: str,
    width: int = 88,
) -> str:
    """``prompt`` with its docstring's text replaced by ``blocks`` and then the examples."""
    indent = described.indent
    inner = max(40, width - len(indent))
    out: list[str] = []
    for block in blocks:
        if out and (block.gap or block.kind == "prose" or out[-1] == ""):
            if out[-1] != "":
                out.append("")
        if block.kind == "prose":
            out += textwrap.wrap(
                " ".join(block.sentences), inner, break_on_hyphens=False, break_long_words=False
            )
        elif block.kind == "item":
            marker = block.marker + " "
            out += textwrap.wrap(
                " ".join(block.sentences),
                inner,
                initial_indent=marker,
                subsequent_indent=" " * len(marker),
                break_on_hyphens=False,
                break_long_words=False,
            )
        elif block.kind == "label":
            out.append(f"{block.label.capitalize()}:")
        else:
            out += block.lines
    if examples:
        if out:
            out.append("")
        out.append(example_header)
        out += examples
    lines = [(indent + line if line.strip() else "") for line in out]
    if described.lead.startswith("\n") or not lines:
        body = "\n" + "\n".join(lines) + "\n" + indent
    else:  # the text began on the opening quotes' line: so does the retelling
        body = " " + "\n".join([lines[0].lstrip(), *lines[1:]]) + "\n" + indent
    return prompt[: described.content_start] + body + prompt[described.content_end :]
