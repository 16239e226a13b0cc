"""The ctf family."""

from benchmorph.morph.transforms.ctf.ctf import CtfTransform

__all__ = ["CtfTransform"]
