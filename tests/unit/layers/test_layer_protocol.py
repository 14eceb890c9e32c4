"""The layer protocol, objectives and predictive API serve any layer: a toy Bayesian linear layer,
written here, plugs into DeepGP and DSPP unchanged; mix-and-match models match hand computations."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from gpflow.config import default_float
from gpflow.utilities import positive
from scipy.special import logsumexp
from scipy.stats import norm

import gpflow_deep as gd
from gpflow_deep import DSPP, DeepGP, GPLayer
from gpflow_deep.objectives import predictive_log_likelihood

pytestmark = pytest.mark.shape_checks("compiled")


class BayesianLinearLayer(gpflow.base.Module):
    """y = x W with a factorised Gaussian q(W) = N(mean, scale²) and prior N(0, 1): not a GP.

    Its marginals are exact (a linear map of fixed inputs): mean x·m, variance x²·s².
    """

    path_dependent = False

    def __init__(self, mean: np.ndarray, scale: np.ndarray):
        super().__init__()
        self.mean = gpflow.Parameter(mean, dtype=default_float())
        self.scale = gpflow.Parameter(scale, transform=positive(), dtype=default_float())
        self.input_dim, self.output_dim = mean.shape

    def marginals(self, inputs, *, seed=None, mode="posterior"):
        return tf.linalg.matmul(inputs, self.mean), tf.linalg.matmul(tf.square(inputs), tf.square(self.scale))

    def regulariser(self, inputs=None):
        variance = tf.square(self.scale)
        return 0.5 * tf.reduce_sum(variance + tf.square(self.mean) - 1.0 - tf.math.log(variance))

    def natural_gradient_parameters(self):
        return []

    def monitored_scalars(self):
        return {"kl": self.regulariser}


def toy_layers(rng, widths):
    return [
        BayesianLinearLayer(rng.normal(size=(a, b)), rng.uniform(0.2, 0.8, size=(a, b)))
        for a, b in zip(widths[:-1], widths[1:])
    ]


def kl_by_hand(layers):
    total = 0.0
    for layer in layers:
        m, s2 = layer.mean.numpy(), layer.scale.numpy() ** 2
        total += 0.5 * np.sum(s2 + m**2 - 1 - np.log(s2))
    return total


@pytest.fixture
def data(rng):
    return rng.normal(size=(12, 3)), rng.normal(size=(12, 1))


def test_one_toy_layer_in_deep_gp_is_bayesian_linear_regression_by_hand(rng, data):
    X, Y = data
    (layer,) = toy_layers(rng, [3, 1])
    model = DeepGP([layer], gpflow.likelihoods.Gaussian(variance=0.3), num_data=36)
    mean, var = X @ layer.mean.numpy(), X**2 @ layer.scale.numpy() ** 2
    expected_log_lik = -0.5 * np.log(2 * np.pi * 0.3) - ((Y - mean) ** 2 + var) / (2 * 0.3)
    by_hand = 36 / 12 * expected_log_lik.sum() - kl_by_hand([layer])
    np.testing.assert_allclose(model.elbo((X, Y)), by_hand, rtol=1e-10)
    np.testing.assert_allclose(model.predict_f(X)[1], var, rtol=1e-10)


def test_two_toy_layers_in_deep_gp_give_an_unbiased_elbo(rng, data):
    """E over the hidden layer's Gaussian of the Gaussian expected log-likelihood has a closed form."""
    X, Y = data
    layers = toy_layers(rng, [3, 2, 1])
    model = DeepGP(layers, gpflow.likelihoods.Gaussian(variance=0.3), num_data=12, num_samples=50)
    m1, s1 = layers[0].mean.numpy(), layers[0].scale.numpy() ** 2
    m2, s2 = layers[1].mean.numpy(), layers[1].scale.numpy() ** 2
    h_mean, h_var = X @ m1, X**2 @ s1  # [N, 2]
    squared_error = (Y - h_mean @ m2) ** 2 + h_var @ m2**2  # E[(y − h m2)²]
    f_var = (h_mean**2 + h_var) @ s2  # E[h² s2²]
    by_hand = np.sum(-0.5 * np.log(2 * np.pi * 0.3) - (squared_error + f_var) / 0.6) - kl_by_hand(layers)
    elbo = tf.function(model.elbo)
    estimates = np.array([elbo((X, Y)) for _ in range(200)])
    standard_error = estimates.std() / np.sqrt(len(estimates))
    assert abs(estimates.mean() - by_hand) < 4 * standard_error
    assert standard_error > 0


def test_toy_layers_in_dspp_match_the_sigma_point_mixture_by_hand(rng, data):
    X, Y = data
    layers = toy_layers(rng, [3, 2, 1])
    points, weights = rng.normal(size=(4, 2)), np.array([0.1, 0.2, 0.3, 0.4])
    model = DSPP(
        layers, gpflow.likelihoods.Gaussian(variance=0.3), 24, sigma_points=[points], weights=weights, beta=0.7
    )
    m1, s1 = layers[0].mean.numpy(), layers[0].scale.numpy() ** 2
    m2, s2 = layers[1].mean.numpy(), layers[1].scale.numpy() ** 2
    h = X @ m1 + points[:, None, :] * np.sqrt(X**2 @ s1)  # [S, N, 2]
    component = norm.logpdf(Y[None], h @ m2, np.sqrt(h**2 @ s2 + 0.3))[..., 0]  # [S, N]
    by_hand = 24 / 12 * logsumexp(component + np.log(weights)[:, None], axis=0).sum() - 0.7 * kl_by_hand(layers)
    np.testing.assert_allclose(model.maximum_log_likelihood_objective((X, Y)), by_hand, rtol=1e-10)
    lpd = logsumexp(component + np.log(weights)[:, None], axis=0)
    np.testing.assert_allclose(model.predict_log_density((X, Y)), lpd, rtol=1e-10)


