"""Gaussians in natural parameters: the log-normaliser Φ of the EP energy and the moments.

A Gaussian over M values is given by the Cholesky factor C of its precision (Σ⁻¹ = C Cᵀ) and its
natural mean η = Σ⁻¹ μ, with a leading axis of L independent Gaussians: ``C: [L, M, M]``,
``η: [M, L]`` (one column per Gaussian, as GPflow's ``q_mu``).
"""

from typing import Tuple

import numpy as np
import tensorflow as tf
from check_shapes import check_shapes


@check_shapes(
    "precision_chol: [L, M, M]",
    "natural_mean: [M, L]",
    "return: [L]",
)
def log_normaliser(precision_chol: tf.Tensor, natural_mean: tf.Tensor) -> tf.Tensor:
    """Φ = log ∫ exp(ηᵀu − ½ uᵀΣ⁻¹u) du = (M/2) log 2π + ½ log|Σ| + ½ μᵀΣ⁻¹μ, per Gaussian.

    With Σ⁻¹ = C Cᵀ: ½ log|Σ| = −Σ_i log C_ii and μᵀΣ⁻¹μ = ‖C⁻¹η‖².
    """
    M = tf.cast(tf.shape(precision_chol)[-1], precision_chol.dtype)
    whitened = tf.linalg.triangular_solve(precision_chol, tf.transpose(natural_mean)[:, :, None], lower=True)
    half_log_det_cov = -tf.reduce_sum(tf.math.log(tf.linalg.diag_part(precision_chol)), axis=-1)
    quadratic = tf.reduce_sum(tf.square(whitened[:, :, 0]), axis=-1)
    return 0.5 * M * np.log(2 * np.pi) + half_log_det_cov + 0.5 * quadratic


@check_shapes(
    "precision_chol: [L, M, M]",
    "natural_mean: [M, L]",
    "return[0]: [M, L]",
    "return[1]: [L, M, M]",
)
def moments(precision_chol: tf.Tensor, natural_mean: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
    """The mean ``[M, L]`` and a square root R of the covariance (Σ = R Rᵀ, R = C⁻ᵀ) ``[L, M, M]``."""
    eye = tf.eye(tf.shape(precision_chol)[-1], batch_shape=tf.shape(precision_chol)[:1], dtype=precision_chol.dtype)
    cov_sqrt = tf.linalg.matrix_transpose(tf.linalg.triangular_solve(precision_chol, eye, lower=True))
    mean = tf.linalg.cholesky_solve(precision_chol, tf.transpose(natural_mean)[:, :, None])[:, :, 0]
    return tf.transpose(mean), cov_sqrt
