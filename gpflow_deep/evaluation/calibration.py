"""Quantiles, central intervals and calibration of a predictive Gaussian mixture.

The mixture at each point has S components ``means, variances: [S, N]`` and weights
``exp(log_weights): [S]``; its CDF is Σ_s w_s Φ((y − μ_s)/σ_s), which has no closed-form inverse,
so quantiles are found by bisection, for all points at once.
"""

from typing import Sequence, Tuple

import numpy as np
from scipy.special import ndtr, ndtri

BISECTION_STEPS = 60  # halves the bracket 60 times: far below float64 resolution of any scale


def mixture_cdf(y: np.ndarray, means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray) -> np.ndarray:
    """``[N]``: P(Y ≤ y_n) under the mixture at each point (``y: [N]``, components ``[S, N]``)."""
    weights = np.exp(np.asarray(log_weights))[:, None]
    return np.sum(weights * ndtr((np.asarray(y)[None] - means) / np.sqrt(variances)), axis=0)


def mixture_quantile(
    probability: float, means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray
) -> np.ndarray:
    """``[N]``: the ``probability`` quantile of the mixture at each point.

    The root lies between the smallest and the largest of the components' own quantiles (the CDF
    is at most ``probability`` at the first and at least at the second), and bisection finds it.
    """
    if not 0.0 < probability < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {probability}")
    component_quantiles = means + np.sqrt(variances) * ndtri(probability)
    low, high = component_quantiles.min(axis=0), component_quantiles.max(axis=0)
    for _ in range(BISECTION_STEPS):
        middle = 0.5 * (low + high)
        below = mixture_cdf(middle, means, variances, log_weights) < probability
        low, high = np.where(below, middle, low), np.where(below, high, middle)
    return 0.5 * (low + high)


def central_interval(
    level: float, means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray
) -> Tuple[np.ndarray, np.ndarray]:
    """The central ``level`` interval of the mixture at each point: its (1 ∓ level)/2 quantiles."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    tail = (1.0 - level) / 2
    return (
        mixture_quantile(tail, means, variances, log_weights),
        mixture_quantile(1.0 - tail, means, variances, log_weights),
    )


def interval_coverage(y: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> float:
    """The fraction of targets inside their interval."""
    y = np.asarray(y)
    return float(np.mean((lower <= y) & (y <= upper)))


def central_interval_hits(
    levels: Sequence[float], y: np.ndarray, means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray
) -> np.ndarray:
    """``[L, N]`` bool: whether y_n lies in the central interval of each level.

    Uses the probability integral transform u = F(y): y is inside the central ``level`` interval
    exactly when |u − ½| ≤ level/2, so no quantile needs solving.
    """
    u = mixture_cdf(y, means, variances, log_weights)
    return np.abs(u - 0.5)[None, :] <= 0.5 * np.asarray(levels)[:, None]
