"""The context generator's and the rewriter's requests of the LLM metamorphic generator (DyCodeEval).

The other two agents are shared with the families that retell problems:
the scenario proposer (``morph.common.scenario_prompts``) and the
validator (``morph.common.judge``); answers are read tolerantly by
``morph.common.answers``.  Chat models are asked for JSON; base models
(``local``) get a completion prompt that ends where the JSON or docstring
they should write begins, and the reader puts the prefilled part back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from benchmorph.models.prompts import Request
from benchmorph.models.spec import Mode
from benchmorph.morph.common.answers import clean_text, read_json

# ------------------------------------------------------------------ context generator

CONTEXT_CHAT = """A programming exercise is going to be retold as a story in this setting:
{scenario}

The exercise's function, with the parameter types observed in its tests:
    {signature}

Its description:
<<<
{description}
>>>

Give every parameter a meaning in the setting and a new name that says it (a descriptive Python \
identifier in snake_case, not a single letter), and give the function a new descriptive name too. The \
meaning must fit the parameter's type exactly (a list[int] stays a list of whole numbers, a str stays one \
piece of text, a bool a yes/no answer) and play the same role the parameter plays in the description.

Reply with JSON only, in this form: {form}"""


def _form(names: Sequence[str]) -> str:
    params = ", ".join(
        f'"{name}": {{"name": "<new name>", "meaning": "<its meaning in the setting>"}}' for name in names
    )
    return '{"function": "<new function name>", "parameters": {' + params + "}}"


@dataclass(frozen=True)
class Contexts:
    """The context generator's answer: a meaning per parameter, and the new names it proposes."""

    meanings: dict[str, str]
    names: dict[str, str] = field(default_factory=dict)  # old -> proposed new (may be partial or empty)
    function: str | None = None


def context_request(
    scenario: str, signature: str, names: Sequence[str], description: str, mode: Mode
) -> Request:
    """Ask what each parameter (``names``, typed in ``signature``) stands for in ``scenario`` and what to
    call it, and what to call the function.  A base model (``completion``) is asked for meanings only."""
    if mode == "chat":
        text = CONTEXT_CHAT.format(
            scenario=scenario, signature=signature, description=description.strip(), form=_form(names)
        )
        return Request("chat", messages=(("user", text),))
    first = names[0] if names else "value"
    prompt = (
        f"Setting: {scenario}\nFunction: {signature}\nTask: {' '.join(description.split())}\n\n"
        "What each parameter means in this setting (JSON, one short phrase per parameter):\n"
        f'{{"{first}": "'
    )
    return Request("completion", prompt=prompt, stop=("}", "\n\n"))


def parse_contexts(request: Request, text: str, names: Sequence[str]) -> tuple[Contexts | None, str | None]:
    """(the contexts, None) or (None, why the answer cannot be used).

    Read tolerantly: ``{"function": ..., "parameters": {p: {"name", "meaning"}}}``,
    or parameters at the top level, or a bare meaning per parameter (then no
    names are proposed and the parameters keep theirs).
    """
    if request.mode == "completion":
        answer = re.split(r"\}|\n\n", text, maxsplit=1)[0].rstrip().rstrip(",")  # up to a stop sequence
        text = request.prompt[request.prompt.rindex('{"') :] + answer + "}"
        if text.count('"') % 2:  # the answer stopped inside a string: close it
            text = text[:-1] + '"}'
    value = read_json(text, dict)
    if value is None:
        return None, "no JSON object in the answer"
    table = value.get("parameters") if isinstance(value.get("parameters"), dict) else value
    meanings: dict[str, str] = {}
    proposed: dict[str, str] = {}
    for key, entry in table.items():
        key = str(key).strip()
        if isinstance(entry, dict):
            meaning = entry.get("meaning") or entry.get("context") or entry.get("description")
            if isinstance(meaning, str | int | float):
                meanings[key] = clean_text(meaning)
            if isinstance(entry.get("name"), str):
                proposed[key] = entry["name"].strip().strip("`")
        elif isinstance(entry, str | int | float):
            meanings[key] = clean_text(entry)
    missing = [name for name in names if not meanings.get(name)]
    if missing:
        return None, "no meaning for parameter " + ", ".join(missing)
    function = value.get("function") if isinstance(value.get("function"), str) else None
    return (
        Contexts(
            {name: meanings[name] for name in names},
            {name: proposed[name] for name in names if proposed.get(name)},
            function.strip().strip("`").removesuffix("()") if function else None,
        ),
        None,
    )


