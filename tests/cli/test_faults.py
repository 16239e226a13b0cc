"""Faults a long run meets in the wild, through the real CLI: SIGKILL, a full disk, corrupt stores.

Every test runs `benchmorph` as a subprocess with its own BENCHMORPH_CACHE,
samples through the real sandbox, and LLM calls against a loopback
OpenAI-compatible server the test starts (tests/loopback_openai.py).  The
yardstick is always an uninterrupted run of the same command: after the
fault and a re-run, the output must equal it (nothing lost, nothing twice),
and the re-run must take what was stored (cached answers, checkpointed
verdicts, measured references) instead of doing the work again.

`benchmorph instruct` does not exist yet; its SIGKILL case belongs with it.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from benchmorph.data.formats.native import write_native
from benchmorph.data.registry import load_benchmark
from cli_runner import run_cli, start_cli
from loopback_openai import ScriptedServer, request_text

HUMANEVAL = load_benchmark("humaneval").problems
BY_ID = {problem.id: problem for problem in HUMANEVAL}


# ---------------------------------------------------------------- helpers


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_samples(path: Path, n_problems: int, slow: float = 0.0) -> int:
    """A passing and a failing sample for each of the first problems; ``slow`` sleeps at import."""
    tail = f"\nimport time as _t\n_t.sleep({slow})\n" if slow else ""
    lines = []
    for problem in HUMANEVAL[:n_problems]:
        lines.append({"task_id": problem.id, "solution": problem.reference + tail})
        lines.append({"task_id": problem.id, "solution": problem.prompt + "    return None\n" + tail})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return len(lines)


def outcome(path: Path) -> list[tuple[Any, ...]]:
    """What a results.jsonl says about each sample, without timings."""
    return [
        (r["task_id"], r["index"], r["status"], r["passed"], r["total"], [t["status"] for t in r["tests"]])
        for r in rows(path)
    ]


def without_times(value: Any) -> Any:
    """A variants file's rows minus measured reference times, which differ between any two runs."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k != "ref_time"}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def count_rows(db_file: Path, table: str) -> int:
    """Rows committed so far by another process (0 while the file does not exist yet)."""
    if not db_file.exists():
        return 0
    try:
        with sqlite3.connect(db_file, timeout=5) as db:
            return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    except sqlite3.Error:
        return 0


def integrity(db_file: Path) -> list[str]:
    db = sqlite3.connect(db_file)
    try:
        return [row[0] for row in db.execute("PRAGMA integrity_check")]
    finally:
        db.close()


