"""A sample runs with plain Python's semantics: nothing of the harness leaks into what its code observes.

Issue 23, finding 1: the worker starts with ``from __future__ import annotations`` and compiled samples
without ``dont_inherit=True``, so a solution whose type hints name an unimported ``List`` passed (its
annotations were never evaluated) where plain Python raises NameError and EvalPlus fails it.

Each leak class is checked by running the same probe program twice, in the sandbox and with the same
interpreter outside it (``python -c "import solution"`` for function problems, ``python main.py <
input`` for stdin programs), and comparing what it saw: future flags, harness globals, builtins,
``__name__`` and ``__main__``, ``sys.argv``, ``sys.path``, the recursion limit, the warnings filters
and the int-to-text limit.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchmorph.data.models import Problem, TestCase
from benchmorph.execution import Engine, Job
from benchmorph.execution.sandbox import bwrap_problem, worker_python

pytestmark = pytest.mark.skipif(
    bwrap_problem() is not None, reason=f"no bubblewrap sandbox: {bwrap_problem()}"
)

# What the code sees, recorded at the top of the module (before anything of its own is defined)
# and when its entry point is called.  Plain Python and the sandbox must give the same record.
PROBE = """
FIRST_GLOBALS = sorted(globals())
import sys, builtins, os, warnings, __future__ as future_module
SEEN = {"first_globals": FIRST_GLOBALS}
try:
    def hinted(x: List[int]) -> Optional[int]:  # names this module never imports
        return None
    SEEN["annotations"] = "not evaluated"
except NameError as exc:
    SEEN["annotations"] = "NameError: " + str(exc)
every_future = 0
for feature in future_module.all_feature_names:
    every_future |= getattr(future_module, feature).compiler_flag
SEEN["future_flags"] = sys._getframe().f_code.co_flags & every_future
SEEN["builtins_holder"] = type(__builtins__).__name__
SEEN["builtins"] = {name: type(getattr(builtins, name)).__name__ for name in dir(builtins)}
import __main__
SEEN["main_module_names"] = sorted(name for name in vars(__main__) if not name.startswith("__"))
SEEN["name"] = __name__
SEEN["in_sys_modules"] = sys.modules.get(__name__) is not None and vars(sys.modules[__name__]) is globals()
SEEN["has_file"] = os.path.isfile(__file__) and open(__file__).read().startswith("\\nFIRST_GLOBALS")
SEEN["argv"] = sys.argv
SEEN["path0_is_cwd"] = os.path.abspath(sys.path[0] or ".") == os.getcwd()
SEEN["path_rest"] = [entry for entry in sys.path[1:]]
SEEN["recursion_limit"] = sys.getrecursionlimit()
SEEN["warning_filters"] = [repr(item) for item in warnings.filters]
SEEN["int_digits"] = sys.get_int_max_str_digits()
try:
    str(10 ** 5000)
    SEEN["big_int_to_text"] = "converted"
except ValueError:
    SEEN["big_int_to_text"] = "ValueError"

class Point:
    def __init__(self, x):
        self.x = x

def depth(n=1):
    try:
        return depth(n + 1)
    except RecursionError:
        return n

def f(x):
    import pickle
    seen = dict(SEEN)
    seen["pickles_own_class"] = pickle.loads(pickle.dumps(Point(x))).x == x
    seen["depth"] = depth()
    return seen
"""

STDIN_PROBE = (
    PROBE
    + """
