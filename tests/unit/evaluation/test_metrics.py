"""Mixture scores against hand computations and Monte Carlo."""

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import norm

import gpflow_deep as gd
from gpflow_deep.core.mixtures import mixture_moments, sample_mixture
from gpflow_deep.evaluation.metrics import crps, log_predictive_density, rmse


def random_mixture(rng, S=3, N=4, P=1):
    means = rng.normal(size=(S, N, P))
    variances = rng.uniform(0.2, 2.0, size=(S, N, P))
    weights = rng.dirichlet(np.ones(S))
    return means, variances, np.log(weights)


def test_log_predictive_density_by_hand(rng):
    means, variances, log_weights = random_mixture(rng, P=2)
    y = rng.normal(size=(4, 2))
    expected = np.log(
        np.sum(np.exp(log_weights)[:, None] * np.prod(norm.pdf(y, means, np.sqrt(variances)), axis=-1), axis=0)
    )
    np.testing.assert_allclose(log_predictive_density(y, means, variances, log_weights), expected, rtol=1e-12)


def test_mixture_density_integrates_to_one(rng):
    means, variances, log_weights = random_mixture(rng, N=1)
    density = lambda y: np.exp(log_predictive_density(np.array([[y]]), means, variances, log_weights))[0]  # noqa: E731
    total, _ = quad(density, -30, 30)
    assert abs(total - 1) < 1e-8


def test_crps_of_one_gaussian_is_the_closed_form(rng):
    y, mu, sigma = 0.7, -0.2, 1.3
    z = (y - mu) / sigma
    expected = sigma * (z * (2 * norm.cdf(z) - 1) + 2 * norm.pdf(z) - 1 / np.sqrt(np.pi))
    value = crps(np.array([[y]]), np.array([[[mu]]]), np.array([[[sigma**2]]]), np.zeros(1))
    np.testing.assert_allclose(value, [[expected]], rtol=1e-12)


def test_crps_of_a_mixture_equals_its_integral_definition(rng):
    means, variances, log_weights = random_mixture(rng, N=2)
    y = rng.normal(size=(2, 1))
    weights = np.exp(log_weights)
    for n in range(2):
        cdf = lambda t: np.sum(weights * norm.cdf(t, means[:, n, 0], np.sqrt(variances[:, n, 0])))  # noqa: E731
        below, _ = quad(lambda t: cdf(t) ** 2, -40, y[n, 0], limit=200)
        above, _ = quad(lambda t: (1 - cdf(t)) ** 2, y[n, 0], 40, limit=200)
        np.testing.assert_allclose(crps(y, means, variances, log_weights)[n, 0], below + above, rtol=1e-7)


def test_mixture_moments_and_samples(rng):
    means, variances, log_weights = random_mixture(rng, S=4, N=3, P=2)
    mean, var = (t.numpy() for t in mixture_moments(means, variances, log_weights))
    weights = np.exp(log_weights)[:, None, None]
    np.testing.assert_allclose(mean, np.sum(weights * means, 0))
    np.testing.assert_allclose(var, np.sum(weights * (variances + means**2), 0) - mean**2, rtol=1e-10)
    import tensorflow as tf

    draws = sample_mixture(
        tf.constant(means), tf.constant(variances), tf.constant(log_weights), 50000, tf.constant([1, 2])
    ).numpy()
    assert draws.shape == (50000, 3, 2)
    assert np.all(np.abs(draws.mean(0) - mean) < 5 * np.sqrt(var / 50000))
    np.testing.assert_allclose(draws.var(0), var, rtol=0.05)


def test_rmse():
    assert rmse([[1.0], [3.0]], [[0.0], [0.0]]) == pytest.approx(np.sqrt(5.0))


def test_evaluate_reports_original_units(concrete_split):
    X, Y, X_test, Y_test = concrete_split
    model = gd.build_deep_gp(X, Y, num_layers=1, num_inducing=20)
    standard = gd.metrics.evaluate(model, X_test, Y_test, num_samples=2)
    scaled = gd.metrics.evaluate(model, X_test, Y_test, y_std=10.0, num_samples=2)
    assert scaled["log_likelihood"] == pytest.approx(standard["log_likelihood"] - np.log(10.0))
    assert scaled["rmse"] == pytest.approx(10 * standard["rmse"])
    assert scaled["crps"] == pytest.approx(10 * standard["crps"])
    np.testing.assert_allclose(
        standard["log_likelihood"], np.mean(model.predict_log_density((X_test, Y_test), num_samples=2)), rtol=1e-10
    )


def test_evaluate_streams_over_prediction_chunks_and_equals_the_whole_mixture(concrete_split):
    """Scores from chunks of 7 rows (any chunk size) equal those of the whole mixture at once."""
    X, Y, X_test, Y_test = concrete_split
    model = gd.build_deep_gp(X, Y, num_layers=2, num_inducing=10, hidden_width=2)
    whole = gd.metrics.evaluate(model, X_test, Y_test, y_std=3.0, num_samples=4, seed=5)
    mixture = model.predict_mixture(X_test, num_samples=4, seed=5)
    means, variances = (m.numpy() for m in gd.mixtures.predict_mean_and_var(model.likelihood, X_test, *mixture[:2]))
    log_weights = mixture.log_weights.numpy()
    direct = np.mean(log_predictive_density(3 * Y_test, 3 * means, 9 * variances, log_weights))
    model.prediction_batch_size = 7
    chunks = list(model.predict_mixture_chunks(X_test, num_samples=4, seed=5))
    assert len(chunks) == -(-len(X_test) // 7)
    np.testing.assert_allclose(np.concatenate([c.means for _, c in chunks], axis=1), mixture.means, rtol=1e-10)
    streamed = gd.metrics.evaluate(model, X_test, Y_test, y_std=3.0, num_samples=4, seed=5)
    assert streamed == pytest.approx(whole, rel=1e-10)
    assert streamed["log_likelihood"] == pytest.approx(direct, rel=1e-10)
    with pytest.raises(ValueError, match="Y must be"):
        gd.metrics.evaluate(model, X_test, Y_test[:-1])
