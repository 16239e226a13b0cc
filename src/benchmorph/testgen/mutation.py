"""Type-aware mutation of test inputs: new candidate inputs near the observed ones.

The EvalPlus recipe for finding wrong solutions that a benchmark's few tests
let pass: start from valid inputs, change them in ways the parameter types
allow, and keep what the reference accepts (the sandbox filter is the test
generator's job, not this module's).  Everything here is driven by the types
:mod:`benchmorph.testgen.types` infers and by what the *pool* (the other
observed values of the same parameter) shows: value bounds, the string
alphabet, container sizes, and whether NaN or infinity ever occur.

Rules, by type (each has a name such as ``int.negate``; :data:`RULES` lists them):

- ``int``: ±1, 0, negation, the observed min and max and one past them, a
  random value in the observed range, ±10**k up to a few digits past the largest
  observed magnitude, another pool value; and, where the caller gives the
  reference's own integer literals (``Mutator(constants=...)``, see
  :func:`code_constants`), one of them or one next to it (``int.constant``):
  the values a reference compares with are where its branches and off-by-one
  slips sit;
- ``float``: the same, plus ±small deltas, halving/doubling, rounding; NaN and
  ±inf only when the pool holds them (a NaN input where the parent never had
  one tests nothing the task promised);
- ``bool``: flip; ``complex``: change the real or imaginary part;
- ``str`` (and ``bytes``): insert, delete, replace, swap, case change, repeat,
  reverse, empty, splice with a pool string, another pool value; new characters
  come from the alphabet the pool uses, so digit strings stay digit strings;
- ``list`` and ``tuple[T, ...]``: append and insert (an item mutated from a pool
  item), remove, shuffle, reverse, sort, splice with another pool value,
  duplicate, empty, mutate one item (recursively);
- ``tuple[A, B]``: mutate one position, swap two positions of one type (and,
  for a call, two arguments of one type: ``args.swap``, :data:`ARGS_SWAP`);
- ``set``/``frozenset``: add, remove, splice, empty, replace an item;
- ``dict``: add, remove, re-key, change a value, reorder, splice, empty;
- unions: mutate within the branch the value belongs to.

Sizes stay bounded: a string or container grows to at most twice the longest
the pool holds (at least :data:`MIN_CAP`, at most :data:`HARD_CAP`), so
mutants stay as fast to run as the seeds.  Every result is admitted by the
type it was mutated under (checked, with a retry; the unchanged value is the
last resort), nothing is changed in place, and all randomness comes from the
``random.Random`` passed in, with set items visited in a canonical order, so a
seed gives the same stream in every process.
"""

from __future__ import annotations

import ast
import copy
import math
import random
import string
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from benchmorph.testgen.types import (
    DictT,
    FixedTupleT,
    FrozenSetT,
    ListT,
    Nothing,
    Prim,
    SetT,
    Signature,
    TypeExpr,
    UnionT,
    VarTupleT,
    admits,
    branch_of,
    stdin_line_values,
)

__all__ = [
    "HARD_CAP",
    "MIN_CAP",
    "RULES",
    "Mutator",
    "Profile",
    "build_profile",
    "code_constants",
    "input_key",
    "mutate_args",
    "mutate_value",
    "mutation_stream",
    "render_stdin",
    "stdin_mutation_stream",
]

MIN_CAP = 8  # a string or container may always grow to this many items
HARD_CAP = 100_000  # and never past this many
SAMPLES = 64  # pool values kept per node of a type, to draw from
MAX_DIGITS = 30  # the largest |int| a magnitude rule draws is below 10**MAX_DIGITS
_ATTEMPTS = 8
_FALLBACK_ALPHABET = string.ascii_letters + string.digits + " "


class _Skip(Exception):
    """A rule that does not apply to this value (removing from an empty list)."""


# --------------------------------------------------------------------------- profiles


@dataclass
class Profile:
    """What the pool shows at one node of a type: bounds, alphabet, sizes and sample values."""

    samples: list[Any] = field(default_factory=list)
    seen: int = 0
    int_min: int | None = None
    int_max: int | None = None
    float_min: float | None = None  # finite values only
    float_max: float | None = None
    has_nan: bool = False
    has_pos_inf: bool = False
    has_neg_inf: bool = False
    chars: set[str] = field(default_factory=set)
    max_len: int = 0
    children: dict[Any, Profile] = field(default_factory=dict)
    constants: tuple[int, ...] = ()  # the code's integer literals and their neighbours (``int.constant``)
    _alphabet: str | None = None

    def child(self, key: Any) -> Profile:
        found = self.children.get(key)
        if found is None:
            found = self.children[key] = Profile()
        return found

    @property
    def alphabet(self) -> str:
        if self._alphabet is None:
            self._alphabet = "".join(sorted(self.chars)) or _FALLBACK_ALPHABET
        return self._alphabet

    @property
    def cap(self) -> int:
        return min(max(2 * self.max_len, MIN_CAP), HARD_CAP)

    def magnitude_digits(self) -> int:
        biggest = max(abs(self.int_min or 0), abs(self.int_max or 0), 1)
        if self.float_min is not None:
            biggest = max(
                biggest, int(min(abs(self.float_min), 1e300)), int(min(abs(self.float_max or 0), 1e300))
            )
        return min(max(len(str(biggest)) + 2, 3), MAX_DIGITS)


