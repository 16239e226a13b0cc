"""The validator's request and its reader: does a retold exercise ask for exactly the same function?

DyCodeEval's fourth agent.  Used by every family whose LLM half rewrites a
description while keeping the reference (metamorphic rewrites, EvoEval's
verbose and concise), so they are judged by one prompt.
"""

from __future__ import annotations

from typing import Any

from benchmorph.models.prompts import Request
from benchmorph.models.spec import Mode
from benchmorph.morph.common.answers import clean_text, read_json

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
    return preserved, [clean_text(issue) for issue in issues if clean_text(issue)], None
