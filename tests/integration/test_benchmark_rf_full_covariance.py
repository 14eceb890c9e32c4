"""The full-covariance last layer that ``rf_full_covariance`` trains beside a random-feature GP's defaults."""

import numpy as np
import tensorflow as tf

from benchmarks.experiments.rf_full_covariance import FullCovarianceWeights
from gpflow_deep import build_random_feature_dgp

SEED = tf.constant([3, 4], tf.int64)


def _model(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((30, 2))
    return build_random_feature_dgp(X, np.sin(X[:, :1]), num_layers=1, num_features=4), X


def test_started_diagonal_it_draws_what_the_factorised_layer_draws_and_has_its_kl():
    model, X = _model()
    [layer] = model.layers
    full = FullCovarianceWeights.from_layer(layer)
    for a, b in zip(layer.marginals(X[None], seed=SEED, num_paths=5), full.marginals(X[None], seed=SEED, num_paths=5)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(full.weights_kl(), layer.weights_kl(), rtol=1e-10)
    trained = {id(variable) for variable in full.trainable_variables}
    assert id(layer.w_std.unconstrained_variable) not in trained  # S replaces the factorised s
    assert id(full.w_sqrt.unconstrained_variable) in trained


def test_its_weights_have_the_full_covariance_and_its_kl_is_the_closed_form():
    model, X = _model(1)
    full = FullCovarianceWeights.from_layer(model.layers[0])
    F = full.w_mean.shape[0]
    S = np.tril(np.random.default_rng(2).standard_normal((1, F, F))) + 2 * np.eye(F)
    full.w_sqrt.assign(S)
    m, covariance = full.w_mean.numpy(), S[0] @ S[0].T
    kl = 0.5 * (np.trace(covariance) + np.sum(m**2) - F - np.linalg.slogdet(covariance)[1])
    np.testing.assert_allclose(full.weights_kl(), kl, rtol=1e-10)
    # f = Φ W for one path: its covariance over points is Φ S Sᵀ Φᵀ; estimated over 4,000 paths
    inputs = X[None, :3]
    outputs, variances = full.marginals(inputs, seed=SEED, num_paths=4000)
    Phi = full.features(inputs, SEED)[0].numpy()
    np.testing.assert_allclose(np.mean(outputs[..., 0], axis=0), (Phi @ m)[:, 0], atol=0.15)
    expected = Phi @ covariance @ Phi.T
    np.testing.assert_allclose(np.cov(outputs[..., 0].numpy().T), expected, atol=0.1 * np.max(np.abs(expected)))
    assert np.all(variances.numpy() == 0)


def test_a_model_with_it_trains_its_covariance():
    model, X = _model(3)
    import gpflow_deep as gd

    model.layers[-1] = FullCovarianceWeights.from_layer(model.layers[-1])
    start = model.layers[-1].w_sqrt.numpy().copy()
    gd.fit(model, (X, np.sin(X[:, :1])), 20, seed=0, progress=False)
    trained = model.layers[-1].w_sqrt.numpy()
    assert not np.allclose(np.tril(trained, -1), np.tril(start, -1))  # off-diagonal entries moved
