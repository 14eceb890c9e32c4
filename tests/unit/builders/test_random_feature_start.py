"""The last layer of ``build_random_feature_dgp`` starts at its Bayesian linear model's posterior."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf

from gpflow_deep import build_random_feature_dgp
from gpflow_deep.builders.bayesian_linear import linear_model_posterior
from gpflow_deep.core.additive_noise import additive_noise_variance


def test_the_linear_model_posterior_is_the_direct_one_and_a_scaled_row_counts_as_repeated_rows():
    rng = np.random.default_rng(0)
    Phi, Y, noise = rng.standard_normal((12, 5)), rng.standard_normal((12, 2)), 0.3
    mean, chol = linear_model_posterior(Phi, Y, noise)
    covariance = np.linalg.inv(np.eye(5) + Phi.T @ Phi / noise)
    np.testing.assert_allclose(chol @ chol.T, np.linalg.inv(covariance), rtol=1e-10)
    np.testing.assert_allclose(mean, covariance @ Phi.T @ Y / noise, rtol=1e-10)
    assert np.allclose(chol, np.tril(chol))
    repeated = linear_model_posterior(np.tile(Phi, (3, 1)), np.tile(Y, (3, 1)), noise)
    for scaled, direct in zip(linear_model_posterior(Phi, Y, noise, scale=3.0), repeated):
        np.testing.assert_allclose(scaled, direct, rtol=1e-10)


@pytest.mark.parametrize("df, likelihood", [(3.0, gpflow.likelihoods.StudentT), (None, gpflow.likelihoods.Gaussian)])
def test_the_last_layer_starts_at_the_mean_field_posterior_on_the_hidden_layers_mean_outputs(df, likelihood):
    """Under Student-t noise (the default) at a Gaussian of its variance s²ν/(ν − 2)."""
    rng = np.random.default_rng(1)
    X, Y = rng.standard_normal((40, 3)), rng.standard_normal((40, 1))
    model = build_random_feature_dgp(X, Y, num_layers=2, num_features=8, student_t_df=df)
    hidden, last = model.layers
    fixed = tf.constant([0, 0], tf.int64)  # unused: Ω and its ε are fixed
    inputs = tf.linalg.matmul(hidden.features(X[None], fixed), hidden.w_mean)
    inputs = tf.concat([inputs, X[None]], axis=-1) if model.feed_forward else inputs
    Phi = last.features(inputs, fixed)[0].numpy()
    noise = additive_noise_variance(model.likelihood)
    precision = np.eye(Phi.shape[1]) + Phi.T @ Phi / noise
    np.testing.assert_allclose(last.w_mean.numpy(), np.linalg.solve(precision, Phi.T @ Y / noise), rtol=1e-8)
    np.testing.assert_allclose(last.w_std.numpy()[:, 0], 1.0 / np.sqrt(np.diag(precision)), rtol=1e-8)
    assert isinstance(model.likelihood, likelihood)


@pytest.mark.parametrize("setup, per_block", [("data", None), ("data", False), ("paper", None)])
def test_each_block_of_a_layers_inputs_starts_at_the_lengthscale_of_its_own_width(setup, per_block):
    """By default the hidden outputs (width 3) at sqrt(3) and the fed-forward X (D = 5) at the first
    layer's sqrt(5), in units of X's columns' standard deviations; without blocks, and in the
    paper's setup (unit scales), sqrt(D_in) = sqrt(8) over all of a layer's inputs."""
    rng = np.random.default_rng(2)
    X, Y = rng.standard_normal((40, 5)) * [1.0, 2.0, 3.0, 4.0, 5.0], rng.standard_normal((40, 1))
    options = {} if per_block is None else dict(lengthscales_per_block=per_block)
    model = build_random_feature_dgp(
        X, Y, num_layers=3, num_features=8, setup=setup, feed_forward=True, hidden_width=3, **options
    )
    first, hidden, last = (layer.kernel.lengthscales.numpy() for layer in model.layers)
    std = np.std(X, axis=0) if setup == "data" else np.ones(5)
    np.testing.assert_allclose(first, np.sqrt(5) * std, rtol=1e-10)
    per_block = per_block is None and setup == "data"
    blocks = np.r_[np.full(3, np.sqrt(3)), np.full(5, np.sqrt(5))] if per_block else np.sqrt(8)
    for lengthscales in (hidden, last):
        np.testing.assert_allclose(lengthscales, blocks * np.r_[np.ones(3), std], rtol=1e-10)
