"""Propagation by draws joint over the N points of each path (for plotting functions)."""

from typing import List, Sequence

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.config import default_jitter

from gpflow_deep.propagation.checks import check_jointly_sampleable
from gpflow_deep.propagation.outputs import LayerOutput, broadcast_paths, layer_seed


@check_shapes(
    "X: [N, D]",
    "seed: [2]",
)
def sample_layers_jointly(layers: Sequence, X: tf.Tensor, num_samples: int, seed: tf.Tensor) -> List[LayerOutput]:
    """Like :func:`sample_layers`, but each path is a joint draw over the N points.

    The samples are consistent functions of the inputs (O(N³) per layer and path): use it to draw
    curves, not for training. Every layer must be
    :class:`~gpflow_deep.layers.protocol.JointlySampleable` (``GPLayer`` is).
    """
    check_jointly_sampleable(layers)
    inputs = X[None]
    outputs = []
    for index, layer in enumerate(layers):
        mean, cov = layer.full_covariance(inputs)  # [B, N, L], [B, L, N, N], B is 1 or S
        N = tf.shape(cov)[-1]
        chol = tf.linalg.cholesky(cov + default_jitter() * tf.eye(N, dtype=cov.dtype))
        shape = tf.concat([[num_samples], tf.shape(cov)[1:3], [1]], axis=0)  # [S, L, N, 1]
        noise = tf.random.stateless_normal(shape, seed=layer_seed(seed, index), dtype=cov.dtype)
        values = mean + tf.linalg.matrix_transpose(tf.linalg.matmul(chol, noise)[..., 0])
        var = tf.linalg.matrix_transpose(tf.linalg.diag_part(cov))
        outputs.append(LayerOutput(*broadcast_paths(mean, var, num_samples), values))
        inputs = values
    return outputs
