"""RandomFeatureDGP (Cutajar et al. 2017): feature maps against exact kernels, KLs, Ω treatments,
the Monte Carlo objective, feed-forward, likelihoods, and the training schedule of ``fit``."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
import tensorflow_probability as tfp

import gpflow_deep as gd
from gpflow_deep import RandomFeatureDGP, RandomFeatureLayer
from gpflow_deep.layers.random_features.feature_maps import arccos_features
from gpflow_deep.propagation import sample_layers_feeding_inputs

pytestmark = pytest.mark.shape_checks("compiled")

SEED = tf.constant([3, 4], tf.int64)


def kernels(D):
    """The exact kernels the features estimate, with ARD and non-unit variances."""
    lengthscales = np.linspace(0.7, 1.6, D)
    yield gpflow.kernels.SquaredExponential(variance=1.7, lengthscales=lengthscales)
    for order in (0, 1, 2):
        yield gpflow.kernels.ArcCosine(order, variance=1.3, weight_variances=1 / lengthscales**2, bias_variance=0.4)


@pytest.mark.parametrize("num_features", [300, 30_000])
def test_feature_inner_products_estimate_the_kernels_within_monte_carlo_error(rng, num_features):
    D = 3
    X = rng.normal(size=(5, D))
    for index, kernel in enumerate(kernels(D)):
        layer = RandomFeatureLayer(kernel, D, 1, num_features, omega_mode="prior-fixed", seed=index)
        phi = layer.features(X[None])[0].numpy()  # [N, F]
        if isinstance(kernel, gpflow.kernels.SquaredExponential):  # cos and sin of one ω make one term
            terms = phi[:, None, :num_features] * phi[None, :, :num_features]
            terms += phi[:, None, num_features:] * phi[None, :, num_features:]
        else:
            terms = phi[:, None, :] * phi[None, :, :]
        terms *= num_features  # the estimate is the mean of these N_RF independent terms
        estimate, standard_error = terms.mean(-1), terms.std(-1) / np.sqrt(num_features)
        exact = kernel.K(X).numpy()
        np.testing.assert_allclose(estimate, phi @ phi.T, rtol=1e-10)
        # cos and sin are float32's (feature_maps.cosines_and_sines): the diagonal's error is all rounding
        rounding = 1e-7
        assert np.all(np.abs(estimate - exact) <= 4.5 * standard_error + rounding), (kernel.name, estimate - exact)
        if num_features == 30_000:  # and the error has shrunk with N_RF
            assert np.max(np.abs(estimate - exact)) < 0.05 * np.max(exact)


def test_arc_cosine_order_one_is_relu_scaled_by_two_sigma_squared_over_n_rf():
    kernel = gpflow.kernels.ArcCosine(1, variance=2.5, weight_variances=np.ones(2), bias_variance=1.0)
    layer = RandomFeatureLayer(kernel, 2, 1, 7, omega_mode="prior-fixed")
    X = np.array([[0.3, -1.2], [2.0, 0.5]])
    omega = layer.omega(1).numpy()
    expected = np.sqrt(2 * 2.5 / 7) * np.maximum(0.0, np.c_[X, np.ones(2)] @ omega)
    np.testing.assert_allclose(layer.features(X[None])[0], expected, rtol=1e-12)


def random_posterior(layer, rng):
    """Move q(W) and q(Ω) away from their priors."""
    for name in ("w_mean", "omega_mean"):
        if hasattr(layer, name):
            getattr(layer, name).assign(rng.normal(size=getattr(layer, name).shape))
    for name in ("w_std", "omega_std"):
        if hasattr(layer, name):
            getattr(layer, name).assign(rng.uniform(0.2, 2.0, size=getattr(layer, name).shape))


def test_an_rbf_layer_s_variance_keeps_the_same_bounds_near_the_data_and_far_from_it(rng):
    """Var f(x) = (σ²/R) Σ_r (cos²(ω_rᵀx) s²_r + sin²(ω_rᵀx) s²_{R+r}): cos² + sin² = 1 per frequency, so it
    lies between the sums of the smaller and of the larger s² of each pair, at every x."""
    R, kernel = 20, next(kernels(2))
    layer = RandomFeatureLayer(kernel, 2, 1, R, omega_mode="prior-fixed", local_reparameterisation=True)
    random_posterior(layer, rng)
    s2 = layer.w_std.numpy()[:, 0] ** 2
    scale2 = kernel.variance.numpy() / R
    low, high = scale2 * np.sum(np.minimum(s2[:R], s2[R:])), scale2 * np.sum(np.maximum(s2[:R], s2[R:]))
    X = np.concatenate([rng.normal(size=(50, 2)), 100.0 * rng.normal(size=(50, 2))])  # near, and far
    _, variance = layer.marginals(X[None])
    assert np.all((variance >= low - 1e-9) & (variance <= high + 1e-9))


def gaussian_kl(mean, std, prior_std):
    prior = tfp.distributions.Normal(np.zeros_like(mean), prior_std * np.ones_like(mean))
    kl = tfp.distributions.kl_divergence(tfp.distributions.Normal(mean, std), prior)
    return float(tf.reduce_sum(kl))


@pytest.mark.parametrize("kernel", list(kernels(3))[:2], ids=["rbf", "arccos"])
def test_kls_match_closed_forms(rng, kernel):
    layer = RandomFeatureLayer(kernel, 3, 2, 10, omega_mode="var-fixed")
    np.testing.assert_allclose(layer.regulariser(), 0.0, atol=1e-10)  # q = prior at the start
    random_posterior(layer, rng)
    w_mean, w_std = layer.w_mean.numpy(), layer.w_std.numpy()
    np.testing.assert_allclose(layer.weights_kl(), gaussian_kl(w_mean, w_std, 1.0), rtol=1e-10)
    if isinstance(kernel, gpflow.kernels.SquaredExponential):
        prior_std = kernel.lengthscales.numpy()[:, None] ** -1  # Ω_ij ~ N(0, 1/ℓ_i²)
    else:
        prior_std = np.sqrt(np.r_[kernel.weight_variances.numpy(), kernel.bias_variance.numpy()])[:, None]
    expected_omega = gaussian_kl(layer.omega_mean.numpy(), layer.omega_std.numpy(), prior_std)
    np.testing.assert_allclose(layer.omega_kl(), expected_omega, rtol=1e-10)
    np.testing.assert_allclose(layer.regulariser(), expected_omega + layer.weights_kl(), rtol=1e-12)


def small_model(rng, omega_mode="var-fixed", local=False, N=40, D=2, likelihood=None, num_samples=1):
    X, Y = rng.normal(size=(N, D)), rng.normal(size=(N, 1))
    model = gd.build_random_feature_dgp(
        X,
        Y,
        2,
        num_features=20,
        omega_mode=omega_mode,
        local_reparameterisation=local,
        likelihood=likelihood,
        num_samples=num_samples,
        setup="paper",
    )
    return model, (X, Y)


def test_prior_fixed_omega_has_no_kl(rng):
    model, _ = small_model(rng, "prior-fixed")
    layer = model.layers[0]
    assert not hasattr(layer, "omega_mean") and float(layer.omega_kl()) == 0.0
    random_posterior(layer, rng)
    assert float(layer.weights_kl()) > 0.0
    np.testing.assert_allclose(layer.regulariser(), layer.weights_kl(), rtol=1e-12)


def test_var_fixed_keeps_its_noise_and_var_resampled_redraws_it(rng):
    fixed, data = small_model(rng, "var-fixed")
    layer = fixed.layers[0]
    noise = layer.omega_noise.numpy()
    np.testing.assert_array_equal(layer.omega(4, seed=SEED), layer.omega(4, seed=SEED + 1))
    assert not layer.omega_noise.trainable
    omega_mean = layer.omega_mean.numpy()
    optimizer = gpflow.keras.tf_keras.optimizers.Adam(0.05)
    for _ in range(2):
        optimizer.minimize(lambda: fixed.training_loss(data), fixed.trainable_variables)
    np.testing.assert_array_equal(layer.omega_noise, noise)
    assert not np.allclose(layer.omega_mean, omega_mean)

    resampled, _ = small_model(rng, "var-resampled")
    layer = resampled.layers[0]
    assert not hasattr(layer, "omega_noise")
    random_posterior(layer, rng)
    draws = layer.omega(4000, seed=SEED).numpy()  # [paths, rows, N_RF]
    np.testing.assert_array_equal(draws, layer.omega(4000, seed=SEED))  # keyed by the seed
    assert not np.allclose(draws[0], layer.omega(1, seed=SEED + 1)[0])
    assert not np.allclose(draws[0], draws[1])  # one Ω per path
    standard_error = layer.omega_std.numpy() / np.sqrt(len(draws))
    assert np.all(np.abs(draws.mean(0) - layer.omega_mean.numpy()) < 4.5 * standard_error)
    np.testing.assert_allclose(draws.std(0), layer.omega_std, rtol=0.1)


def test_paper_estimator_draws_one_w_per_path_shared_by_the_batch(rng):
    model, (X, _) = small_model(rng)
    layer = model.layers[-1]
    assert layer.path_dependent
    random_posterior(layer, rng)
    inputs = tf.constant(rng.normal(size=(3, 6, layer.input_dim)))
    mean, var = layer.marginals(inputs, seed=SEED)
    assert np.all(var.numpy() == 0.0)
    W = layer.w_mean + layer.w_std * tf.random.stateless_normal(
        [3, *layer.w_mean.shape], layer._seeds(SEED)[1], dtype=tf.float64
    )
    np.testing.assert_allclose(mean, layer.features(inputs) @ W, rtol=1e-10)
    with pytest.raises(ValueError, match="needs a \\[2\\] seed"):
        layer.marginals(inputs)


@pytest.mark.parametrize("omega_mode", ["var-fixed", "var-resampled"])
def test_inputs_shared_by_all_paths_give_the_same_draws_as_inputs_repeated_on_each(rng, omega_mode):
    """The first layer receives ``[1, N, D]`` and ``num_paths``: the same W (and Ω) per path as
    when its inputs are repeated S times."""
    model, _ = small_model(rng, omega_mode)
    layer = model.layers[0]
    random_posterior(layer, rng)
    inputs = rng.normal(size=(1, 6, layer.input_dim))
    shared = layer.marginals(inputs, seed=SEED, num_paths=3)
    repeated = layer.marginals(np.repeat(inputs, 3, axis=0), seed=SEED)
    np.testing.assert_allclose(shared[0], repeated[0], rtol=1e-12)
    assert shared[0].shape == (3, 6, layer.output_dim) and np.ptp(shared[0].numpy(), axis=0).min() > 0


def test_paper_estimator_averages_to_the_local_reparameterisation_expectation(rng):
    """One layer, Gaussian likelihood: the local reparameterisation's Gaussian marginal gives
    E_q(W)[log p(y | ΦW)] exactly; the paper's shared-W estimator must average to it."""
    X, Y = rng.normal(size=(15, 2)), rng.normal(size=(15, 1))
    layers = []
    for local in (False, True):
        layer = RandomFeatureLayer(
            gpflow.kernels.SquaredExponential(), 2, 1, 10, local_reparameterisation=local, seed=1
        )
        random_posterior(layer, np.random.default_rng(5))
        layers.append(layer)
    shared, local = (RandomFeatureDGP([layer], gpflow.likelihoods.Gaussian(0.3), 15, num_samples=1) for layer in layers)
    assert not local.layers[0].path_dependent
    exact = float(local.elbo((X, Y)))
    np.testing.assert_allclose(local.elbo((X, Y)), exact, rtol=1e-12)  # deterministic
    mixture = shared.predict_mixture(X, num_samples=4000, seed=7)  # 4000 paths, each its own W
    assert np.all(mixture.variances.numpy() == 0.0)
    terms = shared.likelihood.log_prob(X, mixture.means, Y[None]).numpy().sum(-1)  # [paths]
    estimates = terms - float(shared.regulariser())
    standard_error = estimates.std() / np.sqrt(len(estimates))
    assert abs(estimates.mean() - exact) < 4 * standard_error
    assert standard_error < 0.02 * abs(exact)  # the test has power


