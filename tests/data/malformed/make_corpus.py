"""Regenerate the malformed-input corpus: ``python tests/data/malformed/make_corpus.py``.

Every file here is written by this script (tiny, hand-made rows; no benchmark
data is vendored), so the awkward ones stay reproducible: invalid UTF-8,
truncated gzip, base64/zlib/pickle blobs and a pickle naming a forbidden
global (it is only ever *refused* by the loader, never run).  What each file
must produce when handed to the CLI is in ``cases.json``, read by
``tests/test_malformed_inputs.py``.
"""

from __future__ import annotations

import base64
import csv
import gzip
import io
import json
import pickle
import shutil
import zlib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GROUPS = ("ok", "native", "samples", "evalplus", "evoeval", "livecodebench", "review", "runs")


def _json(row: Any) -> str:
    return json.dumps(row)


def write(rel: str, data: str | bytes) -> None:
    path = HERE / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)


def lines(*rows: Any) -> str:
    return "".join((row if isinstance(row, str) else _json(row)) + "\n" for row in rows)


def gz(text: str) -> bytes:
    # mtime=0 keeps the bytes identical on every regeneration.
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as handle:
        handle.write(text.encode("utf-8"))
    return buffer.getvalue()


# --------------------------------------------------------------------------- valid baselines


def native(**fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": "demo/1",
        "kind": "function",
        "prompt": 'def inc(x):\n    """x + 1"""\n',
        "entry_point": "inc",
        "reference": "def inc(x):\n    return x + 1\n",
        "atol": 0.0,
        "oracle": None,
        "contract": None,
        "strict_sequences": True,
        "source": {},
        "tests": [{"input": [1], "origin": "base"}],
        "schema_version": 1,
        "record": "problem",
    }
    row.update(fields)
    return row


def variant(**fields: Any) -> dict[str, Any]:
    row = native(
        id="demo/1-ctf",
        prompt='def inc(x):\n    """x - 1"""\n',
        reference="def inc(x):\n    return x - 1\n",
        tests=[{"input": [1], "origin": "base", "expected": 0}],
        record="variant",
        parent_id="demo/1",
        transform="ctf",
        label="ctf",
        provenance={},
    )
    row.update(fields)
    return row


def mbpp(**fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "task_id": "Mbpp/1",
        "prompt": '"""\nWrite a function that doubles a number.\nassert double(2) == 4\n"""\n',
        "entry_point": "double",
        "canonical_solution": "def double(n):\n    return 2 * n\n",
        "base_input": [[2], [3]],
        "plus_input": [[0]],
        "atol": 0,
        "contract": "",
        "assertion": "assert double(2) == 4",
    }
    row.update(fields)
    return row


def humaneval_plus(**fields: Any) -> dict[str, Any]:
    # HumanEval/0's name and signature, with a body written here (not the benchmark's).
    row: dict[str, Any] = {
        "task_id": "HumanEval/0",
        "prompt": "def has_close_elements(numbers, threshold):\n",
        "canonical_solution": "    return any(abs(a - b) < threshold for a in numbers for b in numbers if a is not b)\n",
        "entry_point": "has_close_elements",
        "plus_input": [[[1.0, 2.0], 0.5]],
        "contract": "",
        "atol": 0,
    }
    row.update(fields)
    return row


def evoeval(**fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "task_id": "EvoEval/1",
        "prompt": 'def triple(x):\n    """Three times x."""\n',
        "entry_point": "triple",
        "canonical_solution": "    return 3 * x\n",
        "inputs": ["1", "(2)"],
    }
    row.update(fields)
    return row


def lcb(**fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "question_title": "Twice",
        "question_content": "Read N and print 2N.",
        "platform": "atcoder",
        "question_id": "mal001_a",
        "contest_id": "mal001",
        "starter_code": "",
        "difficulty": "easy",
        "public_test_cases": _json([{"input": "3\n", "output": "6\n", "testtype": "stdin"}]),
        "private_test_cases": "",
        "metadata": "{}",
    }
    row.update(fields)
    return row


def blob(payload: bytes, *, compress: bool = True) -> str:
    """LiveCodeBench's private-test packing: base64(zlib(pickle))."""
    return base64.b64encode(zlib.compress(payload) if compress else payload).decode("ascii")


