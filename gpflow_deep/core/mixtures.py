"""Finite Gaussian mixtures: the predictive distribution every model of the package ends with.

A mixture has S components ("paths"), each a Gaussian over the last layer's outputs at every point,
with log-weights shared by all points: means and variances ``[S, N, P]``, log-weights ``[S]``.
"""

from typing import Callable, NamedTuple, Tuple

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.likelihoods import Likelihood


class GaussianMixture(NamedTuple):
    """S Gaussian components per point: ``means, variances: [S, N, P]``, ``log_weights: [S]``."""

    means: tf.Tensor
    variances: tf.Tensor
    log_weights: tf.Tensor


@check_shapes(
    "means: [S, N, P]",
    "variances: [S, N, P]",
    "log_weights: [S]",
    "return[0]: [N, P]",
    "return[1]: [N, P]",
)
def mixture_moments(means: tf.Tensor, variances: tf.Tensor, log_weights: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
    """Mean and variance of a mixture (law of total variance, in its cancellation-free form)."""
    weights = tf.exp(log_weights)[:, None, None]
    mean = tf.reduce_sum(weights * means, axis=0)
    variance = tf.reduce_sum(weights * (variances + tf.square(means - mean)), axis=0)
    return mean, variance


@check_shapes(
    "component_log_densities: [S, N]",
    "log_weights: [S]",
    "return: [N]",
)
def mixture_log_density(component_log_densities: tf.Tensor, log_weights: tf.Tensor) -> tf.Tensor:
    """log Σ_s w_s p_s(y_n) for every point n, computed stably."""
    return tf.reduce_logsumexp(component_log_densities + log_weights[:, None], axis=0)


@check_shapes(
    "X: [N, D]",
    "Fmu: [S, N, L]",
    "Fvar: [S, N, L]",
    "Y: [N, P]",
    "return: [S, N]",
)
def per_component(
    method: Callable[..., tf.Tensor], X: tf.Tensor, Fmu: tf.Tensor, Fvar: tf.Tensor, Y: tf.Tensor
) -> tf.Tensor:
    """Apply a likelihood method ``(X, Fmu, Fvar, Y) -> [N]`` to each of the S components.

    The components are folded into the point axis so that every GPflow likelihood works, including
    those (MultiClass) written for rank-2 inputs only.
    """
    S, N = tf.shape(Fmu)[0], tf.shape(Fmu)[1]
    values = method(_tile(X, S), _fold(Fmu), _fold(Fvar), _tile(Y, S))
    return tf.reshape(values, [S, N])


@check_shapes(
    "X: [N, D]",
    "Fmu: [S, N, L]",
    "Fvar: [S, N, L]",
    "return[0]: [S, N, P]",
    "return[1]: [S, N, P]",
)
def predict_mean_and_var(
    likelihood: Likelihood, X: tf.Tensor, Fmu: tf.Tensor, Fvar: tf.Tensor
) -> Tuple[tf.Tensor, tf.Tensor]:
    """The likelihood's moments of y for each of the S components."""
    S, N = tf.shape(Fmu)[0], tf.shape(Fmu)[1]
    mean, var = likelihood.predict_mean_and_var(_tile(X, S), _fold(Fmu), _fold(Fvar))
    shape = tf.concat([[S, N], tf.shape(mean)[-1:]], axis=0)
    return tf.reshape(mean, shape), tf.reshape(var, shape)


@check_shapes(
    "means: [S, N, P]",
    "variances: [S, N, P]",
    "log_weights: [S]",
    "return: [K, N, P]",
)
def sample_mixture(
    means: tf.Tensor,
    variances: tf.Tensor,
    log_weights: tf.Tensor,
    num_samples: int,
    seed: tf.Tensor,
) -> tf.Tensor:
    """K independent draws from the mixture at every point (component chosen per point)."""
    component_seed, noise_seed = tf.unstack(tf.random.experimental.stateless_split(seed, 2))
    N = tf.shape(means)[1]
    logits = tf.broadcast_to(log_weights[None, :], [N, tf.shape(log_weights)[0]])
    components = tf.random.stateless_categorical(logits, num_samples, seed=component_seed)  # [N, K]
    points = tf.broadcast_to(tf.range(N, dtype=components.dtype), [num_samples, N])
    index = tf.stack([tf.transpose(components), points], axis=-1)  # [K, N, 2]
    mean = tf.gather_nd(means, index)  # [K, N, P]
    std = tf.sqrt(tf.gather_nd(variances, index))
    return mean + std * tf.random.stateless_normal(tf.shape(mean), seed=noise_seed, dtype=means.dtype)


def _tile(values: tf.Tensor, S: tf.Tensor) -> tf.Tensor:
    return tf.tile(values, tf.stack([S, 1]))


def _fold(values: tf.Tensor) -> tf.Tensor:
    return tf.reshape(values, tf.concat([[-1], tf.shape(values)[2:]], axis=0))
