"""The oracles a problem may name: tasks where more than one answer is right (HumanEval/32's any root).

A problem says which oracle judges it (``Problem.oracle``).  The names are
checked when the problem is loaded, so ``"oracle": "nope"`` is one clear
error at the file's line instead of a failure deep inside a run.  The
functions are executed on the host by the verdict code
(``benchmorph.execution.oracles`` defines the built-in ones); the registry
lists them by lazy reference here, so loading a problem imports no
execution code.  A plug-in adds an oracle with ``ORACLES.add(name,
function)`` from a module named by an entry point in ``benchmorph.oracles``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmorph.core.registry import Registry
from benchmorph.data.errors import InputError

# (test input arguments, the answer given, the reference's answer, atol) -> correct?
Oracle = Callable[[Any, Any, Any, float], bool]

ORACLES: Registry[Oracle] = Registry("oracle", group="benchmorph.oracles", unknown=InputError)
ORACLES.add("polynomial_root", "benchmorph.execution.oracles:polynomial_root")