def review_csv(rows: list[dict[str, str]], columns: list[str] | None = None) -> str:
    columns = columns or ["original_id", "new_id", "type", "review_status", "solution", "notes"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def run_dir(rel: str, **files: str | bytes | None) -> None:
    """A run directory whose files are valid except those given (None: the file is absent)."""
    base: dict[str, str | bytes | None] = {
        "manifest.json": _json(
            {
                "benchmark": "problems",
                "model": "reference",
                "problem_ids": ["demo/1"],
                "parent_ids": {},
                "source": {"benchmark": "tests/data/malformed/ok/problems.jsonl", "data": None},
            }
        ),
        "summary.json": _json({"benchmark": "problems", "n_problems": 1, "n_samples": 1, "pass@1": 1.0}),
        "results.jsonl": lines({"task_id": "demo/1", "index": 0, "status": "pass", "passed": 1, "total": 1}),
        "samples.jsonl": lines({"task_id": "demo/1", "solution": "def inc(x):\n    return x + 1\n"}),
    }
    base.update(files)
    for name, data in base.items():
        if data is not None:
            write(f"{rel}/{name}", data)


# --------------------------------------------------------------------------- the corpus


def main() -> None:
    for group in GROUPS:
        shutil.rmtree(HERE / group, ignore_errors=True)

    write("ok/problems.jsonl", lines(native()))
    write("ok/samples.jsonl", lines({"task_id": "demo/1", "solution": "def inc(x):\n    return x + 1\n"}))
    write("ok/variants.jsonl", lines(variant()))

    # benchmorph's own JSONL (detected by path)
    write("native/invalid_json.jsonl", lines(native(), '{"id": "demo/2", "kind": "function",'))
    write("native/not_an_object.jsonl", lines(native(), "[1, 2, 3]"))
    bad = native()
    del bad["prompt"]
    write("native/missing_prompt.jsonl", lines(bad))
    write("native/reference_not_string.jsonl", lines(native(reference=["def inc(x):", "    return x + 1"])))
    write("native/unknown_kind.jsonl", lines(native(kind="lambda")))
    write("native/duplicate_id.jsonl", lines(native(), native(prompt="def inc(x):\n    pass\n")))
    write(
        "native/undecodable_input.jsonl",
        lines(native(tests=[{"input": [1]}, {"input": [{"__float__": "one and a half"}]}])),
    )
    write("native/bad_schema_version.jsonl", lines(native(schema_version=99)))
    write("native/unknown_record.jsonl", lines(native(record="task")))
    write("native/misspelt_field.jsonl", lines(native(promt="typo")))
    bad = variant()
    del bad["parent_id"]
    write("native/variant_without_parent.jsonl", lines(native(), bad))
    write("native/tests_not_a_list.jsonl", lines(native(tests="1, 2")))
    write("native/invalid_utf8.jsonl", lines(native()).encode() + b'{"id": "demo/\xff\xfe"}\n')
    write("native/bom_mid_file.jsonl", lines(native(), "\ufeff" + _json(native(id="demo/2"))))
    write("native/utf16.jsonl", lines(native()).encode("utf-16"))
    write("native/empty.jsonl", "")
    write("native/blank_lines_only.jsonl", "\n  \n\n")
    write(
        "native/humaneval_style.jsonl",
        lines({"task_id": "X/0", "prompt": "def f():\n", "test": "def check(c): pass"}),
    )

    # samples files (EvalPlus / human-eval style), scored against ok/problems.jsonl
    sample = {"task_id": "demo/1", "solution": "def inc(x):\n    return x + 1\n"}
    write("samples/invalid_json.jsonl", lines(sample, '{"task_id": "demo/1" "solution": "def f(): pass"}'))
    write("samples/solution_not_string.jsonl", lines(sample, {"task_id": "demo/1", "solution": 42}))
    write(
        "samples/completion_not_string.jsonl",
        lines({"task_id": "demo/1", "completion": ["    return x + 1"]}),
    )
    write("samples/missing_task_id.jsonl", lines({"solution": "def inc(x):\n    return x + 1\n"}))
    write(
        "samples/task_id_not_string.jsonl", lines({"task_id": 1, "solution": "def inc(x):\n    return x\n"})
    )
    write("samples/no_code.jsonl", lines({"task_id": "demo/1", "model": "m"}))
    write("samples/params_not_object.jsonl", lines({**sample, "params": "greedy"}))
    write("samples/not_an_object.jsonl", lines(sample, '"def inc(x): return x + 1"'))
    write("samples/empty.jsonl", "")
    write(
        "samples/invalid_utf8.jsonl", lines(sample).encode() + b'{"task_id": "demo/1", "solution": "\xc3("}\n'
    )
    write("samples/truncated.jsonl.gz", gz(lines(sample, sample, sample))[:-12])
    write("samples/not_gzip.jsonl.gz", lines(sample))
    write("samples/dir_invalid_utf8/demo_1/0.py", b"def inc(x):\n    return x + 1  # \xff\n")

    # EvalPlus: MBPP+ (--data) and HumanEval+ (--data), EvalPlus-style files by path
    write("evalplus/invalid_json.jsonl", lines(mbpp(), '{"task_id": "Mbpp/2", "prompt": }'))
    write("evalplus/base_input_not_list.jsonl", lines(mbpp(base_input="2, 3")))
    write("evalplus/base_input_item_not_list.jsonl", lines(mbpp(base_input=[[2], 3])))
    bad = mbpp()
    del bad["entry_point"]
    write("evalplus/missing_entry_point.jsonl", lines(bad))
    write("evalplus/solution_not_string.jsonl", lines(mbpp(canonical_solution=5)))
    write("evalplus/entry_point_not_identifier.jsonl", lines(mbpp(entry_point="double it")))
    write("evalplus/negative_atol.jsonl", lines(mbpp(atol=-1)))
    write("evalplus/contract_not_string.jsonl", lines(mbpp(contract=["assert n > 0"])))
    write("evalplus/duplicate_task_id.jsonl", lines(mbpp(), mbpp()))
    write(
        "evalplus/solution_not_python.jsonl", lines(mbpp(canonical_solution="def double(n):\n    return (\n"))
    )
    write("evalplus/truncated.jsonl.gz", gz(lines(mbpp(), mbpp(task_id="Mbpp/2")))[:40])
    write("evalplus/not_gzip.jsonl.gz", b"PK\x03\x04 this is a zip header, not gzip\n")
    write("evalplus/empty.jsonl", "")
    write("evalplus/humaneval_plus_unknown_task.jsonl", lines(humaneval_plus(task_id="HumanEval/999")))
    write("evalplus/humaneval_plus_input_not_list.jsonl", lines(humaneval_plus(plus_input=[[[1.0], 0.5], 7])))
    write(
        "evalplus/humaneval_plus_inputs_bad_id.jsonl",
        lines({"task_id": "HumanEval/0", "inputs": [[[1.0], 0.5]]}, {"task_id": "HumanEval-1", "inputs": []}),
    )
    write("evalplus/humaneval_plus_neither.jsonl", lines({"task_id": "HumanEval/0", "prompt": "def f():\n"}))

    # EvoEval
    write("evoeval/input_not_literal.jsonl", lines(evoeval(inputs=["1", "__import__('os').getcwd()"])))
    write("evoeval/input_not_python.jsonl", lines(evoeval(inputs=["1", "2 +"])))
    write("evoeval/inputs_not_list.jsonl", lines(evoeval(inputs="1, 2")))
    write("evoeval/input_wrong_type.jsonl", lines(evoeval(inputs=[1])))
    bad = evoeval()
    del bad["prompt"]
    write("evoeval/missing_prompt.jsonl", lines(evoeval(task_id="EvoEval/0"), bad))
    write("evoeval/solution_not_python.jsonl", lines(evoeval(canonical_solution="    return (\n")))
    write("evoeval/atol_not_number.jsonl", lines(evoeval(atol="small")))
    write("evoeval/duplicate_task_id.jsonl", lines(evoeval(), evoeval()))
    write("evoeval/not_gzip.jsonl.gz", lines(evoeval()))

    # LiveCodeBench (--data), including the base64 + zlib + pickle private tests
    cases = [{"input": "3\n", "output": "6\n", "testtype": "stdin"}]
    write("livecodebench/bad_base64.jsonl", lines(lcb(private_test_cases="!!!not-base64@@")))
    write(
        "livecodebench/bad_zlib.jsonl", lines(lcb(private_test_cases=blob(b"not zlib data", compress=False)))
    )
    whole = zlib.compress(pickle.dumps(_json(cases)))
    truncated = base64.b64encode(whole[: len(whole) // 2]).decode("ascii")
    write("livecodebench/truncated_zlib.jsonl", lines(lcb(private_test_cases=truncated)))
    write("livecodebench/bad_pickle.jsonl", lines(lcb(private_test_cases=blob(b"this is not a pickle"))))
    # A protocol-0 pickle that asks for os.system: the restricted unpickler must refuse to look it up.
    evil = b"cos\nsystem\n(S'touch /tmp/benchmorph-pwned'\ntR."
    write("livecodebench/forbidden_global.jsonl", lines(lcb(private_test_cases=blob(evil))))
    write(
        "livecodebench/pickled_not_json.jsonl",
        lines(lcb(private_test_cases=blob(pickle.dumps("input: 3, output: 6")))),
    )
    write(
        "livecodebench/unknown_testtype.jsonl",
        lines(lcb(public_test_cases=_json([{"input": "1", "output": "2", "testtype": "batch"}]))),
    )
    write(
        "livecodebench/output_not_string.jsonl",
        lines(lcb(public_test_cases=_json([{"input": "1\n", "output": 2, "testtype": "stdin"}]))),
    )
    write(
        "livecodebench/functional_input_not_json.jsonl",
        lines(
            lcb(
                public_test_cases=_json([{"input": "[1,\n", "output": "2", "testtype": "functional"}]),
                metadata=_json({"func_name": "twice"}),
            )
        ),
    )
    write("livecodebench/metadata_not_object.jsonl", lines(lcb(metadata="[1]")))
    write("livecodebench/content_not_string.jsonl", lines(lcb(question_content=None)))
    write("livecodebench/duplicate_question_id.jsonl", lines(lcb(), lcb()))
    write("livecodebench/array_item_not_object.json", _json([lcb(), "mal002_b"]))

    # Review CSV, imported against ok/variants.jsonl
    good = {"original_id": "demo/1", "new_id": "demo/1-ctf", "type": "CTF", "review_status": "accepted"}
    write("review/missing_type_column.csv", review_csv([good], ["original_id", "new_id", "notes"]))
    write("review/unknown_candidate.csv", review_csv([good, {**good, "new_id": "demo/7-ctf"}]))
    write("review/bad_label.csv", review_csv([{**good, "type": "Maybe"}]))
    write("review/bad_review_status.csv", review_csv([{**good, "review_status": "done"}]))
    write("review/duplicate_row.csv", review_csv([good, {**good, "type": "Bad"}]))
    write("review/unterminated_quote.csv", "new_id,type\n" + '"demo/1-ctf,CTF\n')
    write("review/empty.csv", "")
    write("review/invalid_utf8.csv", b"new_id,type\ndemo/1-ctf,CTF \xe9t\xe9\n")
    write("review/utf16.csv", review_csv([good]).encode("utf-16"))

    # Run directories, read by `sensitivity` and `report`
    run_dir("runs/manifest_not_json", **{"manifest.json": '{"benchmark": "problems",\n "model": }\n'})
    run_dir("runs/manifest_invalid_utf8", **{"manifest.json": b'{"benchmark": "caf\xe9"}\n'})
    run_dir("runs/manifest_not_object", **{"manifest.json": "[]\n"})
    run_dir(
        "runs/manifest_parent_ids_list", **{"manifest.json": _json({"model": "m", "parent_ids": ["demo/1"]})}
    )
    run_dir("runs/manifest_source_string", **{"manifest.json": _json({"model": "m", "source": "humaneval"})})
    run_dir("runs/summary_missing", **{"summary.json": None})
    run_dir(
        "runs/results_bad_status",
        **{
            "results.jsonl": lines(
                {"task_id": "demo/1", "status": "pass"}, {"task_id": "demo/1", "status": "ok"}
            )
        },
    )
    run_dir("runs/results_task_id_missing", **{"results.jsonl": lines({"index": 0, "status": "pass"})})
    run_dir("runs/results_invalid_json", **{"results.jsonl": '{"task_id": "demo/1", "status": "pass"\n'})
    run_dir(
        "runs/samples_solution_not_string",
        **{"samples.jsonl": lines({"task_id": "demo/1", "solution": None})},
    )


if __name__ == "__main__":
    main()
