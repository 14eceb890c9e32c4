"""DSPP: the objective against PPGPR by hand, exact finite mixtures, determinism, training."""

import logging

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from scipy.integrate import fixed_quad, quad
from scipy.stats import norm

import gpflow_deep as gd
from gpflow_deep import DSPP, GPLayer
from gpflow_deep.models.dspp import BlendedLogLikelihood, gauss_hermite_sigma_points, random_sigma_points
from gpflow_deep.objectives import expected_log_likelihood, predictive_log_likelihood

pytestmark = pytest.mark.shape_checks("compiled")


def small_dspp(
    rng, num_sigma_points=4, width=2, D=2, beta=0.5, points=None, weights=None, kernel=gpflow.kernels.Matern52
):
    layers = [
        GPLayer(
            kernel(lengthscales=np.ones(D)),
            rng.normal(size=(6, D)),
            width,
            mean_function=gpflow.mean_functions.Linear(A=rng.normal(size=(D, width))),
            q_diag=True,
            q_mu=rng.normal(size=(6, width)),
            q_sqrt=rng.uniform(0.3, 1.0, (6, width)),
        ),
        GPLayer(
            kernel(lengthscales=np.ones(width)),
            rng.normal(size=(6, width)),
            1,
            mean_function=gpflow.mean_functions.Constant(np.array([0.2])),
            q_diag=True,
            q_mu=rng.normal(size=(6, 1)),
            q_sqrt=rng.uniform(0.3, 1.0, (6, 1)),
        ),
    ]
    if points is None:
        points = random_sigma_points(num_sigma_points, [width], seed=1)
    if weights is None:
        weights = rng.dirichlet(np.ones(len(points[0])))
    return DSPP(
        layers, gpflow.likelihoods.Gaussian(variance=0.1), num_data=40, sigma_points=points, weights=weights, beta=beta
    )


def test_one_layer_dspp_is_ppgpr_by_hand(rng):
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 1))
    Z, q_mu, q_sqrt = rng.normal(size=(5, 2)), rng.normal(size=(5, 1)), np.tril(rng.normal(size=(1, 5, 5)))
    kernel = gpflow.kernels.SquaredExponential(lengthscales=[0.8, 1.3])
    layer = GPLayer(kernel, Z, 1, q_mu=q_mu, q_sqrt=q_sqrt)
    model = DSPP(
        [layer], gpflow.likelihoods.Gaussian(variance=0.2), num_data=90, sigma_points=[], weights=np.ones(1), beta=0.3
    )
    svgp = gpflow.models.SVGP(
        kernel, gpflow.likelihoods.Gaussian(), gpflow.inducing_variables.InducingPoints(Z), q_mu=q_mu, q_sqrt=q_sqrt
    )
    mean, var = svgp.predict_f(X)
    by_hand = 90 / 30 * np.sum(norm.logpdf(Y, mean, np.sqrt(var + 0.2))) - 0.3 * svgp.prior_kl()
    np.testing.assert_allclose(model.predictive_log_likelihood((X, Y)), by_hand, rtol=1e-10)
    np.testing.assert_allclose(model.maximum_log_likelihood_objective((X, Y)), by_hand, rtol=1e-10)


def test_objective_is_the_weighted_mixture_of_sigma_paths_by_hand(rng):
    model = small_dspp(rng)
    X, Y = rng.normal(size=(12, 2)), rng.normal(size=(12, 1))
    first, last = model.layers
    hidden_mean, hidden_var = first.marginals(X)
    weights = np.exp(model.log_weights().numpy())
    density = 0.0
    for s, xi in enumerate(model.sigma_points[0].numpy()):
        g = hidden_mean + xi * np.sqrt(hidden_var)
        mean, var = last.marginals(g)
        density += weights[s] * norm.pdf(Y, mean, np.sqrt(var + 0.1))
    by_hand = 40 / 12 * np.sum(np.log(density)) - 0.5 * model.regulariser()
    np.testing.assert_allclose(model.predictive_log_likelihood((X, Y)), by_hand, rtol=1e-10)
    np.testing.assert_allclose(model.predict_log_density((X, Y)), np.log(density[:, 0]), rtol=1e-10)


def test_mixture_density_integrates_to_one(rng):
    model = small_dspp(rng)
    x = rng.normal(size=(1, 2))
    density = lambda y: float(np.exp(model.predict_log_density((x, np.array([[y]])))[0]))  # noqa: E731
    total, _ = quad(density, -15, 15, limit=200)
    assert abs(total - 1) < 1e-6


