"""The compiled training step of :func:`~gpflow_deep.fit`: data, gradients and updates."""

from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import tensorflow as tf
from gpflow.keras import tf_keras
from gpflow.optimizers import NaturalGradient

from ..models import DeepMixtureModel
from ..validation import check_positive_int


@dataclass
class TrainingStep:
    """``step()`` runs one update and returns the loss; the rest is what a checkpoint must hold.

    :ivar iteration: the count of updates done, incremented inside the step.
    :ivar variables: what ``optimizer`` trains (all trainable variables but the natural-gradient ones).
    :ivar batches: the minibatch iterator, or None for full batch.
    """

    step: Callable[[], tf.Tensor]
    optimizer: tf_keras.optimizers.Optimizer
    variables: List[tf.Variable]
    iteration: tf.Variable
    batches: Optional[tf.data.Iterator]


def training_step(
    model: DeepMixtureModel,
    X: tf.Tensor,
    Y: tf.Tensor,
    *,
    batch_size: Optional[int],
    optimizer: tf_keras.optimizers.Optimizer,
    natgrad_gamma: Optional[float],
    seed: Optional[int],
    jit_compile: bool,
) -> TrainingStep:
    """One ``tf.function``: read a batch, take the natural-gradient step (if any) and the
    optimizer step, count the iteration. With ``jit_compile`` the update is compiled by XLA (the
    ``tf.data`` read cannot be, so it stays outside the XLA cluster)."""
    natgrad_pairs = _natgrad_pairs(model, natgrad_gamma)
    natgrad = NaturalGradient(gamma=natgrad_gamma) if natgrad_pairs else None
    variables = _variables_for_optimizer(model, natgrad_pairs)
    iteration = tf.Variable(0, dtype=tf.int64, trainable=False, name="iteration")

    def update(X_batch: tf.Tensor, Y_batch: tf.Tensor) -> tf.Tensor:
        batch = (X_batch, Y_batch)
        if natgrad is not None:
            natgrad.minimize(lambda: model.training_loss(batch), var_list=natgrad_pairs)
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(variables)
            loss = model.training_loss(batch)
        gradients = tape.gradient(loss, variables)
        optimizer.apply_gradients([(g, v) for g, v in zip(gradients, variables) if g is not None])
        iteration.assign_add(1)
        return loss

    compiled_update = tf.function(update, jit_compile=jit_compile)
    batches = _minibatches(X, Y, batch_size, seed)
    if batches is None:
        step = tf.function(lambda: compiled_update(X, Y))
    else:
        step = tf.function(lambda: compiled_update(*next(batches)))
    return TrainingStep(step, optimizer, variables, iteration, batches)


def _minibatches(X: tf.Tensor, Y: tf.Tensor, batch_size: Optional[int], seed: Optional[int]):
    """An iterator over shuffled minibatches of fixed size, or None for full batch."""
    N = int(X.shape[0])
    if batch_size is None or check_positive_int("batch_size", batch_size) >= N:
        return None
    dataset = tf.data.Dataset.from_tensor_slices((X, Y))
    dataset = dataset.shuffle(N, seed=seed, reshuffle_each_iteration=True)
    dataset = dataset.batch(batch_size, drop_remainder=True).repeat()
    return iter(dataset.prefetch(tf.data.AUTOTUNE))


def _natgrad_pairs(model: DeepMixtureModel, gamma: Optional[float]) -> List[Tuple[tf.Variable, tf.Variable]]:
    """What the last layer offers to natural gradients (its ``natural_gradient_parameters``)."""
    if gamma is None:
        return []
    if not gamma > 0:
        raise ValueError(f"natgrad_gamma must be positive, got {gamma!r}")
    last = model.layers[-1]
    pairs = list(last.natural_gradient_parameters())
    if not pairs:
        raise ValueError(
            f"natgrad_gamma: the last layer ({type(last).__name__}) offers no parameters to natural gradients "
            "(a GPLayer needs a full q_sqrt, q_diag=False)"
        )
    return pairs


def _variables_for_optimizer(model: DeepMixtureModel, natgrad_pairs: Sequence) -> List[tf.Variable]:
    natural = {parameter.unconstrained_variable.ref() for pair in natgrad_pairs for parameter in pair}
    return [v for v in model.trainable_variables if v.ref() not in natural]
