"""Which rows of a table are held out for early stopping: each with probability ``fraction``,
decided by a hash of its row number and the seed, so that every pass over the file agrees."""

import numpy as np

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def held_out(first_row: int, num_rows: int, fraction: float, seed: int) -> np.ndarray:
    """``[num_rows]`` bool: whether rows ``first_row, ...`` of the file are held out."""
    if fraction <= 0:
        return np.zeros(num_rows, dtype=bool)
    rows = np.arange(first_row, first_row + num_rows, dtype=np.uint64)
    with np.errstate(over="ignore"):
        uniform = _splitmix64(rows ^ _splitmix64(np.array([seed], dtype=np.uint64)))
    return (uniform >> np.uint64(11)).astype(np.float64) / 2.0**53 < fraction


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """The SplitMix64 finaliser: 64 well-mixed bits from each integer."""
    x = (x + np.uint64(0x9E3779B97F4A7C15)) & _MASK
    x = ((x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _MASK
    x = ((x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _MASK
    return x ^ (x >> np.uint64(31))
