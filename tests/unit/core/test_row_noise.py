"""Noise keyed by row: the same rows get the same noise however they are split, and the noise is
standard normal and independent across rows, paths and blocks."""

import numpy as np
import tensorflow as tf

from gpflow_deep.core.row_noise import NOISE_BLOCK_ROWS, row_keyed_noise

SEED = tf.constant([3, 4], tf.int64)


def rows(first: int, count: int, shape=(5, None, 2)) -> np.ndarray:
    S, _, L = shape
    noise = row_keyed_noise([(tf.constant(first, tf.int64), tf.constant(count))])
    return noise(tf.constant([S, count, L]), SEED, tf.float64).numpy()


def test_rows_get_the_same_noise_whatever_the_split():
    whole = rows(0, 3 * NOISE_BLOCK_ROWS + 5)
    for start, count in ((0, 1), (7, 40), (NOISE_BLOCK_ROWS - 3, 9), (2 * NOISE_BLOCK_ROWS, NOISE_BLOCK_ROWS + 5)):
        np.testing.assert_array_equal(rows(start, count), whole[:, start : start + count])


def test_empty_chunks_give_empty_noise():
    assert rows(10, 0).shape == (5, 0, 2)


def test_segments_are_separate_streams():
    noise = row_keyed_noise([(tf.constant(0, tf.int64), 4), (tf.constant(0, tf.int64), 4)])
    drawn = noise(tf.constant([2, 8, 1]), SEED, tf.float64).numpy()
    assert drawn.shape == (2, 8, 1)
    assert not np.allclose(drawn[:, :4], drawn[:, 4:])


def test_noise_is_standard_normal_and_uncorrelated_within_and_across_blocks():
    drawn = rows(0, 20 * NOISE_BLOCK_ROWS, shape=(50, None, 2))  # 128,000 numbers
    n = drawn.size
    assert abs(drawn.mean()) < 4 / np.sqrt(n)
    assert abs(drawn.var() - 1) < 4 * np.sqrt(2 / n)
    per_row = drawn[0, :, 0]  # one path and output, along the rows (crossing block boundaries)
    lag_one = np.corrcoef(per_row[:-1], per_row[1:])[0, 1]
    across_blocks = np.corrcoef(per_row[:-NOISE_BLOCK_ROWS], per_row[NOISE_BLOCK_ROWS:])[0, 1]
    paths = np.corrcoef(drawn[0].ravel(), drawn[1].ravel())[0, 1]
    for correlation, count in ((lag_one, per_row.size), (across_blocks, per_row.size), (paths, drawn[0].size)):
        assert abs(correlation) < 4 / np.sqrt(count)


def test_float32_noise_is_float32():
    noise = row_keyed_noise([(tf.constant(5, tf.int64), 3)])
    assert noise(tf.constant([1, 3, 1]), SEED, tf.float32).dtype == tf.float32
