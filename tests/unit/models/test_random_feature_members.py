"""RandomFeatureLayer's ``num_members``: K independent members of (Ω's ε, q(Ω), q(W)), path s
member s mod K's, with the members' average KL; and ``build_random_feature_dgp``'s use of them."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from test_random_features import random_posterior

import gpflow_deep as gd
from gpflow_deep import RandomFeatureLayer
from gpflow_deep.core.additive_noise import additive_noise_variance

pytestmark = pytest.mark.shape_checks("compiled")

SEED = tf.constant([5, 6], tf.int64)
D, L, R, K = 2, 2, 7, 3


def kernel():
    return gpflow.kernels.SquaredExponential(variance=1.4, lengthscales=[0.8, 1.3])


def randomised(layer, rng):
    """The layer with every q's parameters set away from the prior, member by member."""
    random_posterior(layer, rng)
    return layer


def member(layer, k, **options):
    """A one-member layer holding member k's arrays of ``layer``."""
    single = RandomFeatureLayer(layer.kernel, D, L, R, omega_mode=layer.omega_mode, **options)
    for name in ("omega_noise", "omega_mean", "omega_std", "w_mean", "w_std"):
        if hasattr(layer, name):
            getattr(single, name).assign(getattr(layer, name)[k])
    return single


@pytest.mark.parametrize("omega_mode", ["var-fixed", "prior-fixed", "var-resampled"])
@pytest.mark.parametrize("local", [False, True])
def test_each_path_is_its_members_one_member_layer(rng, omega_mode, local):
    layer = randomised(
        RandomFeatureLayer(kernel(), D, L, R, omega_mode=omega_mode, local_reparameterisation=local, num_members=K),
        rng,
    )
    assert layer.path_dependent and layer.w_mean.shape == (K, 2 * R, L)
    inputs = tf.constant(rng.normal(size=(2 * K, 5, D)))
    close = dict(rtol=1e-6, atol=1e-6)  # cos and sin are float32's (feature_maps.cosines_and_sines)
    means, variances = layer.marginals(inputs, seed=SEED)
    shared = layer.marginals(inputs[:1], seed=SEED, num_paths=2 * K)[0]  # [1, N, D] inputs for all paths
    for k in range(K):
        single = member(layer, k, local_reparameterisation=local)
        single_means, single_variances = single.marginals(inputs, seed=SEED, num_paths=2 * K)
        paths = np.arange(k, 2 * K, K)
        np.testing.assert_allclose(tf.gather(means, paths), tf.gather(single_means, paths), **close)
        np.testing.assert_allclose(tf.gather(variances, paths), tf.gather(single_variances, paths), **close)
        single_shared = single.marginals(inputs[:1], seed=SEED, num_paths=2 * K)[0]
        np.testing.assert_allclose(
            tf.gather(shared, paths), tf.broadcast_to(single_shared, shared.shape).numpy()[paths], **close
        )


def test_the_kls_are_the_members_average(rng):
    layer = randomised(RandomFeatureLayer(kernel(), D, L, R, num_members=K), rng)
    singles = [member(layer, k) for k in range(K)]
    for kl in ("weights_kl", "omega_kl"):
        expected = np.mean([getattr(single, kl)() for single in singles])
        np.testing.assert_allclose(getattr(layer, kl)(), expected, rtol=1e-10)
        assert float(getattr(layer, kl)()) > 0.0


def test_the_bound_is_the_average_of_the_members_bounds(rng):
    """One layer with local reparameterisation has exact Gaussian marginals: no draw enters the
    bound, which with one path per member is the members' bounds averaged."""
    X, Y = rng.normal(size=(30, D)), rng.normal(size=(30, L))
    layer = randomised(RandomFeatureLayer(kernel(), D, L, R, local_reparameterisation=True, num_members=K), rng)
    model = gd.RandomFeatureDGP([layer], gpflow.likelihoods.Gaussian(0.3), num_data=30, num_samples=K)
    singles = [
        gd.RandomFeatureDGP([member(layer, k, local_reparameterisation=True)], gpflow.likelihoods.Gaussian(0.3), 30)
        for k in range(K)
    ]
    expected = np.mean([single.elbo((X, Y)) for single in singles])
    np.testing.assert_allclose(model.elbo((X, Y)), expected, rtol=1e-10)
    assert model.num_prediction_samples == 102  # a multiple of K: every member the same weight


def test_the_builders_members_start_each_at_its_own_posterior_and_member_zero_is_the_one_member_model(rng):
    X, Y = rng.normal(size=(40, 3)), rng.normal(size=(40, 1))
    one = gd.build_random_feature_dgp(X, Y, num_features=8, num_samples=2)
    two = gd.build_random_feature_dgp(X, Y, num_features=8, num_samples=2, num_members=2)
    assert (one.num_samples, two.num_samples, two.num_prediction_samples) == (2, 4, 100)
    for single, members in zip(one.layers, two.layers):
        np.testing.assert_array_equal(members.omega_noise[0], single.omega_noise)
        assert not np.allclose(members.omega_noise[0], members.omega_noise[1])
    hidden, last = two.layers
    np.testing.assert_allclose(last.w_mean[0], one.layers[-1].w_mean, rtol=1e-8)
    fixed = tf.constant([0, 0], tf.int64)  # unused: Ω and its ε are fixed
    inputs = tf.linalg.matmul(hidden.features(X[None], fixed, num_paths=2), hidden.w_mean)
    inputs = tf.concat([inputs, tf.tile(X[None], [2, 1, 1])], axis=-1) if two.feed_forward else inputs
    noise = additive_noise_variance(two.likelihood)
    for k, Phi in enumerate(last.features(inputs, fixed, num_paths=2).numpy()):
        precision = np.eye(Phi.shape[1]) + Phi.T @ Phi / noise
        np.testing.assert_allclose(last.w_mean[k], np.linalg.solve(precision, Phi.T @ Y / noise), rtol=1e-8)
        np.testing.assert_allclose(last.w_std[k, :, 0], 1.0 / np.sqrt(np.diag(precision)), rtol=1e-8)


@pytest.mark.parametrize("bad", [0, -2, 1.5, True])
def test_num_members_must_be_a_positive_integer(rng, bad):
    with pytest.raises(ValueError, match="num_members"):
        RandomFeatureLayer(kernel(), D, L, R, num_members=bad)
    with pytest.raises(ValueError, match="num_members"):
        gd.build_random_feature_dgp(rng.normal(size=(10, 2)), rng.normal(size=(10, 1)), num_members=bad)


def test_the_model_trains_every_member_on_as_many_paths(rng):
    layer = RandomFeatureLayer(kernel(), D, L, R, num_members=K)
    model = gd.RandomFeatureDGP([layer], gpflow.likelihoods.Gaussian(), num_data=10)
    assert model.num_samples == K  # one path per member unless told
    with pytest.raises(ValueError, match="multiple of the layers' num_members"):
        gd.RandomFeatureDGP([layer], gpflow.likelihoods.Gaussian(), num_data=10, num_samples=K + 1)
