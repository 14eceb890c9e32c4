"""The compiled training step of :func:`~gpflow_deep.fit`: data, gradients and updates."""

import contextlib
import functools
from dataclasses import dataclass
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

import tensorflow as tf
from gpflow.keras import tf_keras
from gpflow.optimizers import NaturalGradient

from gpflow_deep.core.validation import check_positive_int
from gpflow_deep.models import DeepMixtureModel
from gpflow_deep.training.data import TrainingData, batch_iterator, saveable
from gpflow_deep.training.distributed import check_distributed, mirror_trainable_flags, split_over_replicas


@dataclass
class TrainingStep:
    """``step(train_hyperparameters=True, num_samples=None)`` runs one update and returns the
    loss and whether it and every gradient were finite; the rest is what a checkpoint must hold.
    ``train_hyperparameters=False`` leaves the :func:`hyperparameters` out of the update;
    ``num_samples`` sets the model's Monte Carlo sample count for the step (each value is traced once).

    :ivar iteration: the count of updates done, incremented inside the step.
    :ivar variables: what ``optimizer`` trains (all trainable variables but the natural-gradient ones).
    :ivar batches: the batch iterator a checkpoint holds: None for full batch, and for a dataset
        whose iterator cannot be saved (a resumed run then reads that stream from its start).
    :ivar natgrad_gamma: the natural-gradient step size, a variable (None without natural gradients).
    """

    step: Callable[..., Tuple[tf.Tensor, tf.Tensor]]
    optimizer: tf_keras.optimizers.Optimizer
    variables: List[tf.Variable]
    iteration: tf.Variable
    batches: Optional[tf.data.Iterator]
    natgrad_gamma: Optional[tf.Variable] = None


def training_step(
    model: DeepMixtureModel,
    data: TrainingData,
    *,
    batch_size: Optional[int],
    optimizer: tf_keras.optimizers.Optimizer,
    natgrad_gamma: Optional[float],
    seed: Optional[int],
    jit_compile: bool,
    strategy: Optional[tf.distribute.Strategy] = None,
    checkpointed: bool = False,
) -> TrainingStep:
    """One ``tf.function``: read a batch, take the natural-gradient step (if any) and the
    optimizer step, count the iteration. With ``jit_compile`` the update is compiled by XLA (the
    ``tf.data`` read cannot be, so it stays outside the XLA cluster). Traced without AutoGraph, as
    every compiled function of the package: the step has no Python control flow on tensors, and
    converting GPflow's and the package's code took most of the first step's tracing
    (``docs/performance.md``, "Time to the first step").

    :param data: checked training data (:func:`~gpflow_deep.training.data.check_training_data`):
        arrays (minibatched by ``batch_size``) or a dataset of batches.
    :param strategy: a ``tf.distribute.Strategy`` the model and optimizer were created under: each
        global batch is split over its replicas (:mod:`gpflow_deep.training.distributed`).
    :param checkpointed: the iterator will be checkpointed: if it cannot be, ``batches`` is None.
    """
    if strategy is not None:
        rows = None if isinstance(data, tf.data.Dataset) else min(batch_size or data[0].shape[0], data[0].shape[0])
        check_distributed(
            model, optimizer, strategy, natgrad_gamma=natgrad_gamma, jit_compile=jit_compile, batch_rows=rows
        )
        mirror_trainable_flags(model, strategy)
    natgrad_pairs = _natgrad_pairs(model, natgrad_gamma)
    gamma = (
        tf.Variable(natgrad_gamma, dtype=model.dtype, trainable=False, name="natgrad_gamma") if natgrad_pairs else None
    )
    natgrad = NaturalGradient(gamma=gamma) if natgrad_pairs else None
    variables = _variables_for_optimizer(model, natgrad_pairs)
    fixed = {v.ref() for v in hyperparameters(model)}
    with strategy.scope() if strategy is not None else contextlib.nullcontext():
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

    if strategy is not None:
        compiled_update = distributed_update(model, strategy, optimizer, variables, fixed, iteration)
    elif jit_compile:
        compiled_update = tf.function(update, jit_compile=True, autograph=False)  # XLA cannot take the batch read
    else:
        compiled_update = update
    batches = batch_iterator(data, batch_size, seed)

    def step(train_hyperparameters: bool = True, num_samples: Optional[int] = None) -> Tuple[tf.Tensor, tf.Tensor]:
        X_batch, Y_batch = data if batches is None else next(batches)
        return compiled_update(X_batch, Y_batch, train_hyperparameters, num_samples)

    saved = batches
    if batches is not None and checkpointed and isinstance(data, tf.data.Dataset) and not saveable(batches):
        saved = None
    return TrainingStep(tf.function(step, autograph=False), optimizer, variables, iteration, saved, gamma)


def distributed_update(
    model: DeepMixtureModel,
    strategy: tf.distribute.Strategy,
    optimizer: tf_keras.optimizers.Optimizer,
    variables: List[tf.Variable],
    fixed: set,
    iteration: tf.Variable,
) -> Callable[..., Tuple[tf.Tensor, tf.Tensor]]:
    """The update of :func:`training_step` under ``strategy``: a global batch X ``[B, D]``,
    Y ``[B, P]`` is split over the R replicas (B_r rows each), replica r takes the loss of its
    shard weighted by B_r / B, and the optimizer sums the replicas' gradients.

    A model's objective on a batch is (N/B_r) Σ_batch (data term) minus terms that do not depend on
    the batch (the regulariser, priors). Weighted by B_r / B, the first becomes (N/B) Σ_shard, so the
    replicas' data terms add up to the single-device one on the global batch, and the rest, with
    weights summing to one, is counted once. Each replica draws its own noise: the model's generator,
    created under the strategy's scope, folds the replica id into every draw.
    """

    def replica_update(X_shard: tf.Tensor, Y_shard: tf.Tensor, global_size, train_hyperparameters, num_samples):
        trained = variables if train_hyperparameters else [v for v in variables if v.ref() not in fixed]
        weight = tf.cast(tf.shape(X_shard)[0], X_shard.dtype) / tf.cast(global_size, X_shard.dtype)
        with monte_carlo_samples(model, num_samples):
            with tf.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(trained)
                loss = weight * model.training_loss((X_shard, Y_shard))
        gradients = tape.gradient(loss, trained)
        finite = all_finite([loss] + [g for g in gradients if g is not None])
        optimizer.apply_gradients([(g, v) for g, v in zip(gradients, trained) if g is not None])
        return loss, tf.cast(tf.logical_not(finite), tf.int32)

    def update(X_batch: tf.Tensor, Y_batch: tf.Tensor, train_hyperparameters: bool, num_samples):
        shards = split_over_replicas(strategy, X_batch, Y_batch)
        run = functools.partial(replica_update, train_hyperparameters=train_hyperparameters, num_samples=num_samples)
        losses, failures = strategy.run(run, args=(*shards, tf.shape(X_batch)[0]))
        iteration.assign_add(1)
        loss = strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)
        return loss, strategy.reduce(tf.distribute.ReduceOp.SUM, failures, axis=None) == 0

    return update


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
