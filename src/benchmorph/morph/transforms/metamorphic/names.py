"""New names for a retold problem's function and parameters: descriptive, consistent, tied to the scenario.

A parameter's new name says what it holds: the scenario's noun where one
fits its values (``numbers`` becomes ``readings`` in a weather station's
dashboard), else a synonym of its role (``threshold`` becomes ``margin``,
``delimeter`` becomes ``separator``), else a plain noun of its type for a
name the prose never uses (``lst`` becomes ``values``).  What is not renamed,
and why, is recorded:

- a single letter the prose uses as a symbol ("the n-th number", "x * n"):
  renaming it to another letter is letter soup, and to a word turns a formula
  into nonsense;
- a name the prose glues to other tokens ("2n", "x_1") or holds in a web
  address (``renaming.glued_use``);
- a pair (``lst1``/``lst2``, ``planet1``/``planet2``) is renamed together or
  not at all, and a parameter whose name is part of the function's name
  (``x_or_y(n, x, y)``) is renamed only with it (both keep their names).

The function's new name is built from its parts (``has_close_elements`` ->
``has_near_readings``): each part a synonym from :data:`NAME_PARTS`, a generic
part ("list", "string", "elements") the scenario's noun, camelCase written in
snake_case; a name none of whose parts has a synonym gets a verb of its result
in front (``check_``, ``compute_``).
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from benchmorph.morph.transforms.metamorphic.lexicon import pick
from benchmorph.morph.transforms.metamorphic.renaming import glued_use, without_urls, word_pattern
from benchmorph.morph.transforms.metamorphic.scenes import Noun

# Synonyms of parts of function names.
NAME_PARTS: dict[str, tuple[str, ...]] = {
    "sum": ("total",), "count": ("tally", "how_many"), "find": ("locate", "get"), "is": ("check", "verify"),
    "has": ("contains", "holds"), "max": ("largest", "peak"), "min": ("smallest", "lowest"),
    "check": ("verify", "confirm"), "sort": ("order", "arrange"), "remove": ("drop", "strip"),
    "get": ("fetch", "compute"), "extract": ("pull", "collect"), "add": ("combine", "plus"),
    "length": ("size",), "len": ("size",), "filter": ("select", "keep"), "unique": ("distinct",),
    "split": ("break", "divide"), "match": ("fit",), "dict": ("mapping",), "reverse": ("flip", "invert"),
    "diff": ("gap",), "difference": ("gap",), "replace": ("swap", "substitute"), "largest": ("biggest",),
    "smallest": ("lowest",), "index": ("position",), "pair": ("couple",), "pairs": ("couples",),
    "nested": ("inner",), "common": ("shared",), "closest": ("nearest",), "next": ("following",),
    "last": ("final",), "position": ("place", "slot"), "pos": ("place",), "average": ("mean",),
    "avg": ("mean",), "mean": ("average",), "substring": ("fragment",), "duplicates": ("repeats",),
    "fib": ("fibonacci",), "search": ("seek", "look_up"), "move": ("shift",), "sorted": ("ordered",),
    "intersection": ("overlap",), "equal": ("same",), "same": ("matching",), "merge": ("combine", "join"),
    "empty": ("blank",), "below": ("under",), "parse": ("read", "decode"),
    "parens": ("brackets",), "paren": ("bracket",), "make": ("build", "form"), "sequence": ("series",),
    "distinct": ("unique",), "characters": ("symbols",), "chars": ("symbols",), "char": ("symbol",),
    "concatenate": ("join", "glue"), "triples": ("triplets",), "base": ("radix",), "shift": ("rotate",),
    "correct": ("proper", "valid"), "bracketing": ("nesting",), "total": ("sum",), "solve": ("process",),
    "solution": ("answer",), "prod": ("product",), "path": ("route",), "arrange": ("order",),
    "compare": ("contrast",), "special": ("custom",), "substrings": ("fragments",),
    "freq": ("frequency",), "frequency": ("tally",), "convert": ("turn", "change"), "swap": ("exchange",),
    "occurrence": ("appearance",), "occurance": ("appearance",), "occurrences": ("appearances",),
    "toggle": ("flip",), "middle": ("center",), "rotate": ("spin", "cycle"), "close": ("near",),
    "separate": ("split",), "groups": ("clusters",), "truncate": ("trim",), "intersperse": ("interleave",),
    "rolling": ("running",), "rescale": ("normalize",), "strlen": ("text_size",), "factorize": ("factors",),
    "flip": ("swap",), "cyclic": ("circular",), "incr": ("increment", "bump"), "modp": ("power_mod",),
    "circular": ("cyclic",), "pluck": ("pick",), "strange": ("peculiar", "unusual"), "grade": ("mark",),
    "pile": ("stack",), "choose": ("pick",), "rounded": ("round",), "exchange": ("swap",),
    "histogram": ("tally",), "delete": ("remove",), "select": ("pick",), "tri": ("tribonacci",),
    "fix": ("clean", "repair"), "simplify": ("reduce",), "order": ("sort",), "points": ("score",),
    "generate": ("list", "make"), "similar": ("shared",), "differ": ("vary",), "rotations": ("turns",),
    "occ": ("occurrences",), "matrix": ("grid",), "dirty": ("unwanted",), "string": ("text",),
    "str": ("text",), "text": ("phrase",), "list": ("items",), "lst": ("items",), "array": ("items",),
    "arr": ("items",), "elements": ("items",), "element": ("item",), "num": ("value",), "nums": ("values",),
    "number": ("value",), "numbers": ("values",), "int": ("whole",), "integers": ("whole_numbers",),
    "integer": ("whole_number",), "words": ("terms",), "word": ("term",), "values": ("figures",),
    "multiply": ("times",), "spaces": ("blanks",), "encrypt": ("scramble",), "words_string": ("split_words",),
    "decode": ("unscramble",), "encode": ("scramble",), "consecutive": ("successive",),
    "greatest": ("largest",), "divisor": ("factor",), "prefixes": ("leading_parts",), "prefix": ("start",), "times": ("occurrences",),
    "suffix": ("tail",), "first": ("leading",), "upper": ("capital",), "lower": ("small",),
    "dif": ("gap",), "issort": ("is_ordered",), "tup": ("group",), "tuple": ("group",), "tuples": ("groups",),
}  # fmt: skip

# Parts that name the input's type: replaced by the scenario's noun where the input has one.
GENERIC_PARTS = frozenset(
    "list lst array arr elements element nums numbers num values string str text words strings items".split()
)

# Synonyms of parameter names that are words of a role (not of a type).
ROLE_NAMES: dict[str, tuple[str, ...]] = {
    "threshold": ("margin", "tolerance", "cutoff"), "delimeter": ("separator", "joiner", "spacer"),
    "delimiter": ("separator", "joiner", "spacer"), "substring": ("fragment", "snippet", "piece"),
    "sub_str": ("fragment", "snippet"), "prefix": ("lead", "opening"), "suffix": ("ending", "tail"),
    "operations": ("transactions", "movements"), "brackets": ("markers", "bracket_text"),
    "paren_string": ("bracket_text", "parens_text"), "music_string": ("notation", "score_text"),
    "grid": ("board", "field"), "capacity": ("bucket_size", "load_limit"), "date": ("date_text", "day_text"),
    "sentence": ("phrase", "line"), "message": ("note", "text_line"), "word": ("term", "token"),
    "words": ("terms", "tokens"), "grades": ("averages", "gpa_values"), "planet1": ("orbit_a",),
    "planet2": ("orbit_b",), "interval1": ("span_a",), "interval2": ("span_b",), "game": ("results",),
    "guess": ("predictions",), "extensions": ("plugins", "add_ons"), "class_name": ("host_class",),
    "file_name": ("filename", "file_label"), "operator": ("operators",), "operand": ("operands",),
    "base": ("radix",), "shift": ("offset", "steps"), "decimal": ("value",), "value": ("text_value",),
    "pattern": ("template",), "patterns": ("templates",), "colors": ("shades",), "height": ("tallness",),
    "limit": ("bound",), "step": ("stride",), "char": ("symbol",), "ch": ("symbol",), "newch": ("filler",),
    "index": ("position",), "size": ("extent",), "length": ("span",), "degree": ("angle",),
    "power": ("exponent",), "side": ("edge",), "cost": ("price",), "actual_cost": ("price_paid",),
    "sale_amount": ("price_sold",), "students": ("pupils",), "item": ("entry",), "items": ("entries",),
    "input_list": ("entries",), "test_list": ("entries",), "test_tup": ("group",), "test_str": ("text",),
    "test_dict": ("mapping",), "dict1": ("mapping",), "data_list": ("entries",), "my_list": ("entries",),
    "list_data": ("entries",), "tuple_list": ("groups",), "nestedlist": ("nested_entries",),
    "stringlist": ("texts",), "strings": ("texts",), "string": ("text",), "text": ("passage",),
    "txt": ("passage",), "str1": ("text",), "s": ("text",), "numbers": ("values",), "nums": ("values",),
    "arr": ("values",), "lst": ("values",), "l": ("values",), "xs": ("coefficients",), "values": ("figures",),
    "array": ("values",), "num_list": ("values",), "arraynums": ("values",), "list1": ("entries",),
    "num": ("value",), "list_": ("entries",), "listval": ("entries",), "iterable": ("entries",),
    "array_nums": ("values",), "my_matrix": ("grid",), "sample_names": ("names",),
}  # fmt: skip

# Plain nouns by type for a name the prose never uses and no scenario noun fits.
TYPE_NAMES: dict[str, tuple[str, ...]] = {
    "number": ("value", "amount", "quantity"),
    "numbers": ("values", "amounts", "figures"),
    "text": ("text", "phrase", "passage"),
    "texts": ("texts", "phrases", "labels"),
    "flag": ("flag", "switch"),
    "mapping": ("mapping", "table"),
    "items": ("entries", "records", "items"),
    "value": ("data", "subject", "item"),
}

_LETTER = re.compile(r"^[A-Za-z]$")


@dataclass
class Plan:
    """What a retelling calls the function and its parameters, and what kept its name and why."""

    params: dict[str, str] = field(default_factory=dict)  # old -> new, changed ones only
    entry_point: str = ""
    nouns: dict[str, Noun] = field(default_factory=dict)  # old parameter name -> the scenario noun it took
    kept: dict[str, str] = field(default_factory=dict)  # old parameter name -> why it kept its name


def name_parts(name: str) -> list[str]:
    """``has_close_elements`` -> has, close, elements; ``digitSum`` -> digit, sum; digits stay parts."""
    pieces: list[str] = []
    for chunk in name.split("_"):
        pieces += [p.lower() for p in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", chunk)]
    return [p for p in pieces if p]


def free_name(name: str, used: set[str]) -> bool:
    """Whether ``name`` can be a new name: an identifier, no keyword or builtin, not already used."""
    return _free(name, used)


def _free(name: str, used: set[str]) -> bool:
    return (
        name.isidentifier()
        and not keyword.iskeyword(name)
        and not hasattr(builtins, name)
        and name not in used
    )


def _pair_stem(name: str) -> str | None:
    """``lst1`` -> ``lst``, ``planet_2`` -> ``planet``: the stem of a numbered name, or None."""
    found = re.fullmatch(r"(.*?[A-Za-z])_?([0-9])", name)
    return found.group(1) if found else None


_HEADS = r"(?:list|array|string|integer|number|threshold|word|sentence|value|grid|text|dictionary|tuple|base|shift)"


def renamable_letter(name: str, prose: str) -> bool:
    """Whether a one-letter parameter the prose mentions only ever appears as the name in a typed phrase
    ("the list l", "a string s", "threshold t"): then the phrase, not a formula, is what the reader sees."""
    text = without_urls(prose)
    uses = list(word_pattern(name).finditer(text))
    if name in ("a", "I"):
        return False
    named = [m for m in uses if re.search(rf"{_HEADS}\s+$", text[: m.start()], re.I)]
    return bool(uses) and len(named) == len(uses)


def _head_of(name: str, prose: str) -> str | None:
    """The noun a one-letter name stands after in the prose ("threshold t" -> threshold), if any."""
    found = re.search(rf"\b({_HEADS})\s+{re.escape(name)}\b", without_urls(prose), re.I)
    return found.group(1).lower() if found else None


def mentions_letter(name: str, prose: str) -> bool:
    """Whether the prose uses a one-letter parameter as a symbol (for "a" and "I", only where they cannot
    be the article or the pronoun: "integer a", "(a)", "a and b", "a,")."""
    text = without_urls(prose)
    if name in ("a", "I"):
        return bool(
            re.search(
                rf"(?:\b(?:integers?|numbers?|and|or)\s+|[,(]\s*){name}\b|\b{name}(?=\s*[,)\].;:=<>+*/-]|\s+(?:and|or|is|are)\b)",
                text,
            )
        )
    return bool(word_pattern(name).search(text))


def plan_names(
    entry_point: str,
    params: Sequence[str],
    categories: Mapping[str, str],
    nouns: Mapping[str, Noun],
    prose: str,
    choice: int,
    taken: set[str],
    result: str,
) -> Plan:
    """New names for the parameters (``categories``: each one's type pool, ``nouns``: scenario nouns that
    fit) and the function (``result``: check | compute | build | make, the verb of its result)."""
    plan = Plan(entry_point=entry_point)
    # A new name that is already a word of the prose would seem to be what that word means ("whose xor
    # value is odd" with a parameter called `value`): the prose's words are taken too.
    used = set(taken) | set(params) | {word.lower() for word in re.findall(r"[A-Za-z_]\w*", prose)}
    new: dict[str, str] = {}
    stems: dict[str, list[str]] = {}
    for name in params:
        stem = _pair_stem(name)
        if stem is not None:
            stems.setdefault(stem, []).append(name)
    letters: dict[str, list[str]] = {}
    for name in params:
        if _LETTER.match(name) and glued_use(name, prose) is None:
            letters.setdefault(categories.get(name, "value"), []).append(name)
    for name in params:
        if glued_use(name, prose) is not None:
            plan.kept[name] = "the prose glues it to other tokens"
            continue
        if _LETTER.match(name):
            continue  # letters are named by group below
        stem = _pair_stem(name)
        if stem is not None and len(stems.get(stem, [])) > 1:
            continue  # numbered pairs are named together below
        if _story_word(name) and word_pattern(name).search(without_urls(prose)):
            plan.kept[name] = "the prose uses it as a word of its own story"
            continue
        options: tuple[str, ...]
        if name in nouns:
            options = (nouns[name].name,)
        elif name in ROLE_NAMES:
            options = ROLE_NAMES[name]
        else:
            options = TYPE_NAMES.get(categories.get(name, "value"), TYPE_NAMES["value"])
        chosen = _first_free(options, choice, name, used)
        if chosen is None:
            plan.kept[name] = "every new name is taken"
        else:
            new[name] = chosen
    for stem, members in stems.items():
        if len(members) < 2:
            continue
        first = members[0]
        if first in nouns:
            base = nouns[first].name
        elif stem in ROLE_NAMES:
            base = pick(ROLE_NAMES[stem], choice, stem)
        else:
            base = pick(TYPE_NAMES.get(categories.get(first, "value"), TYPE_NAMES["value"]), choice, stem)
        numbered = [f"{base}{member[-1]}" for member in members]
        if all(_free(c, used) for c in numbered) and not any(glued_use(m, prose) for m in members):
            new.update(zip(members, numbered, strict=True))
            used.update(numbered)
        else:
            for member in members:
                plan.kept[member] = "its pair cannot be renamed together"
    for category, members in letters.items():
        # One-letter names of one type are renamed together or not at all (a, b, c -> side1, side2, side3
        # never a, amount, value).
        symbols = [m for m in members if mentions_letter(m, prose) and not renamable_letter(m, prose)]
        if symbols:
            for member in members:
                plan.kept[member] = "a letter the prose uses as a symbol" + (
                    "" if member in symbols else f" (with {', '.join(symbols)})"
                )
            continue
        if len(members) == 1:
            name = members[0]
            head = _head_of(name, prose)
            options = (
                (nouns[name].name,)
                if name in nouns
                else ROLE_NAMES.get(head or "", TYPE_NAMES.get(category, TYPE_NAMES["value"]))
            )
            chosen_one = _first_free(options, choice, name, used)
            if chosen_one is not None:
                new[name] = chosen_one
            else:
                plan.kept[name] = "every new name is taken"
            continue
        base = pick(TYPE_NAMES.get(category, TYPE_NAMES["value"]), choice, "".join(members))
        numbered = [f"{base}{position + 1}" for position in range(len(members))]
        if all(_free(c, used) for c in numbered):
            new.update(zip(members, numbered, strict=True))
            used.update(numbered)
        else:
            for member in members:
                plan.kept[member] = "its group cannot be renamed together"
    plan.params = {old: value for old, value in new.items() if value != old}
    plan.nouns = {old: nouns[old] for old in plan.params if old in nouns}
    plan.entry_point = _function_name(entry_point, plan, params, categories, choice, used, result)
    return plan


# English parameter names whose every use in the benchmarks' prose is the parameter (the weaver renames
# them there too), and type words whose phrases the weaver retells; any other English word the prose
# uses ("grades", "operations", "word", "base") is the prose's own, and the parameter keeps its name.
PROSE_NAMES = frozenset(
    {"threshold", "delimeter", "delimiter", "substring", "prefix", "suffix", "capacity", "shift"}
)
TYPE_WORDS = frozenset(
    {"numbers", "string", "strings", "text", "values", "array", "list", "nums", "lst", "arr", "txt"}
)


def _story_word(name: str) -> bool:
    return (
        name.isalpha()
        and name.islower()
        and len(name) > 3
        and name not in PROSE_NAMES
        and name not in TYPE_WORDS
    )


def _first_free(options: Sequence[str], choice: int, key: str, used: set[str]) -> str | None:
    for step in range(len(options)):
        candidate = pick(options, choice + step, key)
        if _free(candidate, used):
            used.add(candidate)
            return candidate
    return None


# Verbs that open a name (is_prime, has_close_elements): replaced only there ("check_if_last_char_is_a_letter"
# keeps its inner "is").
_OPENING_PARTS = frozenset({"is", "has", "check", "get", "find", "count", "make", "test"})
_LIST_PARTS = frozenset(
    "list lst array arr elements element nums numbers num values items strings words".split()
)
_TEXT_PARTS = frozenset("string str text txt".split())


def _gibberish(part: str) -> bool:
    """A part no reader takes for a word: a run of four consonants, and no synonym known for it."""
    return part not in NAME_PARTS and re.search(r"[bcdfghjklmnpqrstvwxz]{4}", part) is not None


def _function_name(
    entry_point: str,
    plan: Plan,
    params: Sequence[str],
    categories: Mapping[str, str],
    choice: int,
    used: set[str],
    result: str,
) -> str:
    parts = name_parts(entry_point)
    holder = next(iter(plan.nouns), None) if len(plan.nouns) == 1 else None
    noun = plan.nouns[holder] if holder is not None else None
    noun_kind_list = holder is not None and categories.get(holder) in ("numbers", "texts")
    by_part = {name.lower(): name for name in params}
    out: list[str] = []
    changed = 0
    for position, part in enumerate(parts):
        if part in by_part:  # a parameter's name inside the function's: both change, or neither
            old = by_part[part]
            out.append(plan.params.get(old, part))
            changed += int(old in plan.params)
        elif noun is not None and (part in _LIST_PARTS if noun_kind_list else part in _TEXT_PARTS):
            out.append(noun.name)
            changed += 1
        elif part in NAME_PARTS and (position == 0 or part not in _OPENING_PARTS):
            out.append(pick(NAME_PARTS[part], choice + position, part))
            changed += 1
        else:
            out.append(part)
    deduped = [part for position, part in enumerate(out) if position == 0 or part != out[position - 1]]
    if all(_gibberish(part) for part in parts):
        # A name that is no word ("skjkasdkd") would be recognised as is: a plain one in its place.
        deduped = [{"check": "check", "compute": "compute", "build": "build"}.get(result, "make"),
                   noun.name if noun is not None else "result"]  # fmt: skip
        changed = 1
    if not changed and noun is not None:
        deduped = [*parts, noun.singular.split()[-1]]  # longest -> longest_title
    elif not changed:
        deduped = [{"check": "check", "compute": "compute", "build": "build"}.get(result, "make"), *parts]
    candidate = re.sub(r"_+", "_", "_".join(deduped)).strip("_")
    if candidate == entry_point.lower() or not _free(candidate, used):
        candidate = f"{candidate}_for_{noun.name}" if noun is not None else f"{result}_{candidate}"
    if candidate.startswith("test"):
        # pytest collects a ``test*`` function, and a reader takes it for a unit test (review24d: test_happy).
        return entry_point
    return candidate if _free(candidate, used) else entry_point
