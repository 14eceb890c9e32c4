"""The mixture over y for a Student-t likelihood: each path's Gaussian over f convolved with the
Student-t noise, written as a Gaussian mixture so that every interval, PIT value, CRPS and conformal
score of the package stays exact for it.

Student-t noise of scale s and ν > 2 degrees of freedom is a scale mixture of Gaussians,
ε | λ ~ N(0, s²/λ) with λ ~ Gamma(ν/2, rate ν/2). Cut λ's distribution into n strata of equal
probability and put each stratum's Gaussian at its conditional mean of 1/λ (closed form: for
a = ν/2, E[1/λ; x₁ < aλ < x₂] = a/(a − 1) · (P(a − 1, x₂) − P(a − 1, x₁)), P the regularised
lower incomplete gamma function). The n Gaussians of equal weight have the Student-t's variance
exactly, and their CDF is within 0.0006 of its CDF for ν = 3 and n = 100 (0.004 for n = 16).

Paths of equal weight (the Monte Carlo models) share n = S·Q strata, Q = ⌈:data:`NOISE_STRATA` / S⌉:
path s takes the strata s, s + S, s + 2S, ..., so that the mixture over y is the n-strata one (the
paths are exchangeable). Weighted paths (``DSPP``'s sigma points) each take all of
Q = max(⌈:data:`NOISE_STRATA` / S⌉, :data:`WEIGHTED_PATH_STRATA`) strata, every path's noise
exact in variance.
"""

import tensorflow as tf
import tensorflow_probability as tfp
from check_shapes import check_shapes
from gpflow.likelihoods import Likelihood, StudentT

from gpflow_deep.core.mixtures import GaussianMixture, predict_mean_and_var

NOISE_STRATA = 64
"""At least this many strata of the noise's scale in a mixture over y (S·Q ≥ 64 for S paths)."""
WEIGHTED_PATH_STRATA = 16
"""At least this many strata for each weighted path (CDF within 0.004 of the Student-t's for ν = 3)."""


@check_shapes(
    "X: [N, D]",
    "mixture.means: [S, N, L]",
    "mixture.variances: [S, N, L]",
    "mixture.log_weights: [S]",
    "return.means: [K, N, P]",
    "return.variances: [K, N, P]",
    "return.log_weights: [K]",
)
def y_mixture(
    likelihood: Likelihood, X: tf.Tensor, mixture: GaussianMixture, paths_equally_weighted: bool = True
) -> GaussianMixture:
    """The mixture over y of the paths' mixture over f at X: each path's moments of y under the
    likelihood (exact for a Gaussian, K = S), or for a Student-t the strata of its noise (K = S·Q,
    shared by the paths when they are ``paths_equally_weighted``, else each path's own)."""
    means, variances = predict_mean_and_var(likelihood, X, mixture.means, mixture.variances)
    if isinstance(likelihood, StudentT):
        noise = variances - mixture.variances
        return student_t_y_mixture(
            likelihood, means, mixture.variances, noise, mixture.log_weights, paths_equally_weighted
        )
    return GaussianMixture(means, variances, mixture.log_weights)


@check_shapes("return: [S, Q]")
def student_t_variance_multipliers(
    df: float, num_paths: tf.Tensor, per_path: tf.Tensor, shared: bool, dtype: tf.DType
) -> tf.Tensor:
    """``[S, Q]``: path s's multipliers of the Student-t's variance s²ν/(ν − 2): with ``shared``,
    one per stratum s + S·q of n = S·Q equal-probability strata of λ; else every path the same Q
    strata. Their mean over all n (over each path's Q) is 1."""
    if df <= 2.0:
        raise ValueError(f"a Student-t likelihood needs more than 2 degrees of freedom for its variance, got {df}")
    a = tf.constant(df / 2.0, dtype)
    n = num_paths * per_path if shared else per_path
    probabilities = tf.linspace(tf.constant(0.0, dtype), tf.constant(1.0, dtype), n + 1)
    edges = tfp.math.igammainv(a, probabilities)  # strata of x = aλ ~ Gamma(a, 1); the last edge is ∞
    below = tf.concat([tf.math.igamma(a - 1.0, edges[:-1]), tf.ones([1], dtype)], axis=0)
    inverse_lambda = tf.cast(n, dtype) * a / (a - 1.0) * (below[1:] - below[:-1])  # E[1/λ | stratum]
    multipliers = inverse_lambda * (df - 2.0) / df
    if shared:
        return tf.transpose(tf.reshape(multipliers, [per_path, num_paths]))
    return tf.tile(multipliers[None], [num_paths, 1])


@check_shapes(
    "means: [S, N, P]",
    "f_variances: [S, N, P]",
    "noise_variances: [S, N, P]",
    "log_weights: [S]",
    "return.means: [K, N, P]",
    "return.variances: [K, N, P]",
    "return.log_weights: [K]",
)
def student_t_y_mixture(
    likelihood: StudentT,
    means: tf.Tensor,
    f_variances: tf.Tensor,
    noise_variances: tf.Tensor,
    log_weights: tf.Tensor,
    paths_equally_weighted: bool = True,
) -> GaussianMixture:
    """The mixture over y of S paths N(means, f_variances) under Student-t noise of variance
    ``noise_variances`` (s²ν/(ν − 2)), as K = S·Q Gaussians: component s·Q + q is path s with its
    q-th stratum of the noise (module docstring), of weight w_s / Q."""
    num_paths = tf.shape(means)[0]
    at_least = (NOISE_STRATA + num_paths - 1) // num_paths  # ⌈NOISE_STRATA / S⌉
    per_path = tf.maximum(at_least, 1 if paths_equally_weighted else WEIGHTED_PATH_STRATA)
    multipliers = student_t_variance_multipliers(  # [S, Q]
        likelihood.df, num_paths, per_path, paths_equally_weighted, means.dtype
    )

    def per_stratum(values: tf.Tensor) -> tf.Tensor:
        return tf.reshape(tf.repeat(values, per_path, axis=0), tf.concat([[-1], tf.shape(values)[1:]], axis=0))

    noise = per_stratum(noise_variances) * tf.reshape(multipliers, [-1, 1, 1])
    weights = tf.repeat(log_weights, per_path) - tf.math.log(tf.cast(per_path, log_weights.dtype))
    return GaussianMixture(per_stratum(means), per_stratum(f_variances) + noise, weights)
