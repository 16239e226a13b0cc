"""`benchmorph study` as a command: every flag is a study.toml key, the file and the flags combine, bad input is
one line naming the file, line and key, and the plan (``--dry-run --no-probe``: nothing runs) lists the families
the registry holds, a plug-in's among them, with what --generator adds."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from benchmorph.cli.app import app
from benchmorph.evaluation.study.config import StudyConfig, load_config
from cli_runner import run_cli
from paths import TESTS

PLAN = ["--dry-run", "--no-probe"]
# Flags that are not keys: the file itself, and the shorthand for `baseline = []`.
NOT_KEYS = {"config", "no_baselines"}


def test_every_flag_is_a_key_and_every_key_a_flag() -> None:
    command = typer.main.get_command(app).commands["study"]  # type: ignore[attr-defined]
    flags = {param.name for param in command.params} - NOT_KEYS
    assert flags == set(StudyConfig.model_fields)
    for param in command.params:  # --flag-name is the key flag_name
        if param.name not in NOT_KEYS and param.name != "benchmark":
            assert f"--{param.name.replace('_', '-')}" in param.opts, param.name


def test_the_documented_study_toml_is_every_key(tmp_path: Path) -> None:
    """docs/study.md's example file sets every key, and loads."""
    text = (TESTS.parent / "docs" / "study.md").read_text()
    [example] = re.findall(r"```toml\n(.*?)```", text, re.S)
    (tmp_path / "study.toml").write_text(example)
    config = load_config(tmp_path / "study.toml")
    top = example.split("\n[")[0]  # the keys before the first [table]
    keys = set(re.findall(r"^([a-z_]+)\s*=", top, re.M)) | set(re.findall(r"^\[([a-z_]+)", example, re.M))
    assert keys == set(StudyConfig.model_fields)
    assert config.out == tmp_path / "benchmorph-out" / "study"  # relative to the file


def test_the_file_and_the_flags_combine(tmp_path: Path) -> None:
    config = tmp_path / "study.toml"
    config.write_text(
        'benchmark = "humaneval"\nmodel = ["reference"]\nfamily = ["mine", "metamorphic"]\nvariants = 3\n'
        "baseline = []\nlimit = 6\n\n[family_option.mine]\nepsilon = 0.1\n"
    )
    result = run_cli(
        "study", "--config", str(config), "--variants", "4", *PLAN, cache=tmp_path / "c", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "study of humaneval: 6 problems" in out
    assert re.search(r"metamorphic: offline, to build, \d+ variants .*variants=4", out)  # the flag wins
    assert re.search(r"mine: offline, to build, .*epsilon=0\.1", out)  # a family's own option
    assert "evolve: off (not in --family)" in out and "baselines: none" in out
    assert not (tmp_path / "benchmorph-out").exists()  # a dry run writes nothing


def test_bad_input_is_one_line_with_file_line_and_key(tmp_path: Path) -> None:
    cases = {
        'benchmark = "humaneval"\nmodel = ["reference"]\nvariants = [\n': r"study\.toml:3: not TOML",
        'benchmark = "humaneval"\nvariants = 3 3\nmodel = ["reference"]\n': r"study\.toml:2: not TOML: Expected newline",
        'benchmark = "humaneval"\nmodle = ["reference"]\n': r"study\.toml:2: field 'modle': unknown key",
        'benchmark = "humaneval"\nmodel = ["reference"]\n\nvariants = 0\n': (
            r"study\.toml:4: field 'variants': Input should be greater than or equal to 1"
        ),
        'benchmark = "humaneval"\nmodel = ["reference"]\n[family_option]\nnope = {a = 1}\n': (
            r"--family-option: no family 'nope' \(registered: ctf, evolve, metamorphic, mine\)"
        ),
    }
    for text, message in cases.items():
        config = tmp_path / "study.toml"
        config.write_text(text)
        result = run_cli("study", "--config", str(config), *PLAN, cache=tmp_path / "c", cwd=tmp_path)
        assert result.returncode == 2, (text, result.stderr)
        assert re.search(message, result.stderr), result.stderr
        assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    for args, message in (
        (["humaneval"], "--model is required"),
        (["humaneval", "-m", "reference", "--family", "nope"], "--family: no family 'nope'"),
        (["humaneval", "-m", "nope:x"], "unknown model spec 'nope:x'"),
        (
            ["humaneval", "-m", "reference", "--family-option", "mine"],
            "--family-option: expected FAMILY.OPTION=VALUE",
        ),
        (
            ["humaneval", "-m", "reference", "--family-option", "mine.epsilon=-1"],
            "--epsilon: Input should be",
        ),
        (["humaneval", "-m", "reference", "--evolve-types", "nope"], "--evolve-types: unknown type 'nope'"),
    ):
        result = run_cli("study", *args, *PLAN, cache=tmp_path / "c", cwd=tmp_path)
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_the_plan_lists_registered_families_and_what_a_generator_adds(tmp_path: Path) -> None:
    env = {"BENCHMORPH_TRANSFORMS": "toy_transform", "PYTHONPATH": str(TESTS)}
    base = ["study", "humaneval", "-m", "reference", "--limit", "5", *PLAN]
    offline = run_cli(*base, cache=tmp_path / "c", cwd=tmp_path, env=env)
    assert offline.returncode == 0, offline.stderr
    assert re.search(r"^  toy-scale: offline, to build", offline.stdout, re.M)  # a plug-in family is planned
    assert "ctf: off (needs --generator SPEC)" in offline.stdout
    assert "generator requests: none (every family offline)" in offline.stdout
    assert "test augmentation: off (--augment-tests turns it on)" in offline.stdout
    generator = "openai:coder@http://127.0.0.1:9/v1"
    llm = run_cli(*base, "--generator", generator, cache=tmp_path / "c", cwd=tmp_path)
    assert llm.returncode == 0, llm.stderr
    out = llm.stdout
    assert re.search(
        rf"^  ctf: LLM, to build, .*generator={re.escape(generator)}.*solver={re.escape(generator)}",
        out,
        re.M,
    )
    assert re.search(r"^  metamorphic: offline", out, re.M) and re.search(
        r"^  metamorphic-llm: LLM", out, re.M
    )
    offline_types = re.search(r"^  evolve: offline.*type=([a-z_,]+)", out, re.M).group(1).split(",")
    llm_types = re.search(r"^  evolve-llm: LLM.*type=([a-z_,]+)", out, re.M).group(1).split(",")
    assert set(offline_types) == {"combine", "tool_use"} and not set(offline_types) & set(llm_types)
    assert {"difficult", "subtle", "verbose"} <= set(llm_types)
    assert re.search(r"^  mine: offline", out, re.M)
