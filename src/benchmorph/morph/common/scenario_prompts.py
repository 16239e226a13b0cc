"""The scenario proposer's request and its reader: new application domains for retold exercises.

Shared by every family that retells a problem in a setting (metamorphic
rewrites, evolutions that tell a story): the pool of scenarios is grown
with this request and read back with :func:`parse_scenarios`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from benchmorph.models.prompts import Request
from benchmorph.models.spec import Mode
from benchmorph.morph.common.answers import clean_text, read_json

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
                name = clean_text(item.get("name") or item.get("domain") or item.get("scenario") or "")
                description = clean_text(item.get("description") or item.get("data") or "")
                if name:
                    found.append((name, description))
            elif isinstance(item, str) and ":" in item:
                name, _, description = item.partition(":")
                found.append((clean_text(name), clean_text(description)))
        if found:
            return found
    for line in text.splitlines():
        match = _LIST_LINE.match(line)
        if match:
            name, description = clean_text(match.group(1)), clean_text(match.group(2))
            if name and description and not name.lower().startswith(("here", "sure", "note")):
                found.append((name, description))
    return found
