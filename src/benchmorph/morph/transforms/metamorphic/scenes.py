"""Scenarios for the offline rewriter: settings whose nouns can stand for a problem's generic inputs.

DyCodeEval retells a problem in a scenario by giving its inputs a meaning
("a list of numbers" becomes "the day's meter readings").  An offline
rewriter cannot know what an input means, but it can know what it *looks
like* in the tests, and a noun is only offered for values it describes truly:

- ``numbers``: a list (or tuple) of numbers; a noun says whether it fits
  negative values ("account movements" do, "exam marks" do not) and
  fractions ("match scores" are whole);
- ``texts``: a list of strings that are words ("book titles");
- ``text``: a string of words with spaces ("a chat message");
- ``word``: a string of letters without spaces ("a nickname").

A scalar number, a string of digits or brackets, a nested list or a
dictionary gets no scenario noun: "a prime temperature reading" or "a
headline of brackets" would read as nonsense.  A problem whose prose already
tells its own story keeps it: nouns replace only the generic phrases (see
``weave``).  No noun is a word of ``validation.concepts`` ("counts",
"totals" and "levels of" would say something), which a test keeps true.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Noun:
    """What a scenario calls one kind of input: plural and singular phrases, the parameter's new name."""

    plural: str
    singular: str
    name: str
    negative: bool = True  # fits negative numbers
    fractional: bool = True  # fits numbers with a fractional part

    @property
    def short(self) -> str:
        """The phrase's head noun, for later mentions ("the readings")."""
        return self.plural.split()[-1]


@dataclass(frozen=True)
class Scene:
    slug: str
    setting: str  # said in provenance and to the LLM rewriter
    numbers: Noun | None = None
    texts: Noun | None = None
    text: Noun | None = None
    word: Noun | None = None

    def noun(self, kind: str) -> Noun | None:
        found = getattr(self, kind, None)
        return found if isinstance(found, Noun) else None


SCENES: tuple[Scene, ...] = (
    Scene("weather", "a weather station's dashboard",
          numbers=Noun("temperature readings", "temperature reading", "readings"),
          texts=Noun("city names", "city name", "cities"),
          text=Noun("forecast note", "forecast note", "forecast"),
          word=Noun("city names", "city name", "city")),
    Scene("bank", "a bank's transaction ledger",
          numbers=Noun("account movements", "account movement", "movements"),
          texts=Noun("customer names", "customer name", "customers"),
          text=Noun("payment memo", "payment memo", "memo"),
          word=Noun("account nicknames", "account nickname", "nickname")),
    Scene("sports", "a sports club's statistics tool",
          numbers=Noun("match scores", "match score", "scores", negative=False, fractional=False),
          texts=Noun("player names", "player name", "players"),
          text=Noun("commentary line", "commentary line", "commentary"),
          word=Noun("team nicknames", "team nickname", "team")),
    Scene("lab", "a research lab's measurement log",
          numbers=Noun("sensor measurements", "sensor measurement", "measurements"),
          texts=Noun("sample labels", "sample label", "labels"),
          text=Noun("lab note", "lab note", "note"),
          word=Noun("sample tags", "sample tag", "tag")),
    Scene("shop", "an online shop's sales report",
          numbers=Noun("daily sales figures", "daily sales figure", "sales", negative=False),
          texts=Noun("article names", "article name", "articles"),
          text=Noun("listing description", "listing description", "listing"),
          word=Noun("catalogue codes", "catalogue code", "catalogue_code")),
    Scene("library", "a city library's catalogue",
          texts=Noun("book titles", "book title", "titles"),
          text=Noun("book title", "book title", "title"),
          word=Noun("shelf labels", "shelf label", "shelf")),
    Scene("newsroom", "a newsroom's publishing system",
          texts=Noun("headlines", "headline", "headlines"),
          text=Noun("headline", "headline", "headline"),
          word=Noun("section names", "section name", "section")),
    Scene("chat", "a chat application",
          texts=Noun("usernames", "username", "usernames"),
          text=Noun("chat message", "chat message", "message"),
          word=Noun("usernames", "username", "username")),
    Scene("energy", "an energy company's metering software",
          numbers=Noun("meter readings", "meter reading", "meter_readings", negative=False)),
    Scene("stocks", "a trading desk's price monitor",
          numbers=Noun("price changes", "price change", "price_changes"),
          texts=Noun("ticker symbols", "ticker symbol", "tickers"),
          word=Noun("ticker symbols", "ticker symbol", "ticker")),
    Scene("hiking", "a hiking app's route planner",
          numbers=Noun("altitude changes", "altitude change", "climbs"),
          texts=Noun("trail names", "trail name", "trails"),
          text=Noun("trail description", "trail description", "trail_notes")),
    Scene("music", "a music streaming service",
          texts=Noun("song titles", "song title", "songs"),
          text=Noun("lyric line", "lyric line", "lyric"),
          word=Noun("genre tags", "genre tag", "genre")),
    Scene("warehouse", "a warehouse's stock-keeping system",
          numbers=Noun("stock quantities", "stock quantity", "stock", negative=False, fractional=False),
          texts=Noun("item names", "item name", "item_names")),
    Scene("school", "a school's grading portal",
          numbers=Noun("exam marks", "exam mark", "marks", negative=False),
          texts=Noun("student names", "student name", "students"),
          text=Noun("essay excerpt", "essay excerpt", "excerpt")),
    Scene("games", "a game studio's scoring engine",
          numbers=Noun("point swings", "point swing", "swings", fractional=False),
          texts=Noun("player handles", "player handle", "handles"),
          text=Noun("dialogue line", "dialogue line", "dialogue")),
    Scene("travel", "a travel agency's booking tool",
          numbers=Noun("fare adjustments", "fare adjustment", "fares"),
          texts=Noun("destination names", "destination name", "destinations"),
          text=Noun("booking remark", "booking remark", "remark"),
          word=Noun("destination codes", "destination code", "destination")),
)  # fmt: skip


