"""The layer protocol and its capabilities are typing.Protocols: every layer of the package is a
``Layer`` and declares by its members exactly the capabilities the propagations and models ask for."""

import gpflow
import numpy as np
import pytest

from gpflow_deep.layers import AEPLayer, GPLayer, RandomFeatureLayer, SubsetLastLayer, SubsetLayer
from gpflow_deep.layers.protocol import (
    EPLayer,
    FedInputLayer,
    JointlySampleable,
    Layer,
    MomentMatchable,
    ObservedSubsetLayer,
    SubsetOfDataLayer,
    missing_members,
)

CAPABILITIES = (MomentMatchable, JointlySampleable, EPLayer, FedInputLayer, SubsetOfDataLayer, ObservedSubsetLayer)


def package_layers(rng):
    kernel = gpflow.kernels.SquaredExponential
    likelihood = gpflow.likelihoods.Gaussian()
    return {
        "gp": GPLayer(kernel(), rng.normal(size=(4, 2)), 1),
        "aep": AEPLayer(kernel(), rng.normal(size=(4, 2)), 1, 10),
        "random_features": RandomFeatureLayer(kernel(), 2, 1, 5),
        "subset": SubsetLayer(kernel(), 4, 2, 1),
        "subset_last": SubsetLastLayer(kernel(), 4, 2, likelihood, np.zeros((4, 1))),
    }


EXPECTED = {
    "gp": {JointlySampleable},
    "aep": {MomentMatchable, EPLayer},
    "random_features": {FedInputLayer},
    "subset": {SubsetOfDataLayer},
    "subset_last": {SubsetOfDataLayer, ObservedSubsetLayer},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_layer_is_a_layer_with_exactly_its_capabilities(rng, name):
    layer = package_layers(rng)[name]
    assert isinstance(layer, Layer) and missing_members(layer, Layer) == []
    assert {capability for capability in CAPABILITIES if isinstance(layer, capability)} == EXPECTED[name]


def test_missing_members_names_attributes_then_methods_that_cannot_be_called():
    class Partial:
        input_dim = 1
        marginals = "not callable"

        def regulariser(self, inputs=None):
            return 0.0

    assert not isinstance(object(), Layer)
    assert missing_members(Partial(), Layer) == [
        "output_dim",
        "path_dependent",
        "marginals",
        "natural_gradient_parameters",
        "monitored_scalars",
    ]
    assert missing_members(Partial(), ObservedSubsetLayer) == [
        "num_subset",
        "likelihood",
        "subset_targets",
        "training_terms",
    ]
