"""The trained memoriser's plumbing, on a smoke scale: a tiny TinyLM trained on three HumanEval problems
answers through the normal run path as trained:PATH, and what it reproduces in training it passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmorph.data.errors import InputError
from benchmorph.data.registry import load_benchmark
from benchmorph.models.spec import parse_spec
from cli_runner import run_cli
from paths import ROOT

torch = pytest.importorskip("torch")
from benchmorph.models import tinylm  # noqa: E402  (needs torch)

TASKS = "HumanEval/0,HumanEval/2,HumanEval/4"


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float]:
    torch.set_num_threads(1)
    problems = [load_benchmark("humaneval").by_id()[task] for task in TASKS.split(",")]
    pairs = [tinylm.completion_pair(problem) for problem in problems]
    config = tinylm.Config(context=32, width=64, layers=1, heads=2)
    model, vocabulary, report = tinylm.train(
        pairs, config, epochs=80, batch_size=16, learning_rate=1e-2, evaluate_every=10
    )
    path = tinylm.save(tmp_path_factory.mktemp("trained") / "tiny.pt", model, vocabulary, {"tasks": TASKS})
    return path, report.exact


def test_greedy_decoding_reproduces_what_training_got_right(checkpoint: tuple[Path, float]) -> None:
    path, exact = checkpoint
    model, vocabulary, meta = tinylm.load(path)
    assert meta == {"tasks": TASKS} and exact >= 1 / 3
    reproduced = 0
    for task in TASKS.split(","):
        prompt, solution = tinylm.completion_pair(load_benchmark("humaneval").by_id()[task])
        text, _ = tinylm.complete(model, vocabulary, prompt, 400)
        reproduced += text == solution
    assert reproduced == round(exact * 3)


def test_windows_cover_every_solution_token_once_for_decoding() -> None:
    vocabulary = tinylm.Vocabulary.of(["a b c d e f g h"])
    pairs = [("a b c", " d e f g h")]
    batch = tinylm.make_windows(pairs, vocabulary, context=4)
    # the solution " d e f g h" is 5 word tokens plus the end token: 6 positions, each decoded once
    assert int(batch.weights.sum()) == 6 and int(batch.learn.sum()) >= 6
    assert tinylm.window_starts(3, 9, 4) == [1, 3, 5]


def test_a_trained_checkpoint_runs_like_any_model(checkpoint: tuple[Path, float], tmp_path: Path) -> None:
    path, exact = checkpoint
    out = tmp_path / "run"
    result = run_cli(
        "run", "humaneval", "--model", f"trained:{path}", "--tasks", TASKS, "--out", str(out), "-j", "1",
        cache=tmp_path / "cache",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    # every reproduced solution passes; a near-miss may pass too (a wrong token after the last test needs it)
    assert summary["pass@1"] >= exact - 1e-9 and summary["n_problems"] == 3
    assert parse_spec(f"trained:{path}").identity().startswith("trained:")


def test_bad_trained_specs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no checkpoint at"):
        parse_spec(f"trained:{tmp_path / 'missing.pt'}")
    (tmp_path / "x.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(InputError, match="completion prompts only"):
        parse_spec(f"trained:{tmp_path / 'x.pt'}?mode=chat")
    with pytest.raises(tinylm.CheckpointError, match="not a torch checkpoint"):
        tinylm.load(tmp_path / "x.pt")


def test_the_bench_script_trains_measures_and_writes_its_facts(tmp_path: Path) -> None:
    """bench/contaminate.py on a smoke scale: three problems, a tiny model, the originals only."""
    import os
    import subprocess
    import sys

    script = ROOT / "bench" / "contaminate.py"
    env = {**os.environ, "BENCHMORPH_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, str(script), "--out", str(tmp_path / "c"), "--limit", "3", "--epochs", "20",
         "--width", "32", "--layers", "1", "--heads", "2", "--lr", "1e-2", "--batch", "16", "--skip-variants"],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    facts = json.loads((tmp_path / "c" / "contaminate.json").read_text())
    assert facts["problems"] == 3 and facts["training"]["epochs"] <= 20
    assert facts["training"]["cpu_seconds"] > 0 and "load average" in facts["training"]["load_after"]
    assert 0.0 <= facts["static"]["pass@1"] <= 1.0 and (tmp_path / "c" / "tinylm.pt").is_file()
    assert "static pass@1" in done.stdout and "min CPU" in done.stdout