import json
input()
print(json.dumps(f(3)))
"""
)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    with Engine(workers=1, cache_root=tmp_path_factory.mktemp("cache")) as engine:
        yield engine


def in_sandbox(engine: Engine, kind: str, code: str) -> dict[str, Any]:
    problem = Problem(
        id="plain/1", kind=kind, prompt="", entry_point="f" if kind != "stdin" else "", reference=code
    )
    [run] = engine.run_inputs(problem, ["go\n"] if kind == "stdin" else [[3]], code=code)
    assert run.status == "ok", run.error
    return json.loads(run.output) if kind == "stdin" else run.output


def in_plain_python(kind: str, code: str, tmp_path: Path) -> dict[str, Any]:
    """The same code under the interpreter the sandbox runs, outside it, as plain Python runs it."""
    if kind == "stdin":
        (tmp_path / "main.py").write_text(code, encoding="utf-8")
        command = [worker_python(), "main.py"]
        feed = "go\n"
    else:
        (tmp_path / "solution.py").write_text(code, encoding="utf-8")
        command = [worker_python(), "-c", "import solution\nimport json\nprint(json.dumps(solution.f(3)))"]
        feed = ""
    done = subprocess.run(command, cwd=tmp_path, input=feed, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module", params=["function", "stdin"])
def seen(request: pytest.FixtureRequest, engine: Engine, tmp_path_factory: pytest.TempPathFactory):
    kind = request.param
    code = STDIN_PROBE if kind == "stdin" else PROBE
    return kind, in_sandbox(engine, kind, code), in_plain_python(kind, code, tmp_path_factory.mktemp(kind))


def test_no_future_flag_of_the_harness_reaches_the_sample(seen: tuple) -> None:
    _kind, sandbox, plain = seen
    assert plain["annotations"] == "NameError: name 'List' is not defined"
    assert sandbox["annotations"] == plain["annotations"]
    assert sandbox["future_flags"] == plain["future_flags"] == 0


def test_the_sample_module_holds_what_plain_pythons_does(seen: tuple) -> None:
    kind, sandbox, plain = seen
    assert sandbox["first_globals"] == plain["first_globals"]
    assert sandbox["builtins_holder"] == plain["builtins_holder"] == ("module" if kind == "stdin" else "dict")
    assert sandbox["has_file"] and plain["has_file"]


def test_builtins_are_plain_pythons(seen: tuple) -> None:
    _kind, sandbox, plain = seen
    assert sandbox["builtins"] == plain["builtins"]
    assert {"exit", "quit", "help", "copyright", "credits", "license"} <= set(sandbox["builtins"])


def test_name_main_and_sys_modules(seen: tuple) -> None:
    kind, sandbox, plain = seen
    if kind == "stdin":
        assert sandbox["name"] == plain["name"] == "__main__"
    else:
        # Imported, not run: a model's ``if __name__ == "__main__":`` demo does not run.
        assert sandbox["name"] == "__solution__" and plain["name"] == "solution"
    assert sandbox["in_sys_modules"] and plain["in_sys_modules"]
    assert sandbox["pickles_own_class"] and plain["pickles_own_class"]
    # ``import __main__`` finds the program (stdin) or an importer with nothing in it, never the worker.
    assert sandbox["main_module_names"] == plain["main_module_names"]


def test_sys_argv_and_sys_path(seen: tuple) -> None:
    _kind, sandbox, plain = seen
    assert sandbox["argv"] == plain["argv"]
    assert sandbox["path0_is_cwd"] and plain["path0_is_cwd"]
    user_site = subprocess.run(
        [worker_python(), "-c", "import site; print(site.getusersitepackages())"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert sandbox["path_rest"] == [entry for entry in plain["path_rest"] if entry != user_site]


def test_recursion_limit(seen: tuple) -> None:
    _kind, sandbox, plain = seen
    assert sandbox["recursion_limit"] == plain["recursion_limit"] == 1000
    # The harness's own frames below the entry point cost a few levels of the same limit.
    assert plain["depth"] - 8 <= sandbox["depth"] <= plain["depth"]


def test_warnings_filters(seen: tuple) -> None:
    _kind, sandbox, plain = seen
    assert sandbox["warning_filters"] == plain["warning_filters"]


def test_int_to_text_limit_is_pythons_default(seen: tuple) -> None:
    _kind, sandbox, plain = seen
    assert sandbox["int_digits"] == plain["int_digits"] == 4300
    assert sandbox["big_int_to_text"] == plain["big_int_to_text"] == "ValueError"


# ------------------------------------------------------------------ the false pass (finding 1)

HINTED = "def f(x: List[int]) -> Optional[int]:\n    return x[0]\n"


def test_unimported_type_hints_fail_as_in_plain_python(engine: Engine) -> None:
    """The sample EvalPlus fails and benchmorph passed: NameError at definition, so an error verdict."""
    problem = Problem(
        id="plain/hints",
        prompt="",
        entry_point="f",
        reference="def f(x):\n    return x[0]\n",
        tests=[TestCase(input=[[4, 5]])],
    )
    [problem] = engine.prepare([problem]).problems
    hinted, imported = engine.evaluate(
        [
            Job(problem, HINTED, "plain/hints", 0),
            Job(problem, "from typing import List, Optional\n" + HINTED, "plain/hints", 1),
        ]
    )
    assert hinted.status == "error" and "NameError: name 'List' is not defined" in (hinted.error or "")
    assert imported.status == "pass", imported.error


def test_unimported_type_hints_fail_in_a_stdin_program_too(engine: Engine) -> None:
    code = "def f(x: List[int]) -> int:\n    return x[0]\nprint(f([int(input())]))\n"
    problem = Problem(
        id="plain/stdin",
        kind="stdin",
        prompt="",
        reference="print(int(input()))\n",
        tests=[TestCase(input="7\n")],
    )
    [problem] = engine.prepare([problem]).problems
    [verdict] = engine.evaluate([Job(problem, code, "plain/stdin", 0)])
    assert verdict.status == "error" and "NameError" in (verdict.error or "")


def test_a_sample_that_sets_its_own_int_limit_keeps_it_across_calls(engine: Engine) -> None:
    code = "import sys\nsys.set_int_max_str_digits(100000)\ndef f(n):\n    return len(str(10 ** n))\n"
    problem = Problem(id="plain/digits", prompt="", entry_point="f", reference=code, tests=[])
    runs = engine.run_inputs(problem, [[5000], [9000]], code=code)
    assert [run.output for run in runs] == [5001, 9001]
    # Without raising the limit itself, the same conversion fails as it does in plain Python.
    plain = "def f(n):\n    return len(str(10 ** n))\n"
    [run] = engine.run_inputs(problem, [[5000]], code=plain)
    assert run.status == "error" and "ValueError" in (run.error or "")
    # And a result holding a huge int still crosses the pipe: the harness lifts the limit for itself.
    [run] = engine.run_inputs(problem, [[1]], code="def f(n):\n    return 10 ** 6000\n")
    assert run.status == "ok" and run.output == 10**6000
