"""Diversity measures of metamorphic variants: the collision probability and the embedding similarity."""

from __future__ import annotations

import math

import numpy as np

from benchmorph.data.models import Problem, Variant
from benchmorph.validation.diversity import collision_probability, embedding_similarity


def test_collision_probability_is_the_chance_two_k_sets_share_a_scenario() -> None:
    # 5 of 50: 1 - C(45, 5) / C(50, 5), hand-computed.
    assert math.isclose(collision_probability(50, 5), 1 - 1221759 / 2118760, rel_tol=1e-12)
    assert collision_probability(10, 6) == 1.0  # two sets of 6 from 10 must overlap
    assert collision_probability(10, 0) == 0.0
    assert math.isclose(collision_probability(1000, 1), 1 / 1000)
    assert collision_probability(100, 5) < collision_probability(50, 5)


def test_embedding_similarity_is_the_cosine_of_variant_and_parent_descriptions() -> None:
    parent = Problem(id="p", prompt='def f(x):\n    """Add one to x."""\n', entry_point="f", reference="")
    same = Variant(**parent.model_dump(exclude={"id"}), id="p/meta-0", parent_id="p", transform="metamorphic")
    other = same.model_copy(update={"id": "p/meta-1", "prompt": 'def f(x):\n    """A bank adds one."""\n'})
    vectors = {"Add one to x.": [1.0, 0.0], "A bank adds one.": [0.0, 1.0]}
    found = embedding_similarity(
        [same, other], {"p": parent}, lambda texts: np.array([vectors[t] for t in texts])
    )
    assert found == {"p/meta-0": 1.0, "p/meta-1": 0.0}
