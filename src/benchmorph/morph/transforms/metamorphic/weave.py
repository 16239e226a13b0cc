"""Weaving the scenario and the new names into the prose: generic nouns become the scenario's.

"Given a list of numbers" becomes "Given a list of temperature readings
`readings`", "a string s" becomes "a chat message `message`", and later
mentions ("the list", "the string", ``l``) the scenario's noun or the new
name.  Only phrases that name an *input* are touched: a phrase with the
parameter's name, with "given"/"input"/"supplied", or after a verb of
receiving ("takes a string").  "Return a list of ..." is the output, and
keeps its words.  Element words that carry meaning stay as adjectives
("a list of positive integers" becomes "a list of positive integer match
scores"); a list of anything else ("deposit and withdrawal operations")
keeps its own story.

Every phrase written here is hidden from the later steps (the grammar and
the vocabulary) behind a placeholder of ``grammar.Masked``, and the
function's own name behind ``§E§``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from benchmorph.morph.transforms.metamorphic.grammar import Masked
from benchmorph.morph.transforms.metamorphic.names import PROSE_NAMES
from benchmorph.morph.transforms.metamorphic.scenes import Noun
from benchmorph.validation.concepts import concepts

ENTRY = "§E§"


@dataclass(frozen=True)
class Param:
    """One parameter as the prose may mention it."""

    old: str
    new: str
    kind: str  # numbers | texts | text | word | other (scenes.Traits)
    noun: Noun | None = None


_DET = r"(?P<det>\b(?:a|an|the)\s+)?"
_ADJ = r"(?P<adj>(?:(?:given|input|supplied|provided|original|non-empty|nonempty|entire|whole)\s+)*)"
_ELEM_BODY = (
    r"(?:(?:positive|negative|non-negative|nonnegative|non-zero|even|odd|distinct|unique)\s+)*"
    r"(?:integers|numbers|floats|floating[- ]point\s+numbers|float\s+numbers|real\s+numbers|elements|values|items)"
)
_ELEM_WORDS = rf"(?P<elem>{_ELEM_BODY})"
_END = (
    r"(?=\s*(?:[,.;:!?()]|§|$)|\s+(?:that|which|who|where|whose|with|and|or|of|is|are|has|have|as|in|into|to|"
    r"from|by|for|if|when|such|so|then|but|containing|consisting|representing|made|separated|delimited|encoded|"
    r"only|having|will|should|must|can)\b)"
)
_RECEIVING = re.compile(
    r"(?:\b(?:given|takes?|accepts?|receives?|from|in|of|for|into|on|within|out\s+of)\s+)$", re.I
)
_DEFINED = re.compile(
    r"\s+(?:of|representing|represented|encoding|encoded|that\s+represents?|which\s+represents?|describing|"
    r"containing|consisting|made|with|where|whose)\b",
    re.I,
)
_INPUT_ADJ = re.compile(r"\b(?:given|input|supplied|provided|original)\b", re.I)


def _identifier_like(name: str) -> bool:
    return (
        "_" in name
        or any(ch.isdigit() for ch in name)
        or (name[:1].islower() and any(ch.isupper() for ch in name))
    )


def _article(word: str) -> str:
    """ "a" or "an" by sound: "an item", "a user" (a "u" that sounds like "you" takes "a")."""
    low = word.lower()
    if re.match(r"u(?:s|ni|ti|ser|biq)|eu|one\b", low):
        return "a"
    return "an" if low[:1] in "aeiou" else "a"


def _elem_adjective(elem: str) -> str:
    """The words of an element phrase that say something, as adjectives: "positive integers" -> "positive
    integer "; "numbers" -> ""."""
    words = elem.lower().split()
    out = [w for w in words[:-1] if w not in ("floating", "float", "real")]
    head = " ".join(words[-2:]) if len(words) > 1 else words[-1]
    if words[-1] == "integers":
        out.append("integer")
    elif "floating" in words or "float" in head or words[-1] == "floats":
        out.append("floating-point")
    return " ".join(out) + (" " if out else "")