@dataclass(frozen=True)
class Traits:
    """What a parameter's values look like across the tests."""

    kind: str  # numbers | texts | text | word | other
    negative: bool = False
    fractional: bool = False


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_word_text(value: Any) -> bool:
    """A string a reader calls text: letters and spaces, a little punctuation, at least one letter."""
    if not isinstance(value, str):
        return False
    letters = sum(ch.isalpha() for ch in value)
    plain = sum(ch.isalpha() or ch.isspace() or ch in ".,!?'-" for ch in value)
    return not value or (letters > 0 and plain == len(value))


def traits(values: Sequence[Any]) -> Traits:
    """The kind of one parameter, from every test's value for it."""
    if not values:
        return Traits("other")
    if all(isinstance(v, list | tuple) and all(_is_number(x) for x in v) for v in values):
        flat = [x for v in values for x in v]
        if not flat:
            return Traits("other")
        return Traits(
            "numbers",
            negative=any(x < 0 for x in flat),
            fractional=any(isinstance(x, float) and not float(x).is_integer() for x in flat),
        )
    if all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in values):
        flat_s = [x for v in values for x in v]
        if flat_s and all(_is_word_text(x) and x for x in flat_s):
            return Traits("texts")
        return Traits("other")
    if all(isinstance(v, str) for v in values):
        if not all(_is_word_text(v) for v in values):
            return Traits("other")
        if any(" " in v for v in values):
            return Traits("text")
        return Traits("word")
    return Traits("other")


def fits(noun: Noun, found: Traits) -> bool:
    """Whether ``noun`` describes values with these traits truly."""
    return (noun.negative or not found.negative) and (noun.fractional or not found.fractional)


def fitting_scenes(kinds: Sequence[Traits]) -> list[Scene]:
    """The scenes that have a fitting noun for every parameter that wants one (none wanted: none)."""
    wanted = [found for found in kinds if found.kind != "other"]
    if not wanted:
        return []
    out = []
    for scene in SCENES:
        nouns = [scene.noun(found.kind) for found in wanted]
        if all(noun is not None and fits(noun, found) for noun, found in zip(nouns, wanted, strict=True)):
            out.append(scene)
    return out
