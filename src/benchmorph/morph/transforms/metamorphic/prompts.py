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

Give every parameter a meaning in the setting. The meaning must fit the parameter's type exactly \
(a list[int] stays a list of whole numbers, a str stays one piece of text, a bool a yes/no answer) and \
play the same role the parameter plays in the description.

Reply with JSON only, one key per parameter, in this form: {form}"""


def _form(names: Sequence[str]) -> str:
    return "{" + ", ".join(f'"{name}": "<its meaning in the setting>"' for name in names) + "}"


def context_request(
    scenario: str, signature: str, names: Sequence[str], description: str, mode: Mode
) -> Request:
    """Ask what each parameter (``names``, typed in ``signature``) stands for in ``scenario``."""
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


def parse_contexts(
    request: Request, text: str, names: Sequence[str]
) -> tuple[dict[str, str] | None, str | None]:
    """({parameter: meaning} for every parameter, None) or (None, why the answer cannot be used)."""
    if request.mode == "completion":
        answer = re.split(r"\}|\n\n", text, maxsplit=1)[0].rstrip().rstrip(",")  # up to a stop sequence
        text = request.prompt[request.prompt.rindex('{"') :] + answer + "}"
        if text.count('"') % 2:  # the answer stopped inside a string: close it
            text = text[:-1] + '"}'
    value = read_json(text, dict)
    if value is None:
        return None, "no JSON object in the answer"
    meanings = {
        str(key).strip(): clean_text(val) for key, val in value.items() if isinstance(val, str | int | float)
    }
    missing = [name for name in names if not meanings.get(name)]
    if missing:
        return None, "no meaning for parameter " + ", ".join(missing)
    return {name: meanings[name] for name in names}, None


# ------------------------------------------------------------------ rewriter

REWRITE_CHAT = """Retell a programming exercise in a new setting without changing what the function \
must compute.

Setting: {scenario}
The function keeps this signature exactly (same name, same parameters in the same order):
    {stub}
What each parameter stands for in the setting (with the types its values have in the tests):
{contexts}

The original description:
<<<
{description}
>>>
{examples}
Rules:
- Tell the same task as part of the setting, using the meanings above, and call each parameter by \
its name in the signature.
- Keep every requirement, every condition on the inputs, every special or edge case, every tie rule \
and the exact form of the returned value. Add no requirement, drop none.
- Use your own sentences; do not copy the original's.
- Write no examples: the original's examples are appended to your text unchanged.
{feedback}
Reply with JSON only: {{"description": "<the new description, plain text>"}}"""

REWRITE_COMPLETION = '''{stub}
    """{description}"""


# The same function. Only its description is retold for the setting "{scenario}", where {contexts}.
# What it computes, its conditions and its edge cases are unchanged.
{stub}
    """'''


def _context_lines(contexts: dict[str, str], types: dict[str, str]) -> str:
    return "\n".join(f"- {name} ({types.get(name, '?')}): {meaning}" for name, meaning in contexts.items())


def rewrite_request(
    scenario: str,
    stub: str,
    contexts: dict[str, str],
    types: dict[str, str],
    description: str,
    mode: Mode,
    feedback: str | None = None,
    examples: str = "",
) -> Request:
    """Ask for the description retold in ``scenario``; ``feedback`` says why an earlier retelling failed.

    ``stub`` is the original ``def`` line; ``examples`` the original's worked
    examples, shown to chat models so they read the task right (they are
    re-attached by the caller, never taken from the answer).
    """
    if mode == "chat":
        note = (
            f"- An earlier retelling was rejected: {feedback}. Do not repeat that mistake.\n"
            if feedback
            else ""
        )
        text = REWRITE_CHAT.format(
            scenario=scenario,
            stub=stub.strip(),
            contexts=_context_lines(contexts, types),
            description=description.strip(),
            examples=(
                f"Its examples (they stay as they are; shown so you read the task right):\n<<<\n{examples.strip()}\n>>>\n"
                if examples.strip()
                else ""
            ),
            feedback=note,
        )
        return Request("chat", messages=(("user", text),))
    meanings = "; ".join(f"{name} is {meaning}" for name, meaning in contexts.items())
    prompt = REWRITE_COMPLETION.format(
        stub=stub.rstrip(),
        description=description.strip().replace('"""', "'''"),
        scenario=scenario,
        contexts=meanings,
    )
    return Request("completion", prompt=prompt, stop=('"""', "'''", "\ndef ", "\n```"))
