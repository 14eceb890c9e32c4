"""A model's objective from its parts: one data term minus β times the layers' regularisers."""

from typing import Sequence

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.likelihoods import Likelihood

from gpflow_deep.objectives.data_terms import DataTerm
from gpflow_deep.objectives.regularisers import layer_inputs, total_regulariser
from gpflow_deep.propagation.outputs import Paths


@check_shapes(
    "X: [B, D]",
    "Y: [B, P]",
    "return: []",
)
def regularised_data_term(
    data_term: DataTerm,
    beta: float,
    likelihood: Likelihood,
    layers: Sequence,
    paths: Paths,
    X: tf.Tensor,
    Y: tf.Tensor,
    num_data,
) -> tf.Tensor:
    """data_term(likelihood, the paths' mixture, X, Y, N) − β Σ_l regulariser_l(inputs_l), each
    layer's regulariser given what it received on the same paths."""
    regulariser = total_regulariser(layers, layer_inputs(X, paths.outputs))
    return data_term(likelihood, paths.mixture(), X, Y, num_data) - beta * regulariser
