"""The markers say what a test starts, and stay honest: read from the test sources, not trusted.

``llm`` (the embedded model: in-process, in a CLI run, or as a loopback llama_cpp.server),
``server`` (a server on 127.0.0.1 the code under test talks to) and ``browser`` (headless Chromium)
are what lets someone run ``-m "not llm"`` on a machine without the model, or see at a glance why a
test takes minutes. A test that starts one of them through the helpers (ScriptedServer, LlamaServer,
open_page, a ``local`` model spec, the demo), itself or through the fixtures and module functions it
uses, must carry the marker; a test that carries one must start what it names.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from paths import TESTS

STARTS = ("llm", "server", "browser")
# Names whose use starts something, and what.
NAMES = {
    "ScriptedServer": {"server"},
    "LlamaServer": {"llm", "server"},
    "ThreadingHTTPServer": {"server"},
    "HTTPServer": {"server"},
    "load_llama": {"llm"},
    "Llama": {"llm"},
    "open_page": {"browser"},
    "sync_playwright": {"browser"},
}
# CLI flags and library calls whose value is a model spec; ``local`` is the embedded model.
MODEL_FLAGS = {"--model", "-m", "--generator", "--embedder", "--solver", "--judge"}
MODEL_CALLS = {"embed", "generate", "parse_and_generate"}
LOCAL_SPEC = re.compile(r"local(\?.*)?")
CLI_CALLS = {"run_cli", "start_cli", "cli"}


def _constant(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _sequence_starts(items: list[ast.expr]) -> set[str]:
    """A list of arguments that names the embedded model after a model flag, or starts a Ray head."""
    values = [_constant(item) for item in items]
    found = set()
    for flag, value in zip(values, values[1:], strict=False):
        if flag in MODEL_FLAGS and value is not None and LOCAL_SPEC.fullmatch(value):
            found.add("llm")
    if "start" in values and "--head" in values:
        found.add("server")  # `ray start --head`
    return found


def direct_starts(function: ast.AST) -> dict[str, str]:
    """What a function's own body starts: marker -> the first thing seen that starts it."""
    found: dict[str, str] = {}

    def saw(marks: set[str], what: str) -> None:
        for mark in marks:
            found.setdefault(mark, what)

    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in NAMES:
            saw(NAMES[node.id], node.id)
        elif isinstance(node, ast.Attribute) and node.attr in NAMES:
            saw(NAMES[node.attr], node.attr)
        elif isinstance(node, ast.List | ast.Tuple):
            saw(_sequence_starts(node.elts), "a CLI argument list")
        elif isinstance(node, ast.Call):
            name = _called(node)
            saw(_sequence_starts(node.args), f"{name}(...)")
            if name in MODEL_CALLS and any(
                LOCAL_SPEC.fullmatch(_constant(arg) or "-")
                for arg in [*node.args, *(k.value for k in node.keywords)]
            ):
                saw({"llm"}, f"{name}(..., 'local')")
            args = [_constant(arg) for arg in node.args]
            if name in CLI_CALLS and args and args[0] == "demo" and "--no-local" not in args:
                saw({"llm"}, "the demo (with the embedded model)")
    return found


def _marks_of(decorators: list[ast.expr], aliases: dict[str, set[str]]) -> set[str]:
    marks: set[str] = set()
    for decorator in decorators:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Attribute):
            if target.value.attr == "mark":
                marks.add(target.attr)
        elif isinstance(target, ast.Name):
            marks |= aliases.get(target.id, set())
    return marks


def _usefixtures(decorators: list[ast.expr]) -> set[str]:
    names: set[str] = set()
    for decorator in decorators:
        if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute):
            if decorator.func.attr == "usefixtures":
                names |= {value for value in map(_constant, decorator.args) if value}
    return names


def _is_fixture(function: ast.FunctionDef) -> bool:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr == "fixture":
            return True
    return False


