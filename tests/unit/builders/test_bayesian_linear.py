"""The Bayesian linear model's evidence, against the direct Gaussian density, and the noise it chooses."""

import gpflow
import numpy as np
import pytest
from scipy.stats import multivariate_normal

from gpflow_deep import build_random_feature_dgp
from gpflow_deep.builders.bayesian_linear import NOISE_GRID, evidence_noise_variance, log_evidence
from gpflow_deep.core.additive_noise import additive_noise_variance


def test_the_evidence_is_the_density_of_y_under_phi_phi_transpose_plus_noise():
    rng = np.random.default_rng(0)
    Phi, Y = rng.standard_normal((15, 6)), rng.standard_normal((15, 2))
    noises = np.array([0.05, 0.4, 2.0])
    direct = [
        sum(multivariate_normal(np.zeros(15), Phi @ Phi.T + s * np.eye(15)).logpdf(Y[:, j]) for j in range(2))
        for s in noises
    ]
    np.testing.assert_allclose(log_evidence(Phi, Y, noises), direct, rtol=1e-10)


def test_a_scaled_row_counts_as_repeated_rows():
    rng = np.random.default_rng(1)
    Phi, Y, noises = rng.standard_normal((10, 4)), rng.standard_normal((10, 1)), np.array([0.1, 1.0])
    repeated = log_evidence(np.tile(Phi, (3, 1)), np.tile(Y, (3, 1)), noises)
    np.testing.assert_allclose(log_evidence(Phi, Y, noises, scale=3.0), repeated, rtol=1e-10)


@pytest.mark.parametrize("noise", [0.02, 0.25, 0.8])
def test_the_chosen_noise_is_near_the_true_one(noise):
    rng = np.random.default_rng(2)
    Phi = rng.standard_normal((3000, 20)) / np.sqrt(20)
    Y = Phi @ rng.standard_normal((20, 1)) + np.sqrt(noise) * rng.standard_normal((3000, 1))
    chosen = evidence_noise_variance([Phi], Y)
    assert chosen / np.var(Y) in NOISE_GRID
    assert abs(np.log(chosen / noise)) < 0.15, chosen


def test_the_builder_starts_the_noise_at_the_evidence_when_asked():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 2))
    Y = np.sin(2 * X[:, :1]) + np.sqrt(0.3) * rng.standard_normal((300, 1))
    chosen = additive_noise_variance(build_random_feature_dgp(X, Y, noise_from_evidence=True).likelihood)
    assert 0.25 < chosen < np.var(Y), "at least about the noise (0.3), at most what the features leave of var(Y)"
    one_percent = dict(pilot_noise_fraction=None)  # without the pilot's start (its own test)
    for given in ({}, dict(noise_from_evidence=True, last_layer_at_posterior=False)):
        variance = additive_noise_variance(build_random_feature_dgp(X, Y, **given, **one_percent).likelihood)
        np.testing.assert_allclose(variance, 0.01 * np.var(Y), rtol=1e-12)
    own = gpflow.likelihoods.Gaussian(variance=0.7)
    model = build_random_feature_dgp(X, Y, likelihood=own, noise_from_evidence=True)
    assert model.likelihood.variance.numpy() == pytest.approx(0.7)
    with pytest.raises(ValueError, match="not both"):
        build_random_feature_dgp(X, Y, noise_variance=0.1, noise_from_evidence=True)