# ------------------------------------------------------------------ rewriter

REWRITE_CHAT = """Retell a programming exercise in a new setting without changing what the function \
must compute.

Setting: {scenario}
The function is now written with these names (same parameters, in the same order):
    {stub}
What each parameter stands for in the setting (with the types its values have in the tests):
{contexts}

The original description:
<<<
{description}
>>>
{examples}{conditions}
Rules:
- Tell the same task as part of the setting: let the setting's nouns take the place of the generic ones \
(a "list of numbers" becomes what the numbers are in the setting), and call each parameter by its new \
name, in backticks.
- Say everything in your own sentences: change their structure and their words; never copy a run of \
words from the original.
- Keep every requirement, every condition on the inputs, every special or edge case, every tie rule and \
the exact form of the returned value. Add no requirement, drop none.
- Write no examples: worked examples are added after your text.
{feedback}
Reply with JSON only: {{"description": "<the new description, plain text>"}}"""

REWRITE_COMPLETION = '''{old_stub}
    """{description}"""


# The same function, renamed. Only its description is retold for the setting "{scenario}", where {contexts}.
# What it computes, its conditions and its edge cases are unchanged.
{stub}
    """'''


def _context_lines(
    contexts: dict[str, str], types: dict[str, str], names: dict[str, str] | None = None
) -> str:
    names = names or {}
    return "\n".join(
        f"- `{names.get(name, name)}` ({'was ' + name + ', ' if names.get(name, name) != name else ''}"
        f"{types.get(name, '?')}): {meaning}"
        for name, meaning in contexts.items()
    )


def rewrite_request(
    scenario: str,
    stub: str,
    contexts: dict[str, str],
    types: dict[str, str],
    description: str,
    mode: Mode,
    feedback: str | None = None,
    examples: str = "",
    names: dict[str, str] | None = None,
    conditions: Sequence[str] = (),
    old_stub: str | None = None,
) -> Request:
    """Ask for the whole description retold in ``scenario``; ``feedback`` says why an earlier one failed.

    ``stub`` is the renamed ``def`` line (``names``: old parameter name ->
    new); ``examples`` the original's worked examples, shown to chat models so
    they read the task right (new ones are written by the caller, never taken
    from the answer); ``conditions`` the original's statements of constraints,
    preconditions and edge cases, each of which the retelling must keep.
    """
    if mode == "chat":
        note = (
            f"- An earlier retelling was rejected: {feedback}. Do not repeat that mistake.\n"
            if feedback
            else ""
        )
        listed = "".join(f"- {condition}\n" for condition in conditions)
        text = REWRITE_CHAT.format(
            scenario=scenario,
            stub=stub.strip(),
            contexts=_context_lines(contexts, types, names),
            description=description.strip(),
            examples=(
                f"Its examples (shown so you read the task right; do not repeat them):\n<<<\n{examples.strip()}\n>>>\n"
                if examples.strip()
                else ""
            ),
            conditions=(
                f"Every one of these conditions of the original must still be stated, in your own words:\n{listed}"
                if listed
                else ""
            ),
            feedback=note,
        )
        return Request("chat", messages=(("user", text),))
    meanings = "; ".join(
        f"{(names or {}).get(name, name)} is {meaning}" for name, meaning in contexts.items()
    )
    prompt = REWRITE_COMPLETION.format(
        old_stub=(old_stub or stub).rstrip(),
        stub=stub.rstrip(),
        description=description.strip().replace('"""', "'''"),
        scenario=scenario,
        contexts=meanings,
    )
    return Request("completion", prompt=prompt, stop=('"""', "'''", "\ndef ", "\n```"))
