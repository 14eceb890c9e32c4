"""SoDDGP with q(F_S) whitened per path (``whiten=True``): q over V = Lk⁻¹ F_S with Lk = chol K at
each path's subset inputs. Checked against per-path loops of GPflow's conditionals and direct
Gaussian algebra, and against the unwhitened model at the same distribution."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from gpflow.kullback_leiblers import gauss_kl
from scipy.stats import norm

import gpflow_deep as gd
from gpflow_deep import SoDDGP
from gpflow_deep.layers import SubsetLastLayer, SubsetLayer
from gpflow_deep.objectives import subset_expected_log_likelihood


def random_cholesky(rng, L, M):
    return np.tril(0.5 * rng.normal(size=(L, M, M)), -1) + np.eye(M) * rng.uniform(0.3, 1.0, size=(L, M, 1))


def kernel_cholesky(kernel, Z):
    return np.linalg.cholesky(kernel(Z).numpy() + gpflow.config.default_jitter() * np.eye(len(Z)))


def test_whitened_hidden_layer_matches_gpflows_white_conditional_and_its_kl_is_path_free(rng):
    S, M, N, D, L = 3, 5, 7, 2, 2
    kernel = gpflow.kernels.SquaredExponential(variance=0.8, lengthscales=1.1)
    q_mu, q_sqrt = rng.normal(size=(M, L)), random_cholesky(rng, L, M)
    layer = SubsetLayer(kernel, M, D, L, q_mu=q_mu, q_sqrt=q_sqrt, noise_variance=0.05, whiten=True)
    inputs = rng.normal(size=(S, M + N, D))
    mean, var = layer.marginals(inputs)
    for s in range(S):
        expected_mean, expected_var = gpflow.conditionals.conditional(
            inputs[s], inputs[s, :M], kernel, tf.constant(q_mu), q_sqrt=tf.constant(q_sqrt), white=True, full_cov=False
        )
        np.testing.assert_allclose(mean[s], expected_mean, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(var[s], expected_var + 0.05, rtol=1e-8, atol=1e-10)
    white_kl = gauss_kl(q_mu, q_sqrt)  # against N(0, I)
    np.testing.assert_allclose(layer.regulariser(inputs), white_kl, rtol=1e-9)
    np.testing.assert_allclose(layer.regulariser(rng.normal(size=(S, M + N, D))), white_kl, rtol=1e-9)


def test_whitened_last_layer_conditions_each_paths_q_on_the_targets(rng):
    """On path s, q_s(F_S) = N(Lk_s μ, Lk_s Σ Lk_sᵀ) and q^_s ∝ N(y_S | F_S, σ² I) q_s (eq. 12):
    marginals, q^'s marginals, KL and the subset's expected log-likelihood against a loop of direct algebra."""
    S, M, N, D, noise = 3, 5, 4, 2, 0.2
    kernel = gpflow.kernels.Matern52(variance=0.9, lengthscales=1.3)
    likelihood = gpflow.likelihoods.Gaussian(variance=noise)
    q_mu, q_sqrt, y = rng.normal(size=(M, 1)), random_cholesky(rng, 1, M), rng.normal(size=(M, 1))
    layer = SubsetLastLayer(kernel, M, D, likelihood, y, q_mu=q_mu, q_sqrt=q_sqrt, whiten=True)
    inputs = rng.normal(size=(S, M + N, D))
    mean, var = layer.marginals(inputs)
    kls, expected_log_likelihoods, subset_means, subset_variances = [], [], [], []
    for s in range(S):
        Z = inputs[s, :M]
        Lk = kernel_cholesky(kernel, Z)
        mu_s, Sigma_s = Lk @ q_mu, Lk @ q_sqrt[0] @ q_sqrt[0].T @ Lk.T
        Sigma_hat = np.linalg.inv(np.linalg.inv(Sigma_s) + np.eye(M) / noise)
        mu_hat = Sigma_hat @ (y / noise + np.linalg.solve(Sigma_s, mu_s))
        sqrt_hat = np.linalg.cholesky(Sigma_hat)[None]
        expected_mean, expected_var = gpflow.conditionals.conditional(
            inputs[s], Z, kernel, tf.constant(mu_hat), q_sqrt=tf.constant(sqrt_hat), white=False, full_cov=False
        )
        np.testing.assert_allclose(mean[s], expected_mean, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(var[s], expected_var, rtol=1e-7, atol=1e-9)
        kls.append(gauss_kl(mu_hat, sqrt_hat, Lk @ Lk.T))
        log_densities = norm.logpdf(y[:, 0], mu_hat[:, 0], np.sqrt(noise)) - np.diag(Sigma_hat) / (2 * noise)
        expected_log_likelihoods.append(log_densities.sum())
        subset_means.append(mu_hat)
        subset_variances.append(np.diag(Sigma_hat)[:, None])
    np.testing.assert_allclose(layer.regulariser(inputs), np.mean(kls), rtol=1e-8)
    terms = layer.training_terms(inputs)
    np.testing.assert_allclose(terms.means, mean[:, M:], rtol=1e-12)
    np.testing.assert_allclose(terms.variances, var[:, M:], rtol=1e-12)
    np.testing.assert_allclose(terms.subset_means, subset_means, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(terms.subset_variances, subset_variances, rtol=1e-7, atol=1e-9)
    subset_term = subset_expected_log_likelihood(likelihood, terms.subset_means, terms.subset_variances, y)
    np.testing.assert_allclose(subset_term, np.mean(expected_log_likelihoods), rtol=1e-9)
    np.testing.assert_allclose(terms.kl, np.mean(kls), rtol=1e-8)
    assert np.ptp(kls) > 1e-3  # each path its own q^: the loop is not a broadcast


def one_layer_models(rng, N=40, M=8):
    """The same one-layer SoDDGP unwhitened and whitened, q(F_S) = N(Lk μ_w, Lk Σ_w Lkᵀ) in both."""
    X = rng.uniform(-3, 3, size=(N, 1))
    Y = np.sin(2 * X) + 0.3 * rng.normal(size=(N, 1))
    indices = rng.choice(N, M, replace=False)
    kernel = gpflow.kernels.SquaredExponential(variance=1.3, lengthscales=0.8)
    Lk = kernel_cholesky(kernel, X[indices])
    white_mu, white_sqrt = rng.normal(size=(M, 1)), random_cholesky(rng, 1, M)
    models = []
    for whiten, q_mu, q_sqrt in ((False, Lk @ white_mu, Lk[None] @ white_sqrt), (True, white_mu, white_sqrt)):
        likelihood = gpflow.likelihoods.Gaussian(variance=0.1)
        layer = SubsetLastLayer(kernel, M, 1, likelihood, Y[indices], q_mu=q_mu, q_sqrt=q_sqrt, whiten=whiten)
        models.append(SoDDGP([layer], likelihood, X[indices], num_data=N, num_samples=2))
    return models, X, Y


def test_with_fixed_subset_inputs_whitening_only_reparameterises_q(rng):
    (plain, white), X, Y = one_layer_models(rng)
    np.testing.assert_allclose(white.elbo((X, Y)), plain.elbo((X, Y)), rtol=1e-9)
    X_test = rng.uniform(-3, 3, size=(6, 1))
    Y_test = np.sin(2 * X_test)
    np.testing.assert_allclose(
        white.predict_log_density((X_test, Y_test)), plain.predict_log_density((X_test, Y_test)), rtol=1e-8
    )


@pytest.mark.parametrize("hidden_mean", ["linear", "zero"])
def test_the_builders_whitened_start_is_the_unwhitened_start(rng, hidden_mean):
    """``whiten=True`` starts every q at the same distribution over the subset as ``whiten=False``
    (the first layer's marginals and the one-layer bound agree), and trains as many numbers."""
    X, Y = rng.normal(size=(40, 3)), rng.normal(size=(40, 1))
    options = dict(subset_size=8, hidden_width=2, joint_sampling=False, hidden_mean=hidden_mean)
    plain, white = gd.build_sod_dgp(X, Y, 3, **options), gd.build_sod_dgp(X, Y, 3, whiten=True, **options)
    assert white.num_trainable_parameters == plain.num_trainable_parameters
    inputs = np.concatenate([plain.subset_inputs.numpy(), X[:5]])[None]
    for plain_output, white_output in zip(plain.layers[0].marginals(inputs), white.layers[0].marginals(inputs)):
        np.testing.assert_allclose(white_output, plain_output, rtol=1e-6, atol=1e-10)
    plain, white = gd.build_sod_dgp(X, Y, 1, subset_size=8), gd.build_sod_dgp(X, Y, 1, subset_size=8, whiten=True)
    np.testing.assert_allclose(white.elbo((X, Y)), plain.elbo((X, Y)), rtol=1e-9)


def test_a_whitened_last_layer_needs_each_paths_cholesky(rng):
    likelihood = gpflow.likelihoods.Gaussian()
    layer = SubsetLastLayer(gpflow.kernels.SquaredExponential(), 4, 2, likelihood, rng.normal(size=(4, 1)), whiten=True)
    with pytest.raises(ValueError, match="whitened q.*Cholesky"):
        layer.subset_marginals()
