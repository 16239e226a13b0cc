"""Problems, variants, samples and verdicts, and every format they are read from or written to."""

from benchmorph.data.errors import InputError
from benchmorph.data.models import Problem, Sample, TestCase, TestResult, Variant, Verdict
from benchmorph.data.registry import Benchmark, available_benchmarks, load_benchmark, select_problems

__all__ = [
    "Benchmark",
    "InputError",
    "Problem",
    "Sample",
    "TestCase",
    "TestResult",
    "Variant",
    "Verdict",
    "available_benchmarks",
    "load_benchmark",
    "select_problems",
]
