"""A variant built from its parent: what every family that derives a new problem from an old one shares."""

from __future__ import annotations

from typing import Any

from benchmorph.data.models import Problem, Variant


def derived_variant(parent: Problem, **fields: Any) -> Variant:
    """A variant of ``parent``: the fields given (id, transform, label, provenance at least), every other field
    the parent's, and a source naming the parent.  A parent that is itself a variant passes on none of its
    own lineage (parent_id, transform, label, provenance)."""
    dropped = {"source", "parent_id", "transform", "label", "provenance", *fields}
    return Variant(
        **parent.model_dump(exclude=dropped),
        source={"benchmark": parent.source.get("benchmark"), "derived_from": parent.id},
        parent_id=parent.id,
        **fields,
    )
