"""The pilot exact GP: its marginal likelihood against GPflow's GPR, its gradient against finite
differences, the noise it finds, and the builders that start from it."""

import gpflow
import numpy as np
import pytest
from scipy.optimize import approx_fprime
from scipy.spatial.distance import pdist, squareform

from gpflow_deep import build_deep_gp, build_dspp
from gpflow_deep.builders import DeepGPConfig
from gpflow_deep.builders.pilot_gp import _negative_log_marginal_likelihood, pilot_noise_variance


def _problem(seed=0, rows=40):
    rng = np.random.default_rng(seed)
    X, Y = rng.standard_normal((rows, 3)), rng.standard_normal((rows, 2))
    return X, Y, squareform(pdist(X, "sqeuclidean"))


def test_the_objective_is_gpflow_gprs_negative_log_marginal_likelihood():
    X, Y, distances = _problem()
    variance, lengthscale, noise = 0.7, 1.3, 0.2
    value, _ = _negative_log_marginal_likelihood(np.log([variance, lengthscale, noise]), distances, Y)
    kernel = gpflow.kernels.SquaredExponential(variance=variance, lengthscales=lengthscale)
    gpr = gpflow.models.GPR((X, Y), kernel, noise_variance=noise)
    np.testing.assert_allclose(value, gpr.training_loss().numpy(), rtol=1e-10)


def test_the_gradient_matches_finite_differences():
    _, Y, distances = _problem(1)
    point = np.log([1.5, 0.8, 0.05])
    _, gradient = _negative_log_marginal_likelihood(point, distances, Y)
    numerical = approx_fprime(point, lambda p: _negative_log_marginal_likelihood(p, distances, Y)[0], 1e-7)
    np.testing.assert_allclose(gradient, numerical, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("noise", [0.01, 0.1, 0.5])
def test_the_pilot_finds_the_noise_of_a_smooth_function(noise):
    rng = np.random.default_rng(2)
    X = rng.uniform(-3, 3, (800, 2))
    Y = np.sin(X[:, :1]) * np.cos(0.5 * X[:, 1:]) + 3.0 + np.sqrt(noise) * rng.standard_normal((800, 1))
    found = pilot_noise_variance(X, Y)
    assert abs(np.log(found / noise)) < 0.3, found


def test_the_pilot_sees_at_most_its_rows_drawn_by_the_seed():
    rng = np.random.default_rng(3)
    X, Y = rng.standard_normal((900, 2)), rng.standard_normal((900, 1))
    assert pilot_noise_variance(X, Y, seed=4) == pilot_noise_variance(X, Y, seed=4)
    assert pilot_noise_variance(X, Y, seed=4) != pilot_noise_variance(X, Y, seed=5)
    assert pilot_noise_variance(X[:50], Y[:50], rows=50) == pilot_noise_variance(X[:50], Y[:50], rows=60)


def test_constant_targets_give_no_pilot_and_the_builder_falls_back_to_a_share_of_their_variance():
    X = np.random.default_rng(4).standard_normal((30, 2))
    assert pilot_noise_variance(X, np.full((30, 1), 2.0)) is None
    model = build_deep_gp(X, np.full((30, 1), 2.0))
    np.testing.assert_allclose(model.likelihood.variance.numpy(), 0.01)


def test_deep_gp_starts_its_noise_at_the_pilots_and_the_paper_at_one_hundredth():
    rng = np.random.default_rng(5)
    X = rng.uniform(-2, 2, (200, 2))
    Y = np.sin(2 * X[:, :1]) + np.sqrt(0.3) * rng.standard_normal((200, 1))
    started = build_deep_gp(X, Y, seed=6).likelihood.variance.numpy()
    np.testing.assert_allclose(started, pilot_noise_variance(X, Y, seed=6), rtol=1e-9)
    assert 0.2 < started < 0.45
    assert build_deep_gp(X, Y, config=DeepGPConfig.paper()).likelihood.variance.numpy() == pytest.approx(0.01)
    assert build_deep_gp(X, Y, setup="paper").likelihood.variance.numpy() == pytest.approx(0.01)
    assert build_deep_gp(X, Y, noise_variance=0.2).likelihood.variance.numpy() == pytest.approx(0.2)


def test_dspp_starts_its_noise_at_the_pilots_when_asked_at_least_twice_its_floor():
    rng = np.random.default_rng(7)
    X = rng.uniform(-2, 2, (150, 2))
    noisy = np.sin(2 * X[:, :1]) + np.sqrt(0.3) * rng.standard_normal((150, 1))
    clean = np.sin(2 * X[:, :1]) + 0.1 * rng.standard_normal((150, 1))
    small = dict(num_inducing=20, num_sigma_points=3, noise_from_pilot=True)
    started = build_dspp(X, noisy, seed=8, noise_floor=0.01, **small).likelihood.variance.numpy()
    np.testing.assert_allclose(started, pilot_noise_variance(X, noisy, seed=8), rtol=1e-9)
    floor = 0.05 * np.var(clean)
    assert pilot_noise_variance(X, clean) < 2 * floor
    started_clean = build_dspp(X, clean, noise_floor=floor, **small).likelihood.variance.numpy()
    np.testing.assert_allclose(started_clean, 2 * floor, rtol=1e-9)
    default = build_dspp(X, noisy, num_inducing=20, num_sigma_points=3)  # the floor is the pilot's noise
    pilot = pilot_noise_variance(X, noisy)
    np.testing.assert_allclose(default.likelihood.variance_lower_bound, pilot, rtol=1e-12)
    np.testing.assert_allclose(default.likelihood.variance.numpy(), max(0.1 * np.var(noisy), 2 * pilot), rtol=1e-9)