def build_profile(t: TypeExpr, values: Sequence[Any]) -> Profile:
    """Walk ``values`` along ``t`` and note what each node of the type shows."""
    profile = Profile()
    sampler = random.Random(0)  # reservoir sampling, the same in every run
    for value in values:
        _observe(profile, t, value, sampler)
    return profile


def _observe(profile: Profile, t: TypeExpr, value: Any, sampler: random.Random) -> None:
    if isinstance(t, UnionT):
        branch = branch_of(t, value)
        if branch is not None:
            _observe(profile.child(branch), branch, value, sampler)
        return
    profile.seen += 1
    if len(profile.samples) < SAMPLES:
        profile.samples.append(value)
    else:
        slot = sampler.randrange(profile.seen)
        if slot < SAMPLES:
            profile.samples[slot] = value
    kind = type(value)
    if kind is int:
        profile.int_min = value if profile.int_min is None else min(profile.int_min, value)
        profile.int_max = value if profile.int_max is None else max(profile.int_max, value)
    elif kind is float:
        if math.isnan(value):
            profile.has_nan = True
        elif math.isinf(value):
            profile.has_pos_inf |= value > 0
            profile.has_neg_inf |= value < 0
        else:
            profile.float_min = value if profile.float_min is None else min(profile.float_min, value)
            profile.float_max = value if profile.float_max is None else max(profile.float_max, value)
    elif kind is str:
        profile.max_len = max(profile.max_len, len(value))
        if len(profile.chars) < 256:
            profile.chars.update(value[:10_000])
    elif kind is bytes:
        profile.max_len = max(profile.max_len, len(value))
        profile.chars.update(value[:10_000].decode("latin-1"))
    if isinstance(t, ListT | SetT | FrozenSetT | VarTupleT):
        profile.max_len = max(profile.max_len, len(value))
        item = profile.child("item")
        for element in _ordered(value):
            _observe(item, t.item, element, sampler)
    elif isinstance(t, FixedTupleT):
        for index, (item_type, element) in enumerate(zip(t.items, value, strict=False)):
            _observe(profile.child(index), item_type, element, sampler)
    elif isinstance(t, DictT):
        profile.max_len = max(profile.max_len, len(value))
        keys, items = profile.child("key"), profile.child("value")
        for key, element in value.items():
            _observe(keys, t.key, key, sampler)
            _observe(items, t.value, element, sampler)


def input_key(value: Any) -> str:
    """A canonical text for a value, equal for equal inputs in every process.

    ``repr`` of a set follows the hash order of its items, which differs
    between equal sets built differently and between processes (string
    hashing is salted); here set items are sorted.  Dict order is kept: code
    can see it.  Used to de-duplicate candidates and to tell a no-op mutation.
    """
    kind = type(value)
    if kind is list:
        return "[" + ", ".join(input_key(item) for item in value) + "]"
    if kind is tuple:
        return "(" + "".join(input_key(item) + ", " for item in value) + ")"
    if kind is set or kind is frozenset:
        return kind.__name__ + "{" + ", ".join(sorted(input_key(item) for item in value)) + "}"
    if kind is dict:
        return "{" + ", ".join(f"{input_key(key)}: {input_key(item)}" for key, item in value.items()) + "}"
    return repr(value)


def _ordered(value: Any) -> list[Any]:
    """Items in a process-independent order: sets by :func:`input_key` (their own order follows hashes)."""
    if isinstance(value, set | frozenset):
        return sorted(value, key=input_key)
    return list(value)


# --------------------------------------------------------------------------- rules


Rule = Callable[[Any, TypeExpr, random.Random, Profile], Any]


def _pick_sample(profile: Profile, rng: random.Random) -> Any:
    if not profile.samples:
        raise _Skip
    return copy.deepcopy(rng.choice(profile.samples))


def _rule_pool(value: Any, t: TypeExpr, rng: random.Random, profile: Profile) -> Any:
    return _pick_sample(profile, rng)


# ints


def _int_magnitude(profile: Profile, rng: random.Random) -> int:
    digits = rng.randint(1, profile.magnitude_digits())
    return rng.choice((-1, 1)) * (10**digits + rng.choice((-1, 0, 0, 1)))


def _int_bound(profile: Profile, high: bool) -> int:
    bound = profile.int_max if high else profile.int_min
    if bound is None:
        raise _Skip
    return bound


def _int_range(profile: Profile, rng: random.Random) -> int:
    if profile.int_min is None or profile.int_max is None or profile.int_min == profile.int_max:
        raise _Skip
    return rng.randint(profile.int_min, profile.int_max)


def _int_constant(value: Any, t: TypeExpr, rng: random.Random, profile: Profile) -> int:
    if not profile.constants:
        raise _Skip
    return rng.choice(profile.constants)


