"""SoDDGP (subset-of-data VI): the closed-form q^, per-path inducing inputs, the one-layer
reduction to SVGP/SGPR, the ELBO's bookkeeping, parameter counts, builders and selectors."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from gpflow.keras import tf_keras
from gpflow.kullback_leiblers import gauss_kl
from scipy.stats import norm

import gpflow_deep as gd
from gpflow_deep import SoDDGP
from gpflow_deep.builders import kmeans_subset, random_subset, select_subset
from gpflow_deep.builders.subsets import subset_copies
from gpflow_deep.layers import SubsetLastLayer, SubsetLayer
from gpflow_deep.layers.subset.subset_last_layer import condition_on_targets
from gpflow_deep.propagation import sample_layers

pytestmark = pytest.mark.shape_checks("compiled")


@pytest.fixture
def tiny_jitter():
    """Kuu's jitter makes p(f_n | F_S) at a subset row only nearly a point mass; with 1e-12 the
    one-layer identities below hold to rounding."""
    with gpflow.config.as_context(gpflow.config.Config(jitter=1e-12)):
        yield


def random_cholesky(rng, L, M, scale=0.5):
    return np.tril(scale * rng.normal(size=(L, M, M)), -1) + np.eye(M) * rng.uniform(0.3, 1.0, size=(L, M, 1))


def one_layer_model(rng, N=40, M=8, noise=0.1):
    """A 1-D regression problem and a one-layer SoDDGP on it with random q(F_S)."""
    X = np.sort(rng.uniform(-3, 3, size=(N, 1)), axis=0)
    Y = np.sin(2 * X) + 0.3 * rng.normal(size=(N, 1))
    indices = rng.choice(N, M, replace=False)
    likelihood = gpflow.likelihoods.Gaussian(variance=noise)
    layer = SubsetLastLayer(
        gpflow.kernels.SquaredExponential(variance=1.3, lengthscales=0.8),
        M,
        1,
        likelihood,
        Y[indices],
        q_mu=rng.normal(size=(M, 1)),
        q_sqrt=random_cholesky(rng, 1, M),
    )
    return SoDDGP([layer], likelihood, X[indices], num_data=N, num_samples=2), X, Y, indices


def test_closed_form_last_layer_posterior_matches_a_direct_gaussian_computation(rng):
    M, L, noise = 6, 2, 0.3
    q_mu, q_sqrt, y = rng.normal(size=(M, L)), random_cholesky(rng, L, M), rng.normal(size=(M, L))
    mean, sqrt, log_det = condition_on_targets(q_mu, q_sqrt, y, tf.constant(noise, tf.float64))
    total_log_det, variances = 0.0, []
    for output in range(L):
        Sigma = q_sqrt[output] @ q_sqrt[output].T
        # N(y | F, σ² I) N(F | μ, Σ) ∝ N(F | μ^, Σ^): precisions add, precision-weighted means add
        Sigma_hat = np.linalg.inv(np.linalg.inv(Sigma) + np.eye(M) / noise)
        mu_hat = Sigma_hat @ (y[:, output] / noise + np.linalg.solve(Sigma, q_mu[:, output]))
        np.testing.assert_allclose(mean[:, output], mu_hat, rtol=1e-10)
        np.testing.assert_allclose(sqrt[output] @ tf.transpose(sqrt[output]), Sigma_hat, rtol=1e-9, atol=1e-12)
        total_log_det += np.linalg.slogdet(Sigma_hat)[1]
        variances.append(np.diag(Sigma_hat))
    np.testing.assert_allclose(log_det, total_log_det, rtol=1e-10)

    likelihood = gpflow.likelihoods.Gaussian(variance=noise)
    layer = SubsetLastLayer(gpflow.kernels.SquaredExponential(), M, 3, likelihood, y, q_mu=q_mu, q_sqrt=q_sqrt)
    marginal_mean, marginal_var = layer.subset_marginals()
    np.testing.assert_allclose(marginal_mean, mean, rtol=1e-12)
    np.testing.assert_allclose(marginal_var, np.transpose(variances), rtol=1e-9)


@pytest.mark.parametrize("kernel_class", [gpflow.kernels.SquaredExponential, gpflow.kernels.Matern52])
def test_per_path_inducing_inputs_match_a_per_path_loop(rng, kernel_class):
    S, M, N, D, L = 3, 5, 7, 2, 2
    kernel = kernel_class(variance=0.8, lengthscales=1.1)
    layer = SubsetLayer(
        kernel, M, D, L, q_mu=rng.normal(size=(M, L)), q_sqrt=random_cholesky(rng, L, M), noise_variance=0.05
    )
    inputs = rng.normal(size=(S, M + N, D))
    mean, var = layer.marginals(inputs)
    kls = []
    for s in range(S):
        Z = inputs[s, :M]
        expected_mean, expected_var = gpflow.conditionals.conditional(
            inputs[s], Z, kernel, layer.q_mu, q_sqrt=layer.q_sqrt, white=False, full_cov=False
        )
        np.testing.assert_allclose(mean[s], expected_mean, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(var[s], expected_var + 0.05, rtol=1e-8, atol=1e-10)
        Kuu = kernel(Z) + gpflow.config.default_jitter() * np.eye(M)
        kls.append(gauss_kl(layer.q_mu, layer.q_sqrt, Kuu))
    np.testing.assert_allclose(layer.regulariser(inputs), np.mean(kls), rtol=1e-9)
    # the subset rows differ between paths, and so do the KLs: the loop is not a broadcast
    assert np.ptp(kls) > 1e-3


def test_joint_sampling_draws_one_function_per_path_and_averages_to_the_marginals(rng):
    """With joint sampling a path's subset values are its draw of F_S (zero variance there) and
    the other points follow the GP given that draw; over many paths the mixture has the marginals
    with F_S integrated out (law of total variance), within Monte Carlo error."""
    S, M, N, D, L = 4000, 5, 6, 2, 2
    kernel = gpflow.kernels.SquaredExponential(variance=0.8, lengthscales=1.1)
    options = dict(q_mu=rng.normal(size=(M, L)), q_sqrt=random_cholesky(rng, L, M), noise_variance=None)
    joint, marginal = (
        SubsetLayer(kernel, M, D, L, joint_sampling=True, **options),
        SubsetLayer(kernel, M, D, L, **options),
    )
    assert joint.path_dependent and not marginal.path_dependent
    inputs = np.broadcast_to(rng.normal(size=(M + N, D)), (S, M + N, D))
    mean, var = (t.numpy() for t in joint.marginals(inputs, seed=tf.constant([1, 2], tf.int64)))
    assert np.max(var[:, :M]) < 1e-5  # a point mass at the path's own draw of F_S
    draws = mean[:, :M]
    q_sd = np.sqrt(np.sum(np.square(options["q_sqrt"]), axis=-1)).T  # [M, L]
    assert np.all(np.abs(np.mean(draws, axis=0) - options["q_mu"]) < 5 * q_sd / np.sqrt(S))
    expected_mean, expected_var = (t.numpy()[0] for t in marginal.marginals(inputs[:1]))
    standard_error = np.sqrt(expected_var / S)
    assert np.all(np.abs(np.mean(mean, axis=0) - expected_mean) < 5 * standard_error)
    total_var = np.var(mean, axis=0) + np.mean(var, axis=0)
    np.testing.assert_allclose(total_var, expected_var, rtol=0.1)
    with pytest.raises(ValueError, match="needs a seed"):
        joint.marginals(inputs[:2])


@pytest.mark.parametrize("kernel", [gpflow.kernels.SquaredExponential(variance=0.8), gpflow.kernels.Matern32()])
def test_inputs_shared_by_all_paths_give_the_same_joint_draws_as_inputs_repeated_on_each(rng, kernel):
    """The first layer receives ``[1, N, D]`` and ``num_paths`` (one Kuu, Kuf and solve for all
    paths): the same draws of F_S and the same marginals as with its inputs repeated S times."""
    S, M, N, D, L = 3, 5, 7, 2, 2
    options = dict(q_mu=rng.normal(size=(M, L)), q_sqrt=random_cholesky(rng, L, M), noise_variance=0.05)
    layer = SubsetLayer(kernel, M, D, L, joint_sampling=True, **options)
    inputs = rng.normal(size=(1, M + N, D))
    seed = tf.constant([5, 6], tf.int64)
    shared = layer.marginals(inputs, seed=seed, num_paths=S)
    repeated = layer.marginals(np.repeat(inputs, S, axis=0), seed=seed)
    for got, expected in zip(shared, repeated):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert shared[0].shape == (S, M + N, L) and np.ptp(shared[0].numpy()[:, :M], axis=0).min() > 0


def test_deeper_layers_see_the_subsets_own_samples_from_the_same_path(rng):
    X = rng.normal(size=(30, 2))
    Y = np.sin(X[:, :1])
    model = gd.build_sod_dgp(X, Y, num_layers=2, subset_size=6, num_samples=4)
    inputs = model.propagation.with_subset(tf.constant(X[:5]))  # [X_S; X], as the model propagates them
    outputs = sample_layers(model.layers, inputs, 4, tf.constant([3, 4], tf.int64))
    hidden = outputs[0].values.numpy()  # [S, M + 5, W]: the last layer's inputs on each path
    assert hidden.shape == (4, 11, 2)
    assert np.all(np.ptp(hidden[:, :6], axis=0) > 0)  # the inducing inputs differ between paths
    mean, var = model.layers[1].marginals(hidden)
    np.testing.assert_allclose(outputs[1].means, mean, rtol=1e-12)
    for s in range(4):  # and each path's marginals use that path's own subset samples
        single_mean, single_var = model.layers[1].marginals(hidden[s : s + 1])
        np.testing.assert_allclose(outputs[1].means[s], single_mean[0], rtol=1e-10)
        np.testing.assert_allclose(outputs[1].variances[s], single_var[0], rtol=1e-10)


def svgp_with_q_hat(model, X, Y):
    """The sparse GP the one-layer model claims to be: SVGP with Z = X_S and q(u) = q^(F_S)."""
    layer = model.layers[0]
    mean, sqrt, _ = layer.posterior_over_subset()
    covariance = tf.linalg.matmul(sqrt, sqrt, transpose_b=True)
    return gpflow.models.SVGP(
        layer.kernel,
        model.likelihood,
        model.subset_inputs.numpy(),
        whiten=False,
        q_mu=mean.numpy(),
        q_sqrt=np.linalg.cholesky(covariance.numpy()),
        num_data=len(X),
    )


def test_one_layer_model_is_svgp_with_subset_inducing_inputs_and_q_hat(rng, tiny_jitter):
    model, X, Y, indices = one_layer_model(rng)
    svgp = svgp_with_q_hat(model, X, Y)
    np.testing.assert_allclose(model.elbo((X, Y)), svgp.elbo((X, Y)), rtol=1e-6)
    mean, var = model.layers[0].marginals(np.concatenate([X[indices], X[:5]])[None])
    mean, var = mean[0, len(indices) :], var[0, len(indices) :]  # eq. 17: [X_S; X*], subset rows dropped
    expected_mean, expected_var = svgp.predict_f(X[:5])
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(var, expected_var, rtol=1e-6, atol=1e-10)


def test_the_builders_one_layer_start_predicts_the_gp_posterior_given_the_subset(rng, tiny_jitter):
    """``setup="data"`` starts q(F_S) at the prior N(0, K_SS), so q^ of eq. 12 is the exact GP posterior
    given y_S and one layer predicts what GPR on (X_S, y_S) with the same kernel and noise does."""
    X = rng.uniform(-3, 3, size=(60, 2))
    Y = np.sin(2 * X[:, :1]) * X[:, 1:] + 0.1 * rng.normal(size=(60, 1))
    model = gd.build_sod_dgp(X, Y, num_layers=1, subset_size=12)
    X_S = model.subset_inputs.numpy()
    gpr = gpflow.models.GPR(
        (X_S, model.layers[0].subset_targets.numpy()), model.layers[0].kernel, noise_variance=model.likelihood.variance
    )
    mean, var = model.predict_f(X[:7], num_samples=3)
    expected_mean, expected_var = gpr.predict_f(X[:7])
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(var, expected_var, rtol=1e-6, atol=1e-8)


def test_one_layer_model_at_its_optimum_is_titsias_bound(rng, tiny_jitter):
    """With q(F_S) chosen so that q^ is the optimal q(u) of Titsias (2009), the ELBO is SGPR's bound."""
    model, X, Y, indices = one_layer_model(rng)
    layer, noise = model.layers[0], model.likelihood.variance.numpy()
    sgpr = gpflow.models.SGPR((X, Y), layer.kernel, X[indices], noise_variance=noise)
    mu_star, cov_star = (t.numpy() for t in sgpr.compute_qu())
    precision = np.linalg.inv(cov_star) - np.eye(len(indices)) / noise  # invert eq. 12
    Sigma = np.linalg.inv(precision)
    layer.q_sqrt.assign(np.linalg.cholesky(Sigma)[None])
    layer.q_mu.assign(Sigma @ (np.linalg.solve(cov_star, mu_star) - Y[indices] / noise))
    np.testing.assert_allclose(layer.posterior_over_subset()[0], mu_star, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.elbo((X, Y)), sgpr.elbo(), rtol=1e-6)
    # and away from that optimum the bound is lower
    layer.q_mu.assign(layer.q_mu + 0.1)
    assert model.elbo((X, Y)) < sgpr.elbo() - 1e-3


