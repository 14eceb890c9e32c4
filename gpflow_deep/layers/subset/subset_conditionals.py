"""The per-path linear algebra of a subset-of-data layer (Jain, Srijith & Khan 2021).

On each of S paths the layer's inducing inputs are the first M rows of that path's inputs, so every
path has its own ``Kuu: [S, M, M]`` and one Cholesky per path. q(F_S) is a Gaussian over the
function values at those rows (unwhitened: ``mean [M, L]``, any square root ``sqrt [L, M, M]`` of
its covariance), so that p(F_S) = N(0, Kuu) and

    mean(x) = k_xS Kuu⁻¹ μ,   var(x) = k_xx − k_xS Kuu⁻¹ k_Sx + k_xS Kuu⁻¹ Σ Kuu⁻¹ k_Sx,

written with A = Lk⁻¹ k_Sx (Kuu = Lk Lkᵀ) as mean = Aᵀ Lk⁻¹ μ and var = k_xx − ‖A‖² + ‖(Lk⁻¹ Σ½)ᵀ A‖².
"""

from typing import NamedTuple

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.config import default_jitter
from gpflow.kernels import Kernel

from gpflow_deep.core.covariances import cross_covariance
from gpflow_deep.layers.gp.sparse_marginals import side_by_side
from gpflow_deep.layers.subset.variance_reduction import variance_reduction


class PathProjections(NamedTuple):
    """``chol_kuu: [S, M, M]``, ``A = chol_kuu⁻¹ Kuf: [S, M, N]`` and ``kff_diag: [S, N]``, for N
    inputs (the M subset rows among them) on each of S paths."""

    chol_kuu: tf.Tensor
    A: tf.Tensor
    kff_diag: tf.Tensor


@check_shapes(
    "subset: [S, M, D]",
    "points: [S, N, D]",
)
def path_projections(kernel: Kernel, subset: tf.Tensor, points: tf.Tensor) -> PathProjections:
    """Projections of every path's N ``points`` on its own ``subset`` rows (the subset's own rows
    among the points or not: they project to chol_kuuᵀ)."""
    chol_kuu = subset_cholesky(kernel, subset)
    A = tf.linalg.triangular_solve(chol_kuu, cross_covariance(kernel, subset, points), lower=True)
    return PathProjections(chol_kuu, A, kernel.K_diag(points))


@check_shapes(
    "Z: [S, M, D]",
    "return: [S, M, M]",
)
def subset_cholesky(kernel: Kernel, Z: tf.Tensor) -> tf.Tensor:
    """chol(Kuu + jitter I) of every path's subset inputs Z."""
    return _cholesky_with_jitter(cross_covariance(kernel, Z, Z))


def _cholesky_with_jitter(Kuu: tf.Tensor) -> tf.Tensor:
    return tf.linalg.cholesky(Kuu + default_jitter() * tf.eye(tf.shape(Kuu)[-1], dtype=Kuu.dtype))


@check_shapes(
    "mean: [broadcast S, M, L]",
    "sqrt: [broadcast S, L, M, M]",
    "chol_kuu: [S, M, M]",
    "return[0]: [S, M, L]",
    "return[1]: [S, M, L, M]",
)
def whiten(mean: tf.Tensor, sqrt: tf.Tensor, chol_kuu: tf.Tensor):
    """``chol_kuu⁻¹ mean`` and ``chol_kuu⁻¹ sqrt_l`` on every path (mean and sqrt shared by all paths
    or each path's own): one triangular solve per path."""
    S, M, L = tf.shape(chol_kuu)[0], tf.shape(chol_kuu)[1], tf.shape(sqrt)[-3]
    sqrt = tf.broadcast_to(sqrt, [S, L, M, M])
    factors = tf.reshape(tf.transpose(sqrt, [0, 2, 1, 3]), [S, M, L * M])  # [T_1 … T_L] per path
    columns = tf.concat([tf.broadcast_to(mean, [S, M, L]), factors], axis=2)
    solved = tf.linalg.triangular_solve(chol_kuu, columns, lower=True)
    return solved[:, :, :L], tf.reshape(solved[:, :, L:], [S, M, L, M])


@check_shapes(
    "projections.A: [S, M, N]",
    "mean: [broadcast S, M, L]",
    "sqrt: [broadcast S, L, M, M]",
    "return[0]: [S, N, L]",
    "return[1]: [S, N, L]",
)
def conditional_marginals(projections: PathProjections, mean: tf.Tensor, sqrt: tf.Tensor):
    """Marginals of ∫ p(f(x) | F_S) N(F_S | mean, sqrt sqrtᵀ) dF_S on every path (module docstring):
    those of :func:`white_conditional_marginals` at Lk⁻¹ mean and Lk⁻¹ sqrt, whose solve already
    leaves the factors side by side. ``mean`` and ``sqrt`` are shared by all paths or each path's own."""
    white_mean, white_sqrt = whiten(mean, sqrt, projections.chol_kuu)
    return _marginals_given_factors(projections, white_mean, tf.transpose(white_sqrt, [0, 2, 1, 3]))


