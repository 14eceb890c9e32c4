"""Regularisers: the sum of the layers' own terms (KLs, EP log-normalisers) given what they saw."""

from typing import List, Sequence

import tensorflow as tf

from gpflow_deep.propagation.outputs import LayerOutput


def layer_inputs(X: tf.Tensor, outputs: Sequence[LayerOutput]) -> List[tf.Tensor]:
    """What each layer received on the paths: ``X[None]`` for the first, the values below for the rest."""
    return [X[None]] + [output.values for output in outputs[:-1]]


def total_regulariser(layers: Sequence, inputs: Sequence[tf.Tensor] = ()) -> tf.Tensor:
    """Σ_l layer_l.regulariser(inputs_l): the KLs of variational layers, however many kinds.

    ``inputs`` (from :func:`layer_inputs`) reach the layers whose regulariser depends on their
    inputs; without them each layer is asked with none.
    """
    inputs = list(inputs) or [None] * len(layers)
    return tf.add_n([layer.regulariser(layer_input) for layer, layer_input in zip(layers, inputs)])