INT_RULES: dict[str, Rule] = {
    "int.plus1": lambda v, t, rng, p: v + 1,
    "int.minus1": lambda v, t, rng, p: v - 1,
    "int.zero": lambda v, t, rng, p: 0,
    "int.negate": lambda v, t, rng, p: -v,
    "int.min": lambda v, t, rng, p: _int_bound(p, high=False),
    "int.max": lambda v, t, rng, p: _int_bound(p, high=True),
    "int.beyond": lambda v, t, rng, p: rng.choice(
        (_int_bound(p, high=False) - 1, _int_bound(p, high=True) + 1)
    ),
    "int.range": lambda v, t, rng, p: _int_range(p, rng),
    "int.magnitude": lambda v, t, rng, p: _int_magnitude(p, rng),
    "int.pool": _rule_pool,
}


# floats

_DELTAS = (1e-9, 1e-6, 1e-3, 0.1, 0.5, 1.0)


def _float_bound(profile: Profile, high: bool) -> float:
    bound = profile.float_max if high else profile.float_min
    if bound is None:
        raise _Skip
    return bound


def _float_range(profile: Profile, rng: random.Random) -> float:
    if profile.float_min is None or profile.float_max is None or profile.float_min == profile.float_max:
        raise _Skip
    return rng.uniform(profile.float_min, profile.float_max)


def _float_special(profile: Profile, rng: random.Random, nan: bool) -> float:
    if nan:
        if not profile.has_nan:
            raise _Skip
        return math.nan
    signs = [sign for sign, seen in ((1.0, profile.has_pos_inf), (-1.0, profile.has_neg_inf)) if seen]
    if not signs:
        raise _Skip
    return rng.choice(signs) * math.inf


FLOAT_RULES: dict[str, Rule] = {
    "float.plus_delta": lambda v, t, rng, p: v + rng.choice(_DELTAS),
    "float.minus_delta": lambda v, t, rng, p: v - rng.choice(_DELTAS),
    "float.zero": lambda v, t, rng, p: rng.choice((0.0, -0.0)),
    "float.negate": lambda v, t, rng, p: -v,
    "float.scale": lambda v, t, rng, p: v * rng.choice((0.5, 2.0, 10.0, 0.1)),
    "float.round": lambda v, t, rng, p: float(round(v)) if math.isfinite(v) else v,
    "float.min": lambda v, t, rng, p: _float_bound(p, high=False),
    "float.max": lambda v, t, rng, p: _float_bound(p, high=True),
    "float.range": lambda v, t, rng, p: _float_range(p, rng),
    "float.magnitude": lambda v, t, rng, p: (
        rng.choice((-1.0, 1.0)) * 10.0 ** rng.randint(-6, p.magnitude_digits())
    ),
    "float.nan": lambda v, t, rng, p: _float_special(p, rng, nan=True),
    "float.inf": lambda v, t, rng, p: _float_special(p, rng, nan=False),
    "float.pool": _rule_pool,
}


def _float_allowed(value: float, profile: Profile) -> bool:
    """A NaN or infinity may only come out where the pool had one."""
    if math.isnan(value):
        return profile.has_nan
    if math.isinf(value):
        return profile.has_pos_inf if value > 0 else profile.has_neg_inf
    return True


BOOL_RULES: dict[str, Rule] = {"bool.flip": lambda v, t, rng, p: not v}

COMPLEX_RULES: dict[str, Rule] = {
    "complex.real": lambda v, t, rng, p: complex(v.real + rng.choice((-1, 1)), v.imag),
    "complex.imag": lambda v, t, rng, p: complex(v.real, v.imag + rng.choice((-1, 1))),
    "complex.zero": lambda v, t, rng, p: 0j,
    "complex.negate": lambda v, t, rng, p: -v,
    "complex.pool": _rule_pool,
}


# strings


def _index(rng: random.Random, length: int) -> int:
    if length == 0:
        raise _Skip
    return rng.randrange(length)


def _str_insert(v: str, rng: random.Random, p: Profile) -> str:
    if len(v) >= p.cap:
        raise _Skip
    at = rng.randint(0, len(v))
    return v[:at] + rng.choice(p.alphabet) + v[at:]


def _str_delete(v: str, rng: random.Random, p: Profile) -> str:
    at = _index(rng, len(v))
    width = 1 if rng.random() < 0.7 else rng.randint(1, len(v) - at)
    return v[:at] + v[at + width :]


def _str_replace(v: str, rng: random.Random, p: Profile) -> str:
    at = _index(rng, len(v))
    return v[:at] + rng.choice(p.alphabet) + v[at + 1 :]


def _str_swap(v: str, rng: random.Random, p: Profile) -> str:
    if len(v) < 2:
        raise _Skip
    i, j = sorted(rng.sample(range(len(v)), 2))
    return v[:i] + v[j] + v[i + 1 : j] + v[i] + v[j + 1 :]


def _str_case(v: str, rng: random.Random, p: Profile) -> str:
    choice = rng.randrange(4)
    if choice == 0:
        return v.upper()
    if choice == 1:
        return v.lower()
    if choice == 2:
        return v.swapcase()
    at = _index(rng, len(v))
    return v[:at] + v[at].swapcase() + v[at + 1 :]