def test_minibatch_objective_is_unbiased(rng):
    model, (X, Y) = small_model(rng, num_samples=2, N=30)
    random_posterior(model.layers[0], rng)
    elbo = tf.function(model.elbo)
    full = np.array([elbo((X, Y)) for _ in range(200)])
    minibatch = []
    for _ in range(600):
        rows = rng.choice(30, size=5, replace=False)
        minibatch.append(elbo((X[rows], Y[rows])))
    minibatch = np.array(minibatch)
    standard_error = np.sqrt(full.var() / len(full) + minibatch.var() / len(minibatch))
    assert abs(full.mean() - minibatch.mean()) < 4 * standard_error
    # power: without the N/B scaling the mean moves by many standard errors
    assert abs(full.mean() - minibatch.mean() * 5 / 30) > 10 * standard_error


def test_gradient_matches_finite_differences(rng):
    model, data = small_model(rng, local=True)
    random_posterior(model.layers[0], rng)
    variable = model.layers[0].kernel.lengthscales.unconstrained_variable
    seed = tf.constant([1, 1], tf.int64)

    def objective():
        mixture = model._mixture(tf.constant(data[0]), 3, seed)
        return gd.objectives.expected_log_likelihood(model.likelihood, mixture, *data, 40) - model.regulariser()

    with tf.GradientTape() as tape:
        value = objective()
    gradient = tape.gradient(value, variable).numpy()
    step, numeric = 1e-6, []
    for i in range(variable.shape[0]):
        shift = np.eye(variable.shape[0])[i] * step
        variable.assign_add(shift)
        up = float(objective())
        variable.assign_sub(2 * shift)
        down = float(objective())
        variable.assign_add(shift)
        numeric.append((up - down) / (2 * step))
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5)


