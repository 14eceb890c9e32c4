"""The variance a subset layer's conditioning removes from the prior, with its gradient by hand.

For projections A = Lk⁻¹ Kuf ``[S, M, N]`` and factors T_l ``[S, L, M, M]`` of the (whitened) q's
covariances, the marginal variance is k_xx − r_l(x) with

    r_l(x) = ‖a_x‖² − ‖T_lᵀ a_x‖² = a_xᵀ W_l a_x,   W_l = I − T_l T_lᵀ.

Autodiff of the two norms costs one M×M×N product forward (T_lᵀ A) and two backward. The
quadratic form keeps W_l A from the forward pass, so the gradient with respect to A is elementwise
(2 W_l A ⊙ dr_l) and only ∂/∂W_l = (A ⊙ dr_l) Aᵀ is a product of that size (docs/performance.md,
"What changed").
"""

import tensorflow as tf
from check_shapes import check_shapes


@check_shapes(
    "A: [S, M, N]",
    "factors: [broadcast S, L, M, M]",
    "return: [S, L, N]",
)
def variance_reduction(A: tf.Tensor, factors: tf.Tensor) -> tf.Tensor:
    """a_nᵀ (I − T_l T_lᵀ) a_n for every column a_n of A and every factor T_l: each path's own
    factors, or factors shared by all paths (leading axis 1), whose W_l is then formed once."""
    return _variance_reduction(A, factors)


@tf.custom_gradient
def _variance_reduction(A: tf.Tensor, factors: tf.Tensor):
    M = tf.shape(A)[1]
    W = tf.eye(M, dtype=A.dtype) - tf.linalg.matmul(factors, factors, transpose_b=True)  # [S or 1, L, M, M]
    WA = tf.linalg.matmul(W, A[:, None])  # [S, L, M, N]
    reduction = tf.reduce_sum(A[:, None] * WA, axis=2)

    def gradient(upstream: tf.Tensor):
        weights = upstream[:, :, None, :]  # [S, L, 1, N]
        dA = 2.0 * tf.reduce_sum(WA * weights, axis=1)  # W symmetric
        dW = tf.linalg.matmul(A[:, None] * weights, A[:, None], transpose_b=True)  # [S, L, M, M]
        if factors.shape[0] == 1:
            dW = tf.reduce_sum(dW, axis=0, keepdims=True)  # one W_l for all paths
        return dA, -2.0 * tf.linalg.matmul(dW, factors)

    return reduction, gradient
