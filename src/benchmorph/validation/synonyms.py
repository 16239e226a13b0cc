"""Phrases that say the same thing in any sentence of a coding task: the one table of synonyms.

The retelling's rewriter (``morph.transforms.metamorphic.lexicon``) swaps a
phrase for one of its alternatives; the residual gates
(``validation.checks.residual``) read a retelling with those swaps undone,
as they read it with its renames mapped back: a memoriser recognises "if a
supplied number is prime" as "if a given number is prime" as surely as it
recognises the original itself.  One table for both, so a swap the rewriter
can make is one the gates can see through, and an LLM's retelling that makes
the same swaps is read the same way.

Every entry maps a phrase (lowercase words, matched as whole words) to
alternatives a reader takes for the same requirement in *every* context
the benchmarks use it in: "check whether" / "determine whether", "the
largest" / "the biggest", "consisting of" / "made up of".  A word whose
sense depends on its sentence ("order", "number", "multiple") has no entry,
or only inside a longer phrase that fixes its sense ("a multiple of" has
none; "in case of" has none).  Alternatives stay inside the meaning classes
of ``validation.concepts`` (largest and biggest are both ``max``), so the
meaning checks read the rewrite as saying the same.
"""

from __future__ import annotations

from functools import lru_cache

from benchmorph.validation.overlap import words

