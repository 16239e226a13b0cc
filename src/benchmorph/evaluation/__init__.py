"""Scoring: pass@k, evaluations of sample sets, broken solutions for calibration."""

from benchmorph.evaluation.evaluate import Evaluation, evaluate_samples, summarize, write_evaluation
from benchmorph.evaluation.mutants import mutants
from benchmorph.evaluation.passk import pass_at_k, pass_at_k_table

__all__ = [
    "Evaluation",
    "evaluate_samples",
    "mutants",
    "pass_at_k",
    "pass_at_k_table",
    "summarize",
    "write_evaluation",
]
