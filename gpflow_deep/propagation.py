"""How inputs travel through a stack of layers: one function per propagation rule.

Each rule returns, for every layer, the Gaussian marginals it produced and the values it passed on,
all ``[S, N, D_l]`` with S paths. Layers are anything that keeps the layer protocol
(:mod:`gpflow_deep.layers.protocol`). The first layer sees the same inputs on every path, so it
receives them once (``[1, N, D]``): a layer that draws nothing of its own is evaluated once and its
outputs broadcast, and one that draws per path (``path_dependent``) is told the number of paths and
shares whatever does not depend on the draw (a kernel matrix at the inputs) between them.
"""

from typing import List, NamedTuple, Sequence

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.config import default_jitter

from .row_noise import NoiseSource, independent_noise


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
    ``noise`` draws ε (keyed by row in predictions, :mod:`gpflow_deep.row_noise`).
    """
    inputs = X[None]
    outputs = []
    for index, layer in enumerate(layers):
        mean, var = _layer_marginals(layer, inputs, num_samples, seed=_own_seed(seed, index), mode=mode)
        shape = tf.concat([[num_samples], tf.shape(mean)[1:]], axis=0)
        values = mean + tf.sqrt(var) * noise(shape, _layer_seed(seed, index), mean.dtype)
        outputs.append(LayerOutput(*_broadcast_paths(mean, var, num_samples), values))
        inputs = values
    return outputs


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


@check_shapes(
    "X: [N, D]",
    "seed: [2]",
)
def sample_layers_jointly(layers: Sequence, X: tf.Tensor, num_samples: int, seed: tf.Tensor) -> List[LayerOutput]:
    """Like :func:`sample_layers`, but each path is a joint draw over the N points.

    The samples are consistent functions of the inputs (O(N³) per layer and path): use it to draw
    curves, not for training. Every layer needs a ``full_covariance(inputs)`` (``GPLayer`` has one).
    """
    for index, layer in enumerate(layers):
        if not callable(getattr(layer, "full_covariance", None)) or layer.path_dependent:
            raise ValueError(f"full_cov: layers[{index}] ({type(layer).__name__}) has no joint covariance to sample")
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
def sigma_point_layers(layers: Sequence, sigma_points: Sequence[tf.Tensor], X: tf.Tensor) -> List[LayerOutput]:
    """Deterministic sigma-point propagation (Jankowiak et al. 2020, rule QR3).

    Path s passes ``g = mean + ξ_l^(s) ⊙ sqrt(var)`` from hidden layer l to the next, with the
    same site s in every layer, so that S paths stay S (never S^W). ``sigma_points`` holds one
    ``[S, W_l]`` array per hidden layer (all layers but the last); the last layer passes on its mean.
    Nothing is drawn, so layers that draw randomness per path are refused.
    """
    if len(sigma_points) != len(layers) - 1:
        raise ValueError(f"need one set of sigma points per hidden layer ({len(layers) - 1}), got {len(sigma_points)}")
    for index, layer in enumerate(layers):
        if layer.path_dependent:
            raise ValueError(
                f"sigma-point propagation is deterministic, but layers[{index}] ({type(layer).__name__}) "
                "draws randomness of its own on every path"
            )
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


def _layer_marginals(layer, inputs: tf.Tensor, num_paths, **options):
    """``layer.marginals`` at inputs ``[1 or S, N, D]``; a layer that draws per path is told S."""
    if layer.path_dependent:
        options["num_paths"] = num_paths
    return layer.marginals(inputs, **options)


def _layer_seed(seed: tf.Tensor, index: int) -> tf.Tensor:
    """The seed of layer ``index``'s propagation noise."""
    return tf.random.experimental.stateless_fold_in(seed, index)


def _own_seed(seed: tf.Tensor, index: int) -> tf.Tensor:
    """The seed of layer ``index``'s own draw (independent of its propagation noise)."""
    return tf.random.experimental.stateless_fold_in(_layer_seed(seed, index), 1)
