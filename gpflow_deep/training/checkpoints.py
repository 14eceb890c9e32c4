"""Loading the checkpoints that ``fit`` writes into a model built the same way."""

import tensorflow as tf


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
