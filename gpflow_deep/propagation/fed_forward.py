"""Propagation with the original inputs fed forward to every layer (Cutajar et al. 2017, Section 4.3)."""

from typing import List, Sequence

import tensorflow as tf
from check_shapes import check_shapes

from gpflow_deep.propagation.checks import check_fed_inputs
from gpflow_deep.propagation.outputs import LayerOutput, Paths
from gpflow_deep.propagation.protocol import propagation_shapes
from gpflow_deep.propagation.sampled import Sampled, sample_layers


@check_shapes(
    "X: [N, D]",
    "seed: [2]",
)
def sample_layers_feeding_inputs(
    layers: Sequence, X: tf.Tensor, num_samples: int, seed: tf.Tensor, **options
) -> List[LayerOutput]:
    """:func:`sample_layers` with the original inputs fed forward (Cutajar et al. 2017, Section
    4.3; Duvenaud et al. 2014): every layer after the first receives ``[values below, X]``, so its
    input width is the width below plus D. The outputs are each layer's own, without X;
    ``options`` (``mode``, ``noise``) are :func:`sample_layers`'s."""
    return sample_layers(feeding_inputs(layers, X), X, num_samples, seed, **options)


def feeding_inputs(layers: Sequence, X: tf.Tensor) -> list:
    """``layers`` with X ``[N, D]`` appended to the inputs of every layer after the first."""
    return [layers[0]] + [_FedInputs(layer, X) for layer in layers[1:]]


class FeedInputs:
    """The rule of :func:`sample_layers_feeding_inputs`: :class:`Sampled` paths with X appended to
    the inputs of every layer after the first, which must take X's D columns (``fed_input_dim``)."""

    monte_carlo = True

    @propagation_shapes
    def __call__(self, layers: Sequence, X: tf.Tensor, num_samples, seed: tf.Tensor, **options) -> Paths:
        return Sampled()(feeding_inputs(layers, X), X, num_samples, seed, **options)

    def check(self, layers: Sequence) -> None:
        """Layers after the first take the D columns of the first layer's inputs."""
        check_fed_inputs(layers, layers[0].input_dim)

    def __repr__(self) -> str:
        return "FeedInputs()"


class _FedInputs:
    """A layer whose inputs ``[S, N, W]`` get the original X ``[N, D]`` appended on every path."""

    def __init__(self, layer, X: tf.Tensor):
        self.layer, self.X = layer, X
        self.path_dependent = layer.path_dependent

    def marginals(self, inputs: tf.Tensor, **options):
        fed = tf.broadcast_to(self.X, tf.concat([tf.shape(inputs)[:-1], tf.shape(self.X)[-1:]], axis=0))
        return self.layer.marginals(tf.concat([inputs, fed], axis=-1), **options)
