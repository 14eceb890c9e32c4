"""Doubly stochastic propagation (Salimbeni & Deisenroth 2017, eq. 15)."""

from typing import List, Sequence

import tensorflow as tf
from check_shapes import check_shapes

from gpflow_deep.core.row_noise import NoiseSource, independent_noise
from gpflow_deep.propagation.outputs import LayerOutput, broadcast_paths, layer_marginals, layer_seed, own_seed


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
