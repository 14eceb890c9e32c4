"""Marginals of a sparse variational GP, q(f) = ∫ p(f | u) q(u) du, written as a few matmuls.

The inputs are folded into one matrix of N rows (callers fold samples into N), so every layer needs
one Cholesky of Kuu per step, whatever the number of samples or outputs.

Notation: M inducing points, N inputs, L latent GPs. A kernel and inducing points shared by all
latent GPs give ``Kuu: [M, M]`` and ``Kuf: [M, N]``; separate ones add a leading axis of L
(written ``G...`` in the shape specs: absent or L).
"""

from typing import List, Optional, Tuple

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
    A: tf.Tensor,
    P: tf.Tensor,
    Kff_diag: tf.Tensor,
    q_mu: tf.Tensor,
    q_sqrt: tf.Tensor,
    q_diag: bool,
    *,
    upper: bool = False,
) -> Tuple[tf.Tensor, tf.Tensor]:
    """Mean and variance of q(f) at N points: ``mean = Pᵀ q_mu`` and
    ``var = Kff − diag(AᵀA) + diag(Pᵀ q_sqrt q_sqrtᵀ P)`` per latent GP.

    A and P are ``[M, N]`` when all L latent GPs share Kuu and Kuf, ``[L, M, N]`` otherwise. A full
    ``q_sqrt`` is lower-triangular, as GPflow's, or ``upper``-triangular.
    """
    prior_var = Kff_diag - tf.transpose(_column_norms(A))
    if q_diag:
        posterior_var = _project(tf.square(P), tf.square(q_sqrt))
    else:
        posterior_var = projected_square_norms(tf.convert_to_tensor(q_sqrt), P, upper=upper)
    return _project(P, q_mu), prior_var + posterior_var


def _column_norms(A: tf.Tensor) -> tf.Tensor:
    """``[G, N]``: squared norms of the columns of A ``[M, N]`` (G = 1) or ``[L, M, N]``."""
    return tf.reshape(tf.reduce_sum(tf.square(A), axis=-2), [-1, tf.shape(A)[-1]])


def _project(P: tf.Tensor, V: tf.Tensor) -> tf.Tensor:
    """``[N, L]``: column l is P_lᵀ v_l, for ``P: [M, N]`` (shared) or ``[L, M, N]``, ``V: [M, L]``."""
    if P.shape.rank == 2:
        return tf.linalg.matmul(P, V, transpose_a=True)
    return tf.einsum("lmn,ml->nl", P, V)


def projected_square_norms(q_sqrt: tf.Tensor, P: tf.Tensor, *, upper: bool = False) -> tf.Tensor:
    """``[N, L]``: ‖q_lᵀ p_n‖², the diagonal of P_lᵀ q_l q_lᵀ P_l, for triangular ``q_sqrt: [L, M, M]``
    (lower, GPflow's, or ``upper``; the other triangle is read as zeros and gets zero gradient) and
    ``P: [M, N]`` (shared by all l) or ``[L, M, N]``.

    With a shared P, the L factors' columns are taken in blocks (:func:`triangle_blocks`):
    block [a, b) of every lower q_l is zero above row a (of an upper one, below row b), so its L
    products are one matmul of P's remaining rows with the L blocks side by side, ``[N, L·(b − a)]``,
    each point's L projections contiguous. The blocks skip most of the zero triangle (with four,
    5/8 of the dense product's work), as do the two products of the hand-written gradient per block
    (dQ = 2 P (H ∘ w), dP = 2 Q (H ∘ w)ᵀ, w the upstream gradient repeated over the block's columns).
    """
    band = (0, -1) if upper else (-1, 0)

    @tf.custom_gradient
    def square_norms(q_sqrt: tf.Tensor, P: tf.Tensor):
        triangle = tf.linalg.band_part(q_sqrt, *band)
        if len(P.shape) == 2:
            value, gradient = _block_square_norms(triangle, P, upper)
        else:
            value, gradient = _separate_square_norms(triangle, P)

        def triangle_gradient(upstream: tf.Tensor):
            d_q_sqrt, d_P = gradient(upstream)
            return tf.linalg.band_part(d_q_sqrt, *band), d_P

        return value, triangle_gradient

    return square_norms(q_sqrt, P)


def triangle_blocks(M: Optional[int], L: Optional[int] = None) -> List[Tuple[int, Optional[int]]]:
    """Column blocks ``(start, stop)`` of L triangles M×M: at least 25 columns each and 50 across
    the L, so that every product stays wide, and at most 8 blocks (one, the whole, when M is not
    known while tracing)."""
    if M is None:
        return [(0, None)]
    width = max(25, -(-50 // (L or 50)))
    count = min(8, -(-M // width))
    size = -(-M // count)
    return [(start, min(start + size, M)) for start in range(0, M, size)]


def _block_square_norms(q_sqrt: tf.Tensor, P: tf.Tensor, upper: bool):
    """:func:`projected_square_norms` for a shared ``P: [M, N]``, block by block; its gradient."""
    L, M = tf.shape(q_sqrt)[0], q_sqrt.shape[1]
    blocks = []  # (rows of the block's nonzero part, the padding that puts them back among M, Q)
    for start, stop in triangle_blocks(M, q_sqrt.shape[0]):
        rows, padding = (
            (slice(0, stop), [0, M - stop]) if upper and stop is not None else (slice(start, None), [start, 0])
        )
        blocks.append((rows, padding, side_by_side(q_sqrt[:, rows, start:stop])))
    products = [  # each [N, L, block width]
        tf.reshape(tf.linalg.matmul(P[rows], Q, transpose_a=True), [-1, L, tf.shape(Q)[1] // L])
        for rows, _, Q in blocks
    ]
    value = tf.add_n([tf.reduce_sum(tf.square(H), axis=-1) for H in products])

    def gradient(upstream: tf.Tensor):
        d_q_sqrt, d_P = [], []
        for (rows, padding, Q), H in zip(blocks, products):
            dH = tf.reshape(2.0 * H * upstream[:, :, None], [-1, tf.shape(Q)[1]])  # [N, L·width]
            dQ = tf.reshape(tf.linalg.matmul(P[rows], dH), [-1, L, tf.shape(H)[2]])  # [rows, L, width]
            d_q_sqrt.append(tf.pad(tf.transpose(dQ, [1, 0, 2]), [[0, 0], padding, [0, 0]]))
            d_P.append(tf.pad(tf.linalg.matmul(Q, dH, transpose_b=True), [padding, [0, 0]]))
        return tf.concat(d_q_sqrt, axis=-1), tf.add_n(d_P)

    return value, gradient


def _separate_square_norms(q_sqrt: tf.Tensor, P: tf.Tensor):
    """:func:`projected_square_norms` for ``P: [L, M, N]``, one batched product; its gradient."""
    G = tf.linalg.matmul(q_sqrt, P, transpose_a=True)  # [L, M, N]
    value = tf.transpose(tf.reduce_sum(tf.square(G), axis=-2))

    def gradient(upstream: tf.Tensor):
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
