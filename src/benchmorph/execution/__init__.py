"""Sandboxed execution: code + tests -> verdicts."""

from benchmorph.execution.compare import stdout_match, values_match
from benchmorph.execution.engine import Engine, Job, PrepareReport
from benchmorph.execution.limits import Limits
from benchmorph.execution.oracles import register_oracle
from benchmorph.execution.sandbox import SandboxUnavailable, isolation_mode

__all__ = [
    "Engine",
    "Job",
    "Limits",
    "PrepareReport",
    "SandboxUnavailable",
    "isolation_mode",
    "register_oracle",
    "stdout_match",
    "values_match",
]