@pytest.mark.parametrize(
    "likelihood, targets",
    [
        (gpflow.likelihoods.Bernoulli(), lambda y: (y > 0).astype(float)),
        (gpflow.likelihoods.MultiClass(3), lambda y: np.digitize(y, [-0.5, 0.5]).astype(float)),
        (gpflow.likelihoods.Poisson(), lambda y: np.round(np.exp(y))),
    ],
    ids=["bernoulli", "multiclass", "poisson"],
)
def test_any_likelihood_gives_finite_objective_gradients_and_densities(rng, likelihood, targets):
    X = rng.normal(size=(30, 2))
    Y = targets(X[:, :1] + 0.3 * rng.normal(size=(30, 1)))
    model = gd.build_random_feature_dgp(X, Y, 2, num_features=20, likelihood=likelihood)
    assert model.layers[-1].output_dim == (likelihood.latent_dim or 1)
    with tf.GradientTape() as tape:
        value = model.training_loss((X, Y))
    gradients = tape.gradient(value, model.trainable_variables)
    assert np.isfinite(float(value))
    assert all(g is not None and np.all(np.isfinite(g.numpy())) for g in gradients)  # no sqrt(0) NaN
    assert np.all(np.isfinite(model.predict_log_density((X, Y), num_samples=5)))


