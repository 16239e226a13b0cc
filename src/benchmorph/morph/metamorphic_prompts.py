"""The four requests of the LLM metamorphic generator (DyCodeEval), in our own words, and their readers.

Each agent has one request builder and one reader:

- scenario proposer: :func:`scenario_request` / :func:`parse_scenarios`;
- context generator: :func:`context_request` / :func:`parse_contexts`;
- rewriter: :func:`rewrite_request` / :func:`parse_rewrite`;
- validator (the judge half): :func:`judge_request` / :func:`parse_verdict`.

Chat models are asked for JSON; base models (``local``) get a completion
prompt that ends where the JSON or docstring they should write begins, and
the reader puts the prefilled part back.  Answers are read tolerantly
(:func:`read_json`: code fences, prose around the JSON, single quotes,
Python literals, trailing commas); a reader returns the value or the one-line
reason it could not, never raises.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from typing import Any

from benchmorph.models.prompts import Request
from benchmorph.models.spec import Mode

# ------------------------------------------------------------------ tolerant JSON

_FENCE = re.compile(r"```[\w+-]*\s*\n?(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_OPENERS = {"{": "}", "[": "]"}


def _balanced(text: str, start: int) -> str | None:
    """The bracketed span opening at ``start`` (strings respected), or None if it never closes."""
    stack: list[str] = []
    quote: str | None = None
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
            continue
        if char in "\"'":
            quote = char
        elif char in _OPENERS:
            stack.append(_OPENERS[char])
        elif char in "}]":
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return text[start : index + 1]
    return None


def _loads(span: str) -> Any:
    """JSON, then JSON without trailing commas, then a Python literal (single quotes, True/None)."""
    for attempt in (span, _TRAILING_COMMA.sub(r"\1", span)):
        try:
            return json.loads(attempt)
        except json.JSONDecodeError:
            pass
    literal = _TRAILING_COMMA.sub(r"\1", span)
    literal = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", literal)))
    try:
        return ast.literal_eval(literal)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def read_json(text: str, want: type = dict) -> Any:
    """The first JSON value of type ``want`` (``dict`` or ``list``) in a model's answer, or None.

    Looks inside code fences first, then anywhere in the text; each candidate
    span is read as JSON, as JSON with trailing commas removed, and as a
    Python literal (single quotes, ``True``), so the usual slips of chat
    models do not lose an otherwise clear answer.
    """
    opener = "{" if want is dict else "["
    sources = [match.group(1) for match in _FENCE.finditer(text)] + [text]
    for source in sources:
        for match in re.finditer(re.escape(opener), source):
            span = _balanced(source, match.start())
            if span is None:
                continue
            value = _loads(span)
            if isinstance(value, want):
                return value
    return None


# ------------------------------------------------------------------ scenario proposer

SCENARIO_CHAT = """We retell short programming exercises as stories set in everyday application \
domains, so that the same algorithm can be asked about in many different words. Each domain is a \
field where small programs process data: records, measurements, schedules, lists of things.

Domains we already use (do not repeat them, not even under another name):
{examples}

Propose {count} new domains that differ clearly from the ones above and from each other.

Reply with JSON only: a list of {count} objects of the form \
{{"name": "<two or three words>", "description": "<one line: what data the domain deals with>"}}"""

SCENARIO_COMPLETION_HEAD = (
    "A list of application domains for programming exercises, one per line, each written as "
    '"Name: the kind of data it deals with". No two domains are alike.\n\n'
)


def scenario_request(examples: Sequence[tuple[str, str]], count: int, mode: Mode) -> Request:
    """Ask for ``count`` new domains, showing ``examples`` (name, description) as the ones in use."""
    if mode == "chat":
        shown = "\n".join(f"- {name}: {description}" for name, description in examples)
        return Request("chat", messages=(("user", SCENARIO_CHAT.format(examples=shown, count=count)),))
    lines = [f"{number}. {name}: {description}" for number, (name, description) in enumerate(examples, 1)]
    prompt = SCENARIO_COMPLETION_HEAD + "\n".join(lines) + f"\n{len(lines) + 1}."
    return Request("completion", prompt=prompt, stop=("\n\n",))


_LIST_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*•])?\s*\**([^:\n*]{2,60}?)\**\s*[:\u2014\u2013-]\s+(.{3,300})$")


def _clean(text: str) -> str:
    return " ".join(str(text).strip().strip("\"'`*").split())


def parse_scenarios(request: Request, text: str) -> list[tuple[str, str]]:
    """(name, description) pairs read from a proposer's answer: a JSON list, or "Name: description" lines."""
    if request.mode == "completion":
        text = request.prompt.rsplit("\n", 1)[-1] + text  # the answer continues the numbered line
    found: list[tuple[str, str]] = []
    items = read_json(text, list) if request.mode == "chat" else None
    if items is None and request.mode == "chat":
        single = read_json(text, dict)
        items = next((v for v in (single or {}).values() if isinstance(v, list)), None)
    if isinstance(items, list):
        for item in items:
            if isinstance(item, dict):
                name = _clean(item.get("name") or item.get("domain") or item.get("scenario") or "")
                description = _clean(item.get("description") or item.get("data") or "")
                if name:
                    found.append((name, description))
            elif isinstance(item, str) and ":" in item:
                name, _, description = item.partition(":")
                found.append((_clean(name), _clean(description)))
        if found:
            return found
    for line in text.splitlines():
        match = _LIST_LINE.match(line)
        if match:
            name, description = _clean(match.group(1)), _clean(match.group(2))
            if name and description and not name.lower().startswith(("here", "sure", "note")):
                found.append((name, description))
    return found


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
        str(key).strip(): _clean(val) for key, val in value.items() if isinstance(val, str | int | float)
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


