"""What a propagation produces per layer, and the pieces every propagation rule shares: how a
layer's marginals are asked for on S paths, broadcast to S paths, and the per-layer seeds."""

from typing import NamedTuple

import tensorflow as tf


class LayerOutput(NamedTuple):
    """What one layer produced on S paths: ``means, variances, values: [S, N, D_l]``.

    ``values`` are what the next layer receives (a sample or a sigma point).
    """

    means: tf.Tensor
    variances: tf.Tensor
    values: tf.Tensor


def broadcast_paths(mean: tf.Tensor, var: tf.Tensor, num_paths: int):
    shape = tf.concat([[num_paths], tf.shape(mean)[1:]], axis=0)
    return tf.broadcast_to(mean, shape), tf.broadcast_to(var, shape)


def layer_marginals(layer, inputs: tf.Tensor, num_paths, **options):
    """``layer.marginals`` at inputs ``[1 or S, N, D]``; a layer that draws per path is told S."""
    if layer.path_dependent:
        options["num_paths"] = num_paths
    return layer.marginals(inputs, **options)


def layer_seed(seed: tf.Tensor, index: int) -> tf.Tensor:
    """The seed of layer ``index``'s propagation noise."""
    return tf.random.experimental.stateless_fold_in(seed, index)


def own_seed(seed: tf.Tensor, index: int) -> tf.Tensor:
    """The seed of layer ``index``'s own draw (independent of its propagation noise)."""
    return tf.random.experimental.stateless_fold_in(layer_seed(seed, index), 1)
