"""Restatements inside a clause: the same content phrase said in another structure, not in other words.

The sentence grammar (``grammar``) changes a sentence's frame and the order
of its clauses, and the vocabulary (``lexicon``) swaps words one for one.
Neither touches the content phrase inside a clause ("find the first odd
number in a given list of numbers"), and that phrase is what a reader, or a
memoriser, recognises: a strict review of the retellings failed most of
them for it, and the residual gates reject most candidates for it (a run of
more than five of the parent's words, or more than 68% of them kept in
their order).  The instrumented runs (``scripts/metamorphic_blockers.py``)
rank which phrase shapes block most candidates; each restatement here turns
one frequent shape round:

- ``front-container``: the container an action works on goes first, "find
  the first odd number in a list" -> "go through a list and find the first
  odd number", "get the volume of a sphere" -> "take a sphere and get its
  volume", "remove X from Y" -> "take Y and remove X from it";
- ``adjective-relative``: a meaning adjective becomes a relative clause,
  "the first odd number" -> "the first number that is odd", "non-empty
  substrings" -> "substrings that are non-empty";
- ``how-many``: "the number of times X" -> "how many times X" / "how often
  X", "the number of NOUNS that VERB" -> "how many NOUNS VERB";
- ``delimited``: "space-delimited numbers" -> "numbers separated by spaces".

Each applies only where its pattern recognises the phrase's structure
(what it needs is checked: a plain noun phrase, a container at the end of
the clause, a verb the task vocabulary knows); anything else is left as it
is and the caller counts the sentence as not restated.  Every restatement
keeps each word that carries meaning (``validation.concepts``: "the number
of" and "how many" are one concept, *count*), so the meaning gates read the
restatement as saying the same.  Which alternative is used depends on the
variant's ``choice``, so siblings differ.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from benchmorph.morph.transforms.metamorphic.lexicon import BASE_TO_THIRD

PLACE = re.compile(r"§\d+§")

# Verbs of a task that act on a thing inside a container: "find X in Y", "count X in Y", "remove X from Y".
ACTION_VERBS = frozenset(
    """find get compute calculate determine count return sum identify locate extract remove delete reverse
    sort replace interchange swap print collect select pick obtain derive work""".split()
)
# Heads of a container a clause's action may work through.
CONTAINERS = (
    "list|lists|string|strings|tuple|tuples|array|arrays|dictionary|dictionaries|sentence|sentences|text|"
    "matrix|sequence|word|words|number|integer|sublist|nested list|set|range"
)
# Words that end a plain noun phrase's run of words: what follows them is a clause or another phrase.
_CLAUSE_WORDS = frozenset(
    """that which who whose where when if whether is are was were be been has have had can could will would
    should must may not and or but with without by to into as than then so such given using except only
    in of from for on at between among within across after before""".split()
)
_DET = r"(?:a|an|the|each|every|any|this)"
_WORD = r"[a-z][a-z-]*"


@dataclass(frozen=True)
class Restated:
    """A phrase after restatement: its text and the names of the restatements applied (in order)."""

    text: str
    applied: tuple[str, ...] = ()


def _plain(words: str) -> bool:
    """A run of plain lowercase words with no clause word or placeholder in it."""
    tokens = words.split()
    return bool(tokens) and all(re.fullmatch(_WORD, token) and token not in _CLAUSE_WORDS for token in tokens)


# Words that make a noun phrase more than a plain noun: a quantifier ("all divisors") or a superlative
# ("the largest contiguous sublist"), which "its"/"'s" cannot carry ("its all divisors", "the greatest's sum").
_NOT_SIMPLE = frozenset("all every each any some no both many several few more less".split())


_SUPERLATIVES = frozenset("most least max min maximum minimum first last only".split())
# Nouns the vocabulary may say as a bare adjective ("maximum" -> "highest", "minimum" -> "least"): after
# "its"/"their" they would have no noun.
BARE_SUPERLATIVES = frozenset(
    "maximum minimum max min largest smallest greatest highest lowest biggest least most".split()
)


# Heads that take "the" when a parent leaves it out ("Return maximum element in the list."): fronting the
# container makes the bare phrase the sentence's end, where a missing article shows ("go through the
# list and report largest value"; review24h: HumanEval/35, /47).
THE_HEADS = BARE_SUPERLATIVES | frozenset("median mean average sum product length first last".split())


def with_article(obj: str) -> str:
    """ "maximum element" -> "the maximum element", "median of elements" -> "the median of the elements";
    anything else as it is."""
    head = obj.split(None, 1)
    if not head or head[0].lower() not in THE_HEADS:
        return obj
    told = "the " + obj
    return re.sub(r"^(the \w+ of )(\w+s)$", r"\1the \2", told)


def simple_phrase(words: str, superlative: bool = False) -> bool:
    """Whether ``words`` is a plain noun phrase the possessive or "its" may own: no quantifier, no
    coordination, and no superlative unless ``superlative`` ("its minimum" reads; "the greatest's sum" does
    not)."""
    tokens = words.lower().split()

    def is_superlative(token: str) -> bool:
        return token in _SUPERLATIVES or (len(token) > 4 and token.endswith("est"))

    return bool(tokens) and not any(
        token in _NOT_SIMPLE or token in ("and", "or") or (not superlative and is_superlative(token))
        for token in tokens
    )


def _container(phrase: str, show: Callable[[str], str]) -> str | None:
    """ "singular" or "plural" when ``phrase`` names a container a clause can go through (a determiner and
    a plain noun phrase ending in a container noun, or a woven input phrase), else None."""
    phrase = phrase.strip()
    if PLACE.fullmatch(phrase):
        # A woven input phrase ("a given list of readings `readings`", "the chat message `message`").
        # It names one parameter (its name in backticks closes it); a list of them is one list.
        shown = show(phrase)
        found = re.fullmatch(r"(?:a|an|the)\s+(?P<words>(?:[\w-]+\s+){0,5}?[\w-]+)\s+`[^`]+`", shown)
        if found is None:
            return None
        head = found.group("words").split()
        if "of" in head:
            return (
                "singular"
                if head[0] in ("list", "sequence", "collection", "tuple", "set")
                or (len(head) > 1 and head[1] in ("list", "sequence", "collection", "tuple", "set"))
                else None
            )
        return None if head[-1].endswith("s") else "singular"
    if re.search(r"\bnumber\s+of\b", phrase):
        return None  # "a given number of lists" is a quantity, not a container
    found = re.fullmatch(
        rf"(?P<det>{_DET}|two|three)\s+(?P<mods>(?:{_WORD}\s+){{0,3}}?)"
        rf"(?P<head>{CONTAINERS})(?:\s+of\s+(?P<of>{_WORD}(?:\s+{_WORD})?))?",
        phrase,
    )
    if found is None:
        return None
    if any(word in _CLAUSE_WORDS - {"given"} for word in found.group("mods").split()):
        return None
    if found.group("of") is not None and not _plain(found.group("of")):
        return None
    if found.group("det") in ("two", "three") or found.group("head").endswith("s"):
        return "plural"
    return "singular"


def _object(obj: str) -> bool:
    """An object phrase the fronting may keep whole: words and placeholders, no clause of its own."""
    tokens = obj.split()
    if not tokens or len(tokens) > 9:
        return False
    if any(token.lower() in _STOPS for token in tokens):
        return False
    if re.search(r"\b(?:and|or)\s+(?P<v>[a-z]+)", obj) and any(
        m.group(1) in ACTION_VERBS or m.group(1) in BASE_TO_THIRD.values() or m.group(1) in BASE_TO_THIRD
        for m in re.finditer(r"\b(?:and|or)\s+([a-z]+)", obj)
    ):
        return False  # "find X and return Y": two actions, the container may belong to the second
    return not re.search(r"[,;:()]", obj)


_STOPS = frozenset("that which who whose where when if whether is are than but with by to into".split())
_VERB = re.compile(r"^(?P<verb>[A-Za-z][a-z]*)\s+")
_SPLIT = re.compile(r"\s+(?P<prep>in|of|from)\s+")
_END = re.compile(r"\s*[.!?]?$")


def front_container(text: str, choice: int, show: Callable[[str], str]) -> str | None:
    """ "find the first odd number in a list" -> "go through a list and find the first odd number"; "get the
    volume of a sphere" -> "take a sphere and get its volume"; "remove X from Y" -> "take Y and remove X from
    it".  The clause must be one base-form action verb, a plain object and a container closing it; of its
    prepositions the last one that closes on a container is the one fronted ("the list of maximum length in
    a list of lists": "in")."""
    verb_match = _VERB.match(text)
    if verb_match is None or verb_match.group("verb").lower() not in ACTION_VERBS:
        return None
    verb = verb_match.group("verb")
    body = text[verb_match.end() :]
    end = _END.search(body)
    assert end is not None
    stop = end.group(0)
    body = body[: end.start()]
    for split in reversed(list(_SPLIT.finditer(body))):
        obj, prep, y = body[: split.start()], split.group("prep"), body[split.end() :]
        if not _object(obj) or re.search(r"[,;:()]", y):
            continue
        number = _container(y, show)
        if prep == "of" and number is None:
            # "the volume of a sphere", "the minimum of three numbers": a thing of one or two plain words
            # (or a count of them) owns the property.
            thing = re.fullmatch(rf"(?P<det>a|an|two|three|four)\s+(?P<w>{_WORD}(?:\s+{_WORD})?)", y)
            if thing is not None and _plain(thing.group("w")):
                number = "singular" if thing.group("det") in ("a", "an") else "plural"
        if number is None:
            continue
        lead = "Take" if verb[:1].isupper() else "take"
        verb = verb.lower()
        if prep == "of":
            owner = "its" if number == "singular" else "their"
            head = re.fullmatch(rf"(?P<pre>the\s+{_WORD}(?:\s+{_WORD})?\s+of\s+)?(?:the\s+)?(?P<n>.+)", obj)
            if head is None or not _plain(head.group("n")) or not simple_phrase(head.group("n"), True):
                return None  # "its all divisors" (review24d: Mbpp/295): the sentence is left as it is
            if not (head.group("pre") or obj.startswith("the ") or len(obj.split()) == 1):
                return None
            if head.group("n").lower() in BARE_SUPERLATIVES:
                # "find the maximum of two numbers": the vocabulary says "maximum" as "highest", and "their
                # highest" or "a list's lowest" has no noun (blind review 24f: Mbpp/309, /404); "the highest
                # among them" has one.  A singular owner or a longer phrase is left as it is.
                if number == "singular" or head.group("pre"):
                    return None
                return f"{lead} {y} and {verb} the {head.group('n')} among them{stop}"
            simple = re.fullmatch(rf"(?:a|an|the)\s+{_WORD}(?:\s+{_WORD})?", y) and _plain(
                y.split(None, 1)[1]
            )
            if (
                choice % 2 == 1
                and simple
                and simple_phrase(y)
                and not head.group("pre")
                and y.split()[-1][-1:] != "s"
            ):
                # "the volume of a sphere" -> "a sphere's volume": the owner first, in the possessive.
                return f"{verb_match.group('verb')} {y}'s {head.group('n')}{stop}"
            return f"{lead} {y} and {verb} {head.group('pre') or ''}{owner} {head.group('n')}{stop}"
        if prep == "from":
            return f"{lead} {y} and {verb} {obj} from {'it' if number == 'singular' else 'them'}{stop}"
        go = ("Go" if lead == "Take" else "go", "Look" if lead == "Take" else "look")[choice % 2]
        return f"{go} through {y} and {verb} {with_article(obj)}{stop}"
    return None


_ADJECTIVES = (
    "odd|even|positive|negative|prime|non-empty|non-negative|non-zero|non-positive|uppercase|lowercase|"
    "upper-case|lower-case|unique|composite|palindromic"
)
_NOUNS = (
    "number|numbers|integer|integers|element|elements|value|values|item|items|entry|entries|word|words|"
    "letter|letters|character|characters|char|chars|digit|digits|substring|substrings|string|strings|"
    "sublist|sublists|factor|factors|divisor|divisors|key|keys|pair|pairs|tuple|tuples|list|lists"
)
_ADJ_NOUN = re.compile(
    rf"(?<![\w§'`-])(?P<adj>{_ADJECTIVES})\s+(?P<noun>{_NOUNS})(?P<after>\s*(?:[.,;!?]|$)|\s+(?:in|from|and|or)\b)"
)


def adjective_relative(text: str, choice: int) -> str | None:
    """ "the first odd number" -> "the first number that is odd"; "non-empty substrings" -> "substrings that
    are non-empty".  Only a meaning adjective before a plain noun that ends the phrase (or is followed by a
    preposition that ends the clause); never twice in one phrase, never inside a coordination."""
    found = _ADJ_NOUN.search(text)
    if found is None:
        return None
    before = text[: found.start()]
    if re.search(r"\b(?:and|or)\s+$|,\s*$", before) or re.search(r"^\s+(?:and|or)\b", found.group("after")):
        return None  # "odd and even numbers", "positive, negative": a coordination keeps its shape
    noun = found.group("noun")
    plural = noun.endswith("s") and noun not in ("class",)
    rel = (
        ("that are" if plural else "that is") if choice % 2 == 0 else ("which are" if plural else "which is")
    )
    after = found.group("after")
    tail = text[found.end() :]
    if after.strip() in ("in", "from"):
        # "odd numbers in the list": the clause goes after the place phrase, which must close the text.
        place = re.match(r"^\s+(?P<y>[^,;:()]+?)(?P<end>\s*[.!?]?)$", tail)
        if place is None or re.search(r"\b(?:that|which|who|and|or)\b", place.group("y")):
            return None
        if _container(place.group("y"), lambda s: s) is None and not PLACE.fullmatch(place.group("y")):
            return None
        return f"{before}{noun}{after} {place.group('y')} {rel} {found.group('adj')}{place.group('end')}"
    return f"{before}{noun} {rel} {found.group('adj')}{after}{tail}"


_TIMES = re.compile(r"\bthe\s+(?:total\s+)?number\s+of\s+times\b")
_NUMBER_OF = re.compile(
    rf"\bthe\s+(?:total\s+)?number\s+of\s+(?P<n>(?:{_WORD}\s+){{0,2}}{_WORD}s)\s+(?:that|which|who)\s+"
    rf"(?P<verb>{_WORD})\b"
)


def how_many(text: str, choice: int) -> str | None:
    """ "the number of times X" -> "how many times X" / "how often X"; "the number of NOUNS that VERB" ->
    "how many NOUNS VERB".  Both say the same count (``concepts``: *count*)."""
    if _TIMES.search(text):
        told = ("how many times", "how often")[choice % 2]
        return _TIMES.sub(told, text, count=1)
    found = _NUMBER_OF.search(text)
    if found is None or not _plain(found.group("n")):
        return None
    verb = found.group("verb")
    if (
        verb not in ("are", "have", "contain", "occur", "appear", "start", "end", "begin")
        and verb not in BASE_TO_THIRD
    ):
        return None
    return text[: found.start()] + f"how many {found.group('n')} {verb}" + text[found.end() :]


_DELIMITED = re.compile(
    r"\b(?P<by>space|comma|whitespace)[- ](?:delimited|separated)\s+(?P<n>(?:[a-z]+\s+)?[a-z]+s)\b"
)


def delimited(text: str, choice: int) -> str | None:
    """ "space-delimited numbers" -> "numbers separated by spaces"."""
    found = _DELIMITED.search(text)
    if found is None:
        return None
    by = {"space": "spaces", "comma": "commas", "whitespace": "whitespace"}[found.group("by")]
    verb = ("separated", "delimited")[choice % 2]
    return text[: found.start()] + f"{found.group('n')} {verb} by {by}" + text[found.end() :]


_ASK = re.compile(
    r"^(?P<verb>[Cc]heck|[Dd]etermine|[Tt]est|[Dd]ecide|[Ff]ind\s+out)\s+(?:if|whether)\s+(?P<c>.+?)"
    r"(?:\s+or\s+not)?(?P<end>\s*[.!?]?)$"
)
_SUBJECT_START = re.compile(r"^(?:(?:the|a|an|this|each|every|all|two)\s|§\d+§)")
# Words a plain subject holds none of (prepositions and "given" it may: "all the elements in the tuple").
_NOT_SUBJECT = _CLAUSE_WORDS - {"given", "in", "of", "from", "on", "at", "within", "between", "among"}
_AUXILIARY = {"is": "is", "are": "are", "can": "can", "has": "does", "have": "do", "contains": "does",
              "contain": "do"}  # fmt: skip


def invert(clause: str) -> str | None:
    """ "the given number is armstrong" -> "is the given number armstrong"; "a string has 'z'" -> "does a
    string have 'z'": a clause of a plain subject, one verb and the rest, as a question; None otherwise."""
    tokens = clause.split()
    for at, token in enumerate(tokens[:7]):
        if token in _AUXILIARY:
            break
        if not (re.fullmatch(_WORD, token) or PLACE.fullmatch(token)) or (at and token in _NOT_SUBJECT):
            return None
    else:
        return None
    subject, verb, rest = " ".join(tokens[:at]), tokens[at], " ".join(tokens[at + 1 :])
    if not subject or not _SUBJECT_START.match(subject) or not rest:
        return None
    if " of " in f" {subject} " and len(rest.split()) <= 2:
        return None  # "are the elements of a list unique": the possessive would take "list unique" as owner
    if re.search(r"\b(?:and|or|but|if|when|whether|that|which)\b|[,;:]", rest):
        return None  # a second clause: the question would ask only the first
    aux = _AUXILIARY[verb]
    if aux == verb:
        return f"{verb} {subject} {rest}"
    main = {"has": "have", "have": "have", "contains": "contain", "contain": "contain"}[verb]
    return f"{aux} {subject} {main} {rest}"


def question(text: str, choice: int) -> str | None:
    """ "check whether the given number is armstrong or not" -> "answer the question: is the given number
    armstrong?": a request to check a clause told as the question it asks."""
    found = _ASK.match(text)
    if found is None:
        return None
    asked = invert(found.group("c"))
    if asked is None:
        return None
    lead = ("answer the question", "settle the question")[choice % 2]
    lead = lead[:1].upper() + lead[1:] if found.group("verb")[:1].isupper() else lead
    return f"{lead}: {asked}?"


def restate(text: str, choice: int, show: Callable[[str], str] = lambda s: s) -> Restated:
    """Every restatement whose structure ``text`` has, applied in turn (inner phrases first, then the
    clause); ``show`` reveals the placeholders of a masked text (``grammar.Masked.show``)."""
    applied: list[str] = []
    for name, step in (
        ("delimited", lambda t: delimited(t, choice)),
        ("how-many", lambda t: how_many(t, choice)),
        ("question", lambda t: question(t, choice)),
        ("front-container", lambda t: front_container(t, choice, show)),
        ("adjective-relative", lambda t: adjective_relative(t, choice)),
    ):
        told = step(text)
        if told is not None and told != text:
            text = told
            applied.append(name)
    return Restated(text, tuple(applied))
