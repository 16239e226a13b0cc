"""The offline (``--generator rules``) half of the ``evolve`` transform: combine and tool_use without an LLM.

**combine by composition.**  ``h(x) = g(f(x))`` for two problems of a
benchmark where ``g`` takes one parameter (the one case that stays sound
without choosing values for g's other parameters: we never invent them) and
every output of ``f``'s reference on f's tests is admitted by the type of g's
parameter (``validation.types``), and lies inside what g's own tests show of
that parameter (:func:`inside_observed`: no negative number, zero, empty
container or new kind of character where g's tests never had one; a
description that says "positive integers" is not contradicted by a test we
make).  The description joins both descriptions with one fixed template of
ours, the prompt shows f's parameters under a new name, and the reference
holds both references (names that clash renamed) and calls one on the
other's result.

**tool_use by extracting helpers.**  A helper the reference defines inside
its entry point (HumanEval's ``is_prime``) moves to the prompt, in full, with
a docstring; the reference is the new prompt plus the parent's solution
without its own copy, so it is proved to work by calling the helper as
given.  Helpers rarely have docstrings; one is written only from a name we
know (:data:`NAMED_HELPERS`) and only after the helper agrees with a trusted
implementation of that name on a range of inputs, run in the sandbox
(precision over yield: ``digits_sum`` or ``check`` say too little to write a
true sentence about them).  A combined problem gives a second source: its
first step, ``f``, given in full as a helper the solution is told to call.

Everything here proposes; ``benchmorph.morph.transforms.evolve.evolve`` prepares, generates
tests and finalizes.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
import string
import textwrap
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmorph.data.models import Problem
from benchmorph.morph.common.docstrings import split_prompt, strip_examples
from benchmorph.testgen.types import Signature, admits, infer_signature, infer_type
from benchmorph.validation.examples.scan import render_value
from benchmorph.validation.preconditions import Preconditions, stated_preconditions

# ----------------------------------------------------------------------------------------- shared


def parse_code(code: str) -> ast.Module | None:
    """The module, or None for code that does not parse (model answers often do not); never warns."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(code)
        except (SyntaxError, ValueError):
            return None