def test_every_training_point_counts_once_across_an_epoch(rng, tiny_jitter):
    model, X, Y, indices = one_layer_model(rng)
    full = model.elbo((X, Y)).numpy()
    order = rng.permutation(len(X))
    batches = [model.elbo((X[rows], Y[rows])).numpy() for rows in np.split(order, 4)]
    np.testing.assert_allclose(np.mean(batches), full, rtol=1e-10)
    # the full-batch objective is SVGP's, which counts each of the N points once ...
    svgp = svgp_with_q_hat(model, X, Y)
    np.testing.assert_allclose(full, svgp.elbo((X, Y)), rtol=1e-6)
    # ... and a batch of subset rows only contributes nothing beyond the subset's own terms
    subset_terms = tf.reduce_sum(
        svgp.likelihood.variational_expectations(X[indices], *svgp.predict_f(X[indices]), Y[indices])
    )
    np.testing.assert_allclose(model.elbo((X[indices], Y[indices])), subset_terms - svgp.prior_kl(), rtol=1e-6)
    assert model.in_subset(X, Y).numpy().sum() == len(indices)


def test_a_table_that_repeats_its_rows_counts_each_row_once(rng, tiny_jitter):
    """Every row three times: a subset point's two other copies are training rows outside the
    subset, and its three equal rows weigh 2/3 each, so the full-batch objective is still SVGP's on
    all 3N rows, and the epoch's mean batch objective is the full one."""
    model, X, Y, indices = one_layer_model(rng)
    X3, Y3 = np.tile(X, (3, 1)), np.tile(Y, (3, 1))
    model = SoDDGP(
        model.layers, model.likelihood, X[indices], num_data=3 * len(X), num_samples=2,
        subset_copies=subset_copies(X3, Y3, indices, 3 * len(X)),
    )  # fmt: skip
    np.testing.assert_array_equal(model.subset_copies.numpy(), 3.0)
    np.testing.assert_allclose(model.complement_weights(X3, Y3).numpy().sum(), 3 * len(X) - len(indices))
    full = model.elbo((X3, Y3)).numpy()
    np.testing.assert_allclose(full, svgp_with_q_hat(model, X3, Y3).elbo((X3, Y3)), rtol=1e-6)
    batches = [model.elbo((X3[rows], Y3[rows])).numpy() for rows in np.split(rng.permutation(3 * len(X)), 6)]
    np.testing.assert_allclose(np.mean(batches), full, rtol=1e-10)


