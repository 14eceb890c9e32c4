"""Cross-covariances k(Z, X) of the builders' kernels in few passes over the ``[M, N]`` matrix.

GPflow's ``K`` for a stationary kernel is written for every kernel at once: scaled distances, a
clip, then the kernel's formula, each an element-wise pass over the M × N matrix, and autodiff
adds as many backward. On a step whose rows are many (sigma points, Monte Carlo paths) these
passes are much of its time. The squared exponential and the Matérn-5/2 (the kernels the
builders use) are computed here with the same values and gradients in a few passes; any other
kernel goes to GPflow.
"""

import numpy as np
import tensorflow as tf
from check_shapes import check_shapes
from gpflow.covariances import Kuf
from gpflow.inducing_variables import InducingPoints, SharedIndependentInducingVariables
from gpflow.kernels import IsotropicStationary, Kernel, Matern52, SharedIndependent, SquaredExponential

SQRT5 = np.sqrt(5.0)


@check_shapes(
    "X: [N, D]",
)
def inducing_cross_covariance(inducing_variable, kernel: Kernel, X: tf.Tensor) -> tf.Tensor:
    """Kuf ``[M, N]`` (or ``[L, M, N]`` for separate inducing variables or kernels), as GPflow's
    ``Kuf(inducing_variable, kernel, X)``; by :func:`cross_covariance` for inducing points (plain
    or shared by all latent GPs) and a kernel it has its own passes for."""
    inner_kernel = kernel.kernel if isinstance(kernel, SharedIndependent) else kernel
    inner_inducing = (
        inducing_variable.inducing_variable
        if isinstance(inducing_variable, SharedIndependentInducingVariables)
        else inducing_variable
    )
    if type(inner_inducing) is InducingPoints and has_fast_cross_covariance(inner_kernel):
        return cross_covariance(inner_kernel, inner_inducing.Z, X)
    return Kuf(inducing_variable, kernel, X)


def has_fast_cross_covariance(kernel: Kernel) -> bool:
    """Whether :func:`cross_covariance` has its own passes for ``kernel`` (exactly a squared
    exponential or a Matérn-5/2 on all input columns)."""
    every_column = isinstance(kernel.active_dims, slice) and kernel.active_dims == slice(None, None, None)
    return every_column and type(kernel) in (SquaredExponential, Matern52)


@check_shapes(
    "Z: [batch..., M, D]",
    "X: [batch..., N, D]",
    "return: [batch..., M, N]",
)
def cross_covariance(kernel: Kernel, Z: tf.Tensor, X: tf.Tensor) -> tf.Tensor:
    """k(Z, X), each leading index of Z paired with the same of X (GPflow's ``K`` would pair every
    one with every other); a kernel on some input columns reads those only, as GPflow's call does."""
    if has_fast_cross_covariance(kernel):
        Zs, Xs = kernel.scale(Z), kernel.scale(X)
        if type(kernel) is SquaredExponential:
            return _squared_exponential(Zs, Xs, kernel.variance)
        return _matern52(_squared_distances(Zs, Xs), tf.convert_to_tensor(kernel.variance))
    if Z.shape.rank == 2:
        return kernel(Z, X)
    Z, X = kernel.slice(Z, X)
    if isinstance(kernel, IsotropicStationary):
        return kernel.K_r2(_squared_distances(kernel.scale(Z), kernel.scale(X)))
    leading = tf.shape(Z)[:-2]
    Z_flat = tf.reshape(Z, tf.concat([[-1], tf.shape(Z)[-2:]], 0))
    X_flat = tf.reshape(X, tf.concat([[-1], tf.shape(X)[-2:]], 0))
    pairs = tf.map_fn(lambda pair: kernel.K(pair[0], pair[1]), (Z_flat, X_flat), fn_output_signature=Z.dtype)
    return tf.reshape(pairs, tf.concat([leading, tf.shape(pairs)[-2:]], 0))


def _squared_distances(Zs: tf.Tensor, Xs: tf.Tensor) -> tf.Tensor:
    """``[..., M, N]`` ‖z − x‖² of scaled inputs (slightly negative where rounding makes it so)."""
    return (
        tf.reduce_sum(tf.square(Zs), -1)[..., :, None]
        + tf.reduce_sum(tf.square(Xs), -1)[..., None, :]
        - 2.0 * tf.linalg.matmul(Zs, Xs, transpose_b=True)
    )


def _squared_exponential(Zs: tf.Tensor, Xs: tf.Tensor, variance) -> tf.Tensor:
    """σ² exp(−r²/2) as the exponential of one matrix product, log σ² − r²/2 =
    [z, log σ² − |z|²/2, 1] · [x, 1, −|x|²/2] (scaled inputs): the M×N work is one product and
    one exp, forward and backward."""
    log_variance = tf.math.log(tf.convert_to_tensor(variance))
    z_term = log_variance - 0.5 * tf.reduce_sum(tf.square(Zs), -1, keepdims=True)
    x_term = -0.5 * tf.reduce_sum(tf.square(Xs), -1, keepdims=True)
    left = tf.concat([Zs, z_term, tf.ones_like(z_term)], axis=-1)
    right = tf.concat([Xs, tf.ones_like(x_term), x_term], axis=-1)
    return tf.exp(tf.linalg.matmul(left, right, transpose_b=True))


@tf.custom_gradient
def _matern52(r2: tf.Tensor, variance: tf.Tensor):
    """σ² (1 + a + a²/3) e^(−a) with a = √5 r, r² clipped at 1e-36 as GPflow clips it, and its
    gradient by hand: ∂k/∂r² = −(5/6) σ² (1 + a) e^(−a), ∂k/∂σ² = k/σ² (no division by r)."""
    clipped = r2 >= 1e-36
    a = SQRT5 * tf.sqrt(tf.maximum(r2, 1e-36))
    decay = tf.exp(-a)
    linear_decay = (1.0 + a) * decay
    shape = linear_decay + tf.square(a) / 3.0 * decay
    value = variance * shape

    def gradient(upstream: tf.Tensor):
        d_r2 = (-5.0 / 6.0 * variance) * (upstream * linear_decay)
        return tf.where(clipped, d_r2, tf.zeros([], r2.dtype)), tf.reduce_sum(upstream * shape)

    return value, gradient
