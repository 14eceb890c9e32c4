"""Layers: the building blocks that the models stack, one folder per family, and the protocol they keep."""

from gpflow_deep.layers.ep import AEPLayer
from gpflow_deep.layers.gp import GPLayer
from gpflow_deep.layers.protocol import check_layer
from gpflow_deep.layers.random_features import RandomFeatureLayer
from gpflow_deep.layers.subset import SubsetLastLayer, SubsetLayer

__all__ = ["AEPLayer", "GPLayer", "RandomFeatureLayer", "SubsetLastLayer", "SubsetLayer", "check_layer"]
