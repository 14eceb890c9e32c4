"""The RBF random features' hand-written gradient equals autodiff's exactly, and the blockwise
product equals that of the concatenated features."""

import numpy as np
import tensorflow as tf

from gpflow_deep.layers.random_features.feature_maps import blockwise_matmul, cosines_and_sines


def test_cosines_and_sines_and_their_gradient_are_those_of_autodiff_bit_for_bit():
    rng = np.random.default_rng(0)
    projections = tf.constant(rng.normal(scale=3.0, size=(2, 7, 5)))
    weights = tf.constant(rng.normal(size=(2, 7, 10)))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(projections)
        ours = tf.concat(cosines_and_sines(projections), axis=-1)
        autodiff = tf.concat([tf.cos(projections), tf.sin(projections)], axis=-1)
        ours_loss, autodiff_loss = tf.reduce_sum(weights * ours), tf.reduce_sum(weights * autodiff)
    np.testing.assert_array_equal(ours, autodiff)
    np.testing.assert_array_equal(tape.gradient(ours_loss, projections), tape.gradient(autodiff_loss, projections))
    assert ours.shape == (2, 7, 10)


def test_blockwise_matmul_equals_the_product_of_the_concatenation():
    rng = np.random.default_rng(1)
    blocks = [tf.constant(rng.normal(size=(3, 4, width))) for width in (5, 5, 2)]
    weights = tf.constant(rng.normal(size=(3, 12, 2)))
    expected = tf.linalg.matmul(tf.concat(blocks, axis=-1), weights)
    np.testing.assert_allclose(blockwise_matmul(blocks, weights), expected, rtol=1e-12)
    np.testing.assert_allclose(blockwise_matmul(blocks[:1], weights[:, :5]), blocks[0] @ weights[:, :5], rtol=1e-14)