@dataclass
class Module:
    """One source file's functions, fixtures, and marks as pytest will apply them."""

    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    fixtures: dict[str, ast.FunctionDef] = field(default_factory=dict)
    module_marks: set[str] = field(default_factory=set)
    module_fixtures: set[str] = field(default_factory=set)
    aliases: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def parse(cls, source: str) -> Module:
        module = cls()
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef):
                module.functions[node.name] = node
                if _is_fixture(node):
                    module.fixtures[node.name] = node
            elif (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                name = node.targets[0].id
                values = node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
                if name == "pytestmark":
                    module.module_marks = _marks_of(values, module.aliases)
                    module.module_fixtures = _usefixtures(values)
                else:
                    marks = _marks_of(values, module.aliases)
                    if marks:
                        module.aliases[name] = marks
        return module

    def tests(self) -> Iterator[ast.FunctionDef]:
        return (f for name, f in self.functions.items() if name.startswith("test_"))

    def marks(self, test: ast.FunctionDef) -> set[str]:
        return self.module_marks | _marks_of(test.decorator_list, self.aliases)


def starts_of(test: ast.FunctionDef, module: Module, shared: dict[str, ast.FunctionDef]) -> dict[str, str]:
    """What a test starts, through its own body, its fixtures (module's, then conftest's) and helpers."""
    fixtures = {**shared, **module.fixtures}
    found: dict[str, str] = {}
    seen: set[int] = set()
    todo: list[tuple[ast.FunctionDef, str]] = [(test, test.name)]
    for name in module.module_fixtures | _usefixtures(test.decorator_list):
        if name in fixtures:
            todo.append((fixtures[name], f"fixture {name}"))
    while todo:
        function, via = todo.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        for mark, what in direct_starts(function).items():
            found.setdefault(mark, what if via == test.name else f"{what}, in {via}")
        for arg in function.args.args:
            if arg.arg in fixtures:
                todo.append((fixtures[arg.arg], f"fixture {arg.arg}"))
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in module.functions
            ):
                callee = module.functions[node.func.id]
                todo.append((callee, via if via != test.name else f"{callee.name}()"))
    return found


def dishonest_marks(source: str, shared: dict[str, ast.FunctionDef] | None = None) -> list[str]:
    """One line per test whose markers do not say what it starts (missing or stale)."""
    module = Module.parse(source)
    problems = []
    for test in module.tests():
        starts = starts_of(test, module, shared or {})
        marks = module.marks(test)
        for mark in STARTS:
            if mark in starts and mark not in marks:
                problems.append(
                    f"{test.name} starts {mark} ({starts[mark]}) but is not marked @pytest.mark.{mark}"
                )
            elif mark in marks and mark not in starts:
                problems.append(f"{test.name} is marked {mark} but starts no {mark} that the sources show")
    return problems


def test_every_test_that_starts_a_model_server_or_browser_says_so() -> None:
    shared = Module.parse((TESTS / "conftest.py").read_text(encoding="utf-8")).fixtures
    problems = []
    for path in sorted(TESTS.rglob("test_*.py")):
        if "fixtures" in path.relative_to(TESTS).parts:
            continue
        rel = path.relative_to(TESTS.parent)
        problems += [f"{rel}: {line}" for line in dishonest_marks(path.read_text(encoding="utf-8"), shared)]
    assert not problems, "\n".join(problems)


def test_the_check_sees_through_fixtures_helpers_and_cli_arguments() -> None:
    source = """
import pytest
from loopback_openai import ScriptedServer

@pytest.fixture(scope="module")
def scripted():
    with ScriptedServer(lambda text: "") as server:
        yield server

def helper(tmp_path):
    return run_cli("run", "humaneval", "--model", "local?threads=1", cache=tmp_path)

def test_direct():
    with ScriptedServer(lambda text: "") as server:
        pass

def test_through_a_fixture(scripted):
    pass

def test_through_a_helper(tmp_path):
    helper(tmp_path)

@pytest.mark.server
def test_marked(scripted):
    pass

@pytest.mark.llm
def test_stale():
    pass

def test_the_demo_without_the_model(tmp_path):
    run_cli("demo", "--no-local", cache=tmp_path)
"""
    assert dishonest_marks(source) == [
        "test_direct starts server (ScriptedServer) but is not marked @pytest.mark.server",
        "test_through_a_fixture starts server (ScriptedServer, in fixture scripted) but is not marked "
        "@pytest.mark.server",
        "test_through_a_helper starts llm (run_cli(...), in helper()) but is not marked @pytest.mark.llm",
        "test_stale is marked llm but starts no llm that the sources show",
    ]