def _entry(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    return found[-1] if found else None


_EXAMPLE_LINE = re.compile(r">>>|=|➞|->")
_WORD = re.compile(r"[A-Za-z]{2,}")
_LIST_ITEM = re.compile(r"([-*•]|\d+[.)])\s")


_TABLE_ROW = re.compile(r"""^(?:['"`]|\S+\s+(?:-|->|=|:)\s)""")


def _paragraphs(text: str) -> str:
    """Lines of one paragraph joined (the source's line breaks are not the reader's); list items, lines
    after a colon and extra-indented lines (a formula) stay on their own; blank lines stay paragraphs."""
    units: list[str] = []
    previous = ""
    table = False  # inside the rows after a line ending in a colon ("Here is a legend:")
    for line in text.splitlines():
        stripped = line.strip()
        after_item = bool(_LIST_ITEM.match(previous.strip())) and stripped[:1].isupper()
        table = bool(stripped) and (
            previous.rstrip().endswith(":") or (table and bool(_TABLE_ROW.match(stripped)))
        )
        if not stripped:
            units.append("")
        elif table or line.startswith((" ", "\t")):
            units.append(line.rstrip())  # a table row or a formula: as laid out
        elif not units or not units[-1] or _LIST_ITEM.match(stripped) or after_item:
            units.append(stripped)
        else:
            units[-1] += " " + stripped
        previous = line
    return re.sub(r"\n{3,}", "\n\n", "\n".join(units)).strip()


# After the worked examples, a line that still says something of the task: a constraints section
# ("Constraints: 0 ≤ N ≤ 10000", HumanEval/84), a relation, or a note.
_LATE_SECTION = re.compile(r"^\W*(constraints?|restrictions?|variables?|notes?|assume)\b|[≤≥]|<=|>=", re.I)


def _says_more(line: str, entry_point: str) -> bool:
    """Whether a line after the examples is part of the description (not an example, call or value)."""
    stripped = line.strip()
    if not stripped or stripped[0] in "'\"[({" or entry_point in line:
        return False
    if _LATE_SECTION.search(stripped):
        return True
    return len(_WORD.findall(line)) >= 3 and not _EXAMPLE_LINE.search(line)


def description(problem: Problem) -> str | None:
    """The problem's description as a reader sees it, without worked examples; None if it has none, or if
    the docstring goes on after the examples (HumanEval/139 says what the function returns only there,
    HumanEval/84 its output type and range: a description cut at the examples would lose it), or if the
    kept text ends in a lead-in ("defined as follows:") whose content was in the examples' place."""
    parts = split_prompt(problem)
    if isinstance(parts, str):
        return None
    kept = strip_examples(parts.text, problem.entry_point).strip()
    full = (
        parts.text + "\n" + (inspect.cleandoc(parts.examples) if parts.examples.strip() else "")
    ).splitlines()
    if any(_says_more(line, problem.entry_point) for line in full[len(kept.splitlines()) :]):
        return None
    if kept.rstrip().endswith(":"):
        return None
    text = _paragraphs(kept).lstrip("\"' \n")
    if text and text[-1].isalnum() and len(_WORD.findall(text.splitlines()[-1])) >= 3:
        text += "."  # a sentence the source left open; not a table's last cell
    return text or None


def imports_of(*prompts: str) -> list[str]:
    """The prompts' top-level import statements, once each; ``from typing import`` names merged."""
    found: list[str] = []
    typing: list[str] = []
    for prompt in prompts:
        tree = parse_code(prompt)
        for node in tree.body if tree is not None else []:
            if isinstance(node, ast.ImportFrom) and node.module == "typing" and not node.level:
                typing.extend(alias.name for alias in node.names if alias.asname is None)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                found.append(ast.unparse(node))
    if typing:
        found.insert(0, "from typing import " + ", ".join(dict.fromkeys(typing)))
    return list(dict.fromkeys(found))


def single_function(problem: Problem) -> bool:
    """A function problem whose prompt defines the entry point and nothing else callable."""
    tree = parse_code(problem.prompt)
    if problem.kind != "function" or tree is None:
        return False
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    return len(defs) == 1 and defs[0].name == problem.entry_point


# ------------------------------------------------------------------------------- observed domain


def _char_classes(text: str) -> set[str]:
    classes = set()
    for char in text:
        if char.islower():
            classes.add("lower")
        elif char.isupper():
            classes.add("upper")
        elif char.isdigit():
            classes.add("digit")
        elif char.isspace():
            classes.add(" " if char == " " else "other-space")
        elif char in string.punctuation:
            classes.add(char)
        else:
            classes.add("other")
    return classes


@dataclass
class Observed:
    """What a parameter's test values show: signs and sizes of numbers, emptiness, lengths, kinds of
    characters, per nesting level."""

    negative: bool = False
    zero: bool = False
    empty: bool = False
    chars: set[str] | None = None
    items: Observed | None = None
    largest: float = 0.0  # the largest magnitude of a number seen
    longest: int = 0  # the longest string or container seen

    def add(self, value: Any) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, int | float):
            self.negative |= value < 0
            self.zero |= value == 0
            self.largest = max(self.largest, abs(value))
            return
        if isinstance(value, str | list | tuple | set | frozenset | dict):
            self.longest = max(self.longest, len(value))
        if isinstance(value, str):
            self.empty |= not value
            self.chars = (self.chars or set()) | _char_classes(value)
        elif isinstance(value, list | tuple | set | frozenset):
            self.empty |= not value
            self.items = self.items or Observed()
            for item in value:
                self.items.add(item)
        elif isinstance(value, dict):
            self.empty |= not value
            self.items = self.items or Observed()
            for item in [*value.keys(), *value.values()]:
                self.items.add(item)


def observe(values: Sequence[Any]) -> Observed:
    seen = Observed()
    for value in values:
        seen.add(value)
    return seen


def inside_observed(value: Any, seen: Observed) -> bool:
    """Whether ``value`` shows nothing that the observed values never did: a sign, zero, emptiness, a kind
    of character, or a size more than twice the largest seen (and above 10)."""
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        sized = abs(value) <= max(2 * seen.largest, 10)  # a number far beyond the tests' is out of range
        return sized and (value >= 0 or seen.negative) and (value != 0 or seen.zero)
    if isinstance(value, str | list | tuple | set | frozenset | dict) and len(value) > max(
        2 * seen.longest, 10
    ):
        return False
    if isinstance(value, str):
        return (bool(value) or seen.empty) and _char_classes(value) <= (seen.chars or set())
    if isinstance(value, list | tuple | set | frozenset | dict):
        if not value:
            return seen.empty
        items = [*value.keys(), *value.values()] if isinstance(value, dict) else list(value)
        return seen.items is not None and all(inside_observed(item, seen.items) for item in items)
    return True


# ---------------------------------------------------------------------------------------- combine