def test_subset_copies_are_counted_on_all_rows_and_scaled_from_a_sample(rng):
    X = rng.integers(0, 3, size=(600, 2)).astype(float)  # nine distinct inputs, each about 67 times
    Y = np.zeros((600, 1))
    equal_to_first = np.all(X == X[0], axis=1)
    indices = np.array([0, np.argmin(equal_to_first), np.flatnonzero(equal_to_first)[1]])  # the first and last equal
    exact = subset_copies(X, Y, indices, len(X))
    count_0, count_1 = (np.sum(np.all(X == X[row], axis=1)) for row in indices[:2])
    np.testing.assert_array_equal(exact, [count_0, count_1, count_0])
    sample = subset_copies(X, Y, indices, 10 * len(X))  # the 600 rows as a sample of 6,000
    np.testing.assert_allclose(sample[:2], [2 + (count_0 - 2) * 5998 / 598, 1 + (count_1 - 1) * 5999 / 599])
    distinct = subset_copies(rng.normal(size=(50, 2)), np.zeros((50, 1)), np.arange(5), 10_000)
    np.testing.assert_array_equal(distinct, 1.0)  # a distinct row has no copies, however large N


@pytest.mark.parametrize("joint_sampling", [False, True])
def test_a_mean_function_adds_to_every_rows_mean_and_leaves_variances_and_kl_alone(rng, joint_sampling):
    """F = m(inputs) + G with q over G_S (GPflow's convention): the marginals are G's plus m of
    each path's own inputs, and the KL is G_S's, the same as without m."""
    S, M, N, D = 3, 5, 7, 2
    options = dict(q_mu=rng.normal(size=(M, D)), q_sqrt=random_cholesky(rng, D, M), noise_variance=0.05)
    kernel = gpflow.kernels.SquaredExponential(variance=0.8, lengthscales=1.1)
    plain = SubsetLayer(kernel, M, D, D, joint_sampling=joint_sampling, **options)
    mean_function = gpflow.mean_functions.Linear(A=rng.normal(size=(D, D)), b=rng.normal(size=D))
    shifted = SubsetLayer(kernel, M, D, D, joint_sampling=joint_sampling, mean_function=mean_function, **options)
    inputs = rng.normal(size=(S, M + N, D))
    seed = tf.constant([7, 8], tf.int64)
    (mean, var), (shifted_mean, shifted_var) = plain.marginals(inputs, seed=seed), shifted.marginals(inputs, seed=seed)
    np.testing.assert_allclose(shifted_mean, mean.numpy() + inputs @ mean_function.A.numpy() + mean_function.b.numpy())
    np.testing.assert_allclose(shifted_var, var)
    np.testing.assert_allclose(shifted.regulariser(inputs), plain.regulariser(inputs))
    with pytest.raises(TypeError, match="mean_function"):
        SubsetLayer(kernel, M, D, D, mean_function=lambda x: x)