def _str_repeat(v: str, rng: random.Random, p: Profile) -> str:
    if not v:
        raise _Skip
    if rng.random() < 0.5:
        grown = v * 2
    else:
        i = rng.randrange(len(v))
        j = rng.randint(i + 1, len(v))
        grown = v[:j] + v[i:j] + v[j:]
    if len(grown) > p.cap:
        raise _Skip
    return grown


def _str_splice(v: str, rng: random.Random, p: Profile) -> str:
    other = _pick_sample(p, rng)
    spliced = v[: rng.randint(0, len(v))] + other[rng.randint(0, len(other)) :]
    return spliced[: p.cap]


_TEXT_RULES: dict[str, Callable[[str, random.Random, Profile], str]] = {
    "insert": _str_insert,
    "delete": _str_delete,
    "replace": _str_replace,
    "swap": _str_swap,
    "case": _str_case,
    "repeat": _str_repeat,
    "reverse": lambda v, rng, p: v[::-1],
    "empty": lambda v, rng, p: "",
    "splice": _str_splice,
}


def _on_text(rule: Callable[[str, random.Random, Profile], str]) -> Rule:
    def apply(value: Any, t: TypeExpr, rng: random.Random, profile: Profile) -> Any:
        if type(value) is bytes:
            text_profile = Profile(
                samples=[sample.decode("latin-1") for sample in profile.samples],
                chars=profile.chars,
                max_len=profile.max_len,
            )
            result = rule(value.decode("latin-1"), rng, text_profile)
            try:
                return result.encode("latin-1")
            except UnicodeEncodeError:
                raise _Skip from None
        return rule(value, rng, profile)

    return apply


STR_RULES: dict[str, Rule] = {f"str.{name}": _on_text(rule) for name, rule in _TEXT_RULES.items()}
STR_RULES["str.pool"] = _rule_pool
BYTES_RULES: dict[str, Rule] = {f"bytes.{name}": _on_text(rule) for name, rule in _TEXT_RULES.items()}
BYTES_RULES["bytes.pool"] = _rule_pool


# sequences: list and tuple[T, ...]


def _new_item(items: list[Any], item_type: TypeExpr, rng: random.Random, profile: Profile) -> Any:
    """A value of the item type: a pool item (or one of the value's own), mutated."""
    if isinstance(item_type, Nothing):
        raise _Skip  # only empty containers were ever seen: no item type to draw from
    item_profile = profile.child("item")
    if item_profile.samples and (not items or rng.random() < 0.7):
        base = _pick_sample(item_profile, rng)
    elif items:
        base = copy.deepcopy(rng.choice(items))
    else:
        raise _Skip
    return _mutate(base, item_type, rng, item_profile, depth=1) if rng.random() < 0.8 else base


def _seq_rule(rule: Callable[[list[Any], TypeExpr, random.Random, Profile], list[Any]]) -> Rule:
    def apply(value: Any, t: TypeExpr, rng: random.Random, profile: Profile) -> Any:
        assert isinstance(t, ListT | VarTupleT)
        result = rule(list(value), t.item, rng, profile)
        if len(result) > max(profile.cap, len(value)):
            raise _Skip
        return tuple(result) if isinstance(t, VarTupleT) else result

    return apply


def _seq_append(items: list[Any], item_type: TypeExpr, rng: random.Random, p: Profile) -> list[Any]:
    return [*items, _new_item(items, item_type, rng, p)]


def _seq_insert(items: list[Any], item_type: TypeExpr, rng: random.Random, p: Profile) -> list[Any]:
    at = rng.randint(0, len(items))
    return [*items[:at], _new_item(items, item_type, rng, p), *items[at:]]


def _seq_remove(items: list[Any], item_type: TypeExpr, rng: random.Random, p: Profile) -> list[Any]:
    at = _index(rng, len(items))
    return items[:at] + items[at + 1 :]


def _seq_shuffle(items: list[Any], item_type: TypeExpr, rng: random.Random, p: Profile) -> list[Any]:
    if len(items) < 2:
        raise _Skip
    shuffled = list(items)
    rng.shuffle(shuffled)
    return shuffled


def _seq_sort(items: list[Any], item_type: TypeExpr, rng: random.Random, p: Profile) -> list[Any]:
    try:
        return sorted(items, reverse=rng.random() < 0.5)
    except TypeError:
        raise _Skip from None


def _seq_splice(items: list[Any], item_type: TypeExpr, rng: random.Random, p: Profile) -> list[Any]:
    other = list(_pick_sample(p, rng))
    return items[: rng.randint(0, len(items))] + other[rng.randint(0, len(other)) :]


def _seq_duplicate(items: list[Any], item_type: TypeExpr, rng: random.Random, p: Profile) -> list[Any]:
    if not items:
        raise _Skip
    if rng.random() < 0.3:
        return items + copy.deepcopy(items)
    at = rng.randrange(len(items))
    return [*items[: at + 1], copy.deepcopy(items[at]), *items[at + 1 :]]