@dataclass
class Fit:
    """Why g can take f's outputs: g's parameter, its type, and which of f's inputs keep g inside its domain."""

    g_param: str
    inside: list[int]  # positions of f's tests whose output lies inside g's observed domain


@dataclass(frozen=True)
class Shape:
    """What composing needs to know of a problem, computed once: its signature, its first parameter's
    observed range, and the preconditions its description states (``validation.preconditions``)."""

    single: bool
    sig: Signature
    seen: Observed | None
    pre: Preconditions = field(default_factory=Preconditions)
    readable: bool = False  # the description can be read out of the prompt (``description``)

    @property
    def assumes(self) -> bool:
        """The description states a precondition no bound reads ("Assume n > 1 and is not a prime")."""
        return bool(self.pre.unread)


def shape(problem: Problem) -> Shape:
    sig = infer_signature(problem)
    single = single_function(problem)
    seen = observe([test.input[0] for test in problem.tests]) if single and sig.arity == 1 else None
    text = description(problem) if single else None
    pre = stated_preconditions(text, param_names(problem)) if text else Preconditions()
    return Shape(single, sig, seen, pre, readable=text is not None)


def fits(f: Problem, g: Problem, f_shape: Shape | None = None, g_shape: Shape | None = None) -> Fit | None:
    """Whether ``g(f(x))`` is a sound composition on f's prepared tests (see the module docstring)."""
    f_shape = f_shape or shape(f)
    g_shape = g_shape or shape(g)
    if f.id == g.id or not (f_shape.single and g_shape.single):
        return None
    outputs = [test.expected for test in f.tests if test.has_expected]
    if not outputs or len(outputs) != len(f.tests):
        return None
    sig = g_shape.sig
    if sig.arity != 1 or sig.required != 1 or g_shape.seen is None:
        return None
    if g_shape.assumes:
        return None  # "Assume n > 1 and is not a prime": a precondition no bound reads
    ((g_param, g_type),) = sig.params
    if not all(admits(g_type, out, numeric_widening=True) for out in outputs):
        return None
    if str(infer_type(outputs)) in ("Any", "None", "bool"):
        return None  # g of a constant or of a yes/no answer says nothing of f
    inside = [i for i, out in enumerate(outputs) if receivable(out, g_shape)]
    return Fit(g_param, inside)


def receivable(value: Any, g_shape: Shape) -> bool:
    """Whether g may receive ``value``: inside what g's tests show, and honouring every bound g states
    ("Knowing that (a) is less then 100")."""
    return g_shape.seen is not None and inside_observed(value, g_shape.seen) and g_shape.pre.holds(value)


def combined_name(f: Problem, g: Problem) -> str:
    return f"{f.entry_point}_then_{g.entry_point}"


# The steps are not named after the parents' functions: the new problem has neither, and a step's
# text that named its function is rewritten or refused (``wording.as_step``, ``checks.steps``).
COMBINE_TEMPLATE = """\
This function works in two steps.

Step 1, on the arguments of this function: {f_text}

Step 2: take the value that step 1 returns as `{g_param}`, and do this: {g_text}

Return what step 2 returns."""


def _top_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def rename(code: str, renames: dict[str, str]) -> str:
    for old, new in renames.items():
        code = re.sub(rf"(?<![\w.]){re.escape(old)}(?!\w)", new, code)
    return code


def signature_line(f: Problem, g: Problem, name: str) -> str | None:
    """``def NAME(<f's parameters, annotated as f's prompt has them>) -> <g's return annotation>:``."""
    f_tree, g_tree = parse_code(f.prompt), parse_code(g.prompt)
    f_def = _entry(f_tree, f.entry_point) if f_tree else None
    g_def = _entry(g_tree, g.entry_point) if g_tree else None
    if f_def is None or g_def is None:
        return None
    returns = f" -> {ast.unparse(g_def.returns)}" if g_def.returns is not None else ""
    return f"def {name}({ast.unparse(f_def.args)}){returns}:"


def docstring_block(text: str, examples: Sequence[tuple[str, str]] = ()) -> str:
    """A four-space indented triple-quoted docstring of ``text`` (wrapped) and doctest examples."""
    lines: list[str] = []
    for paragraph in text.replace('"""', "'''").replace("\\", "\\\\").split("\n\n"):
        for raw in paragraph.splitlines():
            wrapped = textwrap.wrap(raw, 92, break_long_words=False, break_on_hyphens=False) or [""]
            lines.extend(wrapped)
        lines.append("")
    for call, result in examples:
        lines.extend([f">>> {call}", result])
    while lines and not lines[-1]:
        lines.pop()
    body = "\n".join(f"    {line}" if line else "" for line in lines)
    return f'    """\n{body}\n    """\n'