def test_linear_hidden_means_start_where_the_zero_mean_layers_start_on_the_subset(rng, tiny_jitter):
    """``hidden_mean="linear"`` (the default): DSVI's fixed identity/PCA means in the hidden layers,
    q over the residual started at zero, so the subset's hidden outputs equal the zero-mean model's at the
    start; nothing new is trained; other points follow the linear map, not K_xS K_SS⁻¹ X_S."""
    X, Y = rng.normal(size=(40, 3)), rng.normal(size=(40, 1))
    options = dict(num_layers=3, subset_size=8, hidden_width=2, joint_sampling=False)
    zero, linear = gd.build_sod_dgp(X, Y, hidden_mean="zero", **options), gd.build_sod_dgp(X, Y, **options)
    assert [type(layer.mean_function).__name__ for layer in linear.layers] == ["Linear", "Identity", "NoneType"]
    assert linear.num_trainable_parameters == zero.num_trainable_parameters
    inputs = tf.concat([linear.subset_inputs, X[:5]], axis=0)[None]
    for zero_layer, linear_layer in zip(zero.layers[:-1], linear.layers[:-1]):
        np.testing.assert_allclose(linear_layer.q_mu.numpy(), 0.0)
        zero_mean, _ = zero_layer.marginals(inputs)
        linear_mean, _ = linear_layer.marginals(inputs)
        np.testing.assert_allclose(linear_mean[:, :8], zero_mean[:, :8], atol=1e-8)
        np.testing.assert_allclose(linear_mean[:, 8:], linear_layer.mean_function(inputs)[:, 8:], atol=1e-8)
        inputs = linear_mean
    with pytest.raises(ValueError, match="hidden_mean must be one of"):
        gd.build_sod_dgp(X, Y, hidden_mean="constant")


