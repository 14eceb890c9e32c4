"""``build_random_feature_dgp`` starts the noise at the largest of 1% of var(Y), a tenth of a pilot
GP's and 1.1 times its floor, 0.8 of the pilot's."""

import logging

import gpflow
import numpy as np
import pytest

from gpflow_deep import build_random_feature_dgp
from gpflow_deep.builders.pilot_gp import pilot_noise_variance
from gpflow_deep.core.additive_noise import additive_noise_variance


def sine(noise_variance: float, seed: int = 0, rows: int = 200):
    """X ``[rows, 2]`` and Y = sin(2 x₁) + noise ``[rows, 1]``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((rows, 2))
    return X, np.sin(2 * X[:, :1]) + np.sqrt(noise_variance) * rng.standard_normal((rows, 1))


def start(X, Y, **config) -> float:
    """The variance of the noise the model starts with (its default likelihood: Student-t)."""
    return additive_noise_variance(build_random_feature_dgp(X, Y, **config).likelihood)


def test_on_a_noisy_table_the_noise_starts_above_its_floor_or_at_a_tenth_of_the_pilots(caplog):
    X, Y = sine(0.5)
    pilot = pilot_noise_variance(X, Y, 0)
    assert 0.1 * pilot > 0.01 * np.var(Y), "the case under test: the pilot's tenth is above 1% of var(Y)"
    with caplog.at_level(logging.INFO, logger="gpflow_deep"):
        assert start(X, Y) == pytest.approx(0.88 * pilot, rel=1e-12)
    assert "noise_floor" in caplog.text and "0.8 of a pilot exact GP's" in caplog.text
    assert "1.1 times the floor, the largest of" in caplog.text
    unbounded = dict(pilot_noise_floor=None)
    with caplog.at_level(logging.INFO, logger="gpflow_deep"):
        assert start(X, Y, **unbounded) == pytest.approx(0.1 * pilot, rel=1e-12)
    assert "0.1 of a pilot exact GP's, the largest of" in caplog.text
    assert start(X, Y, pilot_noise_fraction=0.5, **unbounded) == pytest.approx(0.5 * pilot, rel=1e-12)


def test_on_a_nearly_noise_free_table_it_starts_at_one_percent_of_var_y():
    X, Y = sine(1e-4)
    assert 0.1 * pilot_noise_variance(X, Y, 0) < 0.01 * np.var(Y)
    assert start(X, Y) == pytest.approx(0.01 * np.var(Y), rel=1e-12)


def test_without_the_pilot_or_with_a_given_noise_the_start_is_as_before():
    X, Y = sine(0.5)
    assert start(X, Y, pilot_noise_fraction=None) == pytest.approx(0.01 * np.var(Y), rel=1e-12)
    assert start(X, Y, noise_variance=0.2) == pytest.approx(0.2)
    assert start(X, Y, setup="paper") == pytest.approx(np.exp(-2.0))


@pytest.mark.parametrize("fraction", [0.0, -0.1])
def test_a_fraction_that_is_not_positive_is_refused(fraction):
    X, Y = sine(0.5)
    with pytest.raises(ValueError, match="pilot_noise_fraction"):
        build_random_feature_dgp(X, Y, pilot_noise_fraction=fraction)


def test_the_default_likelihood_is_a_student_t_of_the_gaussians_variance():
    """``student_t_df=3`` (the default): GPflow's Student-t whose variance s²ν/(ν − 2) is the
    Gaussian's start; ``None`` and ``setup="paper"``: the Gaussian."""
    X, Y = sine(0.5)
    student = build_random_feature_dgp(X, Y).likelihood
    gaussian = build_random_feature_dgp(X, Y, student_t_df=None).likelihood
    assert isinstance(student, gpflow.likelihoods.StudentT) and student.df == 3.0
    assert isinstance(gaussian, gpflow.likelihoods.Gaussian)
    assert student.scale.numpy() ** 2 * 3.0 == pytest.approx(gaussian.variance.numpy(), rel=1e-12)
    assert isinstance(build_random_feature_dgp(X, Y, setup="paper").likelihood, gpflow.likelihoods.Gaussian)
    five = build_random_feature_dgp(X, Y, student_t_df=5.0).likelihood
    assert five.scale.numpy() ** 2 * 5.0 / 3.0 == pytest.approx(gaussian.variance.numpy(), rel=1e-12)


