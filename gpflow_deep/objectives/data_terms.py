"""Data terms: plain functions ``(likelihood, mixture, X, Y, num_data) -> []`` of the paths'
mixture on a batch, each scaled from the batch's B points to the N of the training set."""

from typing import Callable

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.likelihoods import Likelihood

from gpflow_deep.core.mixtures import GaussianMixture, mixture_log_density, per_component

DataTerm = Callable[[Likelihood, GaussianMixture, tf.Tensor, tf.Tensor, int], tf.Tensor]

MIXTURE_ON_BATCH = (
    "mixture.means: [S, B, L]",
    "mixture.variances: [S, B, L]",
    "mixture.log_weights: [S]",
    "X: [B, D]",
    "Y: [B, P]",
)
"""The shapes of a data term's arguments: the paths' mixture on a batch of B points and the batch."""

data_term_shapes = check_shapes(*MIXTURE_ON_BATCH, "return: []")
"""The shape contract of every data term ``(likelihood, mixture, X, Y, num_data) -> []``."""


@check_shapes(
    "X: [B, D]",
    "return: []",
)
def minibatch_scale(X: tf.Tensor, num_data) -> tf.Tensor:
    """N/B: scales a sum over a batch of B points to the full data set of N."""
    return tf.cast(num_data, X.dtype) / tf.cast(tf.shape(X)[0], X.dtype)


@data_term_shapes
def expected_log_likelihood(
    likelihood: Likelihood, mixture: GaussianMixture, X: tf.Tensor, Y: tf.Tensor, num_data
) -> tf.Tensor:
    """(N/B) Σ_n Σ_s w_s E_{N(f | μ_s, σ²_s)}[log p(y_n | f)]: the ELBO's data term (DSVI eq. 17;
    w_s = 1/S for Monte Carlo paths)."""
    pointwise = pointwise_expected_log_likelihood(likelihood, mixture, X, Y)
    return minibatch_scale(X, num_data) * tf.reduce_sum(pointwise)


@check_shapes(*MIXTURE_ON_BATCH, "return: [B]")
def pointwise_expected_log_likelihood(
    likelihood: Likelihood, mixture: GaussianMixture, X: tf.Tensor, Y: tf.Tensor
) -> tf.Tensor:
    """Σ_s w_s E_{N(f | μ_s, σ²_s)}[log p(y_n | f)] at every point n of the batch, unscaled."""
    expectations = per_component(likelihood.variational_expectations, X, mixture.means, mixture.variances, Y)
    return _weighted_mean(expectations, mixture.log_weights)


@data_term_shapes
def predictive_log_likelihood(
    likelihood: Likelihood, mixture: GaussianMixture, X: tf.Tensor, Y: tf.Tensor, num_data
) -> tf.Tensor:
    """(N/B) Σ_n log Σ_s w_s ∫ p(y_n | f) N(f | μ_s, σ²_s) df: the log of the mixture's own density
    (DSPP eq. 21's data term; approximate EP's Σ_n log Z_n, a log-mean-exp over Monte Carlo paths)."""
    densities = per_component(likelihood.predict_log_density, X, mixture.means, mixture.variances, Y)
    return minibatch_scale(X, num_data) * tf.reduce_sum(mixture_log_density(densities, mixture.log_weights))


def _weighted_mean(values: tf.Tensor, log_weights: tf.Tensor) -> tf.Tensor:
    """Σ_s w_s values_s over the leading axis of S paths."""
    return tf.reduce_sum(tf.exp(log_weights)[:, None] * values, axis=0)