def test_trainable_parameters_against_deep_gp_at_the_same_subset_size_and_depth(rng):
    X, Y = rng.normal(size=(60, 3)), rng.normal(size=(60, 1))
    M, W = 10, 2

    def rbf(_, width):
        return gpflow.kernels.SquaredExponential(variance=0.5, lengthscales=0.5)

    sod = gd.build_sod_dgp(X, Y, num_layers=3, subset_size=M, hidden_width=W, setup="paper")  # all trained
    dgp = gd.build_deep_gp(X, Y, num_layers=3, num_inducing=M, hidden_width=W, kernel_factory=rbf)
    widths = [(3, W), (W, W), (W, 1)]
    q = sum(L * M + L * M * (M + 1) // 2 for _, L in widths)
    # each layer: q(F_S) and the kernel's two scalars; the inner noises; the likelihood's variance
    assert sod.num_trainable_parameters == q + 2 * 3 + 2 + 1
    # DSVI also trains M inducing inputs per layer (its inner noise is a White kernel's variance)
    dgp_count = gd.models.num_trainable_parameters(dgp)
    assert dgp_count - sod.num_trainable_parameters == sum(M * D for D, _ in widths)
    # setup="data" adds ARD lengthscales (one per input, against one) and DSVI's fixed linear means;
    # train_inner_covariances=False holds the inner Cholesky factors and noises fixed
    data = gd.build_sod_dgp(X, Y, num_layers=3, subset_size=M, hidden_width=W)
    ard = sum(D - 1 for D, _ in widths)
    assert data.num_trainable_parameters == sod.num_trainable_parameters + ard
    held = gd.build_sod_dgp(X, Y, num_layers=3, subset_size=M, hidden_width=W, train_inner_covariances=False)
    inner = sum(L * M * (M + 1) // 2 + 1 for _, L in widths[:-1])
    assert held.num_trainable_parameters == sod.num_trainable_parameters - inner + ard
    isotropic = gd.build_sod_dgp(X, Y, num_layers=3, subset_size=M, hidden_width=W, hidden_mean="zero", ard=False)
    assert isotropic.num_trainable_parameters == sod.num_trainable_parameters


def test_a_q_sqrt_unit_leaves_the_model_alone_and_scales_adams_steps_on_the_factor(rng):
    """q_sqrt = unit × the trained variable: the same marginals and KL, the same loss, and one
    Adam step (about the learning rate per entry, whatever the gradient) moves the factor
    ``unit`` times as far, in any optimiser loop."""
    S, M, N, D = 2, 5, 6, 2
    options = dict(q_mu=rng.normal(size=(M, D)), q_sqrt=random_cholesky(rng, D, M), noise_variance=0.05)
    kernel = gpflow.kernels.SquaredExponential(variance=0.8, lengthscales=1.1)
    plain, scaled = SubsetLayer(kernel, M, D, D, **options), SubsetLayer(kernel, M, D, D, q_sqrt_unit=0.1, **options)
    inputs = rng.normal(size=(S, M + N, D))
    np.testing.assert_allclose(scaled.q_sqrt.numpy(), plain.q_sqrt.numpy())
    np.testing.assert_allclose(scaled.marginals(inputs)[1], plain.marginals(inputs)[1])
    np.testing.assert_allclose(scaled.regulariser(inputs), plain.regulariser(inputs))
    moves, lower = [], np.tril_indices(M)
    for layer in (plain, scaled):
        before = layer.q_sqrt.numpy()
        tf_keras.optimizers.Adam(0.01).minimize(
            lambda: layer.regulariser(inputs), [layer.q_sqrt.unconstrained_variable]
        )
        moves.append(np.abs(layer.q_sqrt.numpy() - before)[:, lower[0], lower[1]])
    np.testing.assert_allclose(moves[0], 0.01, rtol=1e-3)
    np.testing.assert_allclose(moves[1], 0.001, rtol=1e-3)
    with pytest.raises(ValueError, match="q_sqrt_unit must be positive"):
        SubsetLayer(kernel, M, D, D, q_sqrt_unit=0.0)
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 1))
    default, unit_one = gd.build_sod_dgp(X, Y, 3, 6), gd.build_sod_dgp(X, Y, 3, 6, inner_q_sqrt_unit=1.0)
    assert [layer.q_sqrt_unit for layer in default.layers[:-1]] == [0.1, 0.1]
    assert gd.build_sod_dgp(X, Y, 2, 6, setup="paper").layers[0].q_sqrt_unit == 1.0
    np.testing.assert_allclose(default.training_loss((X, Y)), unit_one.training_loss((X, Y)))
    assert default.num_trainable_parameters == unit_one.num_trainable_parameters


