"""Standard normal noise keyed by row, so that a prediction split into chunks draws the same noise
for a row whatever the chunk it falls in.

Rows are grouped in fixed blocks of ``NOISE_BLOCK_ROWS``; block b of a stream draws its noise from
the seed folded with b, and a chunk draws the blocks it overlaps and keeps its own rows. The noise
of a row therefore depends only on the seed, the stream and the row's index.
"""

from typing import Callable, Sequence, Tuple

import tensorflow as tf

NOISE_BLOCK_ROWS = 64

NoiseSource = Callable[[tf.Tensor, tf.Tensor, tf.DType], tf.Tensor]
"""``noise(shape [S, N, L], seed [2], dtype) -> [S, N, L]`` standard normals."""


def independent_noise(shape: tf.Tensor, seed: tf.Tensor, dtype: tf.DType) -> tf.Tensor:
    """Noise for one batch of rows, drawn in one call (the training objective's)."""
    return tf.random.stateless_normal(shape, seed=seed, dtype=dtype)


def row_keyed_noise(segments: Sequence[Tuple[tf.Tensor, tf.Tensor]]) -> NoiseSource:
    """Noise whose rows are ``segments`` (first row, row count) of streams 0, 1, ... in turn: the
    row i of segment k gets the noise of row ``first + i`` of stream k."""

    def noise(shape: tf.Tensor, seed: tf.Tensor, dtype: tf.DType) -> tf.Tensor:
        parts = [
            _rows_of_stream(shape, tf.random.experimental.stateless_fold_in(seed, stream), first, count, dtype)
            for stream, (first, count) in enumerate(segments)
        ]
        return tf.concat(parts, axis=1) if len(parts) > 1 else parts[0]

    return noise


def _rows_of_stream(shape: tf.Tensor, seed: tf.Tensor, first_row, num_rows, dtype: tf.DType) -> tf.Tensor:
    """``[S, num_rows, L]``: rows ``first_row, ...`` of the stream keyed by ``seed``."""
    first_row = tf.cast(first_row, tf.int64)
    num_rows = tf.cast(num_rows, tf.int64)
    first_block = first_row // NOISE_BLOCK_ROWS
    end_block = (first_row + num_rows + NOISE_BLOCK_ROWS - 1) // NOISE_BLOCK_ROWS
    blocks = first_block + tf.range(tf.maximum(end_block - first_block, 1))
    block_shape = tf.stack([shape[0], NOISE_BLOCK_ROWS, shape[2]])

    def draw(block: tf.Tensor) -> tf.Tensor:
        block_seed = tf.random.experimental.stateless_fold_in(seed, block)
        return tf.random.stateless_normal(block_shape, seed=block_seed, dtype=dtype)

    drawn = tf.map_fn(draw, blocks, fn_output_signature=dtype)  # [K, S, B, L]
    drawn = tf.transpose(drawn, [1, 0, 2, 3])
    drawn = tf.reshape(drawn, tf.stack([shape[0], -1, shape[2]]))
    offset = first_row - first_block * NOISE_BLOCK_ROWS
    return drawn[:, offset : offset + num_rows]
