"""Random-feature maps Φ(F Ω) of Cutajar et al. (2017, eqs. 6-7), whose inner products
Φ(x)ᵀΦ(x') estimate a kernel when the columns of Ω are drawn from its spectral density.

Each map returns Φ's columns and its scalar scale apart (Φ = scale × columns).

- RBF (eq. 6): ``Φ = sqrt(σ²/N_RF) [cos(FΩ), sin(FΩ)]``, 2 N_RF features, Ω ~ N(0, Λ⁻¹) estimates
  σ² exp(−½ (x − x')ᵀ Λ⁻¹ (x − x')), Λ = diag(ℓ²);
- arc-cosine of order p (eq. 7 for p = 1): ``Φ = sqrt(2σ²/N_RF) H(FΩ) (FΩ)^p``, N_RF features,
  estimates σ² k_arc^(p)(Λ^{-1/2} x, Λ^{-1/2} x') (Cho & Saul 2009).
"""

from typing import Tuple

import tensorflow as tf
from check_shapes import check_shapes


@check_shapes(
    "projections: [batch..., N, R]",
    "variance: []",
    "return[0]: [batch..., N, F]",
    "return[1]: []",
)
def rbf_features(projections: tf.Tensor, variance: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
    """``[cos(FΩ), sin(FΩ)]`` from the projections FΩ ``[..., N, R]`` (F = 2R features) and their
    scale sqrt(σ²/R): Φ is their product, which callers form after Φ's matmul (a scalar on
    ``[..., N, L]`` rather than on ``[..., N, 2R]``, forward and backward)."""
    scale = tf.sqrt(variance / tf.cast(tf.shape(projections)[-1], projections.dtype))
    return cos_sin(projections), scale


@tf.custom_gradient
def cos_sin(projections: tf.Tensor):
    """``[cos P, sin P]`` along the last axis, ``[..., N, 2R]`` from P ``[..., N, R]``. Its gradient
    −sin P ∘ ḡ_cos + cos P ∘ ḡ_sin reuses the forward pass's cosines and sines (autodiff of
    ``tf.cos`` and ``tf.sin`` evaluates both again), the same numbers with half the trigonometry."""
    cos, sin = tf.cos(projections), tf.sin(projections)

    def gradient(upstream: tf.Tensor) -> tf.Tensor:
        upstream_cos, upstream_sin = tf.split(upstream, 2, axis=-1)
        return -upstream_cos * sin + upstream_sin * cos

    return tf.concat([cos, sin], axis=-1), gradient


@check_shapes(
    "projections: [batch..., N, R]",
    "variance: []",
    "return[0]: [batch..., N, R]",
    "return[1]: []",
)
def arccos_features(projections: tf.Tensor, variance: tf.Tensor, order: int) -> Tuple[tf.Tensor, tf.Tensor]:
    """``H(FΩ) (FΩ)^p`` from the projections FΩ ``[..., N, R]``, order p in {0, 1, 2} (step,
    whose gradients vanish; ReLU; squared ReLU), and their scale sqrt(2σ²/R) (as for
    :func:`rbf_features`)."""
    if order not in (0, 1, 2):
        raise ValueError(f"arc-cosine order must be 0, 1 or 2, got {order!r}")
    scale = tf.sqrt(2.0 * variance / tf.cast(tf.shape(projections)[-1], projections.dtype))
    if order == 0:
        return tf.cast(projections > 0, projections.dtype), scale
    return tf.nn.relu(projections) ** order, scale