def _seq_item(items: list[Any], item_type: TypeExpr, rng: random.Random, p: Profile) -> list[Any]:
    at = _index(rng, len(items))
    changed = list(items)
    changed[at] = _mutate(items[at], item_type, rng, p.child("item"), depth=1)
    return changed


SEQ_RULES: dict[str, Rule] = {
    "seq.append": _seq_rule(_seq_append),
    "seq.insert": _seq_rule(_seq_insert),
    "seq.remove": _seq_rule(_seq_remove),
    "seq.shuffle": _seq_rule(_seq_shuffle),
    "seq.reverse": _seq_rule(lambda items, item_type, rng, p: items[::-1]),
    "seq.sort": _seq_rule(_seq_sort),
    "seq.splice": _seq_rule(_seq_splice),
    "seq.duplicate": _seq_rule(_seq_duplicate),
    "seq.empty": _seq_rule(lambda items, item_type, rng, p: []),
    "seq.item": _seq_rule(_seq_item),
    "seq.pool": _rule_pool,
}


# fixed tuples


def _tuple_item(value: Any, t: TypeExpr, rng: random.Random, p: Profile) -> Any:
    assert isinstance(t, FixedTupleT)
    at = _index(rng, len(value))
    changed = list(value)
    changed[at] = _mutate(value[at], t.items[at], rng, p.child(at), depth=1)
    return tuple(changed)


def _tuple_swap(value: Any, t: TypeExpr, rng: random.Random, p: Profile) -> Any:
    assert isinstance(t, FixedTupleT)
    pairs = [
        (i, j)
        for i in range(len(value))
        for j in range(i + 1, len(value))
        if t.items[i] == t.items[j] and input_key(value[i]) != input_key(value[j])
    ]
    if not pairs:
        raise _Skip
    i, j = rng.choice(pairs)
    changed = list(value)
    changed[i], changed[j] = value[j], value[i]
    return tuple(changed)


TUPLE_RULES: dict[str, Rule] = {
    "tuple.item": _tuple_item,
    "tuple.swap": _tuple_swap,
    "tuple.pool": _rule_pool,
}


# sets


def _set_rule(rule: Callable[[list[Any], TypeExpr, random.Random, Profile], list[Any]]) -> Rule:
    def apply(value: Any, t: TypeExpr, rng: random.Random, profile: Profile) -> Any:
        assert isinstance(t, SetT | FrozenSetT)
        result = rule(_ordered(value), t.item, rng, profile)
        built = set(result)
        if len(built) > max(profile.cap, len(value)):
            raise _Skip
        return frozenset(built) if isinstance(t, FrozenSetT) else built

    return apply


def _set_splice(items: list[Any], item_type: TypeExpr, rng: random.Random, p: Profile) -> list[Any]:
    other = _ordered(_pick_sample(p, rng))
    return [item for item in items if rng.random() < 0.5] + [item for item in other if rng.random() < 0.5]


SET_RULES: dict[str, Rule] = {
    "set.add": _set_rule(_seq_append),
    "set.remove": _set_rule(_seq_remove),
    "set.splice": _set_rule(_set_splice),
    "set.empty": _set_rule(lambda items, item_type, rng, p: []),
    "set.item": _set_rule(_seq_item),
    "set.pool": _rule_pool,
}


# dicts


def _dict_new_entry(value: dict, t: DictT, rng: random.Random, p: Profile, which: str) -> Any:
    child_type = t.key if which == "key" else t.value
    if isinstance(child_type, Nothing):
        raise _Skip
    child = p.child(which)
    own = list(value.keys() if which == "key" else value.values())
    if child.samples and (not own or rng.random() < 0.7):
        base = _pick_sample(child, rng)
    elif own:
        base = copy.deepcopy(rng.choice(own))
    else:
        raise _Skip
    return _mutate(base, child_type, rng, child, depth=1)


def _dict_add(value: Any, t: TypeExpr, rng: random.Random, p: Profile) -> Any:
    assert isinstance(t, DictT)
    if len(value) >= p.cap:
        raise _Skip
    key = _dict_new_entry(value, t, rng, p, "key")
    if key in value:
        raise _Skip
    return {**value, key: _dict_new_entry(value, t, rng, p, "value")}


def _dict_remove(value: Any, t: TypeExpr, rng: random.Random, p: Profile) -> Any:
    keys = list(value)
    gone = keys[_index(rng, len(keys))]
    return {key: item for key, item in value.items() if key is not gone}


def _dict_value(value: Any, t: TypeExpr, rng: random.Random, p: Profile) -> Any:
    assert isinstance(t, DictT)
    keys = list(value)
    key = keys[_index(rng, len(keys))]
    changed = dict(value)
    changed[key] = _mutate(value[key], t.value, rng, p.child("value"), depth=1)
    return changed


def _dict_key(value: Any, t: TypeExpr, rng: random.Random, p: Profile) -> Any:
    assert isinstance(t, DictT)
    keys = list(value)
    old = keys[_index(rng, len(keys))]
    new = _mutate(old, t.key, rng, p.child("key"), depth=1)
    if new in value:
        raise _Skip
    return {(new if key is old else key): item for key, item in value.items()}