_CODE_BLOCK = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.S)


def parse_rewrite(request: Request, text: str) -> tuple[str | None, str | None, str | None]:
    """(description, code, reason): the new description, or the code the model answered with instead.

    A chat model asked for JSON may answer with the whole function; that code
    is returned as is, so the caller can check its signature and take its
    docstring.  ``reason`` says why neither could be read.
    """
    if request.mode == "completion":
        return (text.strip() or None), None, (None if text.strip() else "empty answer")
    value = read_json(text, dict)
    if value is not None:
        for key in ("description", "new_description", "prompt", "text"):
            if isinstance(value.get(key), str) and value[key].strip():
                return value[key].strip(), None, None
    block = _CODE_BLOCK.search(text)
    if block and "def " in block.group(1):
        return None, block.group(1), None
    if value is not None:
        return None, None, "the JSON answer has no description"
    return None, None, "no JSON object with a description, and no code block"


# ------------------------------------------------------------------ validator (judge)

JUDGE_CHAT = """You review a retold programming exercise. The retelling may change the story, the \
names of things and every sentence, but it must ask for exactly the same function as the original.

Original:
```python
{original}
```

Retold:
```python
{rewrite}
```

Check, one by one, every requirement, every condition on the inputs, every special or edge case \
and the exact form of the returned value of the original: is each still stated, and unchanged, in \
the retold exercise? Does the retold exercise add any requirement the original does not have?

Reply with JSON only: {{"preserved": true or false, "issues": ["<one line per requirement, condition \
or edge case that was lost, changed or added>"]}}"""

JUDGE_COMPLETION = """Original exercise:
{original}
Retold exercise:
{rewrite}
Question: does the retold exercise ask for exactly the same function as the original, with the same \
requirements, input conditions, edge cases and return value?
Answer (JSON): {{"preserved":"""


def judge_request(original: str, rewrite: str, mode: Mode) -> Request:
    """Ask whether ``rewrite`` preserves everything ``original`` asks for."""
    if mode == "chat":
        text = JUDGE_CHAT.format(original=original.rstrip(), rewrite=rewrite.rstrip())
        return Request("chat", messages=(("user", text),))
    prompt = JUDGE_COMPLETION.format(original=original.rstrip(), rewrite=rewrite.rstrip())
    return Request("completion", prompt=prompt, stop=("}", "\n\n"))


def _truthy(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"true", "yes"}:
        return True
    if isinstance(value, str) and value.strip().lower() in {"false", "no"}:
        return False
    return None


def parse_verdict(request: Request, text: str) -> tuple[bool | None, list[str], str | None]:
    """(preserved, issues, None) or (None, [], why the verdict cannot be read)."""
    if request.mode == "completion":
        text = '{"preserved":' + text.split("}", 1)[0] + "}"
    value = read_json(text, dict)
    if value is None:
        return None, [], "no JSON verdict in the answer"
    preserved = _truthy(value.get("preserved"))
    if preserved is None:
        return None, [], "the verdict has no true/false 'preserved'"
    issues = value.get("issues") or []
    if isinstance(issues, str):
        issues = [issues]
    return preserved, [_clean(issue) for issue in issues if _clean(issue)], None
