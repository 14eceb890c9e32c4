"""The subset-of-data terms of eq. 11 (Jain et al. 2021) against direct computations."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from scipy.stats import norm

from gpflow_deep.core.mixtures import GaussianMixture
from gpflow_deep.objectives import (
    complement_expected_log_likelihood,
    complement_weights,
    expected_log_likelihood,
    in_subset,
    subset_expected_log_likelihood,
)

pytestmark = pytest.mark.shape_checks("compiled")


def gaussian_expected_log_density(y, mean, var, noise):
    """E_{N(f | mean, var)}[log N(y | f, noise)] in closed form."""
    return norm.logpdf(y, mean, np.sqrt(noise)) - var / (2 * noise)


@pytest.mark.parametrize("per_path", [False, True])
def test_subset_term_is_the_mean_over_paths_of_the_summed_gaussian_expectations(rng, per_path):
    T, M, L, noise = 3, 5, 2, 0.3
    shape = (T, M, L) if per_path else (M, L)
    means, variances, targets = rng.normal(size=shape), rng.uniform(0.1, 1.0, size=shape), rng.normal(size=(M, L))
    term = subset_expected_log_likelihood(gpflow.likelihoods.Gaussian(variance=noise), means, variances, targets)
    per_point = gaussian_expected_log_density(targets, means, variances, noise)
    expected = per_point.reshape(-1, M * L).sum(axis=-1).mean()
    np.testing.assert_allclose(term, expected, rtol=1e-12)


def test_complement_term_drops_the_subset_rows_and_scales_the_rest_to_n(rng):
    T, B, N, noise = 4, 6, 30, 0.2
    X, Y = rng.normal(size=(B, 2)), rng.normal(size=(B, 1))
    means, variances = rng.normal(size=(T, B, 1)), rng.uniform(0.1, 1.0, size=(T, B, 1))
    mixture = GaussianMixture(tf.constant(means), tf.constant(variances), tf.fill([T], -np.log(T)))
    likelihood = gpflow.likelihoods.Gaussian(variance=noise)
    weights = np.array([0.0, 1.0, 1.0, 0.75, 1.0, 1.0])
    term = complement_expected_log_likelihood(likelihood, mixture, X, Y, N, tf.constant(weights))
    per_point = gaussian_expected_log_density(Y[None], means, variances, noise)[..., 0].mean(axis=0)
    np.testing.assert_allclose(term, N / B * np.sum(weights * per_point), rtol=1e-12)
    nothing_masked = complement_expected_log_likelihood(likelihood, mixture, X, Y, N, tf.ones(B, tf.float64))
    np.testing.assert_allclose(nothing_masked, expected_log_likelihood(likelihood, mixture, X, Y, N), rtol=1e-12)


def test_in_subset_matches_rows_by_their_inputs_and_targets(rng):
    X_S, y_S = rng.normal(size=(3, 2)), rng.normal(size=(3, 1))
    X = np.concatenate([X_S[1:2], rng.normal(size=(2, 2)), X_S[2:]])
    Y = np.concatenate([y_S[1:2], rng.normal(size=(2, 1)), y_S[2:] + 1.0])  # the last: x_S with another y
    np.testing.assert_array_equal(in_subset(X, Y, X_S, y_S), [True, False, False, False])


def test_rows_equal_to_a_subset_point_count_as_its_copies_outside_the_subset(rng):
    """A distinct subset point weighs 0; a point with c equal training rows weighs 1 − 1/c in each,
    so that its c rows count c − 1; two equal subset points with c = 5 rows: 1 − 2/5 each."""
    X_S, y_S = rng.normal(size=(4, 2)), rng.normal(size=(4, 1))
    X_S[3], y_S[3] = X_S[2], y_S[2]  # subset points 2 and 3 are equal
    copies = np.array([1.0, 4.0, 5.0, 5.0])
    X = np.concatenate([X_S, rng.normal(size=(1, 2))])
    Y = np.concatenate([y_S, rng.normal(size=(1, 1))])
    weights = complement_weights(X, Y, X_S, y_S, copies)
    np.testing.assert_allclose(weights, [0.0, 0.75, 0.6, 0.6, 1.0])
