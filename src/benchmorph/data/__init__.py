"""Problems, variants, samples and verdicts, and every format they are read from or written to.

The public names load lazily, so that importing one module of this layer (its errors, say) does not
build every pydantic model behind the layer's surface.
"""

from typing import TYPE_CHECKING

from benchmorph.core.lazy import lazy_exports

if TYPE_CHECKING:
    from benchmorph.data.errors import InputError
    from benchmorph.data.models import Problem, Sample, TestCase, TestResult, Variant, Verdict
    from benchmorph.data.registry import Benchmark, available_benchmarks, load_benchmark, select_problems

_EXPORTS = {
    "InputError": "benchmorph.data.errors",
    **dict.fromkeys(
        ("Problem", "Sample", "TestCase", "TestResult", "Variant", "Verdict"), "benchmorph.data.models"
    ),
    **dict.fromkeys(
        ("Benchmark", "available_benchmarks", "load_benchmark", "select_problems"), "benchmorph.data.registry"
    ),
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
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
