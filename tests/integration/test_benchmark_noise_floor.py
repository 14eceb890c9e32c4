"""The noise-floor experiment's table: Friedman's first function, and its noise share."""

import numpy as np
import pytest

from benchmarks.experiments.noise_floor import friedman1, standardised_split
from benchmarks.suites.calibration import likelihood_named


def test_friedman_s_noise_is_about_one_percent_of_the_targets_variance():
    X, Y = friedman1(200_000, 0.5, seed=0)
    _, f = friedman1(200_000, 0.0, seed=0)  # the same inputs, no noise
    assert X.shape == (200_000, 10) and np.all((X >= 0) & (X <= 1))
    assert np.var(Y - f) == pytest.approx(0.25, rel=0.01)
    assert 0.009 < np.var(Y - f) / np.var(Y) < 0.012


def test_the_split_standardises_on_its_training_part():
    X, Y = friedman1(500, 0.5, seed=1)
    X_train, Y_train, X_test, Y_test, y_std = standardised_split(X, Y, seed=1)
    assert (len(X_train), len(X_test)) == (450, 50)
    np.testing.assert_allclose(X_train.mean(0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X_train.std(0), 1.0, rtol=1e-12)
    assert Y_train.mean() == pytest.approx(0.0, abs=1e-12) and Y_train.std() == pytest.approx(1.0, rel=1e-12)
    rescaled = np.sort(np.concatenate([Y_train, Y_test])[:, 0]) * y_std  # every row, back in y's units
    np.testing.assert_allclose(rescaled - rescaled[0], np.sort(Y[:, 0]) - np.sort(Y[:, 0])[0], atol=1e-9)


def test_unbounded_is_the_floored_gaussian_without_its_floor():
    floored, unbounded = likelihood_named("floored"), likelihood_named("unbounded")
    assert float(unbounded.variance.numpy()) == pytest.approx(float(floored.variance.numpy()))
    assert floored.variance_lower_bound == 0.05 and unbounded.variance_lower_bound < 1e-5
