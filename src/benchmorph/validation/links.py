"""Links in a description: a counterfactual must not keep the original task's page.

MBPP+ descriptions often end with the exercise they were taken from
("... whether the count of divisors is even. https://www.w3resource.com/...").
A variant that now asks for "odd" but still links the "even" exercise points
its reader at the old task.  A link that stands as its own sentence (after a
sentence end or alone on its line, nothing but punctuation after it on the
line) is removed and the text still reads whole; a link inside a sentence
("see https://... for the rules", "https://... - in this case ...")
cannot be cut without leaving a broken sentence, so the variant is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

URL = re.compile(r"(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?:^|[.!?:])\s*$")
_ONLY_PUNCTUATION = re.compile(r"[\s.,;)\]]*$")


@dataclass
class Unlinked:
    """``prompt`` without its standalone links (``removed``); ``stuck`` lists links inside a sentence."""

    prompt: str
    removed: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)


def strip_links(prompt: str) -> Unlinked:
    """Remove every link of ``prompt`` that stands as its own sentence; report the ones that do not."""
    out: list[str] = []
    removed: list[str] = []
    stuck: list[str] = []
    for line in prompt.splitlines(keepends=True):
        found = list(URL.finditer(line))
        if not found:
            out.append(line)
            continue
        kept = line
        for match in reversed(found):  # from the right, so earlier offsets stay valid
            before, after = kept[: match.start()], kept[match.end() :]
            body = after.rstrip("\r\n")
            if _SENTENCE_END.search(before) and _ONLY_PUNCTUATION.fullmatch(body):
                kept = before.rstrip(" \t") + after[len(body) :]
                removed.append(match.group(0))
            else:
                stuck.append(match.group(0))
        if found and not kept.strip() and line.strip():
            continue  # the line held only the link: it goes with it
        out.append(kept)
    return Unlinked("".join(out), removed[::-1], stuck[::-1])
