"""FusedAdam, fit's default optimizer, against Keras's Adam: the same trajectory to rounding."""

import numpy as np
import pytest
import tensorflow as tf
from gpflow.keras import tf_keras

from gpflow_deep.training import FusedAdam


def trajectory(optimizer, dtype, steps=40):
    """The variables after each of ``steps`` compiled updates on a small non-quadratic loss."""
    variables = [tf.Variable(np.linspace(-1.0, 2.0, 6).reshape(3, 2), dtype=dtype), tf.Variable(1.5, dtype=dtype)]

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.sin(variables[0]) * variables[1] ** 2) + tf.exp(0.3 * variables[1])
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))

    path = []
    for _ in range(steps):
        step()
        path.append(np.concatenate([np.ravel(v.numpy()) for v in variables]))
    return np.array(path)


@pytest.mark.parametrize("dtype, rtol", [(tf.float64, 1e-12), (tf.float32, 1e-5)])
def test_fused_adam_follows_keras_adam(dtype, rtol):
    keras = trajectory(tf_keras.optimizers.Adam(0.05), dtype)
    fused = trajectory(FusedAdam(0.05), dtype)
    assert np.ptp(keras[:, 0]) > 0.5  # the variables really move
    np.testing.assert_allclose(fused, keras, rtol=rtol, atol=rtol)


def test_fused_adam_keeps_keras_options_it_cannot_fuse():
    """``amsgrad`` goes through Keras's own update, so the trajectory is Keras's exactly."""
    keras = trajectory(tf_keras.optimizers.Adam(0.05, amsgrad=True), tf.float64)
    fused = trajectory(FusedAdam(0.05, amsgrad=True), tf.float64)
    np.testing.assert_array_equal(fused, keras)


def test_fused_adam_is_fits_default():
    from gpflow_deep.training.fit import _checked_optimizer

    optimizer = _checked_optimizer(None, 0.02)
    assert isinstance(optimizer, FusedAdam)
    assert float(optimizer.learning_rate) == pytest.approx(0.02)
    annealed = _checked_optimizer(None, 0.02, 0.7, 10)
    assert isinstance(annealed, FusedAdam)
    assert isinstance(annealed._learning_rate, tf_keras.optimizers.schedules.CosineDecay)
