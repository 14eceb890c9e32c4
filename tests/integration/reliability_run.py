"""A tiny seeded training run with checkpoints, for the kill-and-resume tests (run as a script).

    python tests/integration/reliability_run.py CHECKPOINT_DIR OUTPUT.npz \
        [--pause-after-save S] [--hang-in-commit MARKER]

Fits a 2-layer DeepGP (N=40, M=5) with minibatches for ITERATIONS steps, scored on held-out data
every 5 steps and ending with the best parameters (early stopping's state must survive a kill as
well), and saves its trainable variables, the held-out history and the best iteration to
OUTPUT.npz. ``--pause-after-save`` sleeps after each checkpoint, so that a kill lands mid-run;
``--hang-in-commit`` creates MARKER and hangs once a checkpoint's files are written but before the
directory records it, so that a kill lands inside a checkpoint write.
"""

import argparse
import time

import numpy as np
import tensorflow as tf
from tensorflow.python.checkpoint import checkpoint_management

import gpflow_deep as gd

ITERATIONS, CHECKPOINT_EVERY, BATCH_SIZE, SEED = 40, 5, 16, 3


def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(40, 2))
    return X, np.sin(X[:, :1]) * X[:, 1:] + 0.1 * rng.standard_normal((40, 1))


def train(checkpoint_dir, output):
    X, Y = data()
    model = gd.build_deep_gp(X, Y, num_layers=2, num_inducing=5, num_samples=2, seed=SEED)
    result = gd.fit(
        model,
        (X, Y),
        ITERATIONS,
        batch_size=BATCH_SIZE,
        seed=SEED,
        checkpoint_dir=checkpoint_dir,
        checkpoint_every=CHECKPOINT_EVERY,
        monitor_every=CHECKPOINT_EVERY,
        progress=False,
        validation_data=(X[:10] + 0.5, Y[:10]),
        restore_best=True,
    )
    extra = dict(history=np.array(result.validation), best_iteration=result.best_iteration)
    np.savez(output, *[v.numpy() for v in model.trainable_variables], **extra)


def pause_after_save(seconds):
    save = tf.train.CheckpointManager.save

    def slow_save(self, *args, **kwargs):
        path = save(self, *args, **kwargs)
        time.sleep(seconds)
        return path

    tf.train.CheckpointManager.save = slow_save


def hang_in_commit(marker):
    """Once one checkpoint is recorded, hang before recording the next (its files written)."""
    commit = checkpoint_management.update_checkpoint_state_internal

    def hanging_commit(save_dir, model_checkpoint_path, *args, **kwargs):
        state = tf.train.get_checkpoint_state(save_dir)
        if state is not None and not state.model_checkpoint_path.endswith(model_checkpoint_path):
            open(marker, "w").close()
            time.sleep(600)
        return commit(save_dir, model_checkpoint_path, *args, **kwargs)

    checkpoint_management.update_checkpoint_state_internal = hanging_commit


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint_dir")
    parser.add_argument("output")
    parser.add_argument("--pause-after-save", type=float, default=0.0)
    parser.add_argument("--hang-in-commit")
    args = parser.parse_args()
    if args.pause_after_save:
        pause_after_save(args.pause_after_save)
    if args.hang_in_commit:
        hang_in_commit(args.hang_in_commit)
    train(args.checkpoint_dir, args.output)
