"""Where samples run: on this machine (``local``) or on every node of a Ray cluster (``ray``).

Both take batches of samples and return verdicts through the same interface
(``ExecutionBackend``); the run use cases do not know which one they hold.
"""

from benchmorph.execution.backends.base import (
    EXECUTION_BACKENDS,
    BackendFactory,
    BackendLost,
    BackendOptions,
    BackendUnavailable,
    ExecutionBackend,
    LocalBackend,
    make_backend,
)

__all__ = [
    "EXECUTION_BACKENDS",
    "BackendFactory",
    "BackendLost",
    "BackendOptions",
    "BackendUnavailable",
    "ExecutionBackend",
    "LocalBackend",
    "make_backend",
]
