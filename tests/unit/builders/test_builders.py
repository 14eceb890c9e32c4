"""build_deep_gp sets up the paper's model from data."""

import gpflow
import numpy as np
import pytest

import gpflow_deep as gd
from gpflow_deep.builders import kmeans_inducing_inputs, linear_means, linear_projection


def test_paper_defaults_on_boston():
    data = gd.datasets.load("boston")
    part = gd.datasets.uci_split(data, 0)
    model = gd.build_deep_gp(part.X_train, part.Y_train, num_layers=3, config=gd.builders.DeepGPConfig.paper())
    inner, last = model.layers[:-1], model.layers[-1]
    assert [layer.num_latent_gps for layer in model.layers] == [13, 13, 1]  # min(30, D) inner width
    assert all(layer.num_inducing == 100 for layer in model.layers)
    assert model.num_data == len(part.X_train) and model.num_samples == 1
    np.testing.assert_allclose(model.likelihood.variance.numpy(), 0.01)
    for layer in model.layers:
        kernels = layer.kernel.kernel.kernels if layer in inner else [layer.kernel.kernel]
        rbf = kernels[0]
        np.testing.assert_allclose(rbf.variance.numpy(), 2.0)
        np.testing.assert_allclose(rbf.lengthscales.numpy(), 2.0 * np.ones(layer.input_dim))
        assert layer.whiten and not layer.q_diag
        np.testing.assert_array_equal(layer.q_mu.numpy(), 0.0)
    for layer in inner:
        noise = layer.kernel.kernel.kernels[1]
        assert isinstance(noise, gpflow.kernels.White)
        np.testing.assert_allclose(noise.variance.numpy(), 1e-5)
        np.testing.assert_allclose(layer.q_sqrt.numpy(), 1e-5 * np.tile(np.eye(100), (13, 1, 1)), atol=1e-12)
        assert isinstance(layer.mean_function, gpflow.mean_functions.Identity)
    np.testing.assert_allclose(last.q_sqrt.numpy(), np.eye(100)[None], atol=1e-12)
    assert last.mean_function is None


def test_wide_inputs_get_a_fixed_pca_mean_and_projected_inducing_inputs(rng):
    X = rng.normal(size=(200, 40)) @ rng.normal(size=(40, 40))
    Y = X[:, :1]
    model = gd.build_deep_gp(X, Y, num_layers=3, num_inducing=20)
    first, second, _ = model.layers
    assert first.num_latent_gps == 30 and second.num_latent_gps == 30
    W = first.mean_function.A.numpy()
    np.testing.assert_allclose(W, linear_projection(X, 30))
    assert not first.mean_function.A.trainable and not first.mean_function.b.trainable
    Z1 = first.inducing_variable.inducing_variable.Z.numpy()
    Z2 = second.inducing_variable.inducing_variable.Z.numpy()
    np.testing.assert_allclose(Z2, Z1 @ W)
    assert isinstance(second.mean_function, gpflow.mean_functions.Identity)


def test_linear_projection_is_pca_or_padding(rng):
    X = rng.normal(size=(100, 5)) * np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    W = linear_projection(X, 2)
    _, _, V = np.linalg.svd(X, full_matrices=False)
    np.testing.assert_allclose(np.abs(W), np.abs(V[:2].T))
    np.testing.assert_allclose(np.abs(W.T @ np.eye(5)[:, :2]), np.eye(2), atol=0.1)  # top axes
    np.testing.assert_array_equal(linear_projection(X, 5), np.eye(5))
    np.testing.assert_array_equal(linear_projection(X, 7), np.concatenate([np.eye(5), np.zeros((5, 2))], axis=1))


@pytest.mark.parametrize("trainable", [False, True])
def test_linear_means_carry_data_and_inducing_inputs_alike(rng, trainable):
    X, Z = rng.normal(size=(50, 6)), rng.normal(size=(8, 6))
    means, inducing = linear_means(X, Z, [3, 3], trainable=trainable)
    assert len(means) == 2 and len(inducing) == 3
    np.testing.assert_allclose(inducing[1], means[0](Z).numpy())
    np.testing.assert_allclose(inducing[2], inducing[1])
    assert len(means[0].trainable_variables) == (2 if trainable else 0)
    assert isinstance(means[1], gpflow.mean_functions.Linear if trainable else gpflow.mean_functions.Identity)


def test_kmeans_inducing_inputs(rng):
    X = np.concatenate([rng.normal(-5, 0.1, (30, 2)), rng.normal(5, 0.1, (30, 2))])
    Z = kmeans_inducing_inputs(X, 2, seed=0)
    np.testing.assert_allclose(np.sort(Z[:, 0]), [-5, 5], atol=0.1)
    np.testing.assert_array_equal(kmeans_inducing_inputs(X, 60), X)
    np.testing.assert_array_equal(kmeans_inducing_inputs(X, 10, seed=3), kmeans_inducing_inputs(X, 10, seed=3))
    with pytest.raises(ValueError, match="num_inducing=61 needs at least as many training points, got N=60"):
        kmeans_inducing_inputs(X, 61)


def test_every_choice_can_be_overridden(rng):
    X, Y = rng.normal(size=(60, 3)), rng.normal(size=(60, 1))
    Z = rng.normal(size=(7, 3))
    model = gd.build_deep_gp(
        X,
        Y,
        num_layers=2,
        likelihood=gpflow.likelihoods.StudentT(),
        hidden_width=5,
        kernel_factory=lambda index, width: gpflow.kernels.Matern52(lengthscales=np.full(width, 0.5 + index)),
        inner_noise_variance=0.0,
        inner_q_sqrt_scale=0.1,
        q_diag=True,
        whiten=False,
        inducing_inputs=Z,
        num_samples=4,
    )
    first, last = model.layers
    assert isinstance(first.kernel.kernel, gpflow.kernels.Matern52) and first.num_latent_gps == 5
    np.testing.assert_allclose(last.kernel.kernel.lengthscales.numpy(), 1.5)
    assert first.q_diag and not first.whiten and model.num_samples == 4
    np.testing.assert_allclose(first.q_sqrt.numpy(), 0.1)
    np.testing.assert_allclose(first.inducing_variable.inducing_variable.Z.numpy(), Z)
    assert isinstance(model.likelihood, gpflow.likelihoods.StudentT)


def test_builder_rejects_bad_input(rng):
    X, Y = rng.normal(size=(20, 3)), rng.normal(size=(20, 1))
    with pytest.raises(ValueError, match="num_inducing=100 needs at least as many training points, got N=20"):
        gd.build_deep_gp(X, Y, num_inducing=100)  # given explicitly; the default adapts to N
    with pytest.raises(ValueError, match="num_layers must be a positive integer"):
        gd.build_deep_gp(X, Y, num_layers=0, num_inducing=5)
    with pytest.raises(ValueError, match=r"inducing_inputs must be \[M, 3\]"):
        gd.build_deep_gp(X, Y, inducing_inputs=np.zeros((5, 2)))
    with pytest.raises(ValueError, match="Y has 19 rows but the inputs have 20"):
        gd.build_deep_gp(X, Y[:-1], num_inducing=5)
