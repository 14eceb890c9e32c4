"""build_dspp holds its hidden means at the PCA projection unless that projection hides the target."""

import gpflow
import numpy as np
import pytest

import gpflow_deep as gd
from gpflow_deep.builders.initialisation import linear_fit_lost, linear_projection


def adjusted_r_squared(inputs: np.ndarray, T: np.ndarray) -> float:
    """Adjusted R² of least squares with an intercept on one target column, from the normal equations."""
    n, p = inputs.shape
    design = np.concatenate([inputs, np.ones((n, 1))], axis=1)
    fitted = design @ np.linalg.solve(design.T @ design, design.T @ T)
    r_squared = 1.0 - float(np.sum((T - fitted) ** 2) / np.sum((T - T.mean(axis=0)) ** 2))
    return 1.0 - (1.0 - r_squared) * (n - 1) / (n - p - 1)


def wide_table(rng, n: int = 300, rare_share: float = 0.05):
    """Five standard-normal columns and one rare 0/1 column (variance about 0.05), as a one-hot
    level is beside standardised numbers."""
    return np.concatenate([rng.normal(size=(n, 5)), (rng.uniform(size=(n, 1)) < rare_share).astype(float)], axis=1)


def test_linear_fit_lost_against_direct_computation(rng):
    X = rng.normal(size=(200, 4)) * np.array([3.0, 2.0, 1.0, 0.5])
    T = X @ rng.normal(size=(4, 2)) + rng.normal(size=(200, 2))
    W = linear_projection(X, 1)
    weights = np.var(T, axis=0) / np.sum(np.var(T, axis=0))  # pooled: each column by its variance
    lost = sum(
        w * (adjusted_r_squared(X, T[:, [j]]) - adjusted_r_squared(X @ W, T[:, [j]])) for j, w in enumerate(weights)
    )
    np.testing.assert_allclose(linear_fit_lost(X, T, W), lost, rtol=1e-10)
    assert linear_fit_lost(X, T, np.eye(4)) == pytest.approx(0.0, abs=1e-12)
    assert linear_fit_lost(X, np.ones((200, 1)), W) == 0.0
    assert linear_fit_lost(X[:5], T[:5], W) == 0.0  # 5 rows cannot read a fit on 4 inputs


def test_a_target_on_a_rare_column_is_hidden_by_pca(rng):
    X = wide_table(rng)
    T = X[:, 5:]
    W = linear_projection(X, 3)
    assert np.all(np.abs(W[5]) < 0.1)  # the three directions of most variance leave the rare column out
    assert linear_fit_lost(X, T, W) > 0.9


def test_hidden_means_are_learned_where_the_projection_hides_the_target(rng):
    X = wide_table(rng)
    Y = 3.0 * X[:, 5:] + 0.1 * rng.normal(size=(300, 1))
    model = gd.build_dspp(X, Y)
    mean = model.layers[0].mean_function
    assert isinstance(mean, gpflow.mean_functions.Linear) and mean.A.trainable
    np.testing.assert_allclose(mean.A.numpy(), linear_projection(X, 3))  # learned from the same start
    assert not gd.build_dspp(X, Y, trainable_hidden_means=False).layers[0].mean_function.A.trainable


def test_hidden_means_are_held_where_the_projection_keeps_the_target(rng):
    X = wide_table(rng) * np.array([3.0, 1.0, 1.0, 1.0, 1.0, 1.0])  # the target's column varies most
    Y = X[:, :1] + 0.1 * rng.normal(size=(300, 1))
    assert linear_fit_lost(X, Y, linear_projection(X, 3)) < 0.01
    assert not gd.build_dspp(X, Y).layers[0].mean_function.A.trainable
    part = gd.datasets.uci_split(gd.datasets.load("boston"), 0)
    assert not gd.build_dspp(part.X_train, part.Y_train).layers[0].mean_function.A.trainable


def test_class_labels_are_read_one_hot(rng):
    X = wide_table(rng, rare_share=0.3) * np.array([3.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    likelihood = gpflow.likelihoods.MultiClass(3)
    on_the_rare_column = np.where(X[:, 5:] > 0, 2.0, 0.0)
    assert gd.build_dspp(X, on_the_rare_column, likelihood=likelihood).layers[0].mean_function.A.trainable
    on_a_kept_column = np.where(X[:, :1] > 0, 2.0, 1.0)
    assert not gd.build_dspp(X, on_a_kept_column, likelihood=likelihood).layers[0].mean_function.A.trainable


def test_a_hidden_width_left_to_the_data_is_decided_before_the_rule(rng):
    X = wide_table(rng)
    Y = 3.0 * X[:, 5:] + 0.1 * rng.normal(size=(300, 1))
    first = gd.build_dspp(X, Y, hidden_width=None).layers[0]
    assert first.num_latent_gps == 6 and isinstance(first.mean_function, gpflow.mean_functions.Identity)
