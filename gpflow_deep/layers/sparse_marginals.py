"""Marginals of a sparse variational GP, q(f) = ∫ p(f | u) q(u) du, written as a few matmuls.

The inputs are folded into one matrix of N rows (callers fold samples into N), so every layer needs
one Cholesky of Kuu per step, whatever the number of samples or outputs.

Notation: M inducing points, N inputs, L latent GPs. A "stack" axis G is 1 for a kernel and
inducing points shared by all latent GPs (``Kuu: [M, M]``) and L when they are separate
(``Kuu: [L, M, M]``).
"""
from typing import Tuple

import tensorflow as tf
from check_shapes import check_shapes


@check_shapes(
    "Kuu: [G..., M, M]",
    "Kuf: [G..., M, N]",
    "return[0]: [G..., M, N]",
    "return[1]: [G..., M, N]",
)
def projections(Kuu: tf.Tensor, Kuf: tf.Tensor, whiten: bool) -> Tuple[tf.Tensor, tf.Tensor]:
    """Return ``A = Lu⁻¹ Kuf`` (gives Qff = AᵀA) and ``P``, the map from u's parameters to f.

    Whitened (u = Lu v, q(v) = N(q_mu, q_sqrt q_sqrtᵀ)): ``P = A``. Unwhitened: ``P = Kuu⁻¹ Kuf``.
    """
    Lu = tf.linalg.cholesky(Kuu)
    A = tf.linalg.triangular_solve(Lu, Kuf, lower=True)
    if whiten:
        return A, A
    return A, tf.linalg.triangular_solve(Lu, A, lower=True, adjoint=True)


@check_shapes(
    "A: [G, M, N]",
    "P: [G, M, N]",
    "Kff_diag: [N, broadcast L]",
    "q_mu: [M, L]",
    "q_sqrt: [L, M, M] if not q_diag",
    "q_sqrt: [M, L] if q_diag",
    "return[0]: [N, L]",
    "return[1]: [N, L]",
)
def marginals(
    A: tf.Tensor, P: tf.Tensor, Kff_diag: tf.Tensor, q_mu: tf.Tensor, q_sqrt: tf.Tensor, q_diag: bool
) -> Tuple[tf.Tensor, tf.Tensor]:
    """Mean and variance of q(f) at N points: ``mean = Pᵀ q_mu`` and
    ``var = Kff − diag(AᵀA) + diag(Pᵀ S P)`` with ``S = q_sqrt q_sqrtᵀ`` per latent GP.

    G is 1 when all L latent GPs share Kuu and Kuf, L otherwise.
    """
    prior_var = Kff_diag - tf.transpose(tf.reduce_sum(tf.square(A), axis=-2))
    if q_diag:
        posterior_var = _project(tf.square(P), tf.square(q_sqrt))
    else:
        covariance = tf.linalg.matmul(q_sqrt, q_sqrt, transpose_b=True)  # [L, M, M]
        posterior_var = tf.transpose(quadratic_diagonal(covariance, P))
    return _project(P, q_mu), prior_var + posterior_var


def _project(P: tf.Tensor, V: tf.Tensor) -> tf.Tensor:
    """``[N, L]``: column l is P_lᵀ v_l, for ``P: [G, M, N]`` (G = 1 shared) and ``V: [M, L]``."""
    if P.shape[0] == 1:
        return tf.linalg.matmul(P[0], V, transpose_a=True)
    return tf.einsum("lmn,ml->nl", P, V)


@tf.custom_gradient
def quadratic_diagonal(S: tf.Tensor, P: tf.Tensor):
    """``[L, N]``: the diagonal of Pᵀ S_l P for every l, for symmetric ``S: [L, M, M]`` and
    ``P: [G, M, N]`` (G = 1 is shared by all l).

    Hand-written gradient: dS_l = P diag(w_l) Pᵀ and dP = 2 Σ_l (S_l P) diag(w_l) reuse the forward
    product S P, one matmul of L·M²·N fewer than automatic differentiation of ‖q_sqrtᵀ P‖².
    """
    SP = tf.linalg.matmul(S, P)  # [L, M, N]
    value = tf.reduce_sum(SP * P, axis=-2)

    def gradient(upstream: tf.Tensor):
        weights = upstream[:, None, :]  # [L, 1, N]
        dS = tf.linalg.matmul(P * weights, P, transpose_b=True)
        dP = 2.0 * SP * weights
        if P.shape[0] == 1:
            dP = tf.reduce_sum(dP, axis=0, keepdims=True)
        return dS, dP

    return value, gradient


@check_shapes(
    "A: [G, M, B, N]",
    "P: [G, M, B, N]",
    "Kff: [B, broadcast G, N, N]",
    "q_sqrt: [L, M, M] if not q_diag",
    "q_sqrt: [M, L] if q_diag",
    "return: [B, L, N, N]",
)
def full_covariances(
    A: tf.Tensor, P: tf.Tensor, Kff: tf.Tensor, q_sqrt: tf.Tensor, q_diag: bool
) -> tf.Tensor:
    """Covariance of q(f) over the N points of each of B batches, per latent GP (G is 1 or L)."""
    A = tf.transpose(A, [2, 0, 1, 3])  # [B, G, M, N]
    P = tf.transpose(P, [2, 0, 1, 3])
    prior_cov = Kff - tf.linalg.matmul(A, A, transpose_a=True)
    if q_diag:
        LtP = tf.transpose(q_sqrt)[None, :, :, None] * P  # [B, L, M, N]
    else:
        LtP = tf.linalg.matmul(q_sqrt[None], P, transpose_a=True)  # [B, L, M, N]
    return prior_cov + tf.linalg.matmul(LtP, LtP, transpose_a=True)