@pytest.mark.slow
def test_training_improves_the_fit_and_predictions_drop_the_subset_rows(rng):
    X = rng.uniform(-2, 2, size=(60, 1))
    Y = np.sin(3 * X) + 0.1 * rng.normal(size=(60, 1))
    model = gd.build_sod_dgp(X, Y, num_layers=2, subset_size=8, num_samples=2)
    before = np.mean(model.predict_log_density((X, Y), num_samples=5, seed=0))
    result = gd.fit(model, (X, Y), iterations=100, seed=0, progress=False)
    assert result.objectives[-10:].mean() > result.objectives[:5].mean()
    after = np.mean(model.predict_log_density((X, Y), num_samples=5, seed=0))
    assert after > before + 0.2 and after > 0.5  # noise sd 0.1: at best about 0.9 a point
    layers = model.predict_all_layers(X[:7], 4, seed=1)
    assert [tuple(out.values.shape) for out in layers] == [(4, 7, 1), (4, 7, 1)]


@pytest.mark.slow
def test_float32_training(rng):
    X = rng.normal(size=(30, 2)).astype(np.float32)
    Y = np.sin(X[:, :1])
    with gpflow.config.as_context(gpflow.config.Config(float=np.float32, jitter=1e-4)):
        model = gd.build_sod_dgp(X, Y, num_layers=2, num_samples=2)
        result = gd.fit(model, (X, Y), iterations=5, progress=False, seed=0)
        log_density = model.predict_log_density((X, Y), num_samples=3)
    assert model.dtype == tf.float32 and log_density.dtype == tf.float32
    assert np.all(np.isfinite(result.objectives)) and np.all(np.isfinite(log_density))