def _dict_reorder(value: Any, t: TypeExpr, rng: random.Random, p: Profile) -> Any:
    if len(value) < 2:
        raise _Skip
    items = list(value.items())
    rng.shuffle(items)
    return dict(items)


def _dict_splice(value: Any, t: TypeExpr, rng: random.Random, p: Profile) -> Any:
    other = _pick_sample(p, rng)
    merged = {key: item for key, item in value.items() if rng.random() < 0.7}
    for key, item in other.items():
        if rng.random() < 0.5:
            merged[key] = item
    if len(merged) > max(p.cap, len(value)):
        raise _Skip
    return merged


DICT_RULES: dict[str, Rule] = {
    "dict.add": _dict_add,
    "dict.remove": _dict_remove,
    "dict.key": _dict_key,
    "dict.value": _dict_value,
    "dict.reorder": _dict_reorder,
    "dict.splice": _dict_splice,
    "dict.empty": lambda v, t, rng, p: {},
    "dict.pool": _rule_pool,
}

# How often a rule is drawn relative to the others of its type (1 when absent).
_WEIGHTS = {
    "int.magnitude": 0.5,
    "float.magnitude": 0.5,
    "int.pool": 0.5,
    "float.pool": 0.5,
    "str.pool": 0.5,
    "seq.pool": 0.5,
    "seq.item": 3.0,
    "tuple.item": 3.0,
    "dict.value": 2.0,
    "set.item": 2.0,
}

#: Every rule by family, for documentation and for tests that each can be reached.
RULES: dict[str, tuple[str, ...]] = {
    family: tuple(rules)
    for family, rules in (
        ("int", {**INT_RULES, "int.constant": _int_constant}),  # the last only given constants
        ("float", FLOAT_RULES),
        ("bool", BOOL_RULES),
        ("complex", COMPLEX_RULES),
        ("str", STR_RULES),
        ("bytes", BYTES_RULES),
        ("seq", SEQ_RULES),
        ("tuple", TUPLE_RULES),
        ("set", SET_RULES),
        ("dict", DICT_RULES),
    )
}


def _rules_for(t: TypeExpr, value: Any) -> dict[str, Rule]:
    if isinstance(t, Prim):
        return {
            "int": INT_RULES,
            "float": FLOAT_RULES,
            "bool": BOOL_RULES,
            "complex": COMPLEX_RULES,
            "str": STR_RULES,
            "bytes": BYTES_RULES,
        }.get(t.name, {})
    if isinstance(t, ListT | VarTupleT):
        return SEQ_RULES
    if isinstance(t, FixedTupleT):
        return TUPLE_RULES
    if isinstance(t, SetT | FrozenSetT):
        return SET_RULES
    if isinstance(t, DictT):
        return DICT_RULES
    return {}


# --------------------------------------------------------------------------- the mutation


# The names of the rules applied during one public call, when the caller asked for them.
_LOG: ContextVar[list[str] | None] = ContextVar("mutation_log", default=None)


def _mutate(value: Any, t: TypeExpr, rng: random.Random, profile: Profile, depth: int = 0) -> Any:
    """One mutation of ``value`` under ``t`` (rules build new values, never edit ``value``);
    raises _Skip when no rule applies."""
    if isinstance(t, UnionT):
        branch = branch_of(t, value)
        if branch is None:
            raise _Skip
        return _mutate(value, branch, rng, profile.child(branch), depth)
    rules = _rules_for(t, value)
    if profile.constants and rules is INT_RULES:
        rules = {**rules, "int.constant": _int_constant}
    if not rules or depth > 40:
        raise _Skip
    names = list(rules)
    weights = [_WEIGHTS.get(name, 1.0) for name in names]
    log = _LOG.get()
    mark = len(log) if log is not None else 0
    for _ in range(_ATTEMPTS):
        name = rng.choices(names, weights)[0]
        try:
            result = rules[name](value, t, rng, profile)
        except _Skip:
            result = _Skip
        if (
            result is _Skip
            or (type(result) is float and not _float_allowed(result, profile))
            or not admits(t, result)
        ):
            if log is not None:
                del log[mark:]  # what a nested rule did for a discarded attempt does not count
            continue
        if log is not None:
            log.append(name)
        return result
    raise _Skip


def mutate_value(
    value: Any,
    t: TypeExpr,
    rng: random.Random,
    pool: Sequence[Any] = (),
    *,
    applied: list[str] | None = None,
    constants: Sequence[int] = (),
) -> Any:
    """A mutant of ``value`` (of type ``t``), admitted by ``t``; ``value`` itself is left alone.

    ``pool`` holds other observed values of the same parameter: bounds, the
    alphabet and splice partners come from it (and from ``value``).  When no
    rule applies (``None``, a list only ever seen empty) a copy of ``value``
    comes back.  ``applied``, when given, receives the names of the rules used.
    ``constants``: integers an ``int`` in ``value`` may become (``int.constant``).
    """
    profile = _share_constants(build_profile(t, [*pool, value]), tuple(constants))
    return _mutate_checked(copy.deepcopy(value), t, rng, profile, applied)