@dataclass
class Combined:
    """A composed problem: its prompt and reference, the steps' texts as they now read, and the parts a
    mutant of either parent replaces (``reference_with``)."""

    prompt: str
    reference: str
    entry_point: str
    g_param: str
    f_text: str = ""
    g_text: str = ""
    f_code: str = ""
    g_code: str = ""  # g's reference with the names that clash with f's renamed
    renames: dict[str, str] = field(default_factory=dict)
    call: str = ""

    def reference_with(self, f_code: str | None = None, g_code: str | None = None) -> str:
        """The composed reference with f's or g's code replaced (a mutant's; g's is renamed as g was)."""
        f_part = (f_code if f_code is not None else self.f_code).rstrip()
        g_part = (rename(g_code, self.renames) if g_code is not None else self.g_code).rstrip()
        return f"{f_part}\n\n\n{g_part}\n\n\n{self.prompt}    return {self.call}\n"


def step_examples(step: str, shown: Sequence[tuple[Any, Any]]) -> str:
    """One sentence showing what a step gives on a parent's own examples ("For example, for 'ACEDY'
    step 1 gives 3."): the parent's examples carried what its words leave open (uppercase vowels count,
    a negative number's first digit counts negative), and the step keeps them."""
    parts = []
    for args, out in shown:
        values = args if isinstance(args, list | tuple) else [args]
        given = render_value(values[0]) if len(values) == 1 else "the arguments (" + _args(values) + ")"
        parts.append((given, render_value(out)))
    if not parts:
        return ""
    first = f"for {parts[0][0]} {step} gives {parts[0][1]}"
    rest = "".join(f", and for {given} it gives {out}" for given, out in parts[1:])
    return f"\nFor example, {first}{rest}."


def combine(
    f: Problem,
    g: Problem,
    g_param: str,
    examples: Sequence[tuple[Any, Any]] = (),
    f_shown: Sequence[tuple[Any, Any]] = (),
    g_shown: Sequence[tuple[Any, Any]] = (),
) -> Combined | str:
    """The composed problem's prompt and reference, or why it cannot be written.

    ``examples``: worked examples of the composed function (arguments, output);
    ``f_shown``/``g_shown``: each parent's own examples, stated in its step.
    """
    from benchmorph.morph.transforms.evolve.wording import as_step

    f_text, g_text = description(f), description(g)
    if f_text is None or g_text is None:
        return "a description cannot be read out of the prompt"
    f_text, g_text = as_step(f_text, f.entry_point), as_step(g_text, g.entry_point)
    name = combined_name(f, g)
    header = signature_line(f, g, name)
    if header is None:
        return "a signature cannot be read out of the prompt"
    f_tree, g_tree = parse_code(f.reference), parse_code(g.reference)
    if f_tree is None or g_tree is None:
        return "a reference does not parse"
    taken = _top_names(f_tree) | {name}
    renames = {old: f"{old}_2" for old in _top_names(g_tree) if old in taken}
    g_code = rename(g.reference, renames)
    g_entry = renames.get(g.entry_point, g.entry_point)
    text = COMBINE_TEMPLATE.format(
        f_text=f_text + step_examples("step 1", f_shown),
        g_text=g_text + step_examples("step 2", g_shown),
        g_param=g_param,
    )
    shown = [(f"{name}({_args(args)})", render_value(out)) for args, out in examples]
    imports = imports_of(f.prompt, g.prompt)
    head = "\n".join(imports) + "\n\n\n" if imports else ""
    prompt = head + header + "\n" + docstring_block(text, shown)
    call = f"{g_entry}({f.entry_point}({', '.join(param_names(f))}))"
    built = Combined(prompt, "", name, g_param, f_text, g_text, f.reference, g_code, renames, call)
    built.reference = built.reference_with()
    if parse_code(prompt) is None or parse_code(built.reference) is None:
        return "the composed prompt or reference does not parse"
    return built


def without_imports(code: str) -> str:
    """``code`` without its top-level import lines (the prompt states them once, at its top)."""
    tree = parse_code(code)
    if tree is None:
        return code
    drop = {
        line
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }
    lines = code.splitlines(keepends=True)
    return "".join(line for number, line in enumerate(lines, 1) if number not in drop).strip("\n") + "\n"