SYNONYMS: dict[str, tuple[str, ...]] = {
    # task verbs and their objects
    "check if": ("determine whether", "decide whether", "work out whether", "test whether"),
    "check whether": ("determine whether", "decide whether", "work out whether", "test whether"),
    "checks if": ("determines whether", "decides whether", "tests whether"),
    "checks whether": ("determines whether", "decides whether", "tests whether"),
    "find out": ("work out", "determine"),
    "find": ("determine", "work out", "identify"),
    "finds": ("determines", "works out", "identifies"),
    "calculate": ("compute", "work out", "determine"),
    "calculates": ("computes", "works out"),
    "compute": ("calculate", "work out", "determine"),
    "computes": ("calculates", "works out"),
    "determine": ("work out", "establish", "figure out"),
    "determines": ("works out", "establishes"),
    "return": ("give back", "produce", "output", "report"),
    "returns": ("gives back", "produces", "outputs", "reports"),
    "returned": ("given back", "produced", "handed back"),
    "returning": ("giving back", "producing"),
    "get": ("obtain", "derive"),
    "obtain": ("get", "derive"),
    "remove": ("delete", "drop", "take out", "strip out"),
    "removes": ("deletes", "drops", "takes out"),
    "removing": ("deleting", "dropping"),
    "extract": ("pull out", "take out", "collect"),
    "extracts": ("pulls out", "collects"),
    "convert": ("change", "turn"),
    "converts": ("changes", "turns"),
    "perform": ("carry out", "apply"),
    "performing": ("carrying out", "applying"),
    "detect": ("spot", "recognise"),
    "identify": ("pick out", "single out", "recognise"),
    "contain": ("hold", "include", "have"),
    "contains": ("holds", "includes", "has"),
    "containing": ("holding", "including", "with"),
    "consists of": ("is made up of", "is composed of"),
    "consisting of": ("made up of", "composed of"),
    "represent": ("stand for", "describe", "encode"),
    "represents": ("stands for", "describes", "encodes"),
    "representing": ("standing for", "describing", "encoding"),
    "represented": ("expressed", "written"),
    "appear": ("occur", "show up"),
    "appears": ("occurs", "shows up", "turns up"),
    "occur": ("appear", "show up"),
    "occurs": ("appears", "shows up"),
    "generate": ("produce", "build", "create"),
    "create": ("build", "produce", "make"),
    "use": ("employ", "apply"),
    "using": ("employing", "with", "by means of"),
    "keep": ("preserve", "retain"),
    "insert": ("put", "place"),
    "concatenate": ("join", "chain together", "glue together"),
    "accepts": ("takes", "receives"),
    "accept": ("take", "receive"),
    "takes": ("receives", "accepts", "gets"),
    "receives": ("takes", "gets"),
    "as input": ("as its argument", "as an argument"),
    "as an input": ("as its argument", "as an argument"),
    "as a parameter": ("as its argument", "as an argument"),
    "as an argument": ("as a parameter", "as its argument"),
    "supplied": ("given", "provided", "input"),
    "specified": ("requested", "stated", "indicated"),
    "given by": ("defined by", "computed as"),
    "given list": ("supplied list", "provided list"),
    "given string": ("supplied string", "provided string"),
    "given number": ("supplied number", "provided number"),
    "given integer": ("supplied integer", "provided integer"),
    "given array": ("supplied list", "provided list"),
    "given word": ("supplied word", "provided word"),
    "given substring": ("supplied substring", "provided substring"),
    "given prefix": ("supplied prefix", "provided prefix"),
    "given threshold": ("supplied threshold", "provided threshold"),
    "given moment": ("given point",),
    # nouns of collections and their members
    "element": ("item", "entry", "member", "value"),
    "elements": ("items", "entries", "members", "values"),
    "an element": ("an item", "an entry", "a member", "a value"),
    "an array": ("a list", "a sequence", "a collection"),
    "array": ("list", "sequence", "collection"),
    "arrays": ("lists", "sequences", "collections"),
    # Not "whole numbers": 5.0 is a whole number and no int, so a type filter ("only for integers",
    # HumanEval/22) would read looser (review24c).
    "integer": ("integer value",),
    "integers": ("integer values",),
    "an integer": ("an integer value",),
    # Not "symbols": a symbol reads as punctuation, narrower than any character.
    "characters": ("chars",),
    "character": ("char",),
    "a character": ("a char",),
    "inputs": ("arguments",),
    "the output": ("the result", "the answer"),
    "the result": ("the outcome", "the answer"),
    # meaning words: other members of the same concept class (validation.concepts)
    "largest": ("biggest", "highest", "greatest"),
    "the largest": ("the biggest", "the highest", "the greatest"),
    "biggest": ("largest", "highest"),
    "smallest": ("lowest", "least"),
    "the smallest": ("the lowest", "the least"),
    "maximum": ("largest", "highest", "biggest"),
    "minimum": ("smallest", "lowest", "least"),
    "greater than": ("larger than", "bigger than", "higher than"),
    "larger than": ("greater than", "bigger than"),
    "smaller than": ("less than", "lower than"),
    "less than": ("smaller than", "lower than"),
    "greater": ("larger", "bigger"),
    "each": ("every",),
    "every": ("each",),
    "the last": ("the final", "the very last"),
    "distinct": ("different",),
    "different": ("distinct",),
    "at least": ("no less than", "no fewer than"),
    "at most": ("no more than",),
    "increasing": ("ascending",),
    "ascending": ("increasing",),
    "decreasing": ("descending",),
    "descending": ("decreasing",),
    # Not "neighbouring": "contains consecutive numbers" (a run of integers) would read "has an adjacent
    # pair" (review24d: Mbpp/472); "consecutive numbers/integers" stays (KEEP).
    "consecutive": ("successive", "adjacent"),
    "adjacent": ("neighbouring", "consecutive"),
    "begins with": ("starts with",),
    "starts with": ("begins with",),
    "start with": ("begin with",),
    "begin with": ("start with",),
    "starting with": ("beginning with",),
    "otherwise": ("in all other cases", "in any other case"),
    "ignore": ("disregard",),
    "ignoring": ("disregarding",),
    "upper case": ("uppercase",),
    "lower case": ("lowercase",),
    "uppercase": ("upper-case",),
    "lowercase": ("lower-case",),
    "count the number of": ("count up the", "tally up the"),
    "is equal to": ("equals",),
    "are equal to": ("equal",),
    "a given": ("a supplied", "a provided"),  # not "an input": "a cube of an input size"
    "the given": ("the supplied", "the provided", "the input"),
    "given": ("supplied", "provided", "input"),
    "whether or not": ("whether",),
    "indicies": ("indices",),
    "separated by": ("delimited by", "split by"),
    "delimited by": ("separated by",),
    "similar to": ("like", "akin to"),
    "defined as follows": ("defined like this", "given by these rules"),
    "within": ("inside", "in"),
    "representation": ("form",),
    "closest": ("nearest",),
    "closer": ("nearer",),
    "nearest": ("closest",),
    "is present": ("occurs",),
    "are present": ("occur",),
    "be formed": ("be built", "be made"),
    "decomposed into": ("split into", "broken into"),
    "should be": ("ought to be", "is to be"),
    "should not be": ("ought not to be",),
    "should return": ("ought to return", "is to return"),
    "should not": ("ought not to",),
    "moreover": ("furthermore", "in addition"),
    "please note that": ("note that", "keep in mind that"),
    "in other words": ("put differently", "that is to say"),
    "at the beginning": ("at the start",),
    "as well as": ("along with", "together with"),
    "is read the same": ("reads the same",),
    "in a manner such that": ("so that",),
    # phrases of the coding domain said another way
    "sub-array": ("contiguous slice",),
    "subarray": ("contiguous slice",),
    "is read the same backwards and forwards": ("stays the same when reversed",),
    "reads the same backward as forward": ("stays the same when reversed",),
    "the sum of the digits": ("the digit sum",),
    "the sum of its digits": ("its digit sum",),
    "is a prime number": ("is prime",),
    "are prime numbers": ("are primes",),
    "absolute difference": ("distance",),
    "in lexicographical order": ("in dictionary order",),
    "consists of only": ("is made up only of",),
    "the remaining": ("the rest of the",),
    "in the range": ("within the range",),
    "string representation": ("string form",),
    # linking words and turns of phrase
    "in case": ("if", "when"),
    "in this case": ("here",),
    "e.g.": ("for instance,", "say,"),
    "i.e.": ("that is,", "namely"),
    "for example": ("for instance", "as an illustration"),
    "for instance": ("for example",),
    "however": ("yet", "still"),
    "is considered": ("is deemed",),
    "considered": ("deemed",),
    "the function": ("the routine", "the helper", "your code"),
    "this function": ("this routine", "this helper"),
    "a function": ("a routine", "a helper"),
    "you may assume": ("it is safe to assume",),
    "you can assume": ("it is safe to assume",),
    "you may": ("you can",),
    "you can": ("you may",),
    "you have to": ("you need to", "you are to"),
    "you need to": ("you have to", "you are to"),
    "you should": ("you ought to", "you are to"),
    "make sure": ("ensure",),
    "suppose": ("imagine",),
    "imagine": ("picture",),
    "based on": ("according to", "by"),
    "according to": ("based on", "by"),
    "with respect to": ("by", "according to"),
    "corresponding to": ("matching",),
    "corresponding": ("matching", "associated"),
    "the corresponding": ("the matching", "the associated"),
    "the original": ("the initial",),
    "original": ("initial",),
    "a lot of": ("many",),
    "quite": ("rather",),
    "efficiently": ("quickly",),
}

