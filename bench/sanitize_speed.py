#!/usr/bin/env python
"""Speed of benchmorph's answer sanitizer on long chat answers, against EvalPlus's when installed.

Builds three HumanEval-style answers of about ``--lines`` lines each (entry point
``has_close_elements``):

* ``fenced``: prose, then a fenced block of imports, constants, a chain of helper
  functions the entry point needs, unrelated helpers, tests, prints and a ``__main__``
  demo, then more prose;
* ``unfenced-truncated``: the same without fences, cut off in the middle of the demo;
* ``truncated-in-entry``: no fences, helpers, then the entry point cut off mid-statement.

and prints the median (and fastest) time of ``benchmorph.models.sanitize.sanitize`` on each.
When ``from evalplus.sanitize import sanitize`` works, EvalPlus's sanitizer runs on the
same inputs (``--peer-repeat`` times, each bounded by ``--peer-timeout`` seconds) and the
ratio of medians is printed.  EvalPlus is never a dependency of benchmorph; install it by
hand to compare.

Other scripts can load this file by path and call :func:`measure`::

    spec = importlib.util.spec_from_file_location("sanitize_speed", "bench/sanitize_speed.py")
"""

from __future__ import annotations

import argparse
import signal
import statistics
import time
from collections.abc import Callable
from typing import Any

ENTRY_POINT = "has_close_elements"

_INTRO = [
    "Sure! Here's a solution that sorts the numbers and compares neighbours.",
    "",
    "The idea is simple: after sorting, the closest pair is adjacent, so we only",
    "need to look at consecutive elements. I've split the work into small helpers",
    "so that each step can be tested on its own.",
    "",
]
_OUTRO = [
    "",
    "This works because sorting puts the closest pair next to each other.",
    "",
    "- Time complexity: O(n log n) for the sort.",
    "- Space complexity: O(n) for the sorted copy.",
    "",
    "Let me know if you have any questions!",
]
_HEADER = [
    "from typing import List",
    "import math",
    "import itertools",
    "",
    "EPSILON = 1e-12",
    "MAX_ITEMS = 10_000",
    "",
    "",
]


def _helper(i: int) -> list[str]:
    """A needed pipeline step (each calls the previous one), or every third an unused one."""
    if i % 3 == 2:
        return [
            f"def _debug_dump_{i}(values: List[float]) -> str:",
            f'    """Pretty-print values for debugging (helper {i}, not used by the solution)."""',
            "    parts = []",
            "    for index, value in enumerate(values):",
            '        parts.append(f"{index}: {value:.3f}")',
            "    for left, right in itertools.pairwise(values):",
            '        parts.append(f"gap {right - left:.3f}")',
            '    return "\\n".join(parts)',
            "",
            "",
        ]
    previous = max((j for j in range(i) if j % 3 != 2), default=None)
    tail = f"    return _step_{previous}(result, threshold)" if previous is not None else "    return result"
    return [
        f"def _step_{i}(values: List[float], threshold: float) -> List[float]:",
        f'    """Step {i} of the pipeline: keep finite values, clamp the huge ones."""',
        "    result = []",
        "    for value in values:",
        "        if math.isfinite(value) and abs(value) < MAX_ITEMS:",
        "            result.append(value)",
        "        else:",
        "            result.append(math.copysign(MAX_ITEMS, value))",
        tail,
        "",
        "",
    ]


def _entry(last_step: int | None) -> list[str]:
    source = f"_step_{last_step}(numbers, threshold)" if last_step is not None else "numbers"
    return [
        f"def {ENTRY_POINT}(numbers: List[float], threshold: float) -> bool:",
        '    """Return True if any two numbers are closer to each other than threshold."""',
        f"    ordered = sorted({source})",
        "    for left, right in zip(ordered, ordered[1:]):",
        "        if right - left < threshold - EPSILON:",
        "            return True",
        "    return False",
        "",
        "",
    ]


_TESTS = [
    "def check(candidate):",
    "    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) is True",
    "    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05) is False",
    "    assert candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.95) is True",
    "    assert candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.8) is False",
    "    assert candidate([1.0, 2.0, 3.0, 4.0, 5.0, 2.0], 0.1) is True",
    "    assert candidate([1.1, 2.2, 3.1, 4.1, 5.1], 1.0) is True",
    "",
    "",
    "def test_examples():",
    f"    assert {ENTRY_POINT}([1.0, 2.0, 3.0], 0.5) is False",
    f"    assert {ENTRY_POINT}([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) is True",
    "",
    "",
    f"print({ENTRY_POINT}([1.0, 2.0, 3.0], 0.5))",
    f"print({ENTRY_POINT}([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3))",
    "numbers = [1.0, 2.0, 3.0]",
    f"result = {ENTRY_POINT}(numbers, 0.5)",
    'print(f"result = {result}")',
    "",
    'if __name__ == "__main__":',
    f"    check({ENTRY_POINT})",
    "    test_examples()",
    "    for size in range(5):",
    f"        print(size, {ENTRY_POINT}([float(i) for i in range(size)], 0.5))",
]


def _helpers(budget: int) -> tuple[list[str], int | None]:
    """Helper definitions filling about ``budget`` lines, and the last needed step's number."""
    lines: list[str] = []
    last_step = None
    i = 0
    while len(lines) < budget:
        lines.extend(_helper(i))
        if i % 3 != 2:
            last_step = i
        i += 1
    return lines, last_step