def wait_for(condition: Callable[[], bool], process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.time() + 120
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"the run ended (rc {process.returncode}) before {what}: {process.stderr.read()!r}")  # type: ignore[union-attr]
        if time.time() > deadline:
            process.kill()
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def kill_hard(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the CLI alone, as `kill -9` would; its sandbox workers must then go by themselves."""
    workers = children(process.pid)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    deadline = time.time() + 20
    alive = workers
    while alive and time.time() < deadline:
        time.sleep(0.1)
        alive = [pid for pid in workers if Path(f"/proc/{pid}").exists() and not zombie(pid)]
    assert not alive, f"workers outlived the killed run: {alive}"


def zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def cached_questions(cache_file: Path) -> list[tuple[str, Any]]:
    """(what the model was asked, seed) for every answer in an LLM cache."""
    if not cache_file.exists():
        return []
    with sqlite3.connect(cache_file) as db:
        stored = [json.loads(row[0]) for row in db.execute("SELECT request FROM generations")]
    questions = []
    for entry in stored:
        request = entry["request"]
        text = (
            "\n".join(str(m.get("content", "")) for m in request["messages"])
            if "messages" in request
            else request["prompt"]
        )
        questions.append((text, entry["params"].get("seed")))
    return questions


def asked(server: ScriptedServer, since: int = 0) -> list[tuple[str, Any]]:
    """(question, seed) of the generation requests the server received after the first ``since``."""
    return [
        (request_text(request["body"]), request["body"].get("seed"))
        for request in server.requests[since:]
        if not request["path"].endswith("/embeddings")
    ]


def seeded_answer(body: dict[str, Any]) -> str:
    """A completion that differs per problem and per seed, so a mixed-up cache would show."""
    return f"    return {int(body.get('seed') or 0)}\n"


@contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A small RAM file system at ``path`` (root only: CI and this machine run tests as root)."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs to fill (needs root): {mounted.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(root: Path, leave: int) -> Path:
    """A filler file that leaves about ``leave`` bytes free on the file system of ``root``."""
    stats = os.statvfs(root)
    free = stats.f_bavail * stats.f_frsize
    filler = root / "filler"
    with filler.open("wb") as handle:
        handle.write(b"\0" * max(0, free - leave))
    return filler


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


# ---------------------------------------------------------------- SIGKILL


def test_evaluate_killed_with_sigkill_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    samples = tmp_path / "samples.jsonl"
    total = write_samples(samples, 12, slow=0.08)  # 24 samples, about 0.1 s each on one worker
    args = ["evaluate", "humaneval", "--samples", str(samples), "--workers", "1"]

    clean = run_cli(*args, "--out", str(tmp_path / "clean"), cache=cache, cwd=tmp_path)
    assert clean.returncode == 0, clean.stderr

    out = tmp_path / "killed"
    checkpoint = out / "checkpoint.sqlite"
    process = start_cli(*args, "--out", str(out), cache=cache, cwd=tmp_path)
    wait_for(lambda: count_rows(checkpoint, "verdicts") >= 6, process, "6 checkpointed verdicts")
    kill_hard(process)
    saved = count_rows(checkpoint, "verdicts")
    assert 6 <= saved < total and not (out / "results.jsonl").exists()

    again = run_cli(*args, "--out", str(out), cache=cache, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["reused_verdicts"] >= saved  # checkpointed verdicts were not judged again
    assert outcome(out / "results.jsonl") == outcome(tmp_path / "clean" / "results.jsonl")
    keys = [(task, index) for task, index, *_ in outcome(out / "results.jsonl")]
    assert len(keys) == total == len(set(keys))  # one verdict per sample
    assert integrity(checkpoint) == ["ok"]


@pytest.mark.server
def test_generate_killed_with_sigkill_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    with ScriptedServer(lambda text: "", answer_with_body=seeded_answer, delay=0.1) as server:
        spec = f"openai:base@{server.base_url}?mode=completion"
        args = ["generate", "humaneval", "--model", spec, "--limit", "10", "--n", "2"]
        args += ["--temperature", "0.8", "--seed", "3", "--concurrency", "2"]
        clean = run_cli(*args, "--out", str(tmp_path / "clean.jsonl"), cache=tmp_path / "c1", cwd=tmp_path)
        assert clean.returncode == 0, clean.stderr
        expected = rows(tmp_path / "clean.jsonl")
        assert len(expected) == 20 and len(asked(server)) == 20

        cache = tmp_path / "c2"
        cache_file = cache / "llm.sqlite"
        out = tmp_path / "samples.jsonl"
        start = len(server.requests)
        process = start_cli(*args, "--out", str(out), cache=cache, cwd=tmp_path)
        wait_for(lambda: count_rows(cache_file, "generations") >= 6, process, "6 cached answers")
        kill_hard(process)
        before = cached_questions(cache_file)
        assert 6 <= len(before) < 20 and not out.exists()

        resumed_from = len(server.requests)
        again = run_cli(*args, "--out", str(out), cache=cache, cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        repeated = asked(server, resumed_from)
        assert not set(repeated) & set(before), "an answer the cache had was asked for again"
        assert len(repeated) == len(set(repeated)) == 20 - len(before)
        assert len(asked(server, start)) - len(repeated) >= len(before)
    assert rows(out) == expected  # same samples, same order, none twice


def slow_problems(path: Path, ids: list[str], sleep: float) -> None:
    """HumanEval problems whose references sleep at import, so mining takes long enough to interrupt."""
    tail = f"\n\nimport time as _t\n_t.sleep({sleep})\n"
    write_native(path, [BY_ID[i].model_copy(update={"reference": BY_ID[i].reference + tail}) for i in ids])


def test_morph_mine_killed_with_sigkill_reuses_measured_references(tmp_path: Path) -> None:
    problems = tmp_path / "problems.jsonl"
    # Six problems the miner turns into counterfactuals, six it does not.
    ids = [f"HumanEval/{i}" for i in (9, 66, 69, 86, 94, 102, 0, 1, 2, 3, 4, 5)]
    slow_problems(problems, ids, 0.12)
    args = ["morph", "mine", str(problems), "--workers", "1"]

    clean = run_cli(*args, "--out", str(tmp_path / "clean.jsonl"), cache=tmp_path / "c1", cwd=tmp_path)
    assert clean.returncode == 0, clean.stderr
    expected = without_times(rows(tmp_path / "clean.jsonl"))
    assert len(expected) >= 4

    cache = tmp_path / "c2"
    references = cache / "references"
    out = tmp_path / "mined.jsonl"

    def measured() -> dict[Path, tuple[int, int]]:
        return {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in references.rglob("*.json")}

    process = start_cli(*args, "--out", str(out), cache=cache, cwd=tmp_path)
    wait_for(lambda: len(measured()) >= 4, process, "4 measured references")
    kill_hard(process)
    before = measured()
    assert 4 <= len(before) < 2 * len(ids) and not out.exists()
    assert not list(references.rglob("*.tmp")), "a half-written reference was left behind"

    again = run_cli(*args, "--out", str(out), cache=cache, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    after = measured()
    assert {p: after[p] for p in before} == before  # stored references were read, not measured again
    assert without_times(rows(out)) == expected
    assert len({row["id"] for row in rows(out)}) == len(expected)


CTF_TASKS = ("HumanEval/12", "HumanEval/2")


def ctf_answer(body: dict[str, Any]) -> str:
    """Generator: a counterfactual per seed; solver: per candidate, solutions that agree (or not)."""
    text = request_text(body)
    seed = int(body.get("seed") or 0)
    longest, truncate = BY_ID["HumanEval/12"], BY_ID["HumanEval/2"]
    if "counterfactual versions of programming problems" in text:
        edits = (
            [
                ("return the longest one", "return the longest one in upper case"),
                ("Return the first one in case", "Return the last one in case"),
                ("return the longest one", "return the first character of the longest one"),
            ]
            if "def longest(" in text
            else [("Return the decimal part", "Return the fractional part")] * 3
        )
        problem = longest if "def longest(" in text else truncate
        old, new = edits[seed % 3]
        return "Here it is:\n" + json.dumps({"description": problem.prompt.replace(old, new)})
    bodies = {
        # 'shortest' fails trivial-baseline on HumanEval/12's three tests (the first string passes them).
        "in upper case": ["    return max(strings, key=len).upper() if strings else None\n"] * 3,
        "last one in case": [
            "    return strings[-1] if strings else None\n",
            "    return max(strings, key=len) if strings else 'x'\n",
            "    return ''\n",
        ],
        "first character": ["    return max(strings, key=len)[0]\n"] * 3,
        "fractional part": ["    return number % 1.0\n"] * 3,
    }
    for marker, answers in bodies.items():
        if marker in text:
            problem = longest if "longest(" in text else truncate
            return f"```python\n{problem.prompt}{answers[seed % 3]}```"
    return "no idea"


@pytest.mark.server
def test_morph_ctf_killed_with_sigkill_resumes_from_the_llm_cache(tmp_path: Path) -> None:
    with ScriptedServer(lambda text: "", answer_with_body=ctf_answer, delay=0.08) as server:
        url = server.base_url
        args = ["morph", "ctf", "humaneval", "--tasks", ",".join(CTF_TASKS), "--candidates", "3"]
        args += ["--solutions", "3", "--generator", f"openai:gen@{url}", "--solver", f"openai:sol@{url}"]
        args += ["--embedder", f"openai:emb@{url}", "--concurrency", "1", "--workers", "1"]

        clean_out = tmp_path / "clean" / "ctf.jsonl"
        clean = run_cli(*args, "--out", str(clean_out), cache=tmp_path / "c1", cwd=tmp_path)
        assert clean.returncode == 0, clean.stderr
        needed = len(asked(server))
        expected = without_times(rows(clean_out))
        expected_candidates = without_times(rows(clean_out.with_name("ctf.candidates.jsonl")))
        assert len(expected) == 1 and len(expected_candidates) == 6

        cache = tmp_path / "c2"
        cache_file = cache / "llm.sqlite"
        out = tmp_path / "killed" / "ctf.jsonl"
        process = start_cli(*args, "--out", str(out), cache=cache, cwd=tmp_path)
        wait_for(lambda: count_rows(cache_file, "generations") >= 8, process, "8 cached answers")
        kill_hard(process)
        before = cached_questions(cache_file)
        assert 8 <= len(before) < needed and not out.exists()

        resumed_from = len(server.requests)
        again = run_cli(*args, "--out", str(out), cache=cache, cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        repeated = asked(server, resumed_from)
        assert not set(repeated) & set(before), "an answer the cache had was asked for again"
        assert len(repeated) == len(set(repeated)) == needed - len(before)
    assert without_times(rows(out)) == expected
    assert without_times(rows(out.with_name("ctf.candidates.jsonl"))) == expected_candidates


# ---------------------------------------------------------------- a full disk


def test_full_out_dir_stops_with_one_line_and_resumes(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    samples = tmp_path / "samples.jsonl"
    total = write_samples(samples, 30)
    args = ["evaluate", "humaneval", "--samples", str(samples), "--workers", "2"]
    clean = run_cli(*args, "--out", str(tmp_path / "clean"), cache=cache, cwd=tmp_path)
    assert clean.returncode == 0, clean.stderr

    with tmpfs(tmp_path / "out", "8m") as out:
        filler = fill(out, 160 * 1024)  # room for a few verdicts, not for 60
        full = run_cli(*args, "--out", str(out), cache=cache, cwd=tmp_path)
        assert full.returncode != 0
        assert "Traceback" not in full.stderr, full.stderr
        errors = error_lines(full.stderr)
        assert len(errors) == 1, full.stderr
        assert "no space left" in errors[0] and str(out) in errors[0]
        checkpoint = out / "checkpoint.sqlite"
        assert integrity(checkpoint) == ["ok"]
        saved = count_rows(checkpoint, "verdicts")
        assert 0 < saved < total
        assert not list(out.glob("*.tmp")), "a half-written output was left behind"

        filler.unlink()
        again = run_cli(*args, "--out", str(out), cache=cache, cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        assert json.loads((out / "summary.json").read_text())["reused_verdicts"] >= saved
        assert outcome(out / "results.jsonl") == outcome(tmp_path / "clean" / "results.jsonl")


@pytest.mark.server
def test_full_cache_dir_stops_with_one_line_and_resumes(tmp_path: Path) -> None:
    with ScriptedServer(lambda text: "", answer_with_body=seeded_answer) as server:
        spec = f"openai:base@{server.base_url}?mode=completion"
        args = ["run", "humaneval", "--model", spec, "--limit", "25", "--n", "2", "--temperature", "0.8"]
        args += ["--seed", "0", "--workers", "2"]
        clean = run_cli(*args, "--out", str(tmp_path / "clean"), cache=tmp_path / "c1", cwd=tmp_path)
        assert clean.returncode == 0, clean.stderr
        needed = len(asked(server))

        with tmpfs(tmp_path / "c2", "8m") as cache:
            filler = fill(cache, 120 * 1024)
            start = len(server.requests)
            full = run_cli(*args, "--out", str(tmp_path / "run"), cache=cache, cwd=tmp_path)
            assert full.returncode != 0
            assert "Traceback" not in full.stderr, full.stderr
            errors = error_lines(full.stderr)
            assert len(errors) == 1, full.stderr
            assert "no space left" in errors[0] and str(cache) in errors[0]
            llm = cache / "llm.sqlite"
            assert integrity(llm) == ["ok"]
            kept = cached_questions(llm)
            assert 0 < len(kept) < needed

            filler.unlink()
            resumed_from = len(server.requests)
            again = run_cli(*args, "--out", str(tmp_path / "run"), cache=cache, cwd=tmp_path)
            assert again.returncode == 0, again.stderr
            repeated = asked(server, resumed_from)
            assert not set(repeated) & set(kept) and len(repeated) == needed - len(kept)
            assert len(asked(server, start)) >= needed
            assert integrity(llm) == ["ok"]
    assert outcome(tmp_path / "run" / "results.jsonl") == outcome(tmp_path / "clean" / "results.jsonl")
    assert rows(tmp_path / "run" / "samples.jsonl") == rows(tmp_path / "clean" / "samples.jsonl")


# ---------------------------------------------------------------- corrupt stores


def damage(db_file: Path, how: str) -> None:
    """Garbage bytes, a copy cut in half, or one page in the middle overwritten."""
    size = db_file.stat().st_size
    assert size >= 4 * 4096, "the store is too small to damage meaningfully"
    assert not Path(f"{db_file}-wal").exists(), "the store was not closed cleanly"
    if how == "garbage":
        db_file.write_bytes(os.urandom(size))
    elif how == "truncated":
        with db_file.open("r+b") as handle:
            handle.truncate(size // 2)
    else:
        with db_file.open("r+b") as handle:
            handle.seek(2 * 4096)
            handle.write(os.urandom(4096))


def assert_moved_aside(db_file: Path, stderr: str) -> None:
    warnings = [line for line in stderr.splitlines() if "not a usable SQLite database" in line]
    assert len(warnings) == 1, stderr
    assert str(db_file) in warnings[0] and "moved it aside" in warnings[0]
    aside = list(db_file.parent.glob(db_file.name + ".corrupt-*"))
    assert len(aside) == 1 and aside[0].name in warnings[0]
    assert "Traceback" not in stderr
    assert integrity(db_file) == ["ok"]


DAMAGES = ["garbage", "truncated", "bad-page"]


@pytest.mark.parametrize("how", DAMAGES)
@pytest.mark.server
def test_corrupt_llm_cache_is_moved_aside_and_rebuilt(tmp_path: Path, how: str) -> None:
    cache = tmp_path / "cache"
    with ScriptedServer(lambda text: "", answer_with_body=seeded_answer) as server:
        spec = f"openai:base@{server.base_url}?mode=completion"
        args = ["generate", "humaneval", "--model", spec, "--limit", "20", "--temperature", "0.8"]
        args += ["--seed", "1", "--out", str(tmp_path / "samples.jsonl")]
        first = run_cli(*args, cache=cache, cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        expected = rows(tmp_path / "samples.jsonl")
        damage(cache / "llm.sqlite", how)

        start = len(server.requests)
        again = run_cli(*args, cache=cache, cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        assert_moved_aside(cache / "llm.sqlite", again.stderr)
        assert len(asked(server, start)) == 20  # the lost answers were asked again ...
    assert count_rows(cache / "llm.sqlite", "generations") == 20  # ... and stored in the new cache
    assert rows(tmp_path / "samples.jsonl") == expected


@pytest.mark.parametrize("how", DAMAGES)
def test_corrupt_checkpoint_is_moved_aside_and_rebuilt(tmp_path: Path, how: str) -> None:
    cache = tmp_path / "cache"
    samples = tmp_path / "samples.jsonl"
    total = write_samples(samples, 30)
    out = tmp_path / "run"
    args = ["evaluate", "humaneval", "--samples", str(samples), "--workers", "2", "--out", str(out)]
    first = run_cli(*args, cache=cache, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    expected = outcome(out / "results.jsonl")
    damage(out / "checkpoint.sqlite", how)

    again = run_cli(*args, cache=cache, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert_moved_aside(out / "checkpoint.sqlite", again.stderr)
    assert json.loads((out / "summary.json").read_text())["reused_verdicts"] == 0
    assert count_rows(out / "checkpoint.sqlite", "verdicts") == total
    assert outcome(out / "results.jsonl") == expected


def test_corrupt_reference_cache_entries_are_measured_again(tmp_path: Path) -> None:
    """The reference cache is JSON files, not SQLite: a damaged entry is a miss, never a wrong answer."""
    cache = tmp_path / "cache"
    samples = tmp_path / "samples.jsonl"
    write_samples(samples, 10)
    args = ["evaluate", "humaneval", "--samples", str(samples), "--workers", "2"]
    first = run_cli(*args, "--out", str(tmp_path / "a"), cache=cache, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    entries = sorted((cache / "references").rglob("*.json"))
    assert len(entries) == 10
    entries[0].write_bytes(os.urandom(300))
    entries[1].write_text(entries[1].read_text()[:40])
    entries[2].write_text("[1, 2, 3]")
    entries[3].write_text("")
    again = run_cli(*args, "--out", str(tmp_path / "b"), cache=cache, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert outcome(tmp_path / "b" / "results.jsonl") == outcome(tmp_path / "a" / "results.jsonl")
    for entry in entries[:4]:
        assert isinstance(json.loads(entry.read_text()), dict)  # measured again and stored
