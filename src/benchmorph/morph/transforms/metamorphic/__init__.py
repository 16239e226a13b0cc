"""The metamorphic family."""

from benchmorph.morph.transforms.metamorphic.metamorphic import MetamorphicTransform

__all__ = ["MetamorphicTransform"]
