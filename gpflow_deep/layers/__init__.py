"""Layers: the building blocks that the models stack."""

from .gp_layer import GPLayer

__all__ = ["GPLayer"]
