"""A parent's description rewritten to stand as one step of another problem, or refused.

A problem statement speaks to its reader ("Write a function vowels_count
which takes a string ... and returns ...", "Your task is to check if ...",
"remove_vowels is a function that takes string and returns ...").  Quoted as
a step of a combined problem, that asks for a function the new problem does
not have and names one it does not define.  :func:`as_step` rewrites the
forms that have one clear imperative reading ("Take a string ... and return
...") and turns "this function" into "this step"; anything it cannot rewrite
is left for the checks (``validation.checks.steps``) to refuse, so a step is
never published half rewritten.
"""

from __future__ import annotations

import re

# Third-person verbs a rewritten ask may start with, and their imperative ("takes" -> "take").
_VERBS = {
    "accepts": "accept", "adds": "add", "calculates": "calculate", "checks": "check", "computes": "compute",
    "converts": "convert", "counts": "count", "decides": "decide", "deletes": "delete", "determines": "determine",
    "encodes": "encode", "encrypts": "encrypt", "evaluates": "evaluate", "finds": "find", "gets": "get",
    "gives": "give", "outputs": "output", "receives": "receive", "removes": "remove", "replaces": "replace",
    "returns": "return", "sorts": "sort", "sums": "sum", "takes": "take", "validates": "validate",
    "will": "",
}  # fmt: skip
_VERB = "|".join(sorted(_VERBS, key=len, reverse=True))

# "Write a function vowels_count which takes", "Create a function that returns", "Implement the
# function f that takes", "You have to write a function which validates", "remove_vowels is a
# function that takes", "Your task is to implement a function that will simplify".
_ASK_FOR_FUNCTION = re.compile(
    r"(?P<lead>^|(?<=[.!?]\s)|(?<=,\s))(?:task\s+)?"
    r"(?:(?:your task is to|you have to|you have been tasked to|you need to|please)\s+)?"
    r"(?:(?:write|create|implement|complete)\s+(?:a|an|the)\s+function|(?P<name>\w+)\s+is\s+a\s+function)"
    r"(?:\s+(?!that\b|which\b)\w+(?:\(\))?)?\s+(?:that|which)\s+(?:can\s+)?(?P<verb>" + _VERB + r")\b\s*",
    re.I,
)
# "prime_fib returns n-th number", "triples_sum_to_zero takes a list": the name is the subject.
_NAME_AS_SUBJECT = r"(?P<lead>^|(?<=[.!?]\s))(?:{name})\s+(?P<verb>" + _VERB + r")\b\s*"
# "Your task is to check", "You need to return", "Your job is to split", at a sentence's start.
_ASK_TO_DO = re.compile(
    r"(?P<lead>^|(?<=[.!?]\s)|(?<=^note:\s))(?:your (?:task|job) is to|you need to|you have to|you should)\s+"
    r"(?P<verb>[a-z]+(?<!ed))\b\s*",
    re.I,
)
# "..., and your task is to convert it", "and you need to return": a second clause of a sentence.
_ASK_IN_CLAUSE = re.compile(
    r",?\s+and\s+(?:your (?:task|job) is to|you need to|you have to)\s+(?P<verb>[a-z]+)\b", re.I
)
# "Given a positive integer n, you have to make", "..., you have been tasked to implement a function
# that returns": the ask after an opening phrase.
_ASK_AFTER_COMMA = re.compile(r",\s+(?:you have to|you need to)\s+(?P<verb>[a-z]+(?<!ed))\b", re.I)
# "It returns True if ...", "Returns true if ...": a sentence whose subject was the function.
_IT_VERB = re.compile(r"(?P<lead>^|(?<=[.!?]\s))(?:it\s+)?(?P<verb>returns|outputs|gives)\b\s*", re.I)

_THIS_FUNCTION = re.compile(
    r"\b([Tt])(?:his function\b|he function(?= (?:should|will|must|returns?|outputs?)\b))"
)


def _imperative(verb: str) -> str:
    return _VERBS.get(verb.lower(), verb.lower())


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _coordinated(sentence: str) -> str:
    """In a sentence rewritten to the imperative, the verbs coordinated with its first one follow it:
    "and returns" -> "and return", and ", deletes ..." before a final ", and returns" too."""
    final = re.search(rf",?\s+and\s+({_VERB})\b", sentence, re.I)
    if final is None:
        return sentence
    head, tail = sentence[: final.start()], sentence[final.start() :]
    head = re.sub(rf",\s+({_VERB})\b", lambda m: ", " + _imperative(m.group(1)), head, flags=re.I)
    tail = re.sub(
        rf"(,?\s+and\s+)({_VERB})\b", lambda m: m.group(1) + _imperative(m.group(2)), tail, flags=re.I
    )
    return head + tail


def _sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+(?=[A-Za-z(\"'])", text)


def _rewrite_sentence(sentence: str, entry_point: str) -> str:
    imperative = False

    def ask(match: re.Match[str]) -> str:
        nonlocal imperative
        imperative = True
        verb = _imperative(match.group("verb"))
        lead = match.group("lead")
        if not verb:  # "that will simplify": the next word is the verb
            return lead
        mid_sentence = match.string[: match.start()].rstrip().endswith(",")
        return lead + (verb if mid_sentence else _capital(verb)) + " "

    rewritten = _ASK_FOR_FUNCTION.sub(ask, sentence, count=1)
    if not imperative and entry_point:
        pattern = re.compile(_NAME_AS_SUBJECT.format(name=re.escape(entry_point)), re.I)
        rewritten = pattern.sub(ask, rewritten, count=1)
    if not imperative:
        rewritten = _ASK_TO_DO.sub(ask, rewritten, count=1)
    if not imperative:
        rewritten = _IT_VERB.sub(ask, rewritten, count=1)
    rewritten = _ASK_IN_CLAUSE.sub(lambda m: "; " + m.group("verb").lower(), rewritten)
    rewritten = _ASK_AFTER_COMMA.sub(lambda m: ", " + m.group("verb").lower(), rewritten)
    if imperative:
        rewritten = _coordinated(rewritten)
    if rewritten[:1].islower() and not sentence[:1].islower():
        rewritten = _capital(rewritten)
    return re.sub(r"\s{2,}", " ", rewritten)


def as_step(text: str, entry_point: str = "", *, step: bool = True) -> str:
    """``text`` as a step of another problem: asks rewritten to the imperative, "this function" made
    "this step" (unless ``step`` is False: a given helper's docstring speaks of that function still).
    What cannot be rewritten stays as it was, for the checks to refuse.

    >>> as_step("Write a function vowels_count which takes a string and returns the number of vowels.")
    'Take a string and return the number of vowels.'
    """
    body = re.sub(r"^\W*[Tt]ask\s+(?=[A-Z])", "", text.strip())
    lines = [
        " ".join(_rewrite_sentence(sentence, entry_point) for sentence in _sentences(line))
        if line.strip()
        else line
        for line in body.split("\n")
    ]
    joined = "\n".join(lines)
    return _THIS_FUNCTION.sub(lambda match: f"{match.group(1)}his step", joined) if step else joined
