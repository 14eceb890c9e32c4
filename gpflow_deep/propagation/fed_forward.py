"""Propagation with the original inputs fed forward to every layer (Cutajar et al. 2017, Section 4.3)."""

from typing import List, Sequence

import tensorflow as tf
from check_shapes import check_shapes

from gpflow_deep.core.row_noise import NoiseSource, independent_noise
from gpflow_deep.propagation.outputs import LayerOutput
from gpflow_deep.propagation.sampled import sample_layers


@check_shapes(
    "X: [N, D]",
    "seed: [2]",
)
def sample_layers_feeding_inputs(
    layers: Sequence, X: tf.Tensor, num_samples: int, seed: tf.Tensor, noise: NoiseSource = independent_noise
) -> List[LayerOutput]:
    """:func:`sample_layers` with the original inputs fed forward (Cutajar et al. 2017, Section
    4.3; Duvenaud et al. 2014): every layer after the first receives ``[values below, X]``, so its
    input width is the width below plus D. The outputs are each layer's own, without X."""
    fed = [layers[0]] + [_FedInputs(layer, X) for layer in layers[1:]]
    return sample_layers(fed, X, num_samples, seed, noise=noise)


class _FedInputs:
    """A layer whose inputs ``[S, N, W]`` get the original X ``[N, D]`` appended on every path."""

    def __init__(self, layer, X: tf.Tensor):
        self.layer, self.X = layer, X
        self.path_dependent = layer.path_dependent

    def marginals(self, inputs: tf.Tensor, **options):
        fed = tf.broadcast_to(self.X, tf.concat([tf.shape(inputs)[:-1], tf.shape(self.X)[-1:]], axis=0))
        return self.layer.marginals(tf.concat([inputs, fed], axis=-1), **options)
