"""The builders' kernels' cross-covariances in few passes equal GPflow's, values and gradients."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from gpflow.covariances import Kuf

from gpflow_deep.core.covariances import cross_covariance, has_fast_cross_covariance, inducing_cross_covariance

FAST_KERNELS = [gpflow.kernels.SquaredExponential, gpflow.kernels.Matern52]


def _kernel(kind, dtype=np.float64):
    with gpflow.config.as_context(gpflow.config.Config(float=dtype)):
        return kind(variance=1.7, lengthscales=np.array([0.6, 1.3, 2.1]))


def _values_and_gradients(compute, kernel, Z, X):
    """k(Z, X) and the gradients of Σ w ∘ k (a fixed random w) with respect to Z, X, the
    lengthscales and the variance."""
    Z, X = tf.constant(Z), tf.constant(X)
    weights = tf.constant(np.random.default_rng(3).standard_normal((Z.shape[0], X.shape[0])), Z.dtype)
    with tf.GradientTape() as tape:
        tape.watch([Z, X])
        K = compute(kernel, Z, X)
        loss = tf.reduce_sum(weights * K)
    sources = [Z, X, kernel.lengthscales.unconstrained_variable, kernel.variance.unconstrained_variable]
    return [K.numpy()] + [g.numpy() for g in tape.gradient(loss, sources)]


@pytest.mark.parametrize("kind", FAST_KERNELS)
def test_values_and_gradients_equal_gpflows(kind):
    rng = np.random.default_rng(0)
    Z, X = rng.standard_normal((7, 3)), rng.standard_normal((11, 3))
    Z[2] = X[4]  # a zero distance, where GPflow clips r²
    kernel = _kernel(kind)
    ours = _values_and_gradients(cross_covariance, kernel, Z, X)
    gpflows = _values_and_gradients(lambda k, Z, X: k.K(Z, X), kernel, Z, X)
    for name, a, b in zip(["K", "dZ", "dX", "d lengthscales", "d variance"], ours, gpflows):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("kind", FAST_KERNELS)
def test_float32_values_and_gradients_close_to_float64(kind):
    rng = np.random.default_rng(1)
    Z, X = rng.standard_normal((7, 3)), rng.standard_normal((11, 3))
    exact = _values_and_gradients(cross_covariance, _kernel(kind), Z, X)
    single = _values_and_gradients(cross_covariance, _kernel(kind, np.float32), Z.astype("f4"), X.astype("f4"))
    assert single[0].dtype == np.float32
    for a, b in zip(single, exact):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4 * np.abs(b).max())


def test_matern52_gradient_against_finite_differences():
    kernel = _kernel(gpflow.kernels.Matern52)
    rng = np.random.default_rng(2)
    Z, X = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    _, _, dX, _, _ = _values_and_gradients(cross_covariance, kernel, Z, X)
    weights = np.random.default_rng(3).standard_normal((4, 5))
    step = 1e-6
    for row, column in [(0, 0), (3, 2), (4, 1)]:
        shifted = [X.copy(), X.copy()]
        shifted[0][row, column] += step
        shifted[1][row, column] -= step
        up, down = (np.sum(weights * cross_covariance(kernel, tf.constant(Z), tf.constant(s)).numpy()) for s in shifted)
        np.testing.assert_allclose(dX[row, column], (up - down) / (2 * step), rtol=1e-6)


@pytest.mark.parametrize(
    "kernel",
    [kind() for kind in FAST_KERNELS + [gpflow.kernels.Matern32, gpflow.kernels.Linear]]
    + [gpflow.kernels.Matern32(active_dims=[0, 2]), gpflow.kernels.Linear(active_dims=[1])],
    ids=lambda kernel: f"{type(kernel).__name__}{'' if isinstance(kernel.active_dims, slice) else '-some-columns'}",
)
def test_leading_axes_pair_index_with_index(kernel):
    rng = np.random.default_rng(4)
    Z, X = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 6, 3))
    paired = cross_covariance(kernel, tf.constant(Z), tf.constant(X)).numpy()
    assert paired.shape == (2, 4, 6)
    for s in range(2):
        np.testing.assert_allclose(paired[s], kernel(Z[s], X[s]).numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(
            cross_covariance(kernel, tf.constant(Z[s]), tf.constant(X[s])).numpy(), paired[s], rtol=1e-12, atol=1e-12
        )


def test_inducing_cross_covariance_equals_gpflows_kuf_whatever_the_wrapping():
    rng = np.random.default_rng(5)
    Z, X = rng.standard_normal((6, 3)), rng.standard_normal((9, 3))
    base = _kernel(gpflow.kernels.Matern52)
    cases = [
        (gpflow.inducing_variables.InducingPoints(Z), base),
        (
            gpflow.inducing_variables.SharedIndependentInducingVariables(gpflow.inducing_variables.InducingPoints(Z)),
            gpflow.kernels.SharedIndependent(base, output_dim=2),
        ),
        (
            gpflow.inducing_variables.SeparateIndependentInducingVariables(
                [gpflow.inducing_variables.InducingPoints(Z), gpflow.inducing_variables.InducingPoints(Z + 1)]
            ),
            gpflow.kernels.SeparateIndependent([base, gpflow.kernels.SquaredExponential()]),
        ),
    ]
    for inducing_variable, kernel in cases:
        np.testing.assert_allclose(
            inducing_cross_covariance(inducing_variable, kernel, tf.constant(X)).numpy(),
            Kuf(inducing_variable, kernel, tf.constant(X)).numpy(),
            rtol=1e-12,
            atol=1e-12,
        )


def test_kernels_on_some_columns_or_subclassed_go_to_gpflow():
    class Scaled(gpflow.kernels.SquaredExponential):
        def K(self, X, X2=None):
            return 2.0 * super().K(X, X2)

    assert has_fast_cross_covariance(gpflow.kernels.Matern52())
    assert not has_fast_cross_covariance(gpflow.kernels.Matern52(active_dims=[0, 2]))
    assert not has_fast_cross_covariance(Scaled())
    rng = np.random.default_rng(6)
    Z, X = rng.standard_normal((3, 3)), rng.standard_normal((4, 3))
    for kernel in (gpflow.kernels.Matern52(active_dims=[0, 2]), Scaled()):
        np.testing.assert_allclose(
            inducing_cross_covariance(gpflow.inducing_variables.InducingPoints(Z), kernel, tf.constant(X)).numpy(),
            kernel(Z, X).numpy(),
            rtol=1e-12,
        )
