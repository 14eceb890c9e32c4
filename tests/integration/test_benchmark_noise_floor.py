"""The noise-floor experiment's table: Friedman's first function, and its noise share."""

import numpy as np
import pytest

from benchmarks.experiments.noise_floor import friedman1, friedman1_split
from benchmarks.suites.calibration import likelihood_named
from gpflow_deep.datasets.uci import Dataset, uci_split


def test_friedman_s_noise_is_about_one_percent_of_the_targets_variance():
    X, Y = friedman1(200_000, 0.5, seed=0)
    _, f = friedman1(200_000, 0.0, seed=0)  # the same inputs, no noise
    assert X.shape == (200_000, 10) and np.all((X >= 0) & (X <= 1))
    assert np.var(Y - f) == pytest.approx(0.25, rel=0.01)
    assert 0.009 < np.var(Y - f) / np.var(Y) < 0.012


def test_the_split_is_the_uci_protocol_s_split_of_the_drawn_rows():
    X, Y = friedman1(500, 0.5, seed=1)
    split = friedman1_split(500, 0.5, seed=1)
    expected = uci_split(Dataset("any", X, Y, tuple("abcdefghij"), "y"), 1)
    assert (len(split.X_train), len(split.X_test)) == (450, 50)
    for name in ("X_train", "Y_train", "X_test", "Y_test", "y_std"):
        np.testing.assert_array_equal(getattr(split, name), getattr(expected, name))
    np.testing.assert_allclose(split.Y_train.std(), 1.0, rtol=1e-12)


def test_unbounded_is_the_floored_gaussian_without_its_floor():
    floored, unbounded = likelihood_named("floored"), likelihood_named("unbounded")
    assert float(unbounded.variance.numpy()) == pytest.approx(float(floored.variance.numpy()))
    assert floored.variance_lower_bound == 0.05 and unbounded.variance_lower_bound < 1e-5


def test_further_inputs_are_irrelevant_and_the_ten_input_table_is_unchanged():
    X, f = friedman1(300, 0.0, seed=2, inputs=25)
    assert X.shape == (300, 25) and f.shape == (300, 1)
    expected = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3] + 5 * X[:, 4]
    np.testing.assert_allclose(f[:, 0], expected)
    np.testing.assert_array_equal(friedman1(300, 0.5, seed=2)[1], friedman1(300, 0.5, seed=2, inputs=10)[1])
    split = friedman1_split(300, 0.5, seed=2, inputs=25)
    assert split.X_train.shape == (270, 25)
