"""The exact Bayesian linear model that ``rf_exact_weights`` sets beside a random-feature GP's q(W)."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from benchmarks.experiments.rf_exact_weights import evidence_noise, exact_predictive, log_evidence


def _features(rows=30, features=8, seed=0):
    rng = np.random.default_rng(seed)
    Phi = rng.standard_normal((rows, features)) / np.sqrt(features)
    return Phi, Phi @ rng.standard_normal((features, 1)) + 0.3 * rng.standard_normal((rows, 1)), rng


def test_the_predictive_is_the_gp_s_with_the_features_kernel():
    Phi, Y, rng = _features()
    Phi_test, noise = rng.standard_normal((5, 8)) / np.sqrt(8), 0.09
    mean, variance = exact_predictive(Phi, Y, Phi_test, noise)
    K = Phi @ Phi.T + noise * np.eye(len(Y))  # W ~ N(0, I): the GP of kernel φ(x)ᵀφ(x')
    cross = Phi @ Phi_test.T
    np.testing.assert_allclose(mean, cross.T @ np.linalg.solve(K, Y), rtol=1e-10)
    direct = np.sum(Phi_test**2, axis=1) - np.sum(cross * np.linalg.solve(K, cross), axis=0) + noise
    np.testing.assert_allclose(variance[:, 0], direct, rtol=1e-10)


def test_the_evidence_is_the_marginal_density_and_its_best_noise_beats_a_grid():
    Phi, Y, _ = _features()
    K = Phi @ Phi.T + 0.2 * np.eye(len(Y))
    direct = multivariate_normal(np.zeros(len(Y)), K).logpdf(Y[:, 0])
    assert log_evidence(Phi, Y, 0.2) == pytest.approx(direct, rel=1e-10)
    best = evidence_noise(Phi, Y)
    grid = np.exp(np.linspace(np.log(1e-3), np.log(3.0), 200))
    assert log_evidence(Phi, Y, best) >= max(log_evidence(Phi, Y, s) for s in grid) - 1e-6
    assert 0.03 < best < 0.3  # near the data's noise variance, 0.09