def test_subset_size_adapts_to_small_data_and_bad_sizes_name_the_argument(rng):
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 1))
    assert gd.build_sod_dgp(X, Y).num_subset == 15  # at most N/2
    assert gd.build_sod_dgp(np.tile(X, (30, 1)), np.tile(Y, (30, 1))).num_subset == 100  # 900 points: medium
    small = (np.tile(X, (10, 1)), np.tile(Y, (10, 1)))  # 300 points: the paper's "small"
    assert gd.build_sod_dgp(*small).num_subset == 100 and gd.build_sod_dgp(*small, setup="paper").num_subset == 50
    assert gd.build_sod_dgp(*small, small_data_subset_size=70).num_subset == 70
    for bad in (31, 0, 2.5):
        with pytest.raises((ValueError, TypeError), match="subset_size"):
            gd.build_sod_dgp(X, Y, subset_size=bad)
    with pytest.raises(ValueError, match="small_data_subset_size"):
        gd.build_sod_dgp(X, Y, small_data_subset_size=0)


def test_subset_selectors(rng):
    X = np.concatenate([rng.normal(loc=centre, scale=0.1, size=(20, 2)) for centre in (-5, 0, 5)])
    chosen = kmeans_subset(X, 3, seed=0)
    assert sorted(chosen // 20) == [0, 1, 2]  # one point from each cluster
    assert len(np.unique(random_subset(X, 10, seed=1))) == 10
    model = gd.build_sod_dgp(X, X[:, :1], subset=lambda X: np.argsort(X[:, 0])[:4])
    np.testing.assert_array_equal(model.subset_inputs.numpy(), X[np.argsort(X[:, 0])[:4]])
    with pytest.raises(ValueError, match="distinct"):
        select_subset(X, None, lambda X: np.array([0, 0]))
    with pytest.raises(ValueError, match="subset must be one of"):
        select_subset(X, 3, "leverage")


def test_bad_construction_is_refused(rng):
    model, X, Y, indices = one_layer_model(rng)
    layer = model.layers[0]
    with pytest.raises(ValueError, match="sharing the model's likelihood"):
        SoDDGP([layer], gpflow.likelihoods.Gaussian(), X[indices], num_data=len(X))
    with pytest.raises(TypeError, match="Gaussian"):
        SubsetLastLayer(gpflow.kernels.Matern32(), 8, 1, gpflow.likelihoods.StudentT(), Y[indices])
    with pytest.raises(ValueError, match="needs the inputs"):
        layer.regulariser()
    with pytest.raises(ValueError, match="subset_copies"):
        SoDDGP([layer], model.likelihood, X[indices], num_data=len(X), subset_copies=np.zeros(len(indices)))
    assert np.isfinite(model.regulariser())


def test_one_noise_variance_shared_by_likelihood_and_last_layer_survives_deepcopy(rng):
    model, X, Y, _ = one_layer_model(rng)
    assert sum(v is model.likelihood.variance.unconstrained_variable for v in model.trainable_variables) == 1
    clone = gpflow.utilities.deepcopy(model)
    assert clone.layers[-1].likelihood is clone.likelihood and clone.likelihood is not model.likelihood
    clone.likelihood.variance.assign(0.5)  # the clone's q^ follows its own likelihood, not the original's
    assert not np.allclose(clone.layers[-1].subset_marginals()[0], model.layers[-1].subset_marginals()[0])


@pytest.mark.parametrize("whiten", [False, True])
def test_the_elbo_is_eq_11_from_the_layers_own_marginals_kls_and_subset_marginals(rng, whiten):
    """On the same paths, the ELBO (which takes the last layer's terms from one pass,
    ``training_terms``) equals eq. 11 assembled from each layer's public ``marginals``,
    ``regulariser`` and the last layer's ``subset_marginals``, with Gaussian expectations by hand."""
    N, M, B, T = 40, 8, 15, 3
    X = rng.normal(size=(N, 2))
    Y = np.sin(X[:, :1]) + 0.1 * rng.normal(size=(N, 1))
    model = gd.build_sod_dgp(X, Y, num_layers=3, subset_size=M, hidden_width=2, whiten=whiten, num_samples=T)
    seed = tf.constant([5, 6], tf.int64)
    model.new_seed = lambda: seed
    rows = rng.choice(N, B, replace=False)
    X_batch, Y_batch = X[rows], Y[rows]
    inputs = model.propagation.with_subset(tf.constant(X_batch))
    outputs = sample_layers(model.layers, inputs, T, seed)
    received = [inputs[None]] + [output.values for output in outputs[:-1]]
    last, noise = model.layers[-1], model.likelihood.variance.numpy()

    def expected_log_density(y, mean, var):
        return norm.logpdf(y, mean, np.sqrt(noise)) - var / (2 * noise)

    chol_kuu = last.subset_cholesky(received[-1]) if whiten else None
    subset_mean, subset_var = (np.broadcast_to(t, (T, M, 1)) for t in last.subset_marginals(chol_kuu))
    subset_term = np.mean(
        np.sum(expected_log_density(last.subset_targets.numpy(), subset_mean, subset_var), axis=(1, 2))
    )
    means, variances = outputs[-1].means[:, M:], outputs[-1].variances[:, M:]
    per_point = np.mean(expected_log_density(Y_batch, means, variances)[..., 0], axis=0)
    complement = np.sum(np.where(model.in_subset(X_batch, Y_batch), 0.0, per_point))
    kl = sum(layer.regulariser(layer_input).numpy() for layer, layer_input in zip(model.layers, received))
    expected = N / B * complement + subset_term - kl
    assert 0 < model.in_subset(X_batch, Y_batch).numpy().sum() < B  # both kinds of rows in the batch
    np.testing.assert_allclose(model.elbo((X_batch, Y_batch)), expected, rtol=1e-9)
