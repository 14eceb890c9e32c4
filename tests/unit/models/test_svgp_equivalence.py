"""A one-layer DeepGP is GPflow's SVGP: same ELBO and the same predictions."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from gpflow.likelihoods import Bernoulli, Gaussian, MultiClass, RobustMax

from gpflow_deep import DeepGP, GPLayer

pytestmark = pytest.mark.shape_checks("compiled")

N, M, D = 40, 7, 2


def data(rng, kind):
    X = rng.normal(size=(N, D))
    f = np.sin(2 * X[:, :1]) + X[:, 1:]
    if kind == "gaussian":
        return X, f + 0.1 * rng.normal(size=(N, 1)), Gaussian(variance=0.3), 1
    if kind == "bernoulli":
        return X, (f > 0).astype(float), Bernoulli(), 1
    labels = np.digitize(f[:, 0], [-0.5, 0.5]).astype(float)[:, None]
    return X, labels, MultiClass(3, invlink=RobustMax(3)), 3


@pytest.mark.parametrize("kind", ["gaussian", "bernoulli", "multiclass"])
@pytest.mark.parametrize("whiten", [True, False])
def test_one_layer_deep_gp_equals_svgp(rng, kind, whiten):
    X, Y, likelihood, latent = data(rng, kind)
    Z = X[rng.choice(N, M, replace=False)]
    q_mu = rng.normal(size=(M, latent))
    q_sqrt = np.tril(rng.normal(size=(latent, M, M))) + 2 * np.eye(M)
    kernel = gpflow.kernels.SquaredExponential(variance=1.3, lengthscales=[0.7, 1.4])
    svgp = gpflow.models.SVGP(
        kernel,
        likelihood,
        gpflow.inducing_variables.InducingPoints(Z),
        num_latent_gps=latent,
        q_mu=q_mu,
        q_sqrt=q_sqrt,
        whiten=whiten,
        num_data=N,
    )
    layer = GPLayer(gpflow.utilities.deepcopy(kernel), Z, latent, q_mu=q_mu, q_sqrt=q_sqrt, whiten=whiten)
    model = DeepGP([layer], gpflow.utilities.deepcopy(likelihood), num_data=N, num_samples=3)

    np.testing.assert_allclose(model.elbo((X, Y)), svgp.elbo((X, Y)), rtol=1e-10)
    X_test = rng.normal(size=(11, D))
    Y_test = Y[:11]
    for ours, theirs in zip(model.predict_f(X_test, num_samples=4), svgp.predict_f(X_test)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    for ours, theirs in zip(model.predict_y(X_test, num_samples=4), svgp.predict_y(X_test)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(
        model.predict_log_density((X_test, Y_test), num_samples=4),
        svgp.predict_log_density((X_test, Y_test)),
        rtol=1e-9,
    )


def test_minibatch_elbo_is_scaled_like_svgp(rng):
    X, Y, likelihood, _ = data(rng, "gaussian")
    Z = X[:M]
    svgp = gpflow.models.SVGP(
        gpflow.kernels.SquaredExponential(), likelihood, gpflow.inducing_variables.InducingPoints(Z), num_data=N
    )
    model = DeepGP([GPLayer(gpflow.kernels.SquaredExponential(), Z, 1)], Gaussian(variance=0.3), num_data=N)
    batch = (X[:10], Y[:10])
    np.testing.assert_allclose(model.elbo(batch), svgp.elbo(batch), rtol=1e-10)


def test_gradients_equal_svgp(rng):
    X, Y, likelihood, _ = data(rng, "gaussian")
    Z = X[:M]
    q_sqrt = np.tril(rng.normal(size=(1, M, M))) + 2 * np.eye(M)
    svgp = gpflow.models.SVGP(
        gpflow.kernels.SquaredExponential(),
        likelihood,
        gpflow.inducing_variables.InducingPoints(Z),
        q_sqrt=q_sqrt,
        num_data=N,
    )
    layer = GPLayer(gpflow.kernels.SquaredExponential(), Z, 1, q_sqrt=q_sqrt)
    model = DeepGP([layer], Gaussian(variance=0.3), num_data=N)
    pairs = [
        (layer.kernel.kernel.variance, svgp.kernel.variance),
        (layer.kernel.kernel.lengthscales, svgp.kernel.lengthscales),
        (layer.inducing_variable.inducing_variable.Z, svgp.inducing_variable.Z),
        (layer.q_mu, svgp.q_mu),
        (layer.q_sqrt, svgp.q_sqrt),
        (model.likelihood.variance, svgp.likelihood.variance),
    ]
    with tf.GradientTape(persistent=True) as tape:
        ours, theirs = model.elbo((X, Y)), svgp.elbo((X, Y))
    for our_parameter, their_parameter in pairs:
        np.testing.assert_allclose(
            tape.gradient(ours, our_parameter.unconstrained_variable),
            tape.gradient(theirs, their_parameter.unconstrained_variable),
            rtol=1e-8,
            atol=1e-10,
        )
