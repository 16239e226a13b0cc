"""The mine family."""

from benchmorph.morph.transforms.mine.mine import MineTransform

__all__ = ["MineTransform"]
