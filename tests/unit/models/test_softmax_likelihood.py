"""The softmax likelihood against direct Monte Carlo, its own limits, finite differences, and the
models that take it."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf

import gpflow_deep as gd
from gpflow_deep.likelihoods import Softmax
from gpflow_deep.registry import make_likelihood

pytestmark = pytest.mark.shape_checks("compiled")


def latent(rng, n=5, K=4):
    return rng.normal(size=(n, K)), rng.uniform(0.2, 2.0, (n, K)), rng.integers(0, K, (n, 1)).astype(float)


def softmax(F):
    F = F - F.max(axis=-1, keepdims=True)
    return np.exp(F) / np.exp(F).sum(axis=-1, keepdims=True)


def test_expectations_match_direct_monte_carlo_within_the_draws_error(rng):
    """The fixed 64 draws estimate E[log p(y|f)] and E[p(y|f)] within four of their own standard
    errors of a 400,000-draw estimate."""
    Fmu, Fvar, Y = latent(rng)
    likelihood = Softmax(4)
    F = Fmu[None] + np.sqrt(Fvar)[None] * rng.standard_normal((400_000, *Fmu.shape))
    probabilities = softmax(F)
    labels = Y[:, 0].astype(int)
    log_p = np.log(probabilities[:, np.arange(len(Y)), labels])
    ours = likelihood.variational_expectations(None, Fmu, Fvar, Y).numpy()
    assert np.all(np.abs(ours - log_p.mean(0)) < 4 * log_p.std(0) / np.sqrt(64))
    mean, var = likelihood.predict_mean_and_var(None, Fmu, Fvar)
    truth = probabilities.mean(0)
    assert np.all(np.abs(mean.numpy() - truth) < 4 * probabilities.std(0) / np.sqrt(64))
    np.testing.assert_allclose(var, mean * (1 - mean), rtol=1e-12)
    np.testing.assert_allclose(tf.reduce_sum(mean, axis=-1), np.ones(len(Y)), rtol=1e-12)


def test_the_predictive_density_is_the_predicted_probability_of_the_label(rng):
    Fmu, Fvar, Y = latent(rng)
    likelihood = Softmax(4)
    mean, _ = likelihood.predict_mean_and_var(None, Fmu, Fvar)
    expected = np.log(mean.numpy()[np.arange(len(Y)), Y[:, 0].astype(int)])
    np.testing.assert_allclose(likelihood.predict_log_density(None, Fmu, Fvar, Y), expected, rtol=1e-10)


def test_without_latent_variance_it_is_the_softmax(rng):
    Fmu, _, Y = latent(rng)
    likelihood = Softmax(4)
    zero = np.zeros_like(Fmu)
    mean, _ = likelihood.predict_mean_and_var(None, Fmu, zero)
    np.testing.assert_allclose(mean, softmax(Fmu), rtol=1e-12)
    expected = np.log(softmax(Fmu)[np.arange(len(Y)), Y[:, 0].astype(int)])
    np.testing.assert_allclose(likelihood.variational_expectations(None, Fmu, zero, Y), expected, rtol=1e-12)
    np.testing.assert_allclose(likelihood.log_prob(None, Fmu, Y), expected, rtol=1e-12)


def test_gradients_match_finite_differences(rng):
    Fmu, Fvar, Y = latent(rng, n=3)
    likelihood = Softmax(4)
    mu, var = tf.Variable(Fmu), tf.Variable(Fvar)
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(likelihood.variational_expectations(None, mu, var, Y))
    d_mu, d_var = tape.gradient(total, [mu, var])
    step = 1e-6
    for values, gradient, is_mean in ((Fmu, d_mu, True), (Fvar, d_var, False)):
        for index in [(0, 1), (2, 3)]:
            up, down = values.copy(), values.copy()
            up[index] += step
            down[index] -= step
            args = lambda v: (v, Fvar) if is_mean else (Fmu, v)  # noqa: E731
            difference = (
                np.sum(likelihood.variational_expectations(None, *args(up), Y))
                - np.sum(likelihood.variational_expectations(None, *args(down), Y))
            ) / (2 * step)
            np.testing.assert_allclose(gradient.numpy()[index], difference, rtol=1e-5)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="at least 2 classes"):
        Softmax(1)
    with pytest.raises(ValueError, match="positive even number"):
        Softmax(3, num_draws=7)
    assert isinstance(make_likelihood("multiclass", 3), Softmax)
    assert isinstance(make_likelihood("multiclass", 3, robust_max=True), gpflow.likelihoods.MultiClass)


def three_classes(rng, n=90):
    X = rng.uniform(-3, 3, (n, 2))
    Y = np.digitize(X[:, :1] + 0.3 * rng.normal(size=(n, 1)), [-1.0, 1.0]).astype(float)
    return X, Y


@pytest.mark.parametrize("builder", [gd.build_deep_gp, gd.build_dspp, gd.build_random_feature_dgp, gd.build_aep_dgp])
def test_every_model_that_takes_a_likelihood_learns_three_classes_with_it(builder, rng):
    X, Y = three_classes(rng)
    model = builder(X, Y, 2, likelihood=Softmax(3))
    gd.fit(model, (X, Y), 150, progress=False)
    probabilities, _ = model.predict_y(X)
    np.testing.assert_allclose(np.sum(probabilities, axis=-1), 1.0, rtol=1e-6)
    assert np.mean(np.argmax(probabilities, axis=-1) == Y[:, 0]) > 0.6, "better than a third"
    assert np.mean(model.predict_log_density((X, Y))) > np.log(1 / 3)


def test_a_softmax_model_serves_the_same_probabilities_from_its_saved_model(rng, tmp_path):
    X, Y = three_classes(rng, n=30)
    model = gd.build_deep_gp(X, Y, 2, likelihood=Softmax(3))
    gd.fit(model, (X, Y), 5, progress=False)
    gd.export(model, str(tmp_path / "served"))
    served = tf.saved_model.load(str(tmp_path / "served")).signatures["predict_y"]
    arguments = dict(num_samples=tf.constant(8), seed=tf.constant(0, tf.int64))
    np.testing.assert_array_equal(served(X=tf.constant(X), **arguments)["mean"], model.predict_y(X, 8, seed=0)[0])
