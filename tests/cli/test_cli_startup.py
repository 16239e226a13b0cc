"""The CLI starts fast: importing it loads no heavy library, and its inlined option defaults stay right.

Every command module imports what it runs inside its command function, so
`benchmorph --help` (and any command before it does work) pays only for typer
and rich.  Checked in a fresh interpreter, where sys.modules shows exactly
what one `import benchmorph.cli.app` pulled in.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("matplotlib", "numpy", "llama_cpp", "pydantic", "httpx", "jinja2", "rapidfuzz", "torch", "ray")


def loaded_by(statement: str) -> list[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_importing_the_cli_loads_no_heavy_library() -> None:
    modules = loaded_by("import benchmorph.cli.app")
    heavy = sorted({name.split(".")[0] for name in modules} & set(HEAVY))
    assert heavy == [], f"`import benchmorph.cli.app` loads {heavy}: import them inside the command"
    library = sorted(m for m in modules if m.startswith("benchmorph.") and not m.startswith("benchmorph.cli"))
    assert library == [], f"command modules import library modules at start-up: {library}"


def test_help_lists_commands() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmorph.cli", "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for command in ("evaluate", "run", "report", "morph", "instruct", "tests"):
        assert command in done.stdout


@pytest.mark.parametrize(
    ("cli_module", "name", "library_module"),
    [
        ("benchmorph.cli.morph", "DEFAULT_EPSILON", "benchmorph.morph.common.figures"),
        ("benchmorph.cli.morph", "DEFAULT_LAMBDA", "benchmorph.morph.common.figures"),
        ("benchmorph.cli.instruct_cmd", "DEFAULT_COSINE", "benchmorph.instruct.decontaminate"),
        ("benchmorph.cli.instruct_cmd", "DEFAULT_N", "benchmorph.instruct.decontaminate"),
        ("benchmorph.cli.instruct_cmd", "HEURISTIC", "benchmorph.instruct.difficulty"),
        ("benchmorph.cli.tests_cmd", "SATURATION_WINDOW", "benchmorph.testgen.saturation"),
    ],
)
def test_inlined_option_defaults_match_the_library(cli_module: str, name: str, library_module: str) -> None:
    """Option defaults typer needs at import time are written out in the CLI; they must not drift."""
    import importlib

    assert getattr(importlib.import_module(cli_module), name) == getattr(
        importlib.import_module(library_module), name
    )


def test_a_user_error_is_still_one_line() -> None:
    """The error classes main() maps to one line are imported only when raised; the mapping still holds."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmorph.cli", "evaluate", "no-such-benchmark", "--samples", "x.jsonl"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "unknown benchmark 'no-such-benchmark'" in done.stderr
