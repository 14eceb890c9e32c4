"""Mean and standard deviation of a Gaussian mixture held as numpy arrays."""

from typing import Tuple

import numpy as np


def mixture_mean_and_std(
    means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray
) -> Tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation ``[N, ...]`` of the mixture with components ``means, variances:
    [S, N, ...]`` and ``log_weights: [S]`` (law of total variance, cancellation-free form)."""
    means, variances = np.asarray(means), np.asarray(variances)
    weights = np.exp(np.asarray(log_weights)).reshape((-1,) + (1,) * (means.ndim - 1))
    mean = np.sum(weights * means, axis=0)
    return mean, np.sqrt(np.sum(weights * (variances + (means - mean) ** 2), axis=0))
