"""DeepGP behaviour: Monte Carlo estimates, mixture predictions, shapes, likelihoods, dtypes."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from scipy.special import logsumexp
from scipy.stats import norm

import gpflow_deep as gd
from gpflow_deep import DeepGP, GPLayer

pytestmark = pytest.mark.shape_checks("compiled")


def small_deep_gp(rng, N=30, D=2, width=2, num_samples=1, likelihood=None, outputs=1):
    """A 2-layer DeepGP with random (not prior) variational parameters."""
    layers = []
    for input_dim, output_dim in ((D, width), (width, outputs)):
        M = 5
        layers.append(
            GPLayer(
                gpflow.kernels.SquaredExponential(lengthscales=np.ones(input_dim)),
                rng.normal(size=(M, input_dim)),
                output_dim,
                mean_function=gpflow.mean_functions.Identity(input_dim) if output_dim == input_dim else None,
                q_mu=rng.normal(size=(M, output_dim)),
                q_sqrt=0.5 * np.tril(rng.normal(size=(output_dim, M, M))),
            )
        )
    likelihood = likelihood or gpflow.likelihoods.Gaussian(variance=0.2)
    return DeepGP(layers, likelihood, num_data=N, num_samples=num_samples)


def test_one_layer_minibatch_elbos_sum_to_the_full_elbo(rng):
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 1))
    layer = GPLayer(gpflow.kernels.SquaredExponential(), X[:5], 1, q_mu=rng.normal(size=(5, 1)))
    model = DeepGP([layer], gpflow.likelihoods.Gaussian(), num_data=30)
    batches = [model.elbo((X[i : i + 10], Y[i : i + 10])) for i in range(0, 30, 10)]
    np.testing.assert_allclose(np.mean(batches), model.elbo((X, Y)), rtol=1e-12)


def test_minibatch_elbo_estimates_average_to_the_full_data_elbo(rng):
    model = small_deep_gp(rng, num_samples=4)
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 1))
    elbo = tf.function(model.elbo)
    full = np.array([elbo((X, Y)) for _ in range(400)])
    minibatch = []
    for _ in range(1200):
        rows = rng.choice(30, size=6, replace=False)
        minibatch.append(elbo((X[rows], Y[rows])))
    minibatch = np.array(minibatch)
    standard_error = np.sqrt(full.var() / len(full) + minibatch.var() / len(minibatch))
    assert abs(full.mean() - minibatch.mean()) < 4 * standard_error
    # the test has power: forgetting the N/B scaling moves the mean by many standard errors
    assert abs(full.mean() - minibatch.mean() * 6 / 30) > 10 * standard_error


def test_elbo_estimate_is_unbiased_for_the_exact_one_sample_expectation(rng):
    """Averaging S paths in one call estimates the same ELBO as single-path calls."""
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 1))
    one = small_deep_gp(np.random.default_rng(3), num_samples=1)
    many = small_deep_gp(np.random.default_rng(3), num_samples=50)
    one_elbo, many_elbo = tf.function(one.elbo), tf.function(many.elbo)
    single = np.array([one_elbo((X, Y)) for _ in range(500)])
    averaged = np.array([many_elbo((X, Y)) for _ in range(20)])
    standard_error = np.sqrt(single.var() / len(single) + averaged.var() / len(averaged))
    assert abs(single.mean() - averaged.mean()) < 4 * standard_error
    assert averaged.std() < single.std()


def test_predict_log_density_is_the_log_mean_exp_over_paths(rng):
    model = small_deep_gp(rng)
    X, Y = rng.normal(size=(9, 2)), rng.normal(size=(9, 1))
    last = model.predict_all_layers(X, num_samples=7, seed=11)[-1]
    noise = model.likelihood.variance.numpy()
    component = norm.logpdf(Y[None, :, 0], last.means.numpy()[..., 0], np.sqrt(last.variances.numpy()[..., 0] + noise))
    expected = logsumexp(component, axis=0) - np.log(7)
    np.testing.assert_allclose(model.predict_log_density((X, Y), num_samples=7, seed=11), expected, rtol=1e-10)

    mean, var = model.predict_y(X, num_samples=7, seed=11)
    mixture_mean = last.means.numpy().mean(axis=0)
    mixture_var = (last.variances.numpy() + noise + last.means.numpy() ** 2).mean(axis=0) - mixture_mean**2
    np.testing.assert_allclose(mean, mixture_mean, rtol=1e-10)
    np.testing.assert_allclose(var, mixture_var, rtol=1e-8)


def test_predict_f_samples_follow_the_predictive_mixture(rng):
    model = small_deep_gp(rng)
    X = rng.normal(size=(4, 2))
    samples = model.predict_f_samples(X, num_samples=20000, seed=1).numpy()
    mean, var = model.predict_f(X, num_samples=20000, seed=2)
    standard_error = np.sqrt(var.numpy() / 20000)
    assert np.all(np.abs(samples.mean(axis=0) - mean) < 5 * standard_error)
    np.testing.assert_allclose(samples.var(axis=0), var, rtol=0.05)


def test_same_seed_same_predictions_and_different_seed_different(rng):
    model = small_deep_gp(rng)
    X = rng.normal(size=(5, 2))
    first = model.predict_f(X, num_samples=3, seed=5)[0]
    np.testing.assert_array_equal(first, model.predict_f(X, num_samples=3, seed=5)[0])
    assert not np.allclose(first, model.predict_f(X, num_samples=3, seed=6)[0])
    generator = tf.random.Generator.from_seed(9)
    from_generator = model.predict_f(X, num_samples=3, seed=generator)[0]
    np.testing.assert_array_equal(
        from_generator, model.predict_f(X, num_samples=3, seed=tf.random.Generator.from_seed(9))[0]
    )


def test_predictions_in_chunks_match_a_single_chunk_for_a_one_layer_model(rng):
    X = rng.normal(size=(23, 2))
    layer = GPLayer(gpflow.kernels.SquaredExponential(), X[:5], 1, q_mu=rng.normal(size=(5, 1)))
    whole = DeepGP([layer], gpflow.likelihoods.Gaussian(), num_data=23)
    chunked = DeepGP([layer], gpflow.likelihoods.Gaussian(), num_data=23, prediction_batch_size=4)
    for a, b in zip(whole.predict_y(X, num_samples=2), chunked.predict_y(X, num_samples=2)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.slow  # the shapes of every predict method are also checked for every model in test_properties.py
def test_shapes_with_several_samples_and_outputs(rng):
    X = rng.normal(size=(40, 3))
    Y = np.concatenate([np.sin(X[:, :1]), np.cos(X[:, 1:2])], axis=1)
    model = gd.build_deep_gp(X, Y, num_layers=3, num_inducing=10, hidden_width=4, num_samples=3)
    assert [layer.num_latent_gps for layer in model.layers] == [4, 4, 2]
    assert np.isfinite(model.elbo((X, Y)))
    Xs, S = X[:7], 5
    for output in (*model.predict_f(Xs, S), *model.predict_y(Xs, S)):
        assert output.shape == (7, 2)
    assert model.predict_log_density((Xs, Y[:7]), S).shape == (7,)
    assert model.predict_f_samples(Xs, S).shape == (S, 7, 2)
    assert model.predict_f_samples(Xs, S, full_cov=True).shape == (S, 7, 2)
    mixture = model.predict_mixture(Xs, S)
    assert mixture.means.shape == (S, 7, 2) and mixture.log_weights.shape == (S,)
    layers = model.predict_all_layers(Xs, S)
    assert [tuple(out.values.shape) for out in layers] == [(S, 7, 4), (S, 7, 4), (S, 7, 2)]


def test_joint_samples_have_the_layer_covariance(rng):
    layer = GPLayer(
        gpflow.kernels.SquaredExponential(),
        rng.normal(size=(5, 1)),
        1,
        q_mu=rng.normal(size=(5, 1)),
        q_sqrt=0.5 * np.tril(rng.normal(size=(1, 5, 5))),
    )
    model = DeepGP([layer], gpflow.likelihoods.Gaussian(), num_data=10)
    X = np.array([[-0.3], [0.0], [0.2]])
    samples = model.predict_f_samples(X, num_samples=40000, seed=3, full_cov=True).numpy()[..., 0]
    _, cov = layer.full_covariance(X[None])
    np.testing.assert_allclose(np.cov(samples.T), cov[0, 0], atol=0.03)
    independent = model.predict_f_samples(X, num_samples=40000, seed=3).numpy()[..., 0]
    assert abs(np.corrcoef(independent.T)[0, 1]) < 0.03  # marginal samples: no correlation


@pytest.mark.parametrize(
    "likelihood, make_y",
    [
        (gpflow.likelihoods.StudentT(scale=0.5), lambda f, rng: f + 0.1 * rng.standard_t(3, f.shape)),
        (gpflow.likelihoods.Poisson(), lambda f, rng: rng.poisson(np.exp(f)).astype(float)),
        (gpflow.likelihoods.Bernoulli(), lambda f, rng: (f > 0).astype(float)),
        (
            gpflow.likelihoods.MultiClass(3, invlink=gpflow.likelihoods.RobustMax(3)),
            lambda f, rng: np.digitize(f[:, :1], [-0.5, 0.5]).astype(float),
        ),
    ],
    ids=["student_t", "poisson", "bernoulli", "multiclass"],
)
@pytest.mark.slow  # every likelihood's predictive is also checked for every model in test_properties.py
def test_training_with_other_likelihoods(rng, likelihood, make_y):
    X = rng.uniform(-2, 2, size=(60, 2))
    Y = make_y(np.sin(X[:, :1]) + 0.5 * X[:, 1:], rng)
    model = gd.build_deep_gp(X, Y, num_layers=2, likelihood=likelihood, num_inducing=10)
    assert model.layers[-1].num_latent_gps == (3 if isinstance(likelihood, gpflow.likelihoods.MultiClass) else 1)
    result = gd.fit(model, (X, Y), iterations=150, seed=0, progress=False)
    assert result.objectives[-20:].mean() > result.objectives[:5].mean()
    mean, var = model.predict_y(X[:5], num_samples=4)
    assert mean.shape == var.shape and np.all(np.isfinite(mean)) and np.all(var.numpy() >= 0)
    assert np.all(np.isfinite(model.predict_log_density((X[:5], Y[:5]), num_samples=4)))


@pytest.mark.slow  # ~16 s; tests/integration/test_float32.py covers every model in float32 by default
def test_float32_models_train_and_predict(rng):
    X = rng.normal(size=(50, 2)).astype(np.float32)
    Y = np.sin(X[:, :1])
    with gpflow.config.as_context(gpflow.config.Config(float=np.float32, jitter=1e-4)):
        model = gd.build_deep_gp(X, Y, num_layers=2, num_inducing=10)
        result = gd.fit(model, (X, Y), iterations=50, progress=False, seed=0)
        mean, var = model.predict_y(X, num_samples=5)
    assert model.dtype == tf.float32 and mean.dtype == tf.float32
    assert np.all(np.isfinite(result.objectives)) and np.all(np.isfinite(var))


def test_print_summary_and_deepcopy(rng, capsys):
    model = small_deep_gp(rng)
    gpflow.utilities.print_summary(model)
    assert "layers[1].q_sqrt" in capsys.readouterr().out
    clone = gpflow.utilities.deepcopy(model)
    X = rng.normal(size=(4, 2))
    np.testing.assert_array_equal(clone.predict_f(X, 3, seed=1)[0], model.predict_f(X, 3, seed=1)[0])
    clone.layers[0].q_mu.assign(clone.layers[0].q_mu + 1.0)
    assert not np.allclose(clone.predict_f(X, 3, seed=1)[0], model.predict_f(X, 3, seed=1)[0])
