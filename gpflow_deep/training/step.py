"""The compiled training step of :func:`~gpflow_deep.fit`: data, gradients and updates."""

import contextlib
from dataclasses import dataclass
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

import tensorflow as tf
from gpflow.keras import tf_keras
from gpflow.optimizers import NaturalGradient

from ..models import DeepMixtureModel
from ..validation import check_positive_int


@dataclass
class TrainingStep:
    """``step(train_hyperparameters=True, num_samples=None)`` runs one update and returns the
    loss and whether it and every gradient were finite; the rest is what a checkpoint must hold.
    ``train_hyperparameters=False`` leaves the :func:`hyperparameters` out of the update;
    ``num_samples`` sets the model's Monte Carlo sample count for the step (each value is traced once).

    :ivar iteration: the count of updates done, incremented inside the step.
    :ivar variables: what ``optimizer`` trains (all trainable variables but the natural-gradient ones).
    :ivar batches: the minibatch iterator, or None for full batch.
    """

    step: Callable[..., Tuple[tf.Tensor, tf.Tensor]]
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
    fixed = {v.ref() for v in hyperparameters(model)}
    iteration = tf.Variable(0, dtype=tf.int64, trainable=False, name="iteration")
    if hasattr(optimizer, "build") and not getattr(optimizer, "built", False):
        optimizer.build(variables)  # every variable known now, though some may sit out early steps

    def update(X_batch: tf.Tensor, Y_batch: tf.Tensor, train_hyperparameters: bool, num_samples):
        batch = (X_batch, Y_batch)
        trained = variables if train_hyperparameters else [v for v in variables if v.ref() not in fixed]
        with monte_carlo_samples(model, num_samples):
            if natgrad is not None:
                natgrad.minimize(lambda: model.training_loss(batch), var_list=natgrad_pairs)
            with tf.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(trained)
                loss = model.training_loss(batch)
        gradients = tape.gradient(loss, trained)
        finite = all_finite([loss] + [g for g in gradients if g is not None])
        optimizer.apply_gradients([(g, v) for g, v in zip(gradients, trained) if g is not None])
        iteration.assign_add(1)
        return loss, finite

    compiled_update = tf.function(update, jit_compile=jit_compile)
    batches = _minibatches(X, Y, batch_size, seed)

    def step(train_hyperparameters: bool = True, num_samples: Optional[int] = None) -> Tuple[tf.Tensor, tf.Tensor]:
        X_batch, Y_batch = (X, Y) if batches is None else next(batches)
        return compiled_update(X_batch, Y_batch, train_hyperparameters, num_samples)

    return TrainingStep(tf.function(step), optimizer, variables, iteration, batches)


def all_finite(tensors: Sequence[tf.Tensor]) -> tf.Tensor:
    """Whether every entry of every tensor is finite (a scalar bool)."""
    return tf.reduce_all([tf.reduce_all(tf.math.is_finite(tensor)) for tensor in tensors])


def hyperparameters(model: DeepMixtureModel) -> List[tf.Variable]:
    """The trainable variables of the likelihood and of every layer's ``kernel`` and
    ``mean_function``: everything but the variational parameters (and inducing inputs)."""
    modules = [model.likelihood]
    for layer in model.layers:
        modules += [getattr(layer, name, None) for name in ("kernel", "mean_function")]
    modules = [module for module in modules if module is not None]
    return [v for module in modules for v in module.trainable_variables]


@contextlib.contextmanager
def monte_carlo_samples(model: DeepMixtureModel, num_samples: Optional[int]) -> Iterator[None]:
    """Temporarily set ``model.num_samples`` (while a step is traced); None leaves it alone."""
    if num_samples is None:
        yield
        return
    if not hasattr(model, "num_samples"):
        raise ValueError(f"{type(model).__name__} has no Monte Carlo sample count to schedule")
    previous, model.num_samples = model.num_samples, check_positive_int("num_samples", num_samples)
    try:
        yield
    finally:
        model.num_samples = previous


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