@dataclass
class Weaver:
    """The parameters' new names and nouns, and which were already introduced in this description."""

    params: Sequence[Param]
    entry_old: str
    named: bool  # the prompt shows the parameters' names (a def line)
    result_kind: str  # what the function returns, in the same kinds
    introduced: set[str] = field(default_factory=set)
    terms: set[str] = field(default_factory=set)  # scenario words written
    woven: set[str] = field(default_factory=set)  # parameters whose scenario noun the prose now says

    def _name(self, param: Param) -> str:
        return f"`{param.new}`"

    def _intro(self, masked: Masked, param: Param, det: str, adj: str, phrase: str) -> str:
        """The phrase that introduces a parameter: its noun phrase, then its name (where names show)."""
        det = det.strip().lower()
        adj = " ".join(w for w in adj.split() if w.lower() not in ("input", "supplied", "provided"))
        words = f"{adj} {phrase}".strip()
        if det in ("a", "an"):
            det = _article(words)
        lead = f"{det} " if det else ""
        name = f" {self._name(param)}" if self.named and param.old not in self.introduced else ""
        self.introduced.add(param.old)
        return masked.hide(f"{lead}{words}{name}")

    def prescan(self, sentences: Sequence[str]) -> None:
        """Drop the scenario noun of a text parameter the prose defines anywhere ("a string of words",
        "a string representing a word"): its own meaning stands, in every sentence."""
        text = " ".join(sentences)
        kept: list[Param] = []
        for param in self.params:
            if param.noun is not None and param.kind in ("text", "word"):
                heads = "string" if param.kind == "text" else "string|word"
                for match in re.finditer(rf"\b(?:{heads})\b", text, re.I):
                    if _DEFINED.match(text, match.end()):
                        param = Param(param.old, param.new, param.kind, None)
                        break
            kept.append(param)
        self.params = kept

    def protect(self, masked: Masked, text: str) -> str:
        """Hide the function's name, the parameters' mentions and the scenario's phrases (see module doc)."""
        if _identifier_like(self.entry_old):
            text = re.sub(rf"(?<![\w.`'])`?{re.escape(self.entry_old)}`?(?:\(\))?(?!\w)", ENTRY, text)
        else:  # an English word ("longest", "median"): only a call or a quoted mention is the function
            text = re.sub(
                rf"`{re.escape(self.entry_old)}`|(?<![\w.`']){re.escape(self.entry_old)}\(\)", ENTRY, text
            )
        for param in self.params:
            quoted = re.compile(
                rf"`{re.escape(param.old)}`|`{re.escape(param.old)}'|'{re.escape(param.old)}'|\"{re.escape(param.old)}\""
            )

            def mention(match: re.Match[str], param: Param = param) -> str:
                return self._mention(masked, param)

            text = quoted.sub(mention, text)
        for param in self.params:
            text = self._named_phrases(masked, param, text)
        for param in self.params:
            if param.noun is not None:
                text = self._generic_phrases(masked, param, text)
        for param in self.params:
            text = self._bare(masked, param, text)
        return text

    def _mention(self, masked: Masked, param: Param) -> str:
        self.introduced.add(param.old)
        return masked.hide(self._name(param))

    def _head(self, param: Param, head: str, elem: str | None) -> str:
        """The noun phrase for a parameter's type phrase: the scenario's where it has one."""
        noun = param.noun
        if noun is None:
            return f"{head} of {elem}" if elem else head
        self.terms.update(noun.plural.split() + noun.singular.split() + [noun.name])
        self.woven.add(param.old)
        if param.kind == "numbers":
            return f"{head} of {_elem_adjective(elem or 'numbers')}{noun.plural}"
        if param.kind == "texts":
            return f"{head} of {noun.plural}"
        return noun.singular

    def _named_phrases(self, masked: Masked, param: Param, text: str) -> str:
        """ "a list l", "an array arr of integers", "a string s", "the list l": the type phrase with the name."""
        if param.new == param.old and param.noun is None:
            return text  # a kept name: its phrase stays as written
        name = rf"(?:`{re.escape(param.old)}`|`{re.escape(param.old)}'|'{re.escape(param.old)}'|{re.escape(param.old)})"
        heads = (
            r"(?P<head>list|array|sequence|string|integer|number|tuple|dictionary|word|sentence|text|grid|value"
            r"|threshold|base|shift)"
        )
        pattern = re.compile(
            rf"{_DET}{_ADJ}{heads}(?:\s+of\s+{_ELEM_WORDS})?\s+{name}(?:\s+of\s+(?P<elem2>{_ELEM_BODY}))?(?![\w'])",
            re.I,
        )

        def one(match: re.Match[str]) -> str:
            if param.old in self.introduced:
                return masked.hide(self._name(param))
            head = match.group("head")
            elem = match.group("elem") or match.group("elem2")
            kind_head = head.lower() in ("list", "array", "sequence") and param.kind in ("numbers", "texts")
            string_head = head.lower() in ("string", "word", "sentence", "text") and param.kind in (
                "text",
                "word",
            )
            phrase = (
                self._head(param, head, elem)
                if (kind_head or string_head)
                else (f"{head} of {elem}" if elem else head)
            )
            return self._intro(masked, param, match.group("det") or "", match.group("adj") or "", phrase)

        return pattern.sub(one, text)

    def _generic_phrases(self, masked: Masked, param: Param, text: str) -> str:
        """Type phrases without the name ("a list of numbers", "the given string") when the parameter is the
        only one of its kind and the phrase names an input."""
        if sum(1 for p in self.params if p.kind == param.kind) != 1:
            return text
        if param.kind in ("numbers", "texts"):
            elems = _ELEM_WORDS if param.kind == "numbers" else r"(?P<elem>strings|words)"
            pattern = re.compile(rf"{_DET}{_ADJ}(?P<head>list|array)(?:\s+of\s+{elems})?{_END}", re.I)
        else:
            heads = "string" if param.kind == "text" else "string|word"
            pattern = re.compile(rf"{_DET}{_ADJ}(?P<head>{heads}){_END}", re.I)
        same_output = self.result_kind == param.kind or (
            param.kind in ("text", "word") and self.result_kind in ("text", "word")
        )
        out: list[str] = []
        last = 0
        for match in pattern.finditer(text):
            det, adj = match.group("det") or "", match.group("adj") or ""
            before = text[: match.start()]
            if re.search(r"\bas\s+$", before, re.I):
                continue  # "takes as input string ...": the phrase is "as input"
            if param.kind in ("text", "word") and _DEFINED.match(text, match.end()):
                continue  # "a string representing ...", "a string of words": the prose gives it its meaning
            marked = (
                bool(_INPUT_ADJ.search(adj))
                or bool(_RECEIVING.search(before))
                or (det.strip().lower() == "the" and not same_output)
            )
            if not marked or (same_output and not _INPUT_ADJ.search(adj) and not _RECEIVING.search(before)):
                continue
            elem = match.groupdict().get("elem")
            if param.kind == "numbers" and elem is None and det.strip().lower() != "the":
                continue  # "a list" alone says nothing of numbers: it may be any list
            if elem is None and re.match(r"\s+of\b", text[match.end() :]):
                continue  # "the list of digits": a list of something the scenario does not name
            out.append(text[last : match.start()])
            if param.old in self.introduced:
                phrase = (
                    f"list of {param.noun.plural}"
                    if param.kind in ("numbers", "texts") and param.noun
                    else (param.noun.singular if param.noun else match.group(0))
                )
                out.append(masked.hide(f"the {phrase}"))
                if param.noun:
                    self.terms.update(phrase.split())
            else:
                opening = ""
                if not det and adj[:5].lower() == "given" and not before.strip():
                    opening, adj = adj[:6], adj[6:]  # "Given list of ..." opens the sentence: "Given" stays
                out.append(
                    opening
                    + self._intro(
                        masked, param, det or "the ", adj, self._head(param, match.group("head"), elem)
                    )
                )
            last = match.end()
        out.append(text[last:])
        return "".join(out)

    def _bare(self, masked: Masked, param: Param, text: str) -> str:
        """The parameter's own name standing alone in a sentence.

        An identifier (``lst``, ``arr``, ``paren_string``) becomes the new name
        in backticks.  An English word is renamed in the prose only where its
        use there is the parameter for certain (:data:`PROSE_NAMES`: "than given
        threshold"); a concept word keeps its word and gains the name at its
        first mention ("a given prefix `lead`").  Story words ("grades",
        "operations", "word") stay: the prose's "grades" may not be the
        parameter's (HumanEval/81's letter grades are not its GPAs).
        """
        if param.new == param.old or len(param.old) == 1:
            return text
        word = re.compile(rf"(?<![\w.'§`-]){re.escape(param.old)}(?![\w'§`-])")
        english = param.old.isalpha() and len(param.old) > 3 and param.old.lower() not in ABBREVIATIONS
        if english and param.old.lower() not in PROSE_NAMES:
            return text
        is_concept = bool(concepts(param.old))

        def one(match: re.Match[str]) -> str:
            first = param.old not in self.introduced
            self.introduced.add(param.old)
            if is_concept:
                return (
                    masked.hide(f"{param.old} {self._name(param)}")
                    if first and self.named
                    else match.group(0)
                )
            return masked.hide(self._name(param))

        return word.sub(one, text)


ABBREVIATIONS = frozenset(
    {
        "arr",
        "lst",
        "nums",
        "num",
        "txt",
        "strr",
        "tup",
        "dct",
        "arrs",
        "lsts",
        "tuplex",
        "dlist",
        "stdata",
        "numbers_list",
    }
)
