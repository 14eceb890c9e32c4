"""Doubly stochastic propagation (Salimbeni & Deisenroth 2017, eq. 15)."""

from typing import List, Sequence

import tensorflow as tf
from check_shapes import check_shapes

from gpflow_deep.core.row_noise import NoiseSource, independent_noise
from gpflow_deep.propagation.checks import check_fed_inputs
from gpflow_deep.propagation.joint import sample_layers_jointly
from gpflow_deep.propagation.outputs import (
    LayerOutput,
    Paths,
    broadcast_paths,
    layer_marginals,
    layer_seed,
    own_seed,
    rows_noise,
    uniform_log_weights,
)
from gpflow_deep.propagation.protocol import propagation_shapes


@check_shapes(
    "X: [N, D]",
    "seed: [2]",
)
def sample_layers(
    layers: Sequence,
    X: tf.Tensor,
    num_samples: int,
    seed: tf.Tensor,
    mode: str = "posterior",
    noise: NoiseSource = independent_noise,
) -> List[LayerOutput]:
    """Doubly stochastic propagation (Salimbeni & Deisenroth 2017, eq. 15).

    Every path draws ``f = mean + ε ⊙ sqrt(var)`` from each layer's marginal at its own inputs,
    independently per point and output: no N×N covariance is formed. ``mode`` picks the
    distribution every layer is evaluated under (``"cavity"`` for approximate EP's training);
    ``noise`` draws ε (keyed by row in predictions, :mod:`gpflow_deep.core.row_noise`).
    """
    inputs = X[None]
    outputs = []
    for index, layer in enumerate(layers):
        mean, var = layer_marginals(layer, inputs, num_samples, seed=own_seed(seed, index), mode=mode)
        shape = tf.concat([[num_samples], tf.shape(mean)[1:]], axis=0)
        values = mean + tf.sqrt(var) * noise(shape, layer_seed(seed, index), mean.dtype)
        outputs.append(LayerOutput(*broadcast_paths(mean, var, num_samples), values))
        inputs = values
    return outputs


class Sampled:
    """The rule of :func:`sample_layers`: S independent draws of equal weight 1/S, and joint draws
    over the points for ``full_cov`` (:func:`~gpflow_deep.propagation.sample_layers_jointly`)."""

    monte_carlo = True

    @propagation_shapes
    def __call__(
        self, layers: Sequence, X: tf.Tensor, num_samples, seed: tf.Tensor, *, mode="posterior", first_row=None
    ):
        outputs = sample_layers(layers, X, num_samples, seed, mode, rows_noise(X, first_row))
        return Paths(outputs, uniform_log_weights(num_samples, X.dtype))

    def check(self, layers: Sequence) -> None:
        """Layers after the first take no fed inputs."""
        check_fed_inputs(layers, 0)

    def joint(self, layers: Sequence, X: tf.Tensor, num_samples, seed: tf.Tensor) -> List[LayerOutput]:
        """:func:`~gpflow_deep.propagation.sample_layers_jointly`."""
        return sample_layers_jointly(layers, X, num_samples, seed)

    def __repr__(self) -> str:
        return "Sampled()"
