"""Adam whose dense update of a variable is TensorFlow's one fused kernel, ``ResourceApplyAdam``.

``tf_keras.optimizers.Adam`` updates each variable with about a dozen small operations (the two
moment updates, the square root, the division, three assignments). On the small steps of a deep GP
on a UCI set (batch 256, a dozen variables) those operations are a measurable share of the step,
and the fused kernel does the same arithmetic in one (``docs/benchmarks.md`` §10):

    m ← m + (1 − β₁)(g − m),   v ← v + (1 − β₂)(g² − v),
    θ ← θ − lr · √(1 − β₂ᵗ)/(1 − β₁ᵗ) · m / (√v + ε).

Everything else is Keras's Adam: its variables (so its checkpoints), its learning-rate schedules,
and its own update for sparse gradients, ``amsgrad`` and ``adaptive_epsilon``.
"""

import tensorflow as tf
from gpflow.keras import tf_keras


class FusedAdam(tf_keras.optimizers.Adam):
    """``tf_keras.optimizers.Adam`` with each dense update done by ``ResourceApplyAdam``."""

    def update_step(self, gradient, variable):
        constants = (self.beta_1, self.beta_2, self.epsilon)
        if isinstance(gradient, tf.IndexedSlices) or self.amsgrad or self.adaptive_epsilon or not _numbers(constants):
            return super().update_step(gradient, variable)
        dtype = variable.dtype
        step = tf.cast(self.iterations + 1, dtype)
        # The bias corrections as Keras's Adam computes them (its βᵗ starts from a float32 β), and
        # the moment updates and ε exact, as Keras's are: the two optimizers agree to rounding.
        power_1 = tf.pow(tf.cast(self.beta_1, dtype), step)
        power_2 = tf.pow(tf.cast(self.beta_2, dtype), step)
        index = self._index_dict[self._var_key(variable)]
        return tf.raw_ops.ResourceApplyAdam(
            var=variable.handle,
            m=self._momentums[index].handle,
            v=self._velocities[index].handle,
            beta1_power=power_1,
            beta2_power=power_2,
            lr=tf.cast(self.learning_rate, dtype),
            beta1=tf.constant(self.beta_1, dtype),
            beta2=tf.constant(self.beta_2, dtype),
            epsilon=tf.constant(self.epsilon, dtype),
            grad=gradient,
        )


def _numbers(values) -> bool:
    return all(isinstance(value, (int, float)) for value in values)
