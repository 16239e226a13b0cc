"""The evolve family."""

from benchmorph.morph.transforms.evolve.evolve import EvolveTransform

__all__ = ["EvolveTransform"]