# Words a reader skips when recognising a phrase: "if a given number is prime" and "if the given number
# is prime" are one phrase to a memoriser.
ARTICLES = frozenset({"a", "an", "the"})


@lru_cache(maxsize=1)
def _related() -> dict[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """Each phrase's word tuple -> the word tuples it may be swapped with, either way (one entry apart),
    longest first, then in word order: a tie is broken the same way in every process."""
    related: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for phrase, alternatives in SYNONYMS.items():
        key = tuple(words(phrase))
        for alternative in alternatives:
            other = tuple(words(alternative))
            if not key or not other or key == other:
                continue
            related.setdefault(other, set()).add(key)
            related.setdefault(key, set()).add(other)
    return {key: tuple(sorted(found, key=lambda t: (-len(t), t))) for key, found in related.items()}


@lru_cache(maxsize=1)
def _longest() -> int:
    return max((len(key) for key in _related()), default=0)


def swapped_back(text: str, original: str) -> list[str]:
    """The words of ``text`` with every swap of :data:`SYNONYMS` undone toward ``original``'s words, and
    without articles (:data:`ARTICLES`), as a memoriser would compare them.

    A phrase of ``text`` is written as ``original``'s phrase where the two are one entry apart (a phrase
    and its alternative, either way) and ``original`` uses that phrase; the longest such phrase first.
    Only ever toward the original's own words, so the result can only look more like it, never less: a
    figure measured on it is an upper bound on what was kept.

    >>> swapped_back("Say whether a supplied number is prime.", "Return true if a given number is prime.")
    ['say', 'whether', 'given', 'number', 'is', 'prime']
    """
    source = [word for word in words(original) if word not in ARTICLES]
    tokens = [word for word in words(text) if word not in ARTICLES]
    related, longest = _related(), _longest()
    # Every phrase of the original a table entry could be: looked up, not searched for, per token.
    phrases = {tuple(source[i : i + size]) for size in range(1, longest + 1) for i in range(len(source))}
    out: list[str] = []
    index = 0
    while index < len(tokens):
        for size in range(min(longest, len(tokens) - index), 0, -1):
            here = tuple(tokens[index : index + size])
            if here in phrases:
                continue  # the original's own phrase: nothing to undo
            target = next((target for target in related.get(here, ()) if target in phrases), None)
            if target is not None:
                out.extend(target)
                index += size
                break
        else:
            out.append(tokens[index])
            index += 1
    return out


def swapped_back_text(text: str, original: str) -> str:
    """:func:`swapped_back` as one string of words (for the figures that read text)."""
    return " ".join(swapped_back(text, original))


def without_articles(text: str) -> str:
    """``text``'s words without :data:`ARTICLES`, as one string."""
    return " ".join(word for word in words(text) if word not in ARTICLES)
