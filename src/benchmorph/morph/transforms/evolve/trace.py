"""The arguments a reference passes its helpers: the inputs a subproblem's tests are traced from.

A decomposition's subproblem is tested on what the parent's solution asks of
it, on the parent's own inputs: the helper is wrapped so that each call
records its arguments, and the main function runs on every input in one
sandbox batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmorph.data.models import Problem
from benchmorph.execution.engine import Engine

_TRACE = """

import copy as _bm_copy
_bm_calls = []


def _bm_record(_bm_name, _bm_function):
    def _bm_inner(*args, **kwargs):
        if not kwargs and len(_bm_calls) < 200:
            _bm_calls.append([_bm_name, _bm_copy.deepcopy(list(args))])
        return _bm_function(*args, **kwargs)
    return _bm_inner


{wrap}


def _bm_trace(*args):
    _bm_calls.clear()
    {main}(*args)
    return list(_bm_calls)
"""


def traced_inputs(code: str, main: str, subs: Sequence[str], inputs: Sequence[Any], engine: Engine,
                  limit: int = 60) -> dict[str, list[Any]]:  # fmt: skip
    """The argument lists ``main`` passes each of ``subs`` when it runs on ``inputs``, in the sandbox
    (the first ``limit`` per function; each input's first 200 calls)."""
    wrap = "\n".join(f"{name} = _bm_record({name!r}, {name})" for name in subs)
    probe = Problem(id=f"trace:{main}", prompt="", reference=code + _TRACE.format(wrap=wrap, main=main),
                    entry_point="_bm_trace")  # fmt: skip
    found: dict[str, list[Any]] = {name: [] for name in subs}
    for run in engine.run_inputs(probe, list(inputs)):
        if run.status != "ok" or not isinstance(run.output, list):
            continue
        for name, args in run.output:
            if name in found and len(found[name]) < limit:
                found[name].append(args)
    return found
