"""Subset-of-data layers (Jain et al. 2021): hidden ``SubsetLayer`` s and the ``SubsetLastLayer``."""

from gpflow_deep.layers.subset.subset_last_layer import SubsetLastLayer
from gpflow_deep.layers.subset.subset_layer import SubsetLayer

__all__ = ["SubsetLastLayer", "SubsetLayer"]