def build_answers(lines: int = 400) -> dict[str, str]:
    """The three answers described in the module docstring, each about ``lines`` lines long."""
    fixed = len(_INTRO) + len(_OUTRO) + len(_HEADER) + len(_entry(0)) + len(_TESTS) + 2
    helpers, last = _helpers(max(0, lines - fixed))
    code = _HEADER + helpers + _entry(last) + _TESTS
    fenced = _INTRO + ["```python", *code, "```"] + _OUTRO
    unfenced = _INTRO + code
    unfenced[-1] = unfenced[-1][: len(unfenced[-1]) // 2]  # cut off mid-call
    helpers, last = _helpers(max(0, lines - len(_INTRO) - len(_HEADER) - 6))
    entry = _entry(last)
    in_entry = _INTRO + _HEADER + helpers + entry[:4] + [entry[4][:18]]  # "        if right -"
    return {
        "fenced": "\n".join(fenced) + "\n",
        "unfenced-truncated": "\n".join(unfenced),
        "truncated-in-entry": "\n".join(in_entry),
    }


def _load_ours() -> Callable[..., str]:
    from benchmorph.models.sanitize import sanitize

    return lambda text: sanitize(text, entry_point=ENTRY_POINT)


def _load_evalplus() -> Callable[..., str] | None:
    try:
        from evalplus.sanitize import sanitize as evalplus_sanitize
    except Exception:  # not installed, or one of its many dependencies is missing
        return None
    return lambda text: evalplus_sanitize(text, entrypoint=ENTRY_POINT)


class _PeerTimeout(Exception):
    pass


def _time(
    func: Callable[[str], str],
    text: str,
    repeat: int,
    timeout: float | None = None,
    cpu: list[float] | None = None,
) -> list[float]:
    """Wall seconds per call (CPU seconds into ``cpu``); stops once ``timeout`` is spent."""

    def on_alarm(signum: int, frame: Any) -> None:
        raise _PeerTimeout

    times: list[float] = []
    use_alarm = timeout is not None and hasattr(signal, "setitimer")
    previous = signal.signal(signal.SIGALRM, on_alarm) if use_alarm else None
    try:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, timeout)
        for _ in range(repeat):
            started, started_cpu = time.perf_counter(), time.process_time()
            func(text)
            times.append(time.perf_counter() - started)
            if cpu is not None:
                cpu.append(time.process_time() - started_cpu)
    except _PeerTimeout:
        pass
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    return times


def measure(
    lines: int = 400, repeat: int = 20, peer_repeat: int = 1, peer_timeout: float = 300.0
) -> dict[str, Any]:
    """Time both sanitizers on each answer; milliseconds, medians over the runs.

    Returns ``{"lines": ..., "repeat": ..., "evalplus": bool, "answers": {name: {...}}}`` where
    each answer has ``lines`` (its real length), ``ours_median_ms``, ``ours_min_ms`` (wall clock,
    ``time.perf_counter``), ``ours_cpu_median_ms`` (this process's CPU time, which other load on
    the machine inflates less), and when
    EvalPlus is importable ``evalplus_median_ms`` (``None`` if its first run did not finish
    within ``peer_timeout`` seconds), ``evalplus_runs`` and ``ratio`` (EvalPlus / ours).
    """
    ours = _load_ours()
    peer = _load_evalplus()
    result: dict[str, Any] = {"lines": lines, "repeat": repeat, "evalplus": peer is not None, "answers": {}}
    for name, text in build_answers(lines).items():
        ours(text)  # warm-up: imports, regex compilation
        cpu: list[float] = []
        times = _time(ours, text, repeat, cpu=cpu)
        row: dict[str, Any] = {
            "lines": text.count("\n") + 1,
            "ours_median_ms": statistics.median(times) * 1000,
            "ours_min_ms": min(times) * 1000,
            "ours_cpu_median_ms": statistics.median(cpu) * 1000,
        }
        if peer is not None:
            peer_times = _time(peer, text, peer_repeat, peer_timeout)
            row["evalplus_runs"] = len(peer_times)
            row["evalplus_median_ms"] = statistics.median(peer_times) * 1000 if peer_times else None
            row["ratio"] = (
                row["evalplus_median_ms"] / row["ours_median_ms"]
                if peer_times and row["ours_median_ms"]
                else None
            )
        result["answers"][name] = row
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=400, help="length of each answer (default 400)")
    parser.add_argument(
        "--repeat", type=int, default=20, help="runs of our sanitizer per answer (default 20)"
    )
    parser.add_argument(
        "--peer-repeat", type=int, default=1, help="runs of EvalPlus's per answer (default 1)"
    )
    parser.add_argument(
        "--peer-timeout", type=float, default=300.0, help="seconds EvalPlus may take per answer (default 300)"
    )
    args = parser.parse_args(argv)
    numbers = measure(args.lines, args.repeat, args.peer_repeat, args.peer_timeout)
    print(f"sanitizer speed, entry point {ENTRY_POINT!r}, median of {args.repeat} runs")
    for name, row in numbers["answers"].items():
        line = (
            f"{name:20s} {row['lines']:4d} lines  ours {row['ours_median_ms']:7.3f} ms"
            f" (min {row['ours_min_ms']:.3f}, cpu {row['ours_cpu_median_ms']:.3f})"
        )
        if numbers["evalplus"]:
            if row["evalplus_median_ms"] is None:
                line += f"  evalplus > {args.peer_timeout:.0f} s (did not finish)"
            else:
                line += f"  evalplus {row['evalplus_median_ms']:10.1f} ms ({row['evalplus_runs']} runs)"
                line += f"  ratio {row['ratio']:.0f}x"
        print(line)
    if not numbers["evalplus"]:
        print("evalplus: not installed (from evalplus.sanitize import sanitize failed); no comparison")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
