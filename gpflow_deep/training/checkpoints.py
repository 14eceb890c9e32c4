"""Checkpoints of a training run: written and resumed by ``fit``, loaded into a fresh model.

TensorFlow writes a checkpoint's files under a temporary name, renames them into place and only
then records the checkpoint in the directory's ``checkpoint`` file (an atomic write), so a run killed
during a write leaves the previous checkpoints listed and intact. Files damaged after the fact (a
crash before the disk caught up, a truncated copy) are caught on reading: the newest checkpoint
that reads in full is the one restored.
"""

import logging
import os
from typing import List

import tensorflow as tf

from gpflow_deep.training.state import Snapshot, model_variables, training_variables
from gpflow_deep.training.step import TrainingStep

MAX_TO_KEEP = 3
ITERATOR_NAME = "batches"
EARLIER_ITERATOR_NAME = "data"  # before in-memory batches became permutations of row numbers

logger = logging.getLogger("gpflow_deep")


def resume_or_start(
    checkpoint_dir: str, model, training: TrainingStep, **more: tf.Module
) -> tf.train.CheckpointManager:
    """A manager saving the model, the optimizer, the iteration count, the minibatch iterator and
    ``more`` (e.g. the early-stopping state); the newest readable checkpoint in ``checkpoint_dir``,
    if any, is restored into them now.

    The iterator is saved as ``batches``. A checkpoint that holds it as ``data`` was written before
    in-memory batches became permutations of row numbers (2026-11-26): its iterator cannot restore
    into today's, so the rest resumes and the batches start a fresh epoch, with a warning."""
    if hasattr(training.optimizer, "build") and not getattr(training.optimizer, "built", False):
        training.optimizer.build(training.variables)  # slots exist now, so they restore at once
    tracked = dict(model=model, optimizer=training.optimizer, iteration=training.iteration, **more)
    if training.batches is not None:
        tracked[ITERATOR_NAME] = training.batches
    checkpoint = tf.train.Checkpoint(**tracked)
    manager = tf.train.CheckpointManager(checkpoint, checkpoint_dir, max_to_keep=MAX_TO_KEEP)
    if manager.checkpoints:
        restored = checkpoint
        if ITERATOR_NAME in tracked and _holds_earlier_iterator(manager.latest_checkpoint):
            logger.warning(
                "%s was written by an earlier gpflow_deep, which saved the batch iterator under another name "
                "and shuffled in-memory rows another way: the model, optimizer and iteration resume, and the "
                "batches start a fresh epoch",
                manager.latest_checkpoint,
            )
            restored = tf.train.Checkpoint(**{name: item for name, item in tracked.items() if name != ITERATOR_NAME})
        variables = training_variables(model, training.optimizer, training.iteration)
        restore_newest_readable(restored, manager.checkpoints, checkpoint_dir, model, variables, partial=False)
    return manager


def _holds_earlier_iterator(path: str) -> bool:
    """Whether the checkpoint at ``path`` saved its iterator under the earlier name (before 2026-11-26)."""
    try:
        return any(name.startswith(EARLIER_ITERATOR_NAME + "/") for name, _ in tf.train.list_variables(path))
    except (tf.errors.OpError, ValueError):
        return False


def restore_checkpoint(model, checkpoint_dir: str) -> int:
    """Load the newest readable checkpoint of ``checkpoint_dir`` into ``model`` and return its iteration.

    ``model`` must have the structure of the saved one (same builder and arguments; otherwise a
    ValueError, the model unchanged); its parameters and random-number state are replaced. The
    optimizer state stays in the files for :func:`~gpflow_deep.fit` to resume from.
    """
    state = tf.train.get_checkpoint_state(checkpoint_dir)
    if state is None or not state.all_model_checkpoint_paths:
        raise FileNotFoundError(f"no checkpoint in {checkpoint_dir!r}")
    iteration = tf.Variable(0, dtype=tf.int64, trainable=False)
    checkpoint = tf.train.Checkpoint(model=model, iteration=iteration)
    paths = list(state.all_model_checkpoint_paths)
    restore_newest_readable(checkpoint, paths, checkpoint_dir, model, model_variables(model), partial=True)
    return int(iteration.numpy())


def restore_newest_readable(
    checkpoint: tf.train.Checkpoint, paths: List[str], checkpoint_dir: str, model, variables, partial: bool
) -> str:
    """Restore the newest of ``paths`` (oldest first) whose files read in full, and return it.

    A checkpoint written by another model or set-up is a ValueError naming ``checkpoint_dir``,
    with ``variables`` put back as they were; so is a directory none of whose checkpoints reads.
    """
    for path in reversed(paths):
        if not is_readable(path):
            logger.warning("checkpoint %s does not read in full (a damaged write): trying an older one", path)
            continue
        before = Snapshot(variables)
        try:
            status = checkpoint.restore(path)
            (status.expect_partial() if partial else status).assert_existing_objects_matched()
        except (AssertionError, ValueError, tf.errors.OpError) as error:
            before.restore()
            reason = str(error).strip().splitlines()[0]
            raise ValueError(
                f"checkpoint_dir={checkpoint_dir!r}: {os.path.basename(path)} was written by another model or "
                f"set-up than this {type(model).__name__} ({reason}); resume with the builder, arguments and "
                "batch_size that wrote it, or give a new checkpoint_dir"
            ) from error
        return path
    raise ValueError(f"checkpoint_dir={checkpoint_dir!r}: none of its checkpoints can be read in full ({paths})")


def is_readable(path: str) -> bool:
    """Whether every tensor of the checkpoint at ``path`` (a prefix) reads back with a valid checksum."""
    try:
        dtypes = tf.train.load_checkpoint(path).get_variable_to_dtype_map()
        names = list(dtypes)  # RestoreV2 reads every kind, the iterator's variant state included
        tf.raw_ops.RestoreV2(
            prefix=path, tensor_names=names, shape_and_slices=[""] * len(names), dtypes=[dtypes[n] for n in names]
        )
    except (tf.errors.OpError, IndexError, ValueError, OSError):
        return False
    return True
