"""AEPLayer.shared_site_algebra: one R Rᵀ and one Cholesky factor per mode for a whole training
step, the energy and its gradients unchanged."""

import contextlib

import gpflow
import numpy as np
import pytest
import tensorflow as tf

import gpflow_deep as gd
from gpflow_deep import AEPLayer

pytestmark = pytest.mark.shape_checks("compiled")


def site_layer(rng, D=2, L=2, M=5, N=20):
    scale = np.tril(rng.normal(size=(L, M, M)))
    scale[:, np.arange(M), np.arange(M)] = rng.uniform(0.3, 2.0, size=(L, M))
    kernel = gpflow.kernels.SquaredExponential(lengthscales=rng.uniform(0.7, 2.0, size=D))
    return AEPLayer(kernel, rng.normal(size=(M, D)), L, N, site_mean=rng.normal(size=(M, L)), site_scale=scale)


def test_inside_the_context_each_mode_is_computed_once_and_outside_afresh():
    layer = site_layer(np.random.default_rng(0))
    with layer.shared_site_algebra():
        assert layer.natural_parameters("cavity")[0] is layer.natural_parameters("cavity")[0]
        assert layer.natural_parameters("posterior")[0] is not layer.natural_parameters("cavity")[0]
    assert layer.natural_parameters("cavity")[0] is not layer.natural_parameters("cavity")[0]
    assert layer._site_memo is None


@pytest.mark.parametrize("propagation", ["monte_carlo", "moment_matching"])
def test_the_energy_and_its_gradients_are_those_of_unshared_site_algebra(propagation, monkeypatch):
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 1))
    model = gd.build_aep_dgp(X, Y, 2, num_inducing=6, num_samples=3, propagation=propagation)

    def energy_and_gradients():
        model.rng.reset_from_seed(3)
        with tf.GradientTape() as tape:
            energy = model.energy((X, Y))
        return [energy, *tape.gradient(energy, model.trainable_variables)]

    shared = energy_and_gradients()
    monkeypatch.setattr(AEPLayer, "shared_site_algebra", lambda self: contextlib.nullcontext())
    unshared = energy_and_gradients()
    for a, b in zip(shared, unshared):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