@check_shapes(
    "projections.A: [S, M, N]",
    "white_mean: [broadcast S, M, L]",
    "white_sqrt: [broadcast S, L, M, M]",
    "return[0]: [S, N, L]",
    "return[1]: [S, N, L]",
)
def white_conditional_marginals(projections: PathProjections, white_mean: tf.Tensor, white_sqrt: tf.Tensor):
    """Marginals of ∫ p(f(x) | V) N(V | white_mean, white_sqrt white_sqrtᵀ) dV for V = Lk⁻¹ F_S on
    every path: mean Aᵀ white_mean, variance k_xx − ‖A‖² + ‖white_sqrt_lᵀ A‖². No solves: they
    are all in A. A white_sqrt shared by the paths stays one (leading axis 1), not S copies."""
    factors = white_sqrt if white_sqrt.shape.rank == 4 else white_sqrt[None]
    return _marginals_given_factors(projections, white_mean, factors)


def _marginals_given_factors(projections: PathProjections, white_mean: tf.Tensor, factors: tf.Tensor):
    """Aᵀ white_mean and k_xx − ‖A‖² + ‖T_lᵀ A‖² from the factors T_l, ``[S or 1, L, M, M]``."""
    _, A, kff_diag = projections
    S, M, L = tf.shape(A)[0], tf.shape(A)[1], tf.shape(white_mean)[-1]
    var = kff_diag[:, :, None] - tf.linalg.matrix_transpose(variance_reduction(A, factors))
    return tf.linalg.matmul(A, tf.broadcast_to(white_mean, [S, M, L]), transpose_a=True), var


@check_shapes(
    "projections.A: [broadcast S, M, N]",
    "draws: [S, M, L]",
    "return[0]: [S, N, L]",
    "return[1]: [S, N, L]",
)
def marginals_given_draws(projections: PathProjections, draws: tf.Tensor):
    """Marginals of p(f(x) | F_S = draws_s) on every path s: mean Aᵀ Lk⁻¹ F_S,s and variance
    k_xx − ‖A‖² (the same for all L outputs); projections of one path serve all S draws. At the
    subset rows themselves the mean is the draw and the variance is (up to jitter) zero, so a path's
    subset values and its other points' values are one joint sample of the layer's function (eq. 15)."""
    return marginals_given_white_draws(projections, tf.linalg.triangular_solve(projections.chol_kuu, draws, lower=True))


@check_shapes(
    "projections.A: [broadcast S, M, N]",
    "white_draws: [S, M, L]",
    "return[0]: [S, N, L]",
    "return[1]: [S, N, L]",
)
def marginals_given_white_draws(projections: PathProjections, white_draws: tf.Tensor):
    """:func:`marginals_given_draws` for draws given as V = Lk⁻¹ F_S (a whitened q): mean Aᵀ V."""
    _, A, kff_diag = projections
    mean = _project(A, white_draws)
    var = kff_diag - tf.reduce_sum(tf.square(A), axis=1)
    return mean, tf.broadcast_to(tf.maximum(var, 0.0)[:, :, None], tf.shape(mean))


def _project(A: tf.Tensor, weights: tf.Tensor) -> tf.Tensor:
    """Aᵀ weights ``[S, N, L]`` from A ``[1 or S, M, N]`` and weights ``[S, M, L]``. A shared by all
    paths is one ``[N, M]·[M, S·L]`` product, so that its gradient is not S copies of A summed."""
    if A.shape[0] != 1:
        return tf.linalg.matmul(A, weights, transpose_a=True)
    S, L = tf.shape(weights)[0], tf.shape(weights)[2]
    product = tf.linalg.matmul(A[0], side_by_side(weights), transpose_a=True)  # [N, S·L]
    return tf.transpose(tf.reshape(product, [-1, S, L]), [1, 0, 2])


@check_shapes(
    "mean: [broadcast S, M, L]",
    "sqrt: [broadcast S, L, M, M]",
    "log_det: [broadcast S]",
    "chol_kuu: [S, M, M]",
    "return: [S]",
)
def prior_kl(mean: tf.Tensor, sqrt: tf.Tensor, log_det: tf.Tensor, chol_kuu: tf.Tensor) -> tf.Tensor:
    """Σ_l KL[N(mean_l, sqrt_l sqrt_lᵀ) ‖ N(0, Kuu_s)] on every path s, with ``log_det`` the sum
    over l of log|sqrt_l sqrt_lᵀ| (mean, sqrt and log_det shared by all paths or each path's own)."""
    white_mean, white_sqrt = whiten(mean, sqrt, chol_kuu)
    log_det_kuu = 2.0 * tf.reduce_sum(tf.math.log(tf.linalg.diag_part(chol_kuu)), axis=1)
    num_outputs = tf.cast(tf.shape(mean)[-1], mean.dtype)
    return standard_normal_kl(white_mean, white_sqrt, log_det - num_outputs * log_det_kuu)


def standard_normal_kl(mean: tf.Tensor, sqrt: tf.Tensor, log_det: tf.Tensor) -> tf.Tensor:
    """Σ_l KL[N(mean_l, sqrt_l sqrt_lᵀ) ‖ N(0, I)] for mean ``[..., M, L]``, the square roots in
    any layout ``[..., (three axes)]`` and ``log_det`` ``[...]`` = Σ_l log|sqrt_l sqrt_lᵀ|."""
    num_values = tf.cast(tf.reduce_prod(tf.shape(mean)[-2:]), mean.dtype)
    squares = tf.reduce_sum(tf.square(mean), axis=[-2, -1]) + tf.reduce_sum(tf.square(sqrt), axis=[-3, -2, -1])
    return 0.5 * (squares - num_values - log_det)
