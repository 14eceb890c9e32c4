"""The subset layers' variance reduction a_nᵀ (I − T_l T_lᵀ) a_n and its hand-written gradient."""

import numpy as np
import pytest
import tensorflow as tf

from gpflow_deep.layers.subset.variance_reduction import variance_reduction


@pytest.mark.parametrize("num_outputs", [1, 3])
def test_value_and_gradients_equal_autodiff_of_the_two_norms(rng, num_outputs):
    """‖a_n‖² − ‖T_lᵀ a_n‖², differentiated by TensorFlow, for general (not triangular) T_l."""
    S, M, N = 2, 6, 9
    A = tf.constant(rng.normal(size=(S, M, N)))
    factors = tf.constant(rng.normal(size=(S, num_outputs, M, M)))
    weights = tf.constant(rng.normal(size=(S, num_outputs, N)))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([A, factors])
        ours = variance_reduction(A, factors)
        projected = tf.linalg.matmul(factors, A[:, None], transpose_a=True)  # [S, L, M, N]
        direct = tf.reduce_sum(tf.square(A), axis=1)[:, None] - tf.reduce_sum(tf.square(projected), axis=2)
        ours_total, direct_total = tf.reduce_sum(weights * ours), tf.reduce_sum(weights * direct)
    np.testing.assert_allclose(ours, direct, rtol=1e-10, atol=1e-12)
    for gradient, reference in zip(tape.gradient(ours_total, [A, factors]), tape.gradient(direct_total, [A, factors])):
        np.testing.assert_allclose(gradient, reference, rtol=1e-10, atol=1e-12)


def test_gradient_matches_finite_differences(rng):
    A0, T0 = rng.normal(size=(1, 3, 4)), rng.normal(size=(1, 2, 3, 3))
    weights = rng.normal(size=(1, 2, 4))

    def objective(A, T):
        return float(tf.reduce_sum(weights * variance_reduction(tf.constant(A), tf.constant(T))))

    A_var, T_var = tf.Variable(A0), tf.Variable(T0)
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(weights * variance_reduction(A_var, T_var))
    for array, gradient in zip((A0, T0), tape.gradient(total, [A_var, T_var])):
        numeric = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            step = np.zeros_like(array)
            step[index] = 1e-6
            plus, minus = ((A0 + step, T0), (A0 - step, T0)) if array is A0 else ((A0, T0 + step), (A0, T0 - step))
            numeric[index] = (objective(*plus) - objective(*minus)) / 2e-6
        np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-8)


def test_no_reduction_when_the_factors_are_identities(rng):
    """q equal to the whitened prior N(0, I) leaves the prior variance: r = 0 (float32 too)."""
    A = tf.constant(rng.normal(size=(2, 5, 7)), tf.float32)
    identities = tf.eye(5, batch_shape=[2, 1], dtype=tf.float32)
    np.testing.assert_allclose(variance_reduction(A, identities), np.zeros((2, 1, 7)), atol=1e-5)


def test_factors_shared_by_the_paths_equal_them_repeated_on_each(rng):
    """Factors ``[1, L, M, M]`` (one W_l for all paths): value and both gradients equal those of the
    same factors repeated on each of S paths."""
    S, L, M, N = 3, 2, 4, 6
    A = tf.constant(rng.normal(size=(S, M, N)))
    shared = tf.constant(rng.normal(size=(1, L, M, M)))
    weights = tf.constant(rng.normal(size=(S, L, N)))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([A, shared])
        once = tf.reduce_sum(weights * variance_reduction(A, shared))
        repeated = tf.reduce_sum(weights * variance_reduction(A, tf.repeat(shared, S, axis=0)))
    np.testing.assert_allclose(once, repeated, rtol=1e-12)
    for gradient, reference in zip(tape.gradient(once, [A, shared]), tape.gradient(repeated, [A, shared])):
        assert gradient.shape == reference.shape
        np.testing.assert_allclose(gradient, reference, rtol=1e-10, atol=1e-12)