class _RecordingLayer:
    """A deterministic layer of ``width`` outputs (the sum of its inputs) recording what it receives."""

    path_dependent = False

    def __init__(self, width):
        self.received = []
        self.width = width

    def marginals(self, inputs, **options):
        self.received.append(inputs)
        out = tf.reduce_sum(inputs, -1, keepdims=True) * tf.ones([self.width], inputs.dtype)
        return out, tf.zeros_like(out)


def test_feeding_inputs_appends_x_to_every_later_layer(rng):
    X = tf.constant(rng.normal(size=(4, 2)))
    layers = [_RecordingLayer(3), _RecordingLayer(3), _RecordingLayer(1)]
    outputs = sample_layers_feeding_inputs(layers, X, 5, SEED)
    for layer in layers[1:]:
        received = layer.received[0].numpy()
        assert received.shape == (5, 4, 3 + 2)
        np.testing.assert_array_equal(received[..., 3:], np.broadcast_to(X.numpy(), (5, 4, 2)))
    assert [o.values.shape[-1] for o in outputs] == [3, 3, 1]


def test_feed_forward_widths_are_checked(rng):
    X, Y = rng.normal(size=(20, 2)), rng.normal(size=(20, 1))
    model = gd.build_random_feature_dgp(X, Y, 3, num_features=10, feed_forward=True)
    assert [layer.fed_input_dim for layer in model.layers] == [0, 2, 2]
    assert model.layers[1].kernel.lengthscales.shape == (3 + 2,)
    with pytest.raises(ValueError, match="fed_input_dim"):
        RandomFeatureDGP(model.layers, model.likelihood, 20, feed_forward=False)


