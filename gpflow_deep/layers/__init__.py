"""Layers: the building blocks that the models stack, and the protocol they keep."""

from .gp_layer import GPLayer
from .protocol import check_layer

__all__ = ["GPLayer", "check_layer"]