def test_zero_hidden_variance_gives_the_deterministic_composition(rng):
    model = small_dspp(rng)
    first, last = model.layers
    first.kernel.kernel.variance.assign(1e-14)
    X = rng.normal(size=(7, 2))
    hidden_mean, hidden_var = first.marginals(X)
    assert np.max(hidden_var) < 1e-12
    expected_mean, expected_var = last.marginals(hidden_mean)
    mixture = model.predict_mixture(X)
    for s in range(model.num_sigma_points):
        np.testing.assert_allclose(mixture.means[s], expected_mean, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(mixture.variances[s], expected_var, rtol=1e-6, atol=1e-9)
    mean, var = model.predict_f(X)
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(var, expected_var, rtol=1e-6, atol=1e-9)


def test_objective_and_predictions_are_deterministic(rng):
    model = small_dspp(rng)
    X, Y = rng.normal(size=(9, 2)), rng.normal(size=(9, 1))
    np.testing.assert_array_equal(model.predictive_log_likelihood((X, Y)), model.predictive_log_likelihood((X, Y)))
    for first, second in zip(model.predict_y(X), model.predict_y(X)):
        np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(model.predict_log_density((X, Y)), model.predict_log_density((X, Y)))


def test_gauss_hermite_sigma_points_integrate_one_hidden_unit(rng):
    """With one hidden unit, S Gauss–Hermite points are the quadrature of the 2-layer integral."""
    points, weights = gauss_hermite_sigma_points(40, [1])
    model = small_dspp(rng, width=1, points=points, weights=weights, kernel=gpflow.kernels.SquaredExponential)
    x, y = rng.normal(size=(1, 2)), np.array([[0.3]])
    first, last = model.layers
    mu_g, var_g = (v.numpy().item() for v in first.marginals(x))

    def integrand(g):  # g [n], evaluated at every node in one call
        mean, var = (v.numpy()[:, 0] for v in last.marginals(g[:, None]))
        return norm.pdf(0.3, mean, np.sqrt(var + 0.1)) * norm.pdf(g, mu_g, np.sqrt(var_g))

    exact, _ = fixed_quad(integrand, mu_g - 10 * np.sqrt(var_g), mu_g + 10 * np.sqrt(var_g), n=400)
    np.testing.assert_allclose(np.exp(model.predict_log_density((x, y))), [exact], rtol=1e-6)


def test_sigma_points_line_up_across_layers(rng):
    """A 3-layer DSPP has S paths, and path s uses site s in both hidden layers."""
    X, Y = rng.normal(size=(60, 3)), rng.normal(size=(60, 1))
    model = gd.build_dspp(X, Y, num_layers=3, num_inducing=10, hidden_width=2, num_sigma_points=5)
    outputs = model.predict_all_layers(X[:4])
    assert [tuple(o.values.shape) for o in outputs] == [(5, 4, 2), (5, 4, 2), (5, 4, 1)]
    first, second = model.layers[:2]
    mean, var = second.marginals(outputs[0].values)
    expected = mean + model.sigma_points[1].numpy()[:, None, :] * np.sqrt(var)
    np.testing.assert_allclose(outputs[1].values, expected, rtol=1e-10)
    assert model.predict_mixture(X[:4]).means.shape == (5, 4, 1)


@pytest.mark.parametrize("optimizer", [pytest.param("scipy", marks=pytest.mark.slow), "adam"])
def test_scipy_and_adam_reduce_the_objective_on_real_data(concrete_split, optimizer):
    X, Y, _, _ = concrete_split
    model = gd.build_dspp(X, Y, num_inducing=20, num_sigma_points=5, beta=0.2)
    before = float(model.training_loss((X, Y)))
    if optimizer == "scipy":
        gpflow.optimizers.Scipy().minimize(
            model.training_loss_closure((X, Y)), model.trainable_variables, options=dict(maxiter=60)
        )
    else:
        gd.fit(model, (X, Y), 60, batch_size=50, seed=0, progress=False)
    assert float(model.training_loss((X, Y))) < before - 10


def test_predict_f_samples_follow_the_finite_mixture(rng):
    model = small_dspp(rng)
    X = rng.normal(size=(3, 2))
    samples = model.predict_f_samples(X, num_samples=40000, seed=2).numpy()
    mean, var = model.predict_f(X)
    assert samples.shape == (40000, 3, 1)
    assert np.all(np.abs(samples.mean(0) - mean) < 5 * np.sqrt(var / 40000))
    np.testing.assert_allclose(samples.var(0), var, rtol=0.05)


def test_builder_defaults(rng, caplog):
    """Safe defaults unless ``paper_defaults=True``; either way the builder says what it chose."""
    X, Y = rng.normal(size=(400, 5)), rng.normal(size=(400, 1))
    with caplog.at_level(logging.INFO, logger="gpflow_deep"):
        model = gd.build_dspp(X, Y)
    assert "build_dspp: safe defaults" in caplog.text and "expected_log_likelihood_weight=0.5" in caplog.text
    first, last = model.layers
    assert model.num_sigma_points == 10 and first.num_latent_gps == 3 and first.num_inducing == 100
    assert first.q_diag and last.q_diag and first.whiten
    assert isinstance(first.kernel.kernel, gpflow.kernels.Matern52)
    assert isinstance(first.mean_function, gpflow.mean_functions.Linear) and not first.mean_function.A.trainable
    assert isinstance(last.mean_function, gpflow.mean_functions.Constant) and last.mean_function.c.trainable
    nodes, weights = np.polynomial.hermite_e.hermegauss(10)
    np.testing.assert_allclose(model.sigma_points[0].numpy(), np.tile(nodes[:, None], (1, 3)))
    np.testing.assert_allclose(np.exp(model.log_weights()), weights / weights.sum())
    assert not model.sigma_points[0].trainable and not model.weight_logits.trainable
    assert not any(layer.inducing_variable.trainable_variables for layer in model.layers)
    assert isinstance(model.data_term, BlendedLogLikelihood) and model.data_term.weight == 0.5

    paper = gd.build_dspp(X, Y, paper_defaults=True)
    assert paper.layers[0].num_inducing == 300 and paper.data_term is predictive_log_likelihood
    np.testing.assert_allclose(np.exp(paper.log_weights()), 0.1)
    assert paper.sigma_points[0].trainable and paper.weight_logits.trainable and paper.sigma_points[0].shape == (10, 3)
    assert all(layer.inducing_variable.trainable_variables for layer in paper.layers)
    assert paper.layers[0].mean_function.A.trainable  # the paper's learned hidden mean
    explicit = gd.build_dspp(X, Y, num_inducing=20, expected_log_likelihood_weight=0.0, trainable_sigma_points=True)
    assert explicit.data_term is predictive_log_likelihood and explicit.sigma_points[0].trainable
    assert not gd.build_dspp(X, Y, num_inducing=20, q_diag=False).layers[0].q_diag


def test_blended_data_term_lies_between_its_two_ends(rng):
    """(1 − α)·PLL + α·ELL: PLL at α = 0, ELL at α = 1, and PLL ≥ ELL (Jensen)."""
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 1))
    model = gd.build_dspp(X, Y, num_inducing=10, num_sigma_points=4)
    mixture = model.predict_mixture(X)
    args = (model.likelihood, mixture, tf.constant(X), tf.constant(Y), 30)
    pll, ell = predictive_log_likelihood(*args), expected_log_likelihood(*args)
    assert float(pll) > float(ell)
    np.testing.assert_allclose(BlendedLogLikelihood(0.0)(*args), pll, rtol=1e-12)
    np.testing.assert_allclose(BlendedLogLikelihood(1.0)(*args), ell, rtol=1e-12)
    np.testing.assert_allclose(BlendedLogLikelihood(0.25)(*args), 0.75 * pll + 0.25 * ell, rtol=1e-12)
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        BlendedLogLikelihood(1.5)


