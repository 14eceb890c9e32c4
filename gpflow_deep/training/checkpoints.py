"""Checkpoints of a training run: written and resumed by ``fit``, loaded into a fresh model."""

import tensorflow as tf

from .step import TrainingStep

MAX_TO_KEEP = 3


def resume_or_start(checkpoint_dir: str, model, training: TrainingStep) -> tf.train.CheckpointManager:
    """A manager saving the model, the optimizer, the iteration count and the minibatch iterator;
    the latest checkpoint in ``checkpoint_dir``, if any, is restored into them now."""
    if hasattr(training.optimizer, "build") and not getattr(training.optimizer, "built", False):
        training.optimizer.build(training.variables)  # slots exist now, so they restore at once
    tracked = dict(model=model, optimizer=training.optimizer, iteration=training.iteration)
    if training.batches is not None:
        tracked["data"] = training.batches
    checkpoint = tf.train.Checkpoint(**tracked)
    manager = tf.train.CheckpointManager(checkpoint, checkpoint_dir, max_to_keep=MAX_TO_KEEP)
    if manager.latest_checkpoint:
        checkpoint.restore(manager.latest_checkpoint).assert_existing_objects_matched()
    return manager


def restore_checkpoint(model, checkpoint_dir: str) -> int:
    """Load the latest checkpoint of ``checkpoint_dir`` into ``model`` and return its iteration.

    ``model`` must have the structure of the saved one (same builder and arguments); its
    parameters and random-number state are replaced. The optimizer state stays in the files for
    :func:`~gpflow_deep.fit` to resume from.
    """
    latest = tf.train.latest_checkpoint(checkpoint_dir)
    if latest is None:
        raise FileNotFoundError(f"no checkpoint in {checkpoint_dir!r}")
    iteration = tf.Variable(0, dtype=tf.int64, trainable=False)
    status = tf.train.Checkpoint(model=model, iteration=iteration).restore(latest)
    status.expect_partial().assert_existing_objects_matched()
    return int(iteration.numpy())
