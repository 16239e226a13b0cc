"""What both generators' retellings are made of: renamed code, a new docstring, new examples, one draft.

The rules generator and the LLM agents differ only in how they find the new
names and the new description.  Everything after that is shared, so both
meet the same gates with the same evidence:

- :func:`rename_all` renames the function and parameters in the prompt's
  code, the reference and an EvalPlus contract (through the AST), or says why
  it cannot;
- :func:`new_examples` chooses and renders the worked examples
  (``worked``: from the tests, valued by the reference, in a style the
  parent did not use, avoiding inputs earlier siblings showed);
- :func:`splice` writes description blocks and examples into the renamed
  prompt's docstring;
- :func:`retelling_draft` is the one ``Draft`` every retelling goes to
  ``finalize_variants`` as: outputs kept, its examples checked against its
  reference, and the retelling gates on (``retold=True``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmorph.data.models import Problem, Variant
from benchmorph.data.prompt import anatomy
from benchmorph.morph.finalize import Draft
from benchmorph.morph.transforms.metamorphic import document, worked
from benchmorph.morph.transforms.metamorphic.document import Block, Description
from benchmorph.morph.transforms.metamorphic.renaming import rename_code, rename_contract
from benchmorph.validation.examples.scan import ExampleScan

MIN_EXAMPLES = 2


@dataclass(frozen=True)
class Renamed:
    """The parent's code with the new names."""

    prompt: str
    reference: str
    contract: str | None
    renames: dict[str, str]  # parameters only, old -> new
    entry_point: str


def rename_all(problem: Problem, params: dict[str, str], entry_point: str) -> Renamed | str:
    """The prompt, reference and contract with ``params`` (old -> new) and the function renamed."""
    code = {old: new for old, new in params.items() if old != new}
    if entry_point != problem.entry_point:
        code[problem.entry_point] = entry_point
    prompt = rename_code(problem.prompt, code)
    reference = rename_code(problem.reference, code)
    contract = rename_contract(problem.contract, code)
    if prompt is None or reference is None or (problem.contract and contract is None):
        return "the renamer refuses this code (an f-string, a global or reflection on names)"
    return Renamed(prompt, reference, contract, {o: n for o, n in params.items() if o != n}, entry_point)


@dataclass(frozen=True)
class Examples:
    lines: list[str]
    header: str
    style: str
    inputs: list[str]  # keys of the inputs shown (``worked.key``), for later siblings to avoid


def new_examples(
    problem: Problem,
    scan: ExampleScan,
    index: int,
    entry_point: str,
    names: Sequence[str] | None,
    offset: int = 0,
    shown_before: frozenset[str] = frozenset(),
    keep_only: bool = False,
) -> Examples:
    """The worked examples retelling ``index`` shows (``names``: the parameters' new names, where the
    prompt shows them)."""
    wanted = max(MIN_EXAMPLES, min(3, len(scan.examples)))
    shown = worked.choose(problem, scan, index, wanted, offset, shown_before, keep_only)
    taken = worked.parent_styles(scan, problem.prompt)
    style = worked.pick_style(taken, index, names is not None, problem.id, [s.value for s in shown])
    quote = '"' if any('"' in line for line in problem.prompt.splitlines() if ">>>" in line) else "'"
    lines = worked.render(shown, style, entry_point, names, quote)
    inputs = [worked.key(list(s.args)) for s in shown if not s.edge]
    return Examples(lines, worked.header(style, index, problem.id), style, inputs)


def splice(renamed: Renamed, described: Description, blocks: list[Block], examples: Examples) -> str | None:
    """The renamed prompt with its docstring's text replaced by ``blocks`` and the examples."""
    placed = anatomy(renamed.prompt, renamed.entry_point)
    if placed.docstring is None:
        return None
    target = Description(
        blocks, described.scan, described.indent, placed.docstring.content_start,
        placed.docstring.content_end, described.lead,
    )  # fmt: skip
    return document.assemble(renamed.prompt, target, blocks, examples.lines, examples.header)


def reference_for(problem: Problem, renamed: Renamed, new_prompt: str) -> str | None:
    """The variant's reference: HumanEval's continues its prompt (docstring included), MBPP's stands alone."""
    if problem.reference.startswith(problem.prompt):
        if not renamed.reference.startswith(renamed.prompt):
            return None
        return new_prompt + renamed.reference[len(renamed.prompt) :]
    return renamed.reference


def retelling_draft(variant: Variant, parent: Problem) -> Draft:
    """The draft of a retelling, whichever generator made it: outputs kept, its own worked examples
    checked against its reference, and the rewording and sibling gates on (``Draft(retold=True)``)."""
    return Draft(
        variant,
        parent,
        outputs="keep",
        failed_inputs="reject",
        examples="keep",
        parent_defects="record",
        retold=True,
    )
