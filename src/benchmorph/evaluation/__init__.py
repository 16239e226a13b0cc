"""Scoring: pass@k, evaluations of sample sets, broken solutions for calibration, and the run use cases
(``evaluate_run``, ``generate_run``, ``run_benchmark``) that the CLI's evaluate, generate and run call."""

from benchmorph.core.notices import Notice
from benchmorph.evaluation.evaluate import Evaluation, evaluate_samples, summarize, write_evaluation
from benchmorph.evaluation.passk import pass_at_k, pass_at_k_table
from benchmorph.evaluation.runs import (
    ModelAccess,
    RunResult,
    evaluate_run,
    generate_run,
    prepare_problems,
    run_benchmark,
)
from benchmorph.testgen.mutants import mutants

__all__ = [
    "Evaluation",
    "ModelAccess",
    "Notice",
    "RunResult",
    "evaluate_run",
    "evaluate_samples",
    "generate_run",
    "mutants",
    "pass_at_k",
    "pass_at_k_table",
    "prepare_problems",
    "run_benchmark",
    "summarize",
    "write_evaluation",
]
