"""Layers: the building blocks that the models stack, one folder per family, and the protocol they
keep (:class:`Layer` and its capabilities, :mod:`gpflow_deep.layers.protocol`)."""

from gpflow_deep.layers.ep import AEPLayer
from gpflow_deep.layers.gp import GPLayer
from gpflow_deep.layers.protocol import (
    EPLayer,
    FedInputLayer,
    JointlySampleable,
    Layer,
    MomentMatchable,
    ObservedSubsetLayer,
    SubsetOfDataLayer,
    check_layer,
)
from gpflow_deep.layers.random_features import RandomFeatureLayer
from gpflow_deep.layers.subset import SubsetLastLayer, SubsetLayer

__all__ = [
    "AEPLayer",
    "EPLayer",
    "FedInputLayer",
    "GPLayer",
    "JointlySampleable",
    "Layer",
    "MomentMatchable",
    "ObservedSubsetLayer",
    "RandomFeatureLayer",
    "SubsetLastLayer",
    "SubsetLayer",
    "SubsetOfDataLayer",
    "check_layer",
]
