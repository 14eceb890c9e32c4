"""The data terms of subset-of-data inference (Jain, Srijith & Khan 2021, eq. 11): the subset's
own expected log-likelihood, counted in full every step, and the complement's, minibatched."""

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.likelihoods import Likelihood

from gpflow_deep.core.mixtures import GaussianMixture
from gpflow_deep.objectives.data_terms import MIXTURE_ON_BATCH, minibatch_scale, pointwise_expected_log_likelihood


@check_shapes(
    "X: [B, D]",
    "Y: [B, P]",
    "subset_inputs: [M, D]",
    "subset_targets: [M, P]",
    "return: [B]",
)
def in_subset(X: tf.Tensor, Y: tf.Tensor, subset_inputs: tf.Tensor, subset_targets: tf.Tensor) -> tf.Tensor:
    """Whether each row (x, y) is a subset point, equal to some (x_S, y_S)."""
    return tf.reduce_any(_equal_to_subset(X, Y, subset_inputs, subset_targets), axis=-1)


def _equal_to_subset(X: tf.Tensor, Y: tf.Tensor, subset_inputs: tf.Tensor, subset_targets: tf.Tensor) -> tf.Tensor:
    """``[B, M]``: whether batch row b's (x, y) equals subset point m's."""
    subset = tf.concat([subset_inputs, subset_targets], axis=1)
    rows = tf.concat([X, Y], axis=1)
    return tf.reduce_all(tf.equal(rows[:, None, :], subset[None]), axis=-1)


@check_shapes(
    "X: [B, D]",
    "Y: [B, P]",
    "subset_inputs: [M, D]",
    "subset_targets: [M, P]",
    "subset_copies: [M]",
    "return: [B]",
)
def complement_weights(
    X: tf.Tensor, Y: tf.Tensor, subset_inputs: tf.Tensor, subset_targets: tf.Tensor, subset_copies: tf.Tensor
) -> tf.Tensor:
    """Each batch row's weight in the complement's sum: 1, or 1 − m/c for a row equal to m subset
    points (x_S, y_S) that c training rows equal (``subset_copies``, itself included).

    A row is recognised only by its value, so when a subset point has c − m copies outside the
    subset (a table of discrete columns repeats rows), every one of the c equal rows counts
    (c − m)/c: together they count c − m, the copies outside the subset, as eq. 11 asks. With
    c = m (a distinct point) the weight is 0, the point counted by the subset's term alone."""
    equal = _equal_to_subset(X, Y, subset_inputs, subset_targets)
    matched = tf.reduce_sum(tf.cast(equal, X.dtype), axis=-1)
    copies = tf.reduce_max(tf.where(equal, tf.cast(subset_copies, X.dtype)[None], tf.zeros_like(equal, X.dtype)), -1)
    return 1.0 - matched / tf.maximum(tf.maximum(copies, matched), 1.0)  # 1 where nothing matched


@check_shapes(*MIXTURE_ON_BATCH, "weights: [B]", "return: []")
def complement_expected_log_likelihood(
    likelihood: Likelihood, mixture: GaussianMixture, X: tf.Tensor, Y: tf.Tensor, num_data, weights: tf.Tensor
) -> tf.Tensor:
    """(N/B) Σ_{n ∈ batch} w_n Σ_t w_t E_{N(f | μ_t, σ²_t)}[log p(y_n | f)]: eq. 11's first term.

    Batches are drawn from all N training points and a subset point's rows weigh less
    (:func:`complement_weights`: 0 for a distinct one), because the subset's term is counted in
    full every step: each training point counts once per epoch."""
    pointwise = pointwise_expected_log_likelihood(likelihood, mixture, X, Y)
    return minibatch_scale(X, num_data) * tf.reduce_sum(tf.cast(weights, pointwise.dtype) * pointwise)


@check_shapes(
    "subset_means: [paths..., M, L]",
    "subset_variances: [paths..., M, L]",
    "subset_targets: [M, L]",
    "return: []",
)
def subset_expected_log_likelihood(
    likelihood: Likelihood, subset_means: tf.Tensor, subset_variances: tf.Tensor, subset_targets: tf.Tensor
) -> tf.Tensor:
    """(1/T) Σ_t E_{q^(F_S | path t)}[log p(y_S | F_S)]: eq. 11's second term, from the marginals of
    q^(F_S) at the subset rows, ``[T, M, L]`` on T paths or ``[M, L]`` when all paths share one q^."""
    targets = tf.broadcast_to(subset_targets, tf.shape(subset_means))
    expectations = likelihood.variational_expectations(
        tf.zeros_like(subset_means[..., :0]), subset_means, subset_variances, targets
    )
    return tf.reduce_mean(tf.reduce_sum(expectations, axis=-1))
