"""AEPDGP and AEPLayer: the EP energy against direct Gaussian formulas, Monte Carlo log Z_n against
quadrature, gradients, positive definiteness, moment matching, likelihoods and bad input."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from scipy.special import logsumexp
from scipy.stats import multivariate_normal, norm

import gpflow_deep as gd
from gpflow_deep import AEPDGP, AEPLayer
from gpflow_deep.layers.ep.gaussian_normalisers import log_normaliser, moments
from gpflow_deep.propagation import sample_layers

pytestmark = pytest.mark.shape_checks("compiled")


def random_site_scale(rng, L, M):
    """A lower-triangular ``[L, M, M]`` with a positive diagonal."""
    scale = np.tril(rng.normal(size=(L, M, M)))
    idx = np.arange(M)
    scale[:, idx, idx] = rng.uniform(0.3, 2.0, size=(L, M))
    return scale


def random_layer(rng, D=2, L=2, M=5, N=20, mean_function=None, noise=0.1):
    return AEPLayer(
        gpflow.kernels.SquaredExponential(variance=1.3, lengthscales=rng.uniform(0.7, 2.0, size=D)),
        rng.normal(size=(M, D)),
        L,
        N,
        mean_function,
        noise_variance=noise,
        site_mean=rng.normal(size=(M, L)),
        site_scale=random_site_scale(rng, L, M),
    )


def u_space(layer, mode):
    """Mean ``[L, M]`` and covariance ``[L, M, M]`` of u = Lu v under q, the cavity or the prior,
    computed directly from the parameters with numpy."""
    Z = layer.inducing_variable.Z.numpy()
    Kuu = layer.kernel(Z).numpy() + gpflow.config.default_jitter() * np.eye(len(Z))
    Lu = np.linalg.cholesky(Kuu)
    N = layer.num_data
    share = {"posterior": 1.0, "cavity": (N - 1) / N, "prior": 0.0}[mode]
    R, gamma = layer.site_scale.numpy(), layer.site_mean.numpy()
    means, covs = [], []
    for k in range(layer.output_dim):
        cov_v = np.linalg.inv(np.eye(len(Z)) + share * R[k] @ R[k].T)
        means.append(Lu @ cov_v @ (share * gamma[:, k]))
        covs.append(Lu @ cov_v @ Lu.T)
    return np.array(means), np.array(covs), Kuu


def phi(mean, cov):
    """The Gaussian log-normaliser from its moments."""
    M = len(mean)
    return 0.5 * M * np.log(2 * np.pi) + 0.5 * np.linalg.slogdet(cov)[1] + 0.5 * mean @ np.linalg.solve(cov, mean)


def normaliser_terms(layer, k):
    """(1 − N) Φ(q) + N Φ(cavity) − Φ(prior) of latent GP k, from its u-space moments."""
    N = layer.num_data
    q, cavity, prior = (phi(*[a[k] for a in u_space(layer, mode)[:2]]) for mode in ("posterior", "cavity", "prior"))
    return (1 - N) * q + N * cavity - prior


def direct_marginals(layer, X, mode):
    """Sparse GP marginals with noise, from u-space moments (numpy)."""
    means, covs, Kuu = u_space(layer, mode)
    Z = layer.inducing_variable.Z.numpy()
    Kxu = layer.kernel(X, Z).numpy()
    W = np.linalg.solve(Kuu, Kxu.T)  # [M, N]
    kxx = layer.kernel.K_diag(X).numpy()
    mean = (W.T @ means.T) + (0 if layer.mean_function is None else layer.mean_function(X).numpy())
    var = np.stack([kxx - np.sum(Kxu.T * W, 0) + np.sum(W * (cov @ W), 0) for cov in covs], axis=-1)
    noise = 0.0 if layer.noise_variance is None else layer.noise_variance.numpy()
    return mean, var + noise


def test_log_normaliser_and_moments_match_direct_gaussian_formulas(rng):
    L, M = 3, 4
    chol = np.linalg.cholesky(np.array([np.eye(M) + a @ a.T for a in rng.normal(size=(L, M, M))]))
    eta = rng.normal(size=(M, L))
    mean, cov_sqrt = moments(chol, eta)
    for k in range(L):
        cov = np.linalg.inv(chol[k] @ chol[k].T)
        mu = cov @ eta[:, k]
        np.testing.assert_allclose(mean[:, k], mu, rtol=1e-10)
        np.testing.assert_allclose(cov_sqrt[k] @ tf.transpose(cov_sqrt[k]), cov, rtol=1e-10, atol=1e-12)
        # N(u | μ, Σ) = exp(ηᵀu − ½uᵀΣ⁻¹u − Φ); at u = μ the exponent's first terms are ½μᵀη
        expected = -multivariate_normal(mu, cov).logpdf(mu) + 0.5 * mu @ eta[:, k]
        np.testing.assert_allclose(log_normaliser(chol, eta)[k], expected, rtol=1e-10)
        np.testing.assert_allclose(log_normaliser(chol, eta)[k], phi(mu, cov), rtol=1e-10)


@pytest.mark.parametrize("N", [1, 7, 500])
def test_regulariser_is_minus_the_energy_normaliser_terms_in_u_space(rng, N):
    layer = random_layer(rng, N=N)
    terms = [normaliser_terms(layer, k) for k in range(layer.output_dim)]
    np.testing.assert_allclose(layer.regulariser(), -np.sum(terms), rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("mode", ["posterior", "cavity"])
def test_marginals_add_the_noise_to_the_sparse_gp_variance(rng, mode):
    layer = random_layer(rng, mean_function=gpflow.mean_functions.Linear(rng.normal(size=(2, 2)), np.zeros(2)))
    X = rng.normal(size=(6, 2))
    mean, var = layer.marginals(X[None], mode=mode)
    expected_mean, expected_var = direct_marginals(layer, X, mode)
    np.testing.assert_allclose(mean[0], expected_mean, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(var[0], expected_var, rtol=1e-8, atol=1e-10)
    noiseless = random_layer(np.random.default_rng(0), noise=None)
    loud = random_layer(np.random.default_rng(0), noise=0.3)
    np.testing.assert_allclose(loud.marginals(X)[1] - noiseless.marginals(X)[1], 0.3, rtol=1e-10)


def test_one_layer_energy_equals_the_closed_form(rng):
    N = 12
    X, Y = rng.normal(size=(N, 2)), rng.normal(size=(N, 1))
    layer = random_layer(rng, L=1, N=N, noise=None)
    model = AEPDGP([layer], gpflow.likelihoods.Gaussian(variance=0.3), N, num_samples=3)
    mean, var = direct_marginals(layer, X, "cavity")
    log_z = norm.logpdf(Y, mean, np.sqrt(var + 0.3)).sum()
    np.testing.assert_allclose(model.energy((X, Y)), log_z + normaliser_terms(layer, 0), rtol=1e-9)
    # minibatch energies average to the full one (one consistent N/B scaling)
    batches = [model.energy((X[i : i + 4], Y[i : i + 4])) for i in range(0, N, 4)]
    np.testing.assert_allclose(np.mean(batches), model.energy((X, Y)), rtol=1e-9)


def test_single_point_energy_is_the_exact_log_marginal_likelihood(rng):
    """N = 1: the cavity is the prior and the normaliser terms cancel, for any site."""
    x, y = rng.normal(size=(1, 2)), rng.normal(size=(1, 1))
    layer = random_layer(rng, L=1, N=1, noise=None, mean_function=gpflow.mean_functions.Linear([[0.5], [-1.0]], [0.2]))
    model = AEPDGP([layer], gpflow.likelihoods.Gaussian(variance=0.2), 1)
    exact = norm.logpdf(y, layer.mean_function(x).numpy(), np.sqrt(layer.kernel(x).numpy() + 0.2))
    np.testing.assert_allclose(model.energy((x, y)), exact.sum(), rtol=1e-6)


def two_layer_model(rng, N=20, num_samples=20, likelihood=None, outputs=1, noise=0.05):
    layers = [
        random_layer(rng, D=2, L=1, M=6, N=N, noise=noise),
        random_layer(rng, D=1, L=outputs, M=6, N=N, noise=None),
    ]
    return AEPDGP(layers, likelihood or gpflow.likelihoods.Gaussian(variance=0.1), N, num_samples=num_samples)


def test_monte_carlo_log_z_agrees_with_quadrature_and_is_a_log_mean_exp(rng):
    model = two_layer_model(rng, noise=1.0)
    X, Y = rng.normal(size=(5, 2)), rng.normal(size=(5, 1))
    S = 4000
    outputs = sample_layers(model.layers, tf.constant(X), S, tf.constant([3, 4], tf.int64), mode="cavity")
    noise = model.likelihood.variance.numpy()
    log_p = norm.logpdf(Y[None, :, 0], outputs[-1].means[..., 0], np.sqrt(outputs[-1].variances[..., 0] + noise))
    estimate = logsumexp(log_p, axis=0) - np.log(S)
    p = np.exp(log_p - log_p.max(0))
    standard_error = p.std(0) / p.mean(0) / np.sqrt(S)  # delta method for the log of a mean

    # exact: ∫ N(y | μ2(h), σ2²(h) + noise) N(h | μ1(x), σ1²(x)) dh by Gauss–Hermite quadrature
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    mean1, var1 = model.layers[0].marginals(X[None], mode="cavity")
    h = mean1.numpy()[0] + np.sqrt(var1.numpy()[0]) * nodes[None, :]  # [N, Q]
    mean2, var2 = model.layers[1].marginals(h[..., None], mode="cavity")
    log_q = norm.logpdf(Y, mean2.numpy()[..., 0], np.sqrt(var2.numpy()[..., 0] + noise))
    exact = logsumexp(log_q + np.log(weights / weights.sum()), axis=1)

    assert np.all(np.abs(estimate - exact) < 4 * standard_error), (estimate, exact, standard_error)
    # the mean of logs (a VI-like objective) is not an estimate of log Z_n: the Jensen gap is
    # many standard errors
    mean_of_logs = log_p.mean(0)
    assert np.sum(exact - mean_of_logs) > 5 * np.sqrt(np.sum(standard_error**2))


def test_energy_gradients_match_finite_differences(rng):
    """Directional derivatives of the (seeded) energy along random directions in all parameters."""
    model = two_layer_model(rng, N=10, num_samples=4)
    X, Y = rng.normal(size=(10, 2)), rng.normal(size=(10, 1))
    variables = model.trainable_variables
    start = [v.numpy() for v in variables]

    def energy(step=0.0, direction=None):
        for variable, value, delta in zip(variables, start, direction or [0.0] * len(start)):
            variable.assign(value + step * delta)
        model.rng.reset_from_seed(5)
        return float(model.energy((X, Y)))

    model.rng.reset_from_seed(5)
    with tf.GradientTape() as tape:
        value = model.energy((X, Y))
    gradients = [tf.convert_to_tensor(g).numpy() for g in tape.gradient(value, variables)]
    eps = 1e-6
    for _ in range(2):
        direction = [rng.normal(size=v.shape) for v in start]
        numeric = (energy(eps, direction) - energy(-eps, direction)) / (2 * eps)
        analytic = sum(np.sum(g * d) for g, d in zip(gradients, direction))
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5)


def test_posterior_and_cavity_stay_positive_definite_for_random_parameters(rng):
    layer = random_layer(rng, L=3, M=6, N=50)
    for _ in range(5):
        for parameter in (layer.site_scale, layer.site_mean):
            variable = parameter.unconstrained_variable
            variable.assign(5.0 * rng.normal(size=variable.shape))
        for mode in ("posterior", "cavity"):
            _, covs, _ = u_space(layer, mode)
            assert np.all(np.linalg.eigvalsh(covs) > 0)
            chol, _ = layer.natural_parameters(mode)
            assert np.all(np.isfinite(chol.numpy()))
        assert np.isfinite(layer.regulariser().numpy())


@pytest.mark.parametrize(
    "mean_function",
    [None, gpflow.mean_functions.Identity(2), gpflow.mean_functions.Linear([[1.0, 0.3], [-0.5, 0.8]], [0.1, -0.2])],
)
def test_moment_matching_matches_a_monte_carlo_of_the_same_layer(rng, mean_function):
    layer = random_layer(rng, D=2, L=2, M=6, mean_function=mean_function)
    mu, s = rng.normal(size=(4, 2)), rng.uniform(0.1, 0.8, size=(4, 2))
    mean, var = layer.moment_match(mu, s, mode="cavity")
    S = 20000
    x = mu + np.sqrt(s) * rng.normal(size=(S, 4, 2))
    f_mean, f_var = (a.numpy() for a in layer.marginals(x, mode="cavity"))
    f = f_mean + np.sqrt(f_var) * rng.normal(size=f_mean.shape)
    np.testing.assert_array_less(np.abs(mean - f.mean(0)), 4 * f.std(0) / np.sqrt(S))
    var_error = np.sqrt(np.mean((f - f.mean(0)) ** 4, 0) - f.var(0) ** 2) / np.sqrt(S)
    np.testing.assert_array_less(np.abs(var - f.var(0)), 4 * var_error)


def test_moment_matching_energy_is_deterministic_and_exact_for_one_layer(rng):
    X, Y = rng.normal(size=(8, 2)), rng.normal(size=(8, 1))
    one = [random_layer(np.random.default_rng(1), L=1, N=8, noise=None) for _ in range(2)]
    mc = AEPDGP([one[0]], gpflow.likelihoods.Gaussian(), 8)
    mm = AEPDGP([one[1]], gpflow.likelihoods.Gaussian(), 8, propagation="moment_matching")
    np.testing.assert_allclose(mm.energy((X, Y)), mc.energy((X, Y)), rtol=1e-10)
    deep = AEPDGP(two_layer_model(rng, N=8).layers, gpflow.likelihoods.Gaussian(), 8, propagation="moment_matching")
    np.testing.assert_allclose(deep.energy((X, Y)), deep.energy((X, Y)))


@pytest.mark.slow
def test_moment_matching_predictions_are_one_gaussian_whatever_the_samples_asked(rng):
    X = rng.normal(size=(8, 2))
    deep = AEPDGP(two_layer_model(rng, N=8).layers, gpflow.likelihoods.Gaussian(), 8, propagation="moment_matching")
    mixture = deep.predict_mixture(X)
    assert mixture.means.shape == (1, 8, 1)
    again = deep.predict_mixture(X, num_samples=50, seed=3)
    np.testing.assert_allclose(again.variances, mixture.variances)


@pytest.mark.parametrize(
    "likelihood, outputs, targets",
    [
        (gpflow.likelihoods.Bernoulli(), 1, lambda r: r.integers(0, 2, size=(12, 1)).astype(float)),
        (gpflow.likelihoods.Poisson(), 1, lambda r: r.poisson(2.0, size=(12, 1)).astype(float)),
        (gpflow.likelihoods.MultiClass(3), 3, lambda r: r.integers(0, 3, size=(12, 1)).astype(float)),
    ],
)
def test_non_gaussian_likelihoods_train_through_the_monte_carlo_path(rng, likelihood, outputs, targets):
    model = two_layer_model(rng, N=12, num_samples=5, likelihood=likelihood, outputs=outputs)
    X, Y = rng.normal(size=(12, 2)), targets(rng)
    with tf.GradientTape() as tape:
        energy = model.energy((X, Y))
    gradients = tape.gradient(energy, model.trainable_variables)
    assert np.isfinite(energy.numpy()) and energy.numpy() < 0
    assert all(np.all(np.isfinite(g)) and np.any(np.asarray(tf.convert_to_tensor(g)) != 0) for g in gradients)


def test_bernoulli_log_z_is_the_probit_closed_form_for_one_layer(rng):
    X, Y = rng.normal(size=(9, 2)), rng.integers(0, 2, size=(9, 1)).astype(float)
    layer = random_layer(rng, L=1, N=9, noise=None)
    model = AEPDGP([layer], gpflow.likelihoods.Bernoulli(), 9)
    mean, var = direct_marginals(layer, X, "cavity")
    jitter = 1e-3  # GPflow's probit is squeezed into [1e-3, 1 − 1e-3]
    p_one = jitter + (1 - 2 * jitter) * norm.cdf(mean / np.sqrt(1 + var))
    log_z = np.log(np.where(Y == 1, p_one, 1 - p_one)).sum()
    np.testing.assert_allclose(model.energy((X, Y)) + layer.regulariser(), log_z, rtol=1e-6)


def test_float32_model_builds_and_has_finite_energy_gradients(concrete_split):
    X, Y = (a[:60].astype(np.float32) for a in concrete_split[:2])
    with gpflow.config.as_context(gpflow.config.Config(float=np.float32, jitter=1e-4)):
        model = gd.build_aep_dgp(X, Y, num_inducing=10, num_samples=3)
        with tf.GradientTape() as tape:
            energy = model.energy((X, Y))
        gradients = tape.gradient(energy, model.trainable_variables)
        assert energy.dtype == tf.float32 and np.isfinite(energy.numpy())
        assert all(g.dtype == tf.float32 and np.all(np.isfinite(g)) for g in gradients)
        mean, var = model.layers[0].moment_match(X[:5], np.full((5, 8), 0.1, np.float32))
        assert mean.dtype == tf.float32 and np.all(var.numpy() > 0)


def test_builder_adapts_to_small_data_and_rejects_bad_input(rng):
    X, Y = rng.normal(size=(15, 3)), rng.normal(size=(15, 1))
    model = gd.build_aep_dgp(X, Y, num_layers=3)
    assert [layer.num_inducing for layer in model.layers] == [15, 15, 15]
    assert model.layers[-1].noise_variance is None and model.layers[-1].mean_function is None
    sd = np.linalg.inv(np.eye(15) + model.layers[0].site_scale.numpy()[0] @ model.layers[0].site_scale.numpy()[0].T)
    np.testing.assert_allclose(np.sqrt(np.diag(sd)), 0.01, rtol=1e-6)
    with pytest.raises(ValueError, match="propagation must be one of"):
        gd.build_aep_dgp(X, Y, propagation="sigma_points")
    with pytest.raises(ValueError, match="inner_posterior_std"):
        gd.build_aep_dgp(X, Y, inner_posterior_std=1.5)
    with pytest.raises(ValueError, match="Y has 14 rows"):
        gd.build_aep_dgp(X, Y[:14])


def test_bad_modes_kernels_and_site_sizes_are_refused(rng):
    layer = random_layer(rng, N=10)
    with pytest.raises(ValueError, match="has no 'prior' distribution"):
        layer.marginals(rng.normal(size=(3, 2)), mode="prior")
    matern = AEPLayer(gpflow.kernels.Matern52(), rng.normal(size=(4, 2)), 1, 10)
    with pytest.raises(ValueError, match="needs a SquaredExponential kernel"):
        matern.moment_match(np.zeros((3, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="site for N=10, but num_data=11"):
        AEPDGP([layer], gpflow.likelihoods.Gaussian(variance=0.1), 11)
    with pytest.raises(ValueError, match="has no moment_match"):
        AEPDGP(
            [layer, gd.GPLayer(gpflow.kernels.SquaredExponential(), np.zeros((3, 2)), 1)],
            gpflow.likelihoods.Gaussian(),
            10,
            propagation="moment_matching",
        ).energy((np.zeros((2, 2)), np.zeros((2, 1))))


@pytest.mark.slow
def test_bimodal_toy_aep_predictive_has_two_modes_where_deep_gp_has_one():
    """The slides' claim on y = ±f(x), in the setting of examples/bimodal.py and its figure."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parents[3] / "examples" / "bimodal.py"
    spec = importlib.util.spec_from_file_location("bimodal", path)
    bimodal = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bimodal)
    aep, dgp = bimodal.fit_both(*bimodal.bimodal_data(), iterations=1500)
    assert np.all(bimodal.branch_to_middle_ratios(aep, 0.5) > 2)
    assert np.all(bimodal.branch_to_middle_ratios(dgp, 0.5) < 1)
