"""Quantiles and interval coverage of Gaussian mixtures."""

import numpy as np
import pytest
from scipy.stats import norm

from gpflow_deep.evaluation.calibration import (
    central_interval,
    central_interval_hits,
    interval_coverage,
    mixture_cdf,
    mixture_quantile,
)


def test_one_component_gives_gaussian_quantiles():
    means, variances = np.array([[0.0, 3.0, -2.0]]), np.array([[1.0, 4.0, 0.25]])
    quantile = mixture_quantile(0.95, means, variances, np.zeros(1))
    np.testing.assert_allclose(quantile, norm.ppf(0.95, means[0], np.sqrt(variances[0])), rtol=1e-10)


def test_bimodal_mixture_quantiles_solve_its_cdf():
    means = np.array([[-3.0, 0.0], [3.0, 0.1]])
    variances = np.array([[0.5, 1.0], [0.5, 2.0]])
    log_weights = np.log([0.3, 0.7])
    for probability in (0.05, 0.3, 0.5, 0.95):
        quantile = mixture_quantile(probability, means, variances, log_weights)
        cdf = 0.3 * norm.cdf(quantile, means[0], np.sqrt(variances[0])) + 0.7 * norm.cdf(
            quantile, means[1], np.sqrt(variances[1])
        )
        np.testing.assert_allclose(cdf, probability, atol=1e-12)
    low, high = central_interval(0.9, means, variances, log_weights)
    single_gaussian_half_width = norm.ppf(0.95) * np.sqrt(0.3 * 0.5 + 0.7 * 0.5 + 0.21 * 36)
    assert high[0] - low[0] != pytest.approx(2 * single_gaussian_half_width, rel=0.01), "not a moment-matched Gaussian"


def test_coverage_of_calibrated_predictions_is_the_level():
    rng = np.random.default_rng(0)
    means, variances, log_weights = rng.normal(size=(3, 20000)), np.full((3, 20000), 0.5), np.log(np.ones(3) / 3)
    component = rng.integers(0, 3, 20000)
    y = means[component, np.arange(20000)] + np.sqrt(0.5) * rng.normal(size=20000)
    low, high = central_interval(0.9, means, variances, log_weights)
    assert interval_coverage(y, low, high) == pytest.approx(0.9, abs=0.01)
    hits = central_interval_hits([0.5, 0.9], y, means, variances, log_weights)
    np.testing.assert_array_equal(hits[1], (low <= y) & (y <= high))
    assert hits[0].mean() == pytest.approx(0.5, abs=0.015)


def test_levels_outside_zero_one_are_refused():
    with pytest.raises(ValueError, match="level must be in"):
        central_interval(1.0, np.zeros((1, 1)), np.ones((1, 1)), np.zeros(1))


def test_the_mixture_cdf_stays_in_zero_one_when_its_weights_round_above_one():
    log_weights = np.full(6, -np.log(6.0))  # exp of these sums to 1 + 2e-16 in float64
    means, variances = np.zeros((6, 3)), np.ones((6, 3))
    cdf = mixture_cdf(np.array([-60.0, 0.0, 60.0]), means, variances, log_weights)
    assert cdf[2] == 1.0 and cdf[0] == 0.0
    np.testing.assert_allclose(cdf[1], 0.5, rtol=1e-15)
    counts = np.histogram(cdf, bins=10, range=(0, 1))[0]
    assert counts.sum() == 3  # a value above 1 would fall outside the histogram