def param_names(problem: Problem) -> list[str]:
    tree = parse_code(problem.prompt)
    node = _entry(tree, problem.entry_point) if tree else None
    if node is None:
        return []
    return [a.arg for a in node.args.posonlyargs + node.args.args]


def _args(args: Any) -> str:
    values = args if isinstance(args, list | tuple) else [args]
    return ", ".join(render_value(value) for value in values)


# --------------------------------------------------------------------------------------- tool_use


@dataclass
class Helper:
    """A function defined inside the entry point, its parameter and source, ready to be documented."""

    name: str
    arg: str
    source: str  # dedented, without a docstring
    node: ast.FunctionDef
    imports: list[str] = field(default_factory=list)  # imports of the entry point's body it needs

    @property
    def code(self) -> str:
        """The helper as it runs on its own: its imports, then its source."""
        return "".join(f"{line}\n" for line in self.imports) + ("\n" if self.imports else "") + self.source


def nested_helpers(problem: Problem) -> list[Helper]:
    """Single-parameter functions defined directly in the entry point's body that need nothing from it.

    A helper that reads a local of the entry point (a closure) cannot be moved
    out, so such helpers are left where they are.
    """
    tree = parse_code(problem.reference)
    entry = _entry(tree, problem.entry_point) if tree else None
    if tree is None or entry is None:
        return []
    module_names = _top_names(tree) | {
        alias.asname or alias.name.split(".")[0]
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    # Imports the entry point makes in its own body (HumanEval/39's `import math`) travel with the helper.
    local_imports = {
        alias.asname or alias.name.split(".")[0]: ast.unparse(node)
        for node in entry.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    found = []
    for node in entry.body:
        if not isinstance(node, ast.FunctionDef) or len(node.args.args) != 1 or node.decorator_list:
            continue
        if node.args.vararg or node.args.kwarg or node.args.kwonlyargs or node.args.defaults:
            continue
        local = {a.arg for a in node.args.args} | {node.name}
        local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        loads = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        free = loads - local - module_names - set(dir(builtins))
        if free - set(local_imports):
            continue
        source = ast.get_source_segment(problem.reference, node)
        if source is None:
            continue
        source = textwrap.dedent(" " * node.col_offset + source)
        imports = list(dict.fromkeys(local_imports[name] for name in sorted(free)))
        found.append(Helper(node.name, node.args.args[0].arg, source, node, imports))
    return found


def documented(helper: Helper, docstring: str) -> str:
    """The helper's source with ``docstring`` as its first statement (it had none)."""
    lines = helper.source.splitlines()
    head_end = helper.node.body[0].lineno - helper.node.lineno  # lines of the def header
    body_indent = (
        lines[head_end][: len(lines[head_end]) - len(lines[head_end].lstrip())]
        if head_end < len(lines)
        else "    "
    )
    doc = f'{body_indent}"""{docstring}"""'
    source = "\n".join([*lines[:head_end], doc, *lines[head_end:]]) + "\n"
    return "".join(f"{line}\n" for line in helper.imports) + ("\n\n" if helper.imports else "") + source


def without_helper(problem: Problem, helper: Helper) -> str | None:
    """The parent's reference with the helper's nested definition removed (the prompt now gives it)."""
    lines = problem.reference.splitlines(keepends=True)
    start, end = helper.node.lineno - 1, helper.node.end_lineno
    if end is None:
        return None
    code = "".join(lines[:start] + lines[end:])
    return code if parse_code(code) is not None else None


def with_tool(problem: Problem, helper_code: str, sentence: str) -> str | None:
    """The parent's prompt with ``helper_code`` placed before the entry point and ``sentence`` ending the
    description (before the examples), or None where the prompt cannot be cut."""
    parts = split_prompt(problem)
    if isinstance(parts, str):
        return None
    tree = parse_code(problem.prompt)
    entry = _entry(tree, problem.entry_point) if tree else None
    if entry is None:
        return None
    desc = parts.description.rstrip()
    new_desc = f"{desc}\n{parts.indent}{sentence}" + ("\n" if parts.examples else "")
    prompt = parts.before + parts.head + new_desc + (parts.examples or parts.tail) + parts.after
    lines = prompt.splitlines(keepends=True)
    at = (entry.decorator_list[0].lineno if entry.decorator_list else entry.lineno) - 1
    prompt = "".join(lines[:at]) + helper_code.rstrip() + "\n\n\n" + "".join(lines[at:])
    return prompt if parse_code(prompt) is not None else None
