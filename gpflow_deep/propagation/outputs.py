"""What a propagation produces, and the pieces every propagation rule shares: how a layer's
marginals are asked for on S paths, broadcast to S paths, the per-layer seeds, the noise of a batch
of rows and the equal weights of Monte Carlo paths."""

from typing import List, NamedTuple, Optional

import tensorflow as tf
from check_shapes import check_shapes

from gpflow_deep.core.mixtures import GaussianMixture
from gpflow_deep.core.row_noise import NoiseSource, independent_noise, row_keyed_noise


class LayerOutput(NamedTuple):
    """What one layer produced on S paths: ``means, variances, values: [S, N, D_l]``.

    ``values`` are what the next layer receives (a sample or a sigma point).
    """

    means: tf.Tensor
    variances: tf.Tensor
    values: tf.Tensor


class Paths(NamedTuple):
    """What a propagation rule returns: every layer's ``outputs`` on S paths and the paths'
    ``log_weights`` ``[S]``."""

    outputs: List[LayerOutput]
    log_weights: tf.Tensor

    def mixture(self) -> GaussianMixture:
        """The mixture over the last layer's outputs: one Gaussian per path, ``[S, N, L]``."""
        return GaussianMixture(self.outputs[-1].means, self.outputs[-1].variances, self.log_weights)


@check_shapes("return: [S]")
def uniform_log_weights(num_paths, dtype: tf.DType) -> tf.Tensor:
    """``[S]`` log-weights −log S: S Monte Carlo paths of equal weight."""
    return tf.fill([num_paths], -tf.math.log(tf.cast(num_paths, dtype)))


def rows_noise(X: tf.Tensor, first_row: Optional[tf.Tensor]) -> NoiseSource:
    """The propagation noise for inputs X: independent per call in training (``first_row`` None),
    keyed by row from ``first_row`` in predictions (so that the prediction chunk size changes nothing)."""
    if first_row is None:
        return independent_noise
    return row_keyed_noise([(first_row, tf.shape(X)[0])])


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