@pytest.mark.slow  # ~20 s
def test_multi_output_regression_with_linear_mixing(rng):
    X = rng.normal(size=(80, 3))
    Y = np.concatenate([np.sin(X[:, :1]), np.sin(X[:, :1]) + 0.1 * X[:, 1:2], X[:, 2:]], axis=1)
    model = gd.build_dspp(X, Y, num_inducing=15, num_sigma_points=4)
    assert isinstance(model.likelihood, gd.likelihoods.LinearMixingGaussian)
    assert model.layers[-1].num_latent_gps == 3
    gd.fit(model, (X, Y), 30, progress=False)
    mean, var = model.predict_y(X[:5])
    assert mean.shape == (5, 3) and var.shape == (5, 3)
    assert model.predict_log_density((X[:5], Y[:5])).shape == (5,)


def test_errors(rng):
    layers = small_dspp(rng).layers
    likelihood = gpflow.likelihoods.Gaussian()
    with pytest.raises(ValueError, match=r"sigma_points\[0\] must be \[S, 2\]"):
        DSPP(layers, likelihood, 10, sigma_points=[np.zeros((3, 4))])
    with pytest.raises(ValueError, match="one array per hidden layer"):
        DSPP(layers, likelihood, 10, sigma_points=[])
    with pytest.raises(ValueError, match="disagree on the number of sigma points"):
        DSPP(layers, likelihood, 10, sigma_points=[np.zeros((3, 2))], weights=np.ones(4))
    with pytest.raises(ValueError, match="beta must be non-negative"):
        DSPP(layers, likelihood, 10, sigma_points=[np.zeros((3, 2))], beta=-1.0)
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 1))
    with pytest.raises(ValueError, match="sigma_point_initialisation must be one of"):
        gd.build_dspp(X, Y, num_inducing=5, sigma_point_initialisation="grid")
