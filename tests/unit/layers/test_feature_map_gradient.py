"""The hand-written gradient of the RBF random features' [cos P, sin P] equals autodiff's exactly."""

import numpy as np
import tensorflow as tf

from gpflow_deep.layers.random_features.feature_maps import cos_sin


def test_cos_sin_and_its_gradient_are_those_of_autodiff_bit_for_bit():
    rng = np.random.default_rng(0)
    projections = tf.constant(rng.normal(scale=3.0, size=(2, 7, 5)))
    weights = tf.constant(rng.normal(size=(2, 7, 10)))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(projections)
        ours = cos_sin(projections)
        autodiff = tf.concat([tf.cos(projections), tf.sin(projections)], axis=-1)
        ours_loss, autodiff_loss = tf.reduce_sum(weights * ours), tf.reduce_sum(weights * autodiff)
    np.testing.assert_array_equal(ours, autodiff)
    np.testing.assert_array_equal(tape.gradient(ours_loss, projections), tape.gradient(autodiff_loss, projections))
    assert ours.shape == (2, 7, 10)
