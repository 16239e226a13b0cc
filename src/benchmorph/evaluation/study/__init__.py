"""``benchmorph study``: one command from a model to a finding, across every family.

>>> from benchmorph.evaluation.study import StudyConfig, run_study
>>> result = run_study(StudyConfig(benchmark="humaneval", model=["local"], limit=20))  # doctest: +SKIP
>>> result.files["html"]  # doctest: +SKIP
PosixPath('benchmorph-out/study/report.html')

The modules: ``config`` (StudyConfig, study.toml), ``plan`` (families and keys), ``estimate`` (the
dry run's counts and time), ``build`` (variant sets, cached by content), ``run`` (every model and
baseline on every set), ``findings``, ``exports``, ``work`` (what a session paid for), ``study``
(``run_study``) and ``demo`` (``benchmorph demo``: a sandbox tour, then a small study).
"""

from typing import TYPE_CHECKING

from benchmorph.core.lazy import lazy_exports

if TYPE_CHECKING:
    from benchmorph.evaluation.study.config import StudyConfig, load_config, make_config
    from benchmorph.evaluation.study.study import StudyResult, plan_only, run_study

__all__ = ["StudyConfig", "StudyResult", "load_config", "make_config", "plan_only", "run_study"]
__getattr__ = lazy_exports(
    __name__,
    {
        "StudyConfig": "benchmorph.evaluation.study.config",
        "load_config": "benchmorph.evaluation.study.config",
        "make_config": "benchmorph.evaluation.study.config",
        "StudyResult": "benchmorph.evaluation.study.study",
        "plan_only": "benchmorph.evaluation.study.study",
        "run_study": "benchmorph.evaluation.study.study",
    },
)
