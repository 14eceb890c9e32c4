"""Moments of a sparse GP's output when its input is Gaussian (Bui et al. 2016, moment matching).

For x ~ N(μ, diag(s)) and f(x) = g(x) + m(x), with g(x) | u the sparse GP conditional and u from a
Gaussian over the whitened inducing outputs v (u = Lu v, v ~ N(m_v, S_v)):

    E[g]     = ψ1 β,                                  β = Lu⁻ᵀ m_v
    E[g²]    = ψ0 − tr(B Ψ2) + βᵀ Ψ2 β,               B = Lu⁻ᵀ (I − S_v) Lu⁻¹
    Cov(g, m) = βᵀ E[k(Z, x) m(x)] − E[g] E[m]

with ψ0 = E[k(x, x)], ψ1 = E[k(x, Z)], Ψ2 = E[k(Z, x) k(x, Z)] from ``gpflow.expectations``
(closed forms for the squared exponential kernel, and for its products with linear means).
"""

from typing import Optional, Tuple

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.expectations import expectation
from gpflow.inducing_variables import InducingPoints
from gpflow.kernels import Kernel
from gpflow.mean_functions import MeanFunction
from gpflow.probability_distributions import DiagonalGaussian


@check_shapes(
    "Lu: [M, M]",
    "q_mu: [M, L]",
    "q_cov: [L, M, M]",
    "input_mean: [N, D]",
    "input_var: [N, D]",
    "return[0]: [N, L]",
    "return[1]: [N, L]",
)
def gaussian_input_moments(
    kernel: Kernel,
    inducing_variable: InducingPoints,
    mean_function: Optional[MeanFunction],
    Lu: tf.Tensor,
    q_mu: tf.Tensor,
    q_cov: tf.Tensor,
    input_mean: tf.Tensor,
    input_var: tf.Tensor,
) -> Tuple[tf.Tensor, tf.Tensor]:
    """Mean and variance of each output f_l(x) for Gaussian inputs with independent dimensions."""
    p = DiagonalGaussian(input_mean, input_var)
    psi0 = expectation(p, kernel)  # [N]
    psi1 = expectation(p, (kernel, inducing_variable))  # [N, M]
    psi2 = expectation(p, (kernel, inducing_variable), (kernel, inducing_variable))  # [N, M, M]

    beta = tf.linalg.triangular_solve(Lu, q_mu, lower=True, adjoint=True)  # [M, L]
    Lu_inv = tf.linalg.triangular_solve(Lu, tf.eye(tf.shape(Lu)[0], dtype=Lu.dtype), lower=True)
    eye = tf.eye(tf.shape(Lu)[0], dtype=Lu.dtype)
    B = tf.linalg.matmul(Lu_inv, tf.linalg.matmul(eye - q_cov, Lu_inv), transpose_a=True)  # [L, M, M]

    mean = tf.linalg.matmul(psi1, beta)
    second_moment = psi0[:, None] - tf.einsum("lab,nab->nl", B, psi2) + tf.einsum("nab,al,bl->nl", psi2, beta, beta)
    var = second_moment - tf.square(mean)
    if mean_function is not None:
        mean_m = expectation(p, mean_function)  # [N, L]
        var_m = tf.linalg.diag_part(expectation(p, mean_function, mean_function)) - tf.square(mean_m)
        cross = expectation(p, (kernel, inducing_variable), mean_function)  # [N, M, L]
        cov_gm = tf.einsum("nml,ml->nl", cross, beta) - mean * mean_m
        mean, var = mean + mean_m, var + var_m + 2.0 * cov_gm
    return mean, tf.maximum(var, 0.0)
