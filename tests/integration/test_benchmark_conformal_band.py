"""The chance that ``conformal_band`` simulates: split-conformal coverage under exchangeable scores."""

import numpy as np
import pytest

from benchmarks.experiments.conformal_band import simulate, thresholds
from gpflow_deep.evaluation.conformal import ConformalLevels


def test_the_thresholds_are_the_package_s_calibrated_levels():
    scores = np.random.default_rng(0).uniform(size=(6, 19))
    levels = (0.5, 0.8, 0.9, 0.95, 0.97)  # 0.97: rank 20 > 19 rows, the whole line
    expected = [[ConformalLevels(row).calibrated_score(level) for level in levels] for row in scores]
    np.testing.assert_array_equal(thresholds(scores, levels), expected)


@pytest.mark.parametrize("calibration_rows, test_rows", [(91, 51), (30, 10)])
def test_the_coverage_has_its_closed_form_mean_and_spread(calibration_rows, test_rows):
    """One split's coverage is the mean of m Bernoulli(U) with U the k-th of n uniforms, Beta(k, n + 1 − k):
    mean k/(n + 1) = μ, variance Var U + E[U(1 − U)]/m = v + (μ − μ² − v)/m with v = μ(1 − μ)/(n + 2)."""
    splits, replications = 5, 4000
    figures = simulate(calibration_rows, test_rows, splits, replications, band=0.02, seed=1)
    k = np.array([np.ceil((calibration_rows + 1) * level - 1e-9) for level in figures["levels"]])
    mu = k / (calibration_rows + 1)
    v = mu * (1 - mu) / (calibration_rows + 2)
    split_std = np.sqrt(v + (mu - mu**2 - v) / test_rows)
    np.testing.assert_allclose(figures["expected"], mu)
    standard_error = split_std / np.sqrt(splits * replications)
    assert np.all(np.abs(np.array(figures["mean"]) - mu) < 4 * standard_error)
    np.testing.assert_allclose(figures["split_std"], split_std, rtol=0.03)
    np.testing.assert_allclose(figures["average_std"], split_std / np.sqrt(splits), rtol=0.05)
    assert figures["within_all"] <= min(figures["within"])
