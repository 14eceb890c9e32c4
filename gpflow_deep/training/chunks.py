"""Training batches from rows that arrive in chunks (read from files, say), shuffled through a
bounded buffer, as a ``tf.data.Dataset`` for :func:`~gpflow_deep.fit`."""

import itertools
from typing import Callable, Iterable, Iterator, Tuple

import numpy as np
import tensorflow as tf
from gpflow.config import default_float

from gpflow_deep.core.validation import check_positive_int

Chunks = Iterable[Tuple[np.ndarray, np.ndarray]]
"""Chunks of rows (X ``[n, D]``, Y ``[n, P]``), one pass over the data."""


def chunk_dataset(
    read_chunks: Callable[[], Chunks],
    input_dim: int,
    output_dim: int,
    batch_size: int,
    *,
    shuffle_rows: int = 100_000,
    seed: int = 0,
) -> tf.data.Dataset:
    """One epoch of batches (X ``[batch_size, D]``, Y ``[batch_size, P]``) of the rows of
    ``read_chunks()``, shuffled through a buffer of ``shuffle_rows`` rows (so memory holds that
    many, not the data); ``fit`` repeats the dataset, and each epoch calls ``read_chunks`` again
    and draws its own shuffle (keyed by ``seed`` and the epoch's count). The last rows of an epoch
    that do not fill a batch are left out, so that every batch has one shape."""
    batch_size = check_positive_int("batch_size", batch_size)
    shuffle_rows = check_positive_int("shuffle_rows", shuffle_rows)
    epochs = itertools.count()

    def generate() -> Iterator[Tuple[np.ndarray, np.ndarray]]:
        rng = np.random.default_rng([seed, next(epochs)])
        yield from shuffled_batches(read_chunks(), batch_size, max(shuffle_rows, batch_size), rng)

    dtype = default_float()
    signature = (tf.TensorSpec([batch_size, input_dim], dtype), tf.TensorSpec([batch_size, output_dim], dtype))
    return tf.data.Dataset.from_generator(generate, output_signature=signature)


def shuffled_batches(
    chunks: Chunks, batch_size: int, buffer_rows: int, rng: np.random.Generator
) -> Iterator[Tuple[np.ndarray, np.ndarray]]:
    """Batches of ``batch_size`` rows of ``chunks`` in a random order: each chunk joins the rows
    waiting in the buffer, they are shuffled together (in place), and all but ``buffer_rows`` of
    them leave in batches; at the end the buffer leaves in whole batches."""
    waiting, width = None, None
    for X, Y in chunks:
        width = X.shape[1]
        joined = np.concatenate([X, Y], axis=1)
        rows = joined if waiting is None else np.concatenate([waiting, joined])
        del waiting, joined
        rng.shuffle(rows)
        leaving = max(len(rows) - buffer_rows, 0) // batch_size * batch_size
        for start in range(0, leaving, batch_size):
            yield rows[start : start + batch_size, :width], rows[start : start + batch_size, width:]
        waiting = rows[leaving:]
    if waiting is None:
        return
    for start in range(0, len(waiting) - batch_size + 1, batch_size):
        yield waiting[start : start + batch_size, :width], waiting[start : start + batch_size, width:]
