"""The audit: every problem of a benchmark through the checks that apply to an original, with errata to show.

``audit_benchmark(problems, engine)`` gives an :class:`AuditReport` of
findings (severity ``wrong``, ``ambiguous``, ``weak`` or ``cosmetic``, each
with its evidence and, where one is mechanical, a fix); ``write_errata``
writes ``errata.md`` and ``errata.jsonl``.  The checks are registered, one
module per kind of finding (``base.audit_check``).  Public names load lazily.
"""

from typing import TYPE_CHECKING

from benchmorph.core.lazy import lazy_exports

if TYPE_CHECKING:
    from benchmorph.validation.audit.findings import AuditFinding, AuditReport, Evidence, Fix
    from benchmorph.validation.audit.fixes import apply_fix
    from benchmorph.validation.audit.run import audit_benchmark
    from benchmorph.validation.audit.writers import write_errata

_EXPORTS = {
    **dict.fromkeys(
        ("AuditFinding", "AuditReport", "Evidence", "Fix"), "benchmorph.validation.audit.findings"
    ),
    "apply_fix": "benchmorph.validation.audit.fixes",
    "audit_benchmark": "benchmorph.validation.audit.run",
    "write_errata": "benchmorph.validation.audit.writers",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["AuditFinding", "AuditReport", "Evidence", "Fix", "apply_fix", "audit_benchmark", "write_errata"]
