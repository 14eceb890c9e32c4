"""The RBF random features' hand-written gradient equals autodiff's exactly in float32, float64
projections get float32's trigonometry, and the blockwise product equals that of the concatenated
features."""

import numpy as np
import tensorflow as tf

from gpflow_deep.layers.random_features.feature_maps import blockwise_matmul, cosines_and_sines


def _features_and_gradient(function, projections, weights):
    with tf.GradientTape() as tape:
        tape.watch(projections)
        features = tf.concat(function(projections), axis=-1)
        loss = tf.reduce_sum(weights * tf.cast(features, weights.dtype))
    return features, tape.gradient(loss, projections)


def _autodiff(projections):
    return [tf.cos(projections), tf.sin(projections)]


def test_cosines_and_sines_and_their_gradient_are_those_of_autodiff_bit_for_bit_in_float32():
    rng = np.random.default_rng(0)
    projections = tf.constant(rng.normal(scale=3.0, size=(2, 7, 5)), dtype=tf.float32)
    weights = tf.constant(rng.normal(size=(2, 7, 10)), dtype=tf.float32)
    ours, our_gradient = _features_and_gradient(cosines_and_sines, projections, weights)
    autodiff, autodiff_gradient = _features_and_gradient(_autodiff, projections, weights)
    np.testing.assert_array_equal(ours, autodiff)
    np.testing.assert_array_equal(our_gradient, autodiff_gradient)
    assert ours.shape == (2, 7, 10)


def test_float64_projections_get_float32_trigonometry_within_its_rounding():
    """Float64 in, float64 out, the values float32's: within 1e-6 of float64's cos and sin (and the
    gradient likewise, relative to the weights' scale), and not equal to them (a test that the
    faster path is the one taken)."""
    rng = np.random.default_rng(0)
    projections = tf.constant(rng.normal(scale=3.0, size=(2, 7, 5)))
    weights = tf.constant(rng.normal(size=(2, 7, 10)))
    ours, our_gradient = _features_and_gradient(cosines_and_sines, projections, weights)
    exact, exact_gradient = _features_and_gradient(_autodiff, projections, weights)
    assert ours.dtype == our_gradient.dtype == tf.float64
    np.testing.assert_allclose(ours, exact, rtol=0, atol=1e-6)
    np.testing.assert_allclose(our_gradient, exact_gradient, rtol=0, atol=1e-5)
    assert np.max(np.abs(ours - exact)) > 1e-12
    as_float32, _ = _features_and_gradient(_autodiff, tf.cast(projections, tf.float32), weights)
    np.testing.assert_array_equal(ours, tf.cast(as_float32, tf.float64))


def test_blockwise_matmul_equals_the_product_of_the_concatenation():
    rng = np.random.default_rng(1)
    blocks = [tf.constant(rng.normal(size=(3, 4, width))) for width in (5, 5, 2)]
    weights = tf.constant(rng.normal(size=(3, 12, 2)))
    expected = tf.linalg.matmul(tf.concat(blocks, axis=-1), weights)
    np.testing.assert_allclose(blockwise_matmul(blocks, weights), expected, rtol=1e-12)
    np.testing.assert_allclose(blockwise_matmul(blocks[:1], weights[:, :5]), blocks[0] @ weights[:, :5], rtol=1e-14)