@pytest.mark.parametrize("df", [2.0, 1.0])
def test_two_or_fewer_degrees_of_freedom_are_refused(df):
    X, Y = sine(0.5)
    with pytest.raises(ValueError, match="student_t_df must be above 2"):
        build_random_feature_dgp(X, Y, student_t_df=df)


def test_a_given_student_t_without_a_variance_starts_the_last_layer_at_the_prior():
    """ν = 2 has no variance: no linear-model start (q(W) at the prior, N(0, 1)), and no error."""
    X, Y = sine(0.5)
    model = build_random_feature_dgp(X, Y, likelihood=gpflow.likelihoods.StudentT(df=2.0))
    last = model.layers[-1]
    np.testing.assert_array_equal(last.w_mean.numpy(), 0.0)
    np.testing.assert_allclose(last.w_std.numpy(), 1.0)


@pytest.mark.parametrize("df", [3.0, None])
def test_a_pilot_floor_bounds_the_noise_and_lifts_its_start(df):
    """``pilot_noise_floor=f``: ε's variance cannot fall below f × the pilot's (a Student-t's scale
    or a Gaussian's variance bounded in GPflow's transform), and it starts at 1.1 f × the pilot's
    when that is more than the start without the floor."""
    X, Y = sine(0.5)
    pilot = pilot_noise_variance(X, Y, 0)
    likelihood = build_random_feature_dgp(X, Y, pilot_noise_floor=0.8, student_t_df=df).likelihood
    assert additive_noise_variance(likelihood) == pytest.approx(0.88 * pilot, rel=1e-9)
    parameter = likelihood.variance if df is None else likelihood.scale
    parameter.unconstrained_variable.assign(-50.0)  # as far down as training could push it
    assert additive_noise_variance(likelihood) == pytest.approx(0.8 * pilot, rel=1e-6)
    above = build_random_feature_dgp(X, Y, pilot_noise_floor=0.2, pilot_noise_fraction=0.5, student_t_df=df)
    assert additive_noise_variance(above.likelihood) == pytest.approx(0.5 * pilot, rel=1e-9)


def test_without_a_floor_the_noise_is_unbounded_and_a_bad_floor_is_refused():
    X, Y = sine(0.5)
    likelihood = build_random_feature_dgp(X, Y, pilot_noise_floor=None).likelihood
    likelihood.scale.unconstrained_variable.assign(-50.0)
    assert additive_noise_variance(likelihood) < 1e-6
    with pytest.raises(ValueError, match="pilot_noise_floor"):
        build_random_feature_dgp(X, Y, pilot_noise_floor=-0.5)


def test_the_pilot_floor_bounds_only_tables_of_up_to_its_row_count():
    """``pilot_noise_floor_rows`` (10,000): X, Y as a sample of a larger training set (``num_data``)
    get no floor and the start without it; at the limit, or with the limit None, the floor holds."""
    X, Y = sine(0.5)
    pilot = pilot_noise_variance(X, Y, 0)
    large = build_random_feature_dgp(X, Y, num_data=10_001).likelihood
    assert additive_noise_variance(large) == pytest.approx(0.1 * pilot, rel=1e-9)
    large.scale.unconstrained_variable.assign(-50.0)
    assert additive_noise_variance(large) < 1e-6
    for config in (dict(num_data=10_000), dict(num_data=10_001, pilot_noise_floor_rows=None)):
        likelihood = build_random_feature_dgp(X, Y, **config).likelihood
        likelihood.scale.unconstrained_variable.assign(-50.0)
        assert additive_noise_variance(likelihood) == pytest.approx(0.8 * pilot, rel=1e-6)
    given = build_random_feature_dgp(X, Y, num_data=10_001, noise_floor=0.3).likelihood
    given.scale.unconstrained_variable.assign(-50.0)
    assert additive_noise_variance(given) == pytest.approx(0.3, rel=1e-6)
    with pytest.raises(ValueError, match="pilot_noise_floor_rows"):
        build_random_feature_dgp(X, Y, pilot_noise_floor_rows=0)
