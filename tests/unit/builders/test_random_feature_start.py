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
