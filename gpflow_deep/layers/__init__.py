"""Layers: the building blocks that the models stack, and the protocol they keep."""

from .aep_layer import AEPLayer
from .gp_layer import GPLayer
from .protocol import check_layer
from .random_feature_layer import RandomFeatureLayer
from .subset_last_layer import SubsetLastLayer
from .subset_layer import SubsetLayer

__all__ = ["AEPLayer", "GPLayer", "RandomFeatureLayer", "SubsetLastLayer", "SubsetLayer", "check_layer"]