def _mutate_checked(
    value: Any, t: TypeExpr, rng: random.Random, profile: Profile, applied: list[str] | None
) -> Any:
    """``_mutate`` with retries; ``value`` when nothing applies.  The result may share unchanged parts
    with ``value``, so callers pass a copy they own."""
    log: list[str] | None = [] if applied is not None else None
    token = _LOG.set(log)
    before = input_key(value)
    try:
        for _ in range(_ATTEMPTS):
            if log is not None:
                log.clear()
            try:
                result = _mutate(value, t, rng, profile)
            except (_Skip, RecursionError, MemoryError, OverflowError, ValueError):
                continue
            if admits(t, result) and input_key(result) != before:
                if applied is not None and log is not None:
                    applied.extend(log)
                return result
        return value
    finally:
        _LOG.reset(token)


# The most code constants an ``int.constant`` rule draws from (the smallest in magnitude).
MAX_CONSTANTS = 64


def code_constants(source: str, most: int = MAX_CONSTANTS) -> tuple[int, ...]:
    """The integer literals of ``source``, each with its negation and the values one either side.

    A fuzzer's dictionary: the values code compares with and counts to are
    where its branches turn, and where a mutant's off-by-one shows (HumanEval/76's
    ``n == -1`` branch is told from its ``abs(x) == 2`` mutant only at ``n = -1``,
    ``|x| = 2``, which random steps from the seeds rarely reach together).
    Booleans are not integers here; the ``most`` smallest in magnitude are kept.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    found: set[int] = set()
    for node in ast.walk(tree):
        sign = 1
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):  # ``-1`` is a literal too
            node, sign = node.operand, -1
        if isinstance(node, ast.Constant) and type(node.value) is int and abs(node.value) < 10**9:
            value = sign * node.value
            found.update((value, value - 1, value + 1, -value))
    return tuple(sorted(found, key=lambda value: (abs(value), value))[:most])


def _share_constants(profile: Profile, constants: tuple[int, ...]) -> Profile:
    profile.constants = constants
    for child in profile.children.values():
        _share_constants(child, constants)
    return profile


# How often a call's mutation swaps two arguments of one type instead (``args.swap``): where
# arguments play symmetric roles (a triangle's sides, a range's ends) the reference often checks each
# arrangement in a branch of its own, and the base tests rarely try more than one of them.
ARGS_SWAP = 0.1


class Mutator:
    """Mutates argument lists of one problem; the pools' profiles are built once.

    ``pools[i]`` holds the observed values of argument ``i`` (a missing or empty
    pool is fine: bounds then come from the value being mutated).
    ``constants``: integers an ``int`` anywhere in an argument may become
    (``int.constant``; e.g. :func:`code_constants` of the reference).
    """

    def __init__(
        self,
        sig: Signature,
        pools: Sequence[Sequence[Any]] = (),
        constants: Sequence[int] = (),
        *,
        swap: bool = True,
    ) -> None:
        self.sig = sig
        self.swap = swap  # args.swap (off for a stdin input's lines, records in their places)
        self.constants = tuple(constants)
        self.pools = [list(pools[i]) if i < len(pools) else [] for i in range(sig.arity)]
        self.profiles = [
            _share_constants(build_profile(t, self.pools[i]), self.constants)
            for i, (_, t) in enumerate(sig.params)
        ]

    def mutate_args(
        self, args: Sequence[Any], rng: random.Random, applied: list[str] | None = None
    ) -> list[Any]:
        """A new argument list with one or more arguments mutated (the input is left alone).

        One argument most of the time, several otherwise; when the chosen ones
        cannot change (a ``None``, an only-empty list) the others are tried in turn.
        """
        result = copy.deepcopy(list(args))
        positions = list(range(min(len(result), self.sig.arity)))
        if not positions:
            return result
        if self.swap and len(positions) > 1 and rng.random() < ARGS_SWAP:
            pairs = [
                (i, j)
                for i in positions
                for j in positions[i + 1 :]
                if self.sig.params[i][1] == self.sig.params[j][1]
                and input_key(result[i]) != input_key(result[j])
            ]
            if pairs:
                i, j = rng.choice(pairs)
                result[i], result[j] = result[j], result[i]
                if applied is not None:
                    applied.append("args.swap")
                return result
        count = 1 if len(positions) == 1 or rng.random() < 0.7 else rng.randint(2, len(positions))
        order = rng.sample(positions, len(positions))
        changed = False
        for step, index in enumerate(order):
            if step >= count and changed:
                break
            t = self.sig.params[index][1]
            profile = (
                self.profiles[index]
                if self.pools[index]
                else _share_constants(build_profile(t, [result[index]]), self.constants)
            )
            before = input_key(result[index])
            result[index] = _mutate_checked(result[index], t, rng, profile, applied)
            changed = changed or input_key(result[index]) != before
        return result


def mutate_args(
    args: Sequence[Any],
    sig: Signature,
    rng: random.Random,
    pools: Sequence[Sequence[Any]] = (),
    *,
    applied: list[str] | None = None,
) -> list[Any]:
    """Mutate one or more arguments of ``args`` (a new list; ``args`` is left alone).

    ``pools[i]``: other observed values of argument ``i``.  For many calls on
    one problem build a :class:`Mutator` once instead (this builds one per call).
    """
    return Mutator(sig, pools).mutate_args(args, rng, applied)


def mutation_stream(
    seed_inputs: Sequence[Sequence[Any]],
    sig: Signature,
    seed: int,
    *,
    max_misses: int = 2000,
) -> Iterator[list[Any]]:
    """An endless, deterministic stream of new candidate argument lists, de-duplicated by
    :func:`input_key` (``repr`` with set items sorted).

    Each candidate is a mutation of a seed or of an earlier candidate (half
    the time each, so mutations stack while staying anchored to the seeds),
    sometimes mutated twice.  Seeds themselves are never yielded.  The stream
    ends only when ``max_misses`` draws in a row produce nothing new (a problem
    whose inputs cannot change, such as a single ``bool`` parameter).  The
    caller filters candidates through the sandbox and takes what it needs
    (``itertools.islice``).
    """
    rng = random.Random(seed)
    seeds = [list(args) for args in seed_inputs]
    if not seeds:
        return
    arity = sig.arity
    pools = [[args[i] for args in seeds if len(args) > i] for i in range(arity)]
    mutator = Mutator(sig, pools)
    seen = {input_key(args) for args in seeds}
    produced: list[list[Any]] = []
    misses = 0
    while misses < max_misses:
        parent = rng.choice(seeds) if not produced or rng.random() < 0.5 else rng.choice(produced[-1000:])
        child = mutator.mutate_args(parent, rng)
        if rng.random() < 0.25:
            child = mutator.mutate_args(child, rng)
        key = input_key(child)
        if key in seen:
            misses += 1
            continue
        misses = 0
        seen.add(key)
        produced.append(child)
        yield copy.deepcopy(child)


# --------------------------------------------------------------------------- stdin inputs


def render_stdin(lines: Sequence[Any]) -> str:
    """Line values back to an input text: a list's tokens joined by spaces, floats by ``repr``."""

    def token(value: Any) -> str:
        return repr(value) if type(value) is float else str(value)

    rendered = [
        " ".join(token(item) for item in line) if type(line) is list else token(line) for line in lines
    ]
    return "".join(line + "\n" for line in rendered)


