"""Propagation rules as objects: each gives exactly the paths of the function it wraps, with the
paths' log-weights, refuses layers it cannot carry by name, and plugs into the models."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf

import gpflow_deep as gd
from gpflow_deep import AEPDGP, DSPP, DeepGP, GPLayer
from gpflow_deep.core.row_noise import row_keyed_noise
from gpflow_deep.layers import AEPLayer, RandomFeatureLayer, SubsetLastLayer, SubsetLayer
from gpflow_deep.objectives import expected_log_likelihood
from gpflow_deep.propagation import (
    FeedInputs,
    MomentMatching,
    Propagation,
    Sampled,
    SigmaPoints,
    SubsetFirst,
    as_propagation,
    moment_matched_layers,
    sample_layers,
    sample_layers_feeding_inputs,
    sigma_point_layers,
    uniform_log_weights,
)

pytestmark = pytest.mark.shape_checks("compiled")

SEED = tf.constant([3, 4], tf.int64)


def gp_layers(rng, widths=(2, 3, 1)):
    return [
        GPLayer(
            gpflow.kernels.SquaredExponential(lengthscales=np.ones(a)),
            rng.normal(size=(5, a)),
            b,
            q_mu=rng.normal(size=(5, b)),
            q_sqrt=np.tril(0.3 * rng.normal(size=(b, 5, 5))) + 0.5 * np.eye(5),
        )
        for a, b in zip(widths[:-1], widths[1:])
    ]


def aep_layers(rng, N=10):
    return [
        AEPLayer(gpflow.kernels.SquaredExponential(), rng.normal(size=(4, 2)), 2, N, site_mean=rng.normal(size=(4, 2))),
        AEPLayer(gpflow.kernels.SquaredExponential(), rng.normal(size=(4, 2)), 1, N, noise_variance=None),
    ]


def assert_same_outputs(outputs, expected):
    assert len(outputs) == len(expected)
    for output, reference in zip(outputs, expected):
        for field, reference_field in zip(output, reference):
            np.testing.assert_array_equal(field, reference_field)


def test_sampled_gives_the_paths_of_sample_layers_with_equal_weights(rng):
    layers, X = gp_layers(rng), tf.constant(rng.normal(size=(6, 2)))
    paths = Sampled()(layers, X, 4, SEED)
    assert_same_outputs(paths.outputs, sample_layers(layers, X, 4, SEED))
    np.testing.assert_allclose(paths.log_weights, np.full(4, -np.log(4)), rtol=1e-15)
    np.testing.assert_array_equal(uniform_log_weights(4, tf.float64), paths.log_weights)
    mixture = paths.mixture()
    np.testing.assert_array_equal(mixture.means, paths.outputs[-1].means)
    keyed = Sampled()(layers, X, 4, SEED, first_row=tf.constant(70, tf.int64))
    noise = row_keyed_noise([(tf.constant(70, tf.int64), 6)])
    assert_same_outputs(keyed.outputs, sample_layers(layers, X, 4, SEED, noise=noise))
    assert not np.allclose(keyed.outputs[0].values, paths.outputs[0].values)


def test_feed_inputs_gives_the_paths_of_sample_layers_feeding_inputs(rng):
    X = tf.constant(rng.normal(size=(5, 2)))
    layers = [
        RandomFeatureLayer(gpflow.kernels.SquaredExponential(), 2, 3, 10, seed=1),
        RandomFeatureLayer(gpflow.kernels.SquaredExponential(), 3, 1, 10, fed_input_dim=2, seed=2),
    ]
    paths = FeedInputs()(layers, X, 3, SEED)
    assert_same_outputs(paths.outputs, sample_layers_feeding_inputs(layers, X, 3, SEED))
    np.testing.assert_allclose(np.exp(paths.log_weights), np.full(3, 1 / 3), rtol=1e-15)
    FeedInputs().check(layers)
    with pytest.raises(ValueError, match=r"need fed_input_dim \[0\], got \[2\]"):
        Sampled().check(layers)
    with pytest.raises(ValueError, match=r"need fed_input_dim \[2\], got \[0\]"):
        FeedInputs().check(gp_layers(rng))


def test_sigma_points_give_the_paths_of_sigma_point_layers_with_softmax_weights(rng):
    layers, X = gp_layers(rng), tf.constant(rng.normal(size=(6, 2)))
    points, logits = [rng.normal(size=(4, 3))], rng.normal(size=4)
    paths = SigmaPoints(points, logits)(layers, X)
    assert_same_outputs(paths.outputs, sigma_point_layers(layers, points, X))
    weights = np.exp(logits) / np.exp(logits).sum()
    np.testing.assert_allclose(np.exp(paths.log_weights), weights, rtol=1e-12)
    one_layer = SigmaPoints([], np.zeros(3))(layers[:1], X)  # one layer: S identical paths
    assert one_layer.outputs[0].means.shape == (3, 6, 3)
    np.testing.assert_array_equal(one_layer.outputs[0].means[2], sigma_point_layers(layers[:1], [], X)[0].means[0])
    with pytest.raises(ValueError, match=r"sigma_points\[0\] must be \[S, 3\]"):
        SigmaPoints([rng.normal(size=(4, 2))], logits).check(layers)
    with pytest.raises(ValueError, match="disagree on the number of sigma points: \\[4, 5\\]"):
        SigmaPoints(points, np.zeros(5)).check(layers)


def test_moment_matching_gives_one_path_of_weight_one(rng):
    layers, X = aep_layers(rng), tf.constant(rng.normal(size=(5, 2)))
    paths = MomentMatching()(layers, X, mode="cavity")
    assert_same_outputs(paths.outputs, moment_matched_layers(layers, X, "cavity"))
    np.testing.assert_array_equal(paths.log_weights, [0.0])
    with pytest.raises(ValueError, match=r"moment matching: layers\[1\] \(GPLayer\) has no moment_match"):
        MomentMatching().check([layers[0], gp_layers(rng)[1]])


def test_subset_first_carries_the_subset_and_returns_the_rows_of_x(rng):
    M, X = 4, tf.constant(rng.normal(size=(6, 2)))
    X_S = rng.normal(size=(M, 2))
    likelihood = gpflow.likelihoods.Gaussian(0.1)
    layers = [
        SubsetLayer(gpflow.kernels.SquaredExponential(), M, 2, 2, q_mu=rng.normal(size=(M, 2)), joint_sampling=True),
        SubsetLastLayer(gpflow.kernels.SquaredExponential(), M, 2, likelihood, rng.normal(size=(M, 1))),
    ]
    rule = SubsetFirst(tf.constant(X_S))
    paths = rule(layers, X, 3, SEED)
    carried = sample_layers(layers, tf.concat([X_S, X], axis=0), 3, SEED)
    assert_same_outputs(paths.outputs, [[field[:, M:] for field in output] for output in carried])
    assert_same_outputs(rule.carried(layers, X, 3, SEED), carried)
    np.testing.assert_allclose(np.exp(paths.log_weights), np.full(3, 1 / 3), rtol=1e-15)
    with pytest.raises(ValueError, match=r"layers\[0\] is not a subset layer of M=5 rows"):
        SubsetFirst(tf.zeros((5, 2), tf.float64)).check(layers)
    with pytest.raises(ValueError, match=r"layers\[0\] is not a subset layer of M=4 rows"):
        rule.check(gp_layers(rng))


def test_rules_keep_the_protocol_and_aliases_name_them(rng):
    for rule in (
        Sampled(),
        FeedInputs(),
        MomentMatching(),
        SigmaPoints([], np.zeros(1)),
        SubsetFirst(np.zeros((2, 1))),
    ):
        assert isinstance(rule, Propagation)
    assert isinstance(as_propagation("monte_carlo"), Sampled)
    assert isinstance(as_propagation("moment_matching"), MomentMatching)
    rule = MomentMatching()
    assert as_propagation(rule) is rule
    with pytest.raises(ValueError, match=r"propagation must be one of \('monte_carlo', 'moment_matching'\), got 'ep'"):
        as_propagation("ep")
    with pytest.raises(TypeError, match="propagation must be a rule of gpflow_deep.propagation"):
        as_propagation(sample_layers)


def test_aep_takes_a_rule_or_its_alias_and_checks_it_against_the_layers(rng):
    X, Y = rng.normal(size=(10, 2)), rng.normal(size=(10, 1))
    layers = aep_layers(rng)
    by_name = AEPDGP(layers, gpflow.likelihoods.Gaussian(), 10, propagation="moment_matching")
    by_rule = AEPDGP(layers, gpflow.likelihoods.Gaussian(), 10, propagation=MomentMatching())
    np.testing.assert_array_equal(by_name.energy((X, Y)), by_rule.energy((X, Y)))
    assert not by_rule.monte_carlo and AEPDGP(layers, gpflow.likelihoods.Gaussian(), 10).monte_carlo
    with pytest.raises(ValueError, match="has no moment_match"):  # at construction, not at the first step
        AEPDGP(
            [layers[0], gp_layers(rng, (2, 2, 1))[1]], gpflow.likelihoods.Gaussian(), 10, propagation=MomentMatching()
        )
    with pytest.raises(ValueError, match="has no joint samples"):
        by_rule.predict_f_samples(X, 2, full_cov=True)


def test_deep_gp_on_fixed_sigma_points_is_dspp_with_fixed_points_and_the_elbos_data_term(rng):
    """Mix-and-match: DSVI's model with DSPP's rule; and the rule's paths are the model's."""
    X, Y = rng.normal(size=(8, 2)), rng.normal(size=(8, 1))
    layers, likelihood = gp_layers(rng), gpflow.likelihoods.Gaussian(variance=0.3)
    points, weights = [rng.normal(size=(4, 3))], np.array([0.1, 0.2, 0.3, 0.4])
    dspp = DSPP(layers, likelihood, 16, points, weights, beta=0.5, data_term=expected_log_likelihood)
    deep_gp = DeepGP(layers, likelihood, 16, propagation=SigmaPoints(points, np.log(weights)), beta=0.5)
    np.testing.assert_allclose(deep_gp.elbo((X, Y)), dspp.maximum_log_likelihood_objective((X, Y)), rtol=1e-12)
    assert not deep_gp.monte_carlo
    np.testing.assert_allclose(deep_gp.predict_f(X)[1], dspp.predict_f(X)[1], rtol=1e-12)


def test_models_refuse_what_is_not_a_rule(rng):
    with pytest.raises(TypeError, match="propagation must be a rule of gpflow_deep.propagation"):
        DeepGP(gp_layers(rng), gpflow.likelihoods.Gaussian(), 10, propagation=sample_layers)
    model = DeepGP(gp_layers(rng), gpflow.likelihoods.Gaussian(), 10)
    with pytest.raises(ValueError, match=r"sigma_points: need one array per hidden layer \(1\), got 0"):
        model.propagation = SigmaPoints([], np.zeros(2))
    assert isinstance(model.propagation, Sampled) and gd.propagation.Sampled is Sampled
