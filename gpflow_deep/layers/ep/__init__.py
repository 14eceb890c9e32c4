"""Approximate-EP layers (Bui et al. 2016; Hernández-Muñoz 2018): ``AEPLayer`` and its Gaussian algebra."""

from gpflow_deep.layers.ep.aep_layer import AEPLayer

__all__ = ["AEPLayer"]
