"""What reading one in-memory minibatch costs, and what its iterator costs in a checkpoint: ``fit``'s
permutations of row numbers (``training.data.minibatches``) against shuffling the rows themselves
through a ``tf.data`` buffer (what ``fit`` did until 2026-11-26).

Each reader serves batches of ``--batch`` rows from ``--rows`` standard normal rows of ``--width``
inputs and one target; a compiled function reads one batch and sums it, timed over ``--reads``
reads (median of ``--rounds``) after 20 untimed ones, on ``--threads`` threads. The checkpoint
size is that of ``tf.train.Checkpoint(batches=iterator)`` after one batch. Example::

    python -m benchmarks minibatch_read --rows 455 --batch 256 --threads 1
    python -m benchmarks minibatch_read --rows 20000 --width 10
"""

import argparse
import os
import statistics
import tempfile
import time
from typing import Iterator, List, Optional

import numpy as np
import tensorflow as tf

from benchmarks.common import set_threads
from gpflow_deep.app.benchmark.machine import machine
from gpflow_deep.training.data import minibatches


def shuffled_rows(X: tf.Tensor, Y: tf.Tensor, batch_size: int, seed: int) -> Iterator:
    """The rows themselves through a shuffle buffer of all N, reshuffled each epoch."""
    rows = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(len(X), seed=seed, reshuffle_each_iteration=True)
    return iter(rows.batch(batch_size, drop_remainder=True).repeat().prefetch(tf.data.AUTOTUNE))


def read_ms(batches: Iterator, reads: int, rounds: int) -> float:
    """Median over rounds of the ms per read of one batch inside a compiled function."""

    @tf.function
    def read():
        X, Y = next(batches)
        return tf.reduce_sum(X) + tf.reduce_sum(Y)

    for _ in range(20):
        read()
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        for _ in range(reads):
            total = read()
        total.numpy()
        times.append(1000 * (time.perf_counter() - began) / reads)
    return statistics.median(times)


def checkpoint_mb(batches: Iterator) -> float:
    """MB of a checkpoint holding ``batches`` (after one read)."""
    next(batches)
    with tempfile.TemporaryDirectory() as directory:
        tf.train.Checkpoint(batches=batches).write(os.path.join(directory, "probe"))
        return sum(os.path.getsize(os.path.join(directory, name)) for name in os.listdir(directory)) / 1e6


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks minibatch_read",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--rows", type=int, default=455)
    parser.add_argument("--width", type=int, default=13)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0, help="threads per op (0: TensorFlow's choice)")
    args = parser.parse_args(argv)
    set_threads(args.threads)
    rng = np.random.default_rng(0)
    X, Y = tf.constant(rng.normal(size=(args.rows, args.width))), tf.constant(rng.normal(size=(args.rows, 1)))
    print(f"# {machine()}, {args.rows} rows of {args.width} + 1, batches of {args.batch}, threads {args.threads}")
    print("| reader | ms per batch | checkpoint MB |")
    print("|---|---|---|")
    for name, make in (("row numbers (fit)", minibatches), ("rows through a shuffle buffer", shuffled_rows)):
        ms = read_ms(make(X, Y, args.batch, 0), args.reads, args.rounds)
        print(f"| {name} | {ms:.2f} | {checkpoint_mb(make(X, Y, args.batch, 0)):.2f} |")
    return 0


if __name__ == "__main__":
    main()
