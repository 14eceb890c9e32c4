"""Random-feature maps Φ(F Ω) of Cutajar et al. (2017, eqs. 6-7), whose inner products
Φ(x)ᵀΦ(x') estimate a kernel when the columns of Ω are drawn from its spectral density.

Each map returns Φ's column blocks and its scalar scale apart (Φ = scale × [blocks side by side]).

- RBF (eq. 6): ``Φ = sqrt(σ²/N_RF) [cos(FΩ), sin(FΩ)]``, 2 N_RF features, Ω ~ N(0, Λ⁻¹) estimates
  σ² exp(−½ (x − x')ᵀ Λ⁻¹ (x − x')), Λ = diag(ℓ²);
- arc-cosine of order p (eq. 7 for p = 1): ``Φ = sqrt(2σ²/N_RF) H(FΩ) (FΩ)^p``, N_RF features,
  estimates σ² k_arc^(p)(Λ^{-1/2} x, Λ^{-1/2} x') (Cho & Saul 2009).
"""

from typing import List, Sequence, Tuple

import tensorflow as tf
from check_shapes import check_shapes


@check_shapes(
    "projections: [batch..., N, R]",
    "variance: []",
    "return[0][all]: [batch..., N, R]",
    "return[1]: []",
)
def rbf_features(projections: tf.Tensor, variance: tf.Tensor) -> Tuple[List[tf.Tensor], tf.Tensor]:
    """Φ's column blocks ``[cos(FΩ), sin(FΩ)]`` from the projections FΩ ``[..., N, R]`` (2R features)
    and their scale sqrt(σ²/R). Callers multiply each block by its rows of a weight matrix and
    scale the sum, so that neither the concatenation nor the scale touches ``[..., N, 2R]``."""
    scale = tf.sqrt(variance / tf.cast(tf.shape(projections)[-1], projections.dtype))
    return list(cosines_and_sines(projections)), scale


@tf.custom_gradient
def cosines_and_sines(projections: tf.Tensor):
    """``cos P`` and ``sin P``, evaluated in float32 whatever P's dtype and returned in it.

    This TensorFlow build's float64 sine and cosine are scalar library calls, 8 times slower than
    its vectorised float32 ones with the casts, and at 10,000 rows they were half of a float64
    step: the features carry float32's rounding (about 1e-7 absolute), far below what a likelihood
    resolves. The gradient −sin P ∘ ḡ_cos + cos P ∘ ḡ_sin reuses the forward pass's cosines and
    sines (autodiff of ``tf.cos`` and ``tf.sin`` evaluates both again)."""
    angles = tf.cast(projections, tf.float32)
    cos, sin = (tf.cast(values, projections.dtype) for values in (tf.cos(angles), tf.sin(angles)))

    def gradient(upstream_cos: tf.Tensor, upstream_sin: tf.Tensor) -> tf.Tensor:
        return -upstream_cos * sin + upstream_sin * cos

    return (cos, sin), gradient


@check_shapes(
    "projections: [batch..., N, R]",
    "variance: []",
    "return[0][all]: [batch..., N, R]",
    "return[1]: []",
)
def arccos_features(projections: tf.Tensor, variance: tf.Tensor, order: int) -> Tuple[List[tf.Tensor], tf.Tensor]:
    """``H(FΩ) (FΩ)^p`` from the projections FΩ ``[..., N, R]``, order p in {0, 1, 2} (step,
    whose gradients vanish; ReLU; squared ReLU), and their scale sqrt(2σ²/R) (as for
    :func:`rbf_features`)."""
    if order not in (0, 1, 2):
        raise ValueError(f"arc-cosine order must be 0, 1 or 2, got {order!r}")
    scale = tf.sqrt(2.0 * variance / tf.cast(tf.shape(projections)[-1], projections.dtype))
    if order == 0:
        return [tf.cast(projections > 0, projections.dtype)], scale
    return [tf.nn.relu(projections) ** order], scale


def blockwise_matmul(blocks: Sequence[tf.Tensor], weights: tf.Tensor) -> tf.Tensor:
    """``[block_1 … block_k] · weights`` without forming the concatenation: each block ``[..., N, R_i]``
    times its rows of ``weights`` ``[..., Σ R_i, L]``, summed."""
    rows = tf.split(weights, [block.shape[-1] for block in blocks], axis=-2)
    return tf.add_n([tf.linalg.matmul(block, part) for block, part in zip(blocks, rows)])
