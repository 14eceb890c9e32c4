"""How inputs travel through a stack of layers: one function per propagation rule.

Each rule returns, for every layer, the Gaussian marginals it produced and the values it passed on,
all ``[S, N, D_l]`` with S paths. The first layer sees the same inputs on every path, so it is
evaluated once (``[1, N, D]``) and its outputs broadcast: S paths cost one first-layer pass.
"""

from typing import List, NamedTuple, Sequence

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.config import default_jitter

from .layers import GPLayer


class LayerOutput(NamedTuple):
    """What one layer produced on S paths: ``means, variances, values: [S, N, D_l]``.

    ``values`` are what the next layer receives (a sample or a sigma point).
    """

    means: tf.Tensor
    variances: tf.Tensor
    values: tf.Tensor


@check_shapes(
    "X: [N, D]",
    "seed: [2]",
)
def sample_layers(layers: Sequence[GPLayer], X: tf.Tensor, num_samples: int, seed: tf.Tensor) -> List[LayerOutput]:
    """Doubly stochastic propagation (Salimbeni & Deisenroth 2017, eq. 15).

    Every path draws ``f = mean + ε ⊙ sqrt(var)`` from each layer's marginal at its own inputs,
    independently per point and output: no N×N covariance is formed.
    """
    inputs = X[None]
    outputs = []
    for index, layer in enumerate(layers):
        mean, var = layer.marginals(inputs)
        shape = tf.concat([[num_samples], tf.shape(mean)[1:]], axis=0)
        noise = tf.random.stateless_normal(shape, seed=_layer_seed(seed, index), dtype=mean.dtype)
        values = mean + tf.sqrt(var) * noise
        outputs.append(LayerOutput(*_broadcast_paths(mean, var, num_samples), values))
        inputs = values
    return outputs


@check_shapes(
    "X: [N, D]",
    "seed: [2]",
)
def sample_layers_jointly(
    layers: Sequence[GPLayer], X: tf.Tensor, num_samples: int, seed: tf.Tensor
) -> List[LayerOutput]:
    """Like :func:`sample_layers`, but each path is a joint draw over the N points.

    The samples are consistent functions of the inputs (O(N³) per layer and path): use it to draw
    curves, not for training.
    """
    inputs = X[None]
    outputs = []
    for index, layer in enumerate(layers):
        mean, cov = layer.full_covariance(inputs)  # [B, N, L], [B, L, N, N], B is 1 or S
        N = tf.shape(cov)[-1]
        chol = tf.linalg.cholesky(cov + default_jitter() * tf.eye(N, dtype=cov.dtype))
        shape = tf.concat([[num_samples], tf.shape(cov)[1:3], [1]], axis=0)  # [S, L, N, 1]
        noise = tf.random.stateless_normal(shape, seed=_layer_seed(seed, index), dtype=cov.dtype)
        values = mean + tf.linalg.matrix_transpose(tf.linalg.matmul(chol, noise)[..., 0])
        var = tf.linalg.matrix_transpose(tf.linalg.diag_part(cov))
        outputs.append(LayerOutput(*_broadcast_paths(mean, var, num_samples), values))
        inputs = values
    return outputs


@check_shapes(
    "X: [N, D]",
    "sigma_points[all]: [S, .]",
)
def sigma_point_layers(layers: Sequence[GPLayer], sigma_points: Sequence[tf.Tensor], X: tf.Tensor) -> List[LayerOutput]:
    """Deterministic sigma-point propagation (Jankowiak et al. 2020, rule QR3).

    Path s passes ``g = mean + ξ_l^(s) ⊙ sqrt(var)`` from hidden layer l to the next, with the
    same site s in every layer, so that S paths stay S (never S^W). ``sigma_points`` holds one
    ``[S, W_l]`` array per hidden layer (all layers but the last); the last layer passes on its mean.
    """
    if len(sigma_points) != len(layers) - 1:
        raise ValueError(f"need one set of sigma points per hidden layer ({len(layers) - 1}), got {len(sigma_points)}")
    num_paths = tf.shape(sigma_points[0])[0] if sigma_points else 1
    inputs = X[None]
    outputs = []
    for layer, points in zip(layers, list(sigma_points) + [None]):
        mean, var = layer.marginals(inputs)
        values = mean if points is None else mean + points[:, None, :] * tf.sqrt(var)
        mean, var = _broadcast_paths(mean, var, num_paths)
        outputs.append(LayerOutput(mean, var, tf.broadcast_to(values, tf.shape(mean))))
        inputs = values
    return outputs


def _broadcast_paths(mean: tf.Tensor, var: tf.Tensor, num_paths: int):
    shape = tf.concat([[num_paths], tf.shape(mean)[1:]], axis=0)
    return tf.broadcast_to(mean, shape), tf.broadcast_to(var, shape)


def _layer_seed(seed: tf.Tensor, index: int) -> tf.Tensor:
    return tf.random.experimental.stateless_fold_in(seed, index)