def test_bad_options_are_refused(rng):
    X, Y = rng.normal(size=(20, 2)), rng.normal(size=(20, 1))
    with pytest.raises(ValueError, match="omega_mode"):
        gd.build_random_feature_dgp(X, Y, omega_mode="fixed")
    labels = rng.integers(0, 3, size=(20, 1)).astype(float)
    assert (
        gd.build_random_feature_dgp(X, labels, likelihood=gpflow.likelihoods.MultiClass(3))
        .layers[0]
        .local_reparameterisation
    )
    with pytest.raises(ValueError, match="kernel must be one of"):
        gd.build_random_feature_dgp(X, Y, kernel="matern")
    with pytest.raises(ValueError, match="num_features must be a positive integer"):
        RandomFeatureLayer(gpflow.kernels.SquaredExponential(), 2, 1, 0)
    with pytest.raises(TypeError, match="SquaredExponential or an ArcCosine"):
        RandomFeatureLayer(gpflow.kernels.Matern32(), 2, 1)
    with pytest.raises(ValueError, match="order must be 0, 1 or 2"):
        arccos_features(tf.zeros([1, 2, 3], tf.float64), tf.constant(1.0, tf.float64), 3)


def test_fit_holds_hyperparameters_and_prior_fixed_omega_fixed_then_trains_them(rng):
    model, data = small_model(rng, "prior-fixed")
    hyper = [model.likelihood.variance, model.layers[0].kernel.variance, model.layers[1].kernel.lengthscales]
    before = [p.numpy() for p in hyper]
    omega, w_mean = model.layers[0].omega(1).numpy(), model.layers[1].w_mean.numpy()
    gd.fit(model, data, 4, fixed_hyperparameters_for=4, progress=False)
    for p, value in zip(hyper, before):
        np.testing.assert_array_equal(p.numpy(), value)
    np.testing.assert_array_equal(model.layers[0].omega(1), omega)  # Ω = ε/ℓ: fixed ε, fixed ℓ
    assert not np.allclose(model.layers[1].w_mean, w_mean)  # while q(W) trains
    gd.fit(model, data, 4, progress=False)
    assert all(not np.allclose(p.numpy(), value) for p, value in zip(hyper, before))
    assert not np.allclose(model.layers[0].omega(1), omega)  # ℓ trains, and Ω with it


def test_fit_changes_the_number_of_samples_part_way(rng, monkeypatch):
    model, data = small_model(rng)
    traced = []
    paths = model._paths

    def recording_paths(X, num_samples, seed, **options):
        traced.append(num_samples)
        return paths(X, num_samples, seed, **options)

    monkeypatch.setattr(model, "_paths", recording_paths)
    result = gd.fit(model, data, 4, num_samples_schedule={2: 7}, progress=False)
    assert traced == [1, 7]  # one trace per count, in the scheduled order
    assert model.num_samples == 1 and len(result.objectives) == 4
    with pytest.raises(ValueError, match="num_samples_schedule value"):
        gd.fit(model, data, 2, num_samples_schedule={1: 0}, progress=False)
    with pytest.raises(ValueError, match="fixed_hyperparameters_for"):
        gd.fit(model, data, 2, fixed_hyperparameters_for=-1, progress=False)


def test_float32_model_trains_and_predicts(rng):
    with gpflow.config.as_context(gpflow.config.Config(float=np.float32)):
        model, data = small_model(rng, omega_mode="var-resampled")
        assert all(p.dtype == tf.float32 for p in model.trainable_parameters)
        result = gd.fit(model, data, 3, progress=False)
        mean, var = model.predict_y(data[0].astype(np.float32), num_samples=4)
    assert np.all(np.isfinite(result.objectives)) and mean.dtype == tf.float32 and np.all(var.numpy() > 0)


@pytest.mark.slow
def test_thirty_hidden_layers_with_feed_forward_train_on_real_data(concrete_split):
    X, Y, X_test, Y_test = concrete_split
    model = gd.build_random_feature_dgp(X, Y, 31, num_features=20, seed=1)
    assert model.feed_forward and len(model.layers) == 31
    result = gd.fit(model, (X, Y), 300, batch_size=50, seed=0, progress=False)
    assert np.all(np.isfinite(result.objectives))
    assert result.objectives[-50:].mean() > result.objectives[:50].mean()
    with tf.GradientTape() as tape:
        value = model.training_loss((X, Y))
    gradients = tape.gradient(value, model.trainable_variables)
    assert all(np.all(np.isfinite(g.numpy())) for g in gradients if g is not None)
    assert np.all(np.isfinite(model.predict_log_density((X_test, Y_test), num_samples=10)))
