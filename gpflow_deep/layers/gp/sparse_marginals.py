"""Marginals of a sparse variational GP, q(f) = ∫ p(f | u) q(u) du, written as a few matmuls.

The inputs are folded into one matrix of N rows (callers fold samples into N), so every layer needs
one Cholesky of Kuu per step, whatever the number of samples or outputs.

Notation: M inducing points, N inputs, L latent GPs. A kernel and inducing points shared by all
latent GPs give ``Kuu: [M, M]`` and ``Kuf: [M, N]``; separate ones add a leading axis of L
(written ``G...`` in the shape specs: absent or L).
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
    "A: [G..., M, N]",
    "P: [G..., M, N]",
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
    ``var = Kff − diag(AᵀA) + diag(Pᵀ q_sqrt q_sqrtᵀ P)`` per latent GP.

    A and P are ``[M, N]`` when all L latent GPs share Kuu and Kuf, ``[L, M, N]`` otherwise.
    """
    prior_var = Kff_diag - tf.transpose(_column_norms(A))
    if q_diag:
        posterior_var = _project(tf.square(P), tf.square(q_sqrt))
    else:
        posterior_var = projected_square_norms(tf.convert_to_tensor(q_sqrt), P)
    return _project(P, q_mu), prior_var + posterior_var


def _column_norms(A: tf.Tensor) -> tf.Tensor:
    """``[G, N]``: squared norms of the columns of A ``[M, N]`` (G = 1) or ``[L, M, N]``."""
    return tf.reshape(tf.reduce_sum(tf.square(A), axis=-2), [-1, tf.shape(A)[-1]])


def _project(P: tf.Tensor, V: tf.Tensor) -> tf.Tensor:
    """``[N, L]``: column l is P_lᵀ v_l, for ``P: [M, N]`` (shared) or ``[L, M, N]``, ``V: [M, L]``."""
    if P.shape.rank == 2:
        return tf.linalg.matmul(P, V, transpose_a=True)
    return tf.einsum("lmn,ml->nl", P, V)


@tf.custom_gradient
def projected_square_norms(q_sqrt: tf.Tensor, P: tf.Tensor):
    """``[N, L]``: ‖q_lᵀ p_n‖², the diagonal of P_lᵀ q_l q_lᵀ P_l, for ``q_sqrt: [L, M, M]`` and
    ``P: [M, N]`` (shared by all l) or ``[L, M, N]``.

    With a shared P the L factors sit side by side, Q = [q_1 … q_L] ``[M, L·M]``, and all L products
    are one matmul H = PᵀQ ``[N, L·M]``, whose rows hold each point's L projections contiguously;
    so are the two of the hand-written gradient (dQ = 2 P (H ∘ w), dP = 2 Q (H ∘ w)ᵀ, with w the
    upstream gradient repeated over each block of M): three large matmuls, no reduction over l.
    """
    L, M = tf.shape(q_sqrt)[0], tf.shape(q_sqrt)[1]
    if len(P.shape) == 2:
        Q = side_by_side(q_sqrt)
        H = tf.reshape(tf.linalg.matmul(P, Q, transpose_a=True), [-1, L, M])  # [N, L, M]
        value = tf.reduce_sum(tf.square(H), axis=-1)
    else:
        G = tf.linalg.matmul(q_sqrt, P, transpose_a=True)  # [L, M, N]
        value = tf.transpose(tf.reduce_sum(tf.square(G), axis=-2))

    def gradient(upstream: tf.Tensor):
        if len(P.shape) == 2:
            dH = tf.reshape(2.0 * H * upstream[:, :, None], [-1, L * M])  # [N, L·M]
            dQ = tf.linalg.matmul(P, dH)  # [M, L·M]
            dq = tf.transpose(tf.reshape(dQ, [M, L, M]), [1, 0, 2])
            return dq, tf.linalg.matmul(Q, dH, transpose_b=True)
        dG = 2.0 * G * tf.transpose(upstream)[:, None, :]  # [L, M, N]
        return tf.linalg.matmul(P, dG, transpose_b=True), tf.linalg.matmul(q_sqrt, dG)

    return value, gradient


def side_by_side(stack: tf.Tensor) -> tf.Tensor:
    """``[M, B·K]``: the B matrices of ``stack: [B, M, K]`` side by side, [T_1 … T_B]."""
    B, M, K = tf.unstack(tf.shape(stack))
    return tf.reshape(tf.transpose(stack, [1, 0, 2]), [M, B * K])


@check_shapes(
    "A: [G, M, B, N]",
    "P: [G, M, B, N]",
    "Kff: [B, broadcast G, N, N]",
    "q_sqrt: [L, M, M] if not q_diag",
    "q_sqrt: [M, L] if q_diag",
    "return: [B, L, N, N]",
)
def full_covariances(A: tf.Tensor, P: tf.Tensor, Kff: tf.Tensor, q_sqrt: tf.Tensor, q_diag: bool) -> tf.Tensor:
    """Covariance of q(f) over the N points of each of B batches, per latent GP (G is 1 or L)."""
    A = tf.transpose(A, [2, 0, 1, 3])  # [B, G, M, N]
    P = tf.transpose(P, [2, 0, 1, 3])
    prior_cov = Kff - tf.linalg.matmul(A, A, transpose_a=True)
    if q_diag:
        LtP = tf.transpose(q_sqrt)[None, :, :, None] * P  # [B, L, M, N]
    else:
        LtP = tf.linalg.matmul(q_sqrt[None], P, transpose_a=True)  # [B, L, M, N]
    return prior_cov + tf.linalg.matmul(LtP, LtP, transpose_a=True)