def test_toy_layer_between_gp_layers_trains_and_predicts(rng, concrete_split):
    X, Y, Xt, Yt = concrete_split
    gp = GPLayer(gpflow.kernels.SquaredExponential(lengthscales=np.ones(2)), rng.normal(size=(10, 2)), 1)
    model = DeepGP([toy_layers(rng, [8, 2])[0], gp], gpflow.likelihoods.Gaussian(0.1), num_data=len(X))
    result = gd.fit(model, (X, Y), iterations=60, seed=0, progress=False)
    assert result.objectives[-1] > result.objectives[0]
    lpd = model.predict_log_density((Xt, Yt), num_samples=10, seed=1)
    assert lpd.shape == (len(Xt),) and np.all(np.isfinite(lpd))


def test_deep_ppgpr_is_sampled_paths_under_the_predictive_log_likelihood(rng, data):
    """Mix-and-match: DSVI's propagation with DSPP's objective, checked against its own paths."""
    X, Y = data
    layers = [
        GPLayer(gpflow.kernels.SquaredExponential(), rng.normal(size=(5, 3)), 2, q_mu=rng.normal(size=(5, 2))),
        GPLayer(gpflow.kernels.SquaredExponential(), rng.normal(size=(5, 2)), 1, q_mu=rng.normal(size=(5, 1))),
    ]
    likelihood = gpflow.likelihoods.Gaussian(variance=0.3)
    model = DeepGP(layers, likelihood, 24, num_samples=6, data_term=predictive_log_likelihood, beta=0.5)
    model.rng.reset_from_seed(7)
    seed = model.new_seed()
    model.rng.reset_from_seed(7)
    objective = model.elbo((X, Y))
    last = model._paths(tf.constant(X), 6, seed)[0][-1]
    component = norm.logpdf(Y[None, :, 0], last.means.numpy()[..., 0], np.sqrt(last.variances.numpy()[..., 0] + 0.3))
    kl = sum(float(layer.prior_kl()) for layer in layers)
    by_hand = 24 / 12 * np.sum(logsumexp(component, axis=0) - np.log(6)) - 0.5 * kl
    np.testing.assert_allclose(objective, by_hand, rtol=1e-10)


def test_beta_weights_the_kl_of_deep_gp(rng, data):
    X, Y = data
    layer = GPLayer(gpflow.kernels.SquaredExponential(), rng.normal(size=(5, 3)), 1, q_mu=rng.normal(size=(5, 1)))
    full = DeepGP([layer], gpflow.likelihoods.Gaussian(), 12).elbo((X, Y))
    weighted = DeepGP([layer], gpflow.likelihoods.Gaussian(), 12, beta=0.25).elbo((X, Y))
    np.testing.assert_allclose(weighted - full, 0.75 * layer.prior_kl(), rtol=1e-10)
    with pytest.raises(ValueError, match="beta must be non-negative"):
        DeepGP([layer], gpflow.likelihoods.Gaussian(), 12, beta=-1.0)


def test_an_object_missing_part_of_the_protocol_is_refused_by_name(rng):
    class NoRegulariser:
        input_dim, output_dim, path_dependent = 3, 1, False

        def marginals(self, inputs, *, seed=None, mode="posterior"):
            return inputs, inputs

        def natural_gradient_parameters(self):
            return []

        def monitored_scalars(self):
            return {}

    with pytest.raises(TypeError, match=r"layers\[0\] \(NoRegulariser\) is not a layer: it lacks regulariser"):
        DeepGP([NoRegulariser()], gpflow.likelihoods.Gaussian(), 10)
    broken = toy_layers(rng, [3, 1])[0]
    broken.output_dim = 0
    with pytest.raises(TypeError, match=r"layers\[0\].output_dim must be a positive int"):
        DeepGP([broken], gpflow.likelihoods.Gaussian(), 10)


def test_a_gp_layer_has_no_cavity_and_sigma_points_refuse_path_dependent_layers(rng):
    layer = GPLayer(gpflow.kernels.SquaredExponential(), rng.normal(size=(5, 3)), 2)
    with pytest.raises(ValueError, match="GPLayer has no 'cavity' distribution"):
        layer.marginals(rng.normal(size=(1, 4, 3)), mode="cavity")
    drawing = toy_layers(rng, [3, 2, 1])
    drawing[0].path_dependent = True
    with pytest.raises(ValueError, match=r"layers\[0\] \(BayesianLinearLayer\) draws randomness"):
        gd.propagation.sigma_point_layers(drawing, [tf.zeros((2, 2), tf.float64)], tf.zeros((4, 3), tf.float64))


def test_natural_gradients_need_what_the_last_layer_offers(rng, concrete_split):
    X, Y, _, _ = concrete_split
    layers = toy_layers(rng, [8, 1])
    model = DeepGP(layers, gpflow.likelihoods.Gaussian(), num_data=len(X))
    with pytest.raises(ValueError, match="BayesianLinearLayer\\) offers no parameters to natural gradients"):
        gd.fit(model, (X, Y), 2, natgrad_gamma=0.1, progress=False)