def _stdin_fits(text: str, sig: Signature) -> bool:
    values = stdin_line_values(text)
    return all(admits(t, value, numeric_widening=True) for t, value in zip(sig.lines, values, strict=False))


def stdin_mutation_stream(
    seed_texts: Sequence[str],
    sig: Signature,
    seed: int,
    *,
    max_misses: int = 2000,
    constants: Sequence[int] = (),
) -> Iterator[str]:
    """:func:`mutation_stream` for ``stdin`` problems: new input texts, deterministic, de-duplicated.

    Each text is read as one value per line (:func:`~benchmorph.testgen.types.line_value`),
    the values are mutated under the line types of ``sig`` (``sig.lines``)
    with the same rules as arguments, and the text is written back
    (:func:`render_stdin`).  Where the seeds' line counts differ, a candidate
    may also gain a copy of its last line or lose it, staying within one line
    of the seeds' shortest and longest.  A candidate whose lines
    no longer read as their types (a string token emptied away) is skipped.
    Line structure the types cannot see (a count followed by that many
    lines) is not kept: the reference and the problem's contract decide.
    ``constants``: as for :class:`Mutator` (the program's integer literals).
    """
    rng = random.Random(seed)
    seeds = [stdin_line_values(text) for text in seed_texts]
    if not seeds:
        return
    lines_sig = Signature(
        kind="function",
        entry_point=sig.entry_point,
        params=[(f"line{index}", t) for index, t in enumerate(sig.lines)],
        required=0,
    )
    pools = [[values[i] for values in seeds if len(values) > i] for i in range(len(sig.lines))]
    mutator = Mutator(lines_sig, pools, swap=False, constants=constants)
    varying = sig.line_counts[0] != sig.line_counts[1]
    # One line fewer or more than any seed, never a drift: a grown child is a parent too.
    counts = range(max(sig.line_counts[0] - 1, 0), sig.line_counts[1] + 2)
    seen = {input_key(render_stdin(values)) for values in seeds} | {input_key(text) for text in seed_texts}
    produced: list[list[Any]] = []
    misses = 0
    while misses < max_misses:
        parent = rng.choice(seeds) if not produced or rng.random() < 0.5 else rng.choice(produced[-1000:])
        if varying and parent and rng.random() < 0.15:
            shorter = rng.random() < 0.5
            if len(parent) + (-1 if shorter else 1) not in counts:
                misses += 1
                continue
            child = copy.deepcopy(parent[:-1] if shorter else [*parent, parent[-1]])
        else:
            child = mutator.mutate_args(parent, rng)
        text = render_stdin(child)
        key = input_key(text)
        if key in seen or not _stdin_fits(text, sig):
            misses += 1
            continue
        misses = 0
        seen.add(key)
        produced.append(child)
        yield text
