"""The tests' power: a near miss of the new reference the inherited tests no longer catch."""

from __future__ import annotations

from benchmorph.validation.checks.base import (
    CheckInput,
    Finding,
    quality_check,
)


@quality_check("tests-lost-power", reads={"changes"})
def tests_lost_power(item: CheckInput) -> Finding | None:
    """A near miss of the new reference passes every test, its twin failed the parent's, and it was not looked for.

    ``finalize_variants`` runs the probe (``validation.lost_power``) on
    variants that passed every other check and adds the inputs it finds.
    Near misses that many valid new inputs do not separate are most likely
    equivalent and only recorded; ``extra["lost_power"]`` holds the ones
    that too few valid inputs could be made to look for.
    """
    uncaught = item.extra.get("lost_power")
    if not uncaught:
        return None
    return Finding(
        "tests-lost-power",
        f"{len(uncaught)} near misses of the reference ({', '.join(uncaught[:3])}) pass every test, the parent's "
        "tests caught them, and too few valid new inputs could be made to look for one that does",
        "review",
    )
