"""Quantiles, central intervals and calibration of a predictive Gaussian mixture.

The mixture at each point has S components ``means, variances: [S, N]`` and weights
``exp(log_weights): [S]``; its CDF is Σ_s w_s Φ((y − μ_s)/σ_s), which has no closed-form inverse,
so quantiles are solved for all points at once by Newton's method kept inside a shrinking bracket
(a bisection step wherever Newton's would leave it or would not halve the previous step).
"""

from typing import Sequence, Tuple

import numpy as np
from scipy.special import ndtr, ndtri

MAX_QUANTILE_STEPS = 100  # a bracket halved 100 times is far below float64 resolution of any scale
QUANTILE_TOLERANCE = 1e-12  # a point is solved when its last step is below this many mixture sds
_SQRT_2PI = np.sqrt(2.0 * np.pi)


def mixture_cdf(y: np.ndarray, means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray) -> np.ndarray:
    """``[N]``: P(Y ≤ y_n) under the mixture at each point (``y: [N]``, components ``[S, N]``)."""
    weights = np.exp(np.asarray(log_weights))[:, None]
    cdf = np.sum(weights * ndtr((np.asarray(y)[None] - means) / np.sqrt(variances)), axis=0)
    return np.clip(cdf, 0.0, 1.0)  # weights whose sum rounds above 1 would put a far target above 1


def mixture_quantile(
    probability: float, means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray
) -> np.ndarray:
    """``[N]``: the ``probability`` quantile of the mixture at each point.

    The root lies between the smallest and the largest of the components' own quantiles (the CDF
    is at most ``probability`` at the first and at least at the second). Newton's method starts
    from the quantile of the moment-matched Gaussian, and the bracket shrinks around the root at
    every step; a point is done once its step is below ``QUANTILE_TOLERANCE`` mixture standard
    deviations (typically 3 to 6 steps, against 60 halvings of the bracket by bisection).
    """
    if not 0.0 < probability < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {probability}")
    means, stds = np.asarray(means, dtype=float), np.sqrt(np.asarray(variances, dtype=float))
    weights = np.exp(np.asarray(log_weights, dtype=float))
    component_quantiles = means + stds * ndtri(probability)
    low, high = component_quantiles.min(axis=0), component_quantiles.max(axis=0)
    mean = weights @ means
    spread = np.sqrt(weights @ (stds**2 + (means - mean) ** 2))
    x = np.clip(mean + spread * ndtri(probability), low, high)
    tolerance = QUANTILE_TOLERANCE * spread + 4 * np.finfo(float).eps * np.abs(x)
    last_step = high - low
    active = np.flatnonzero(last_step > tolerance)
    for _ in range(MAX_QUANTILE_STEPS):
        if active.size == 0:
            break
        x_a, low_a, high_a, stds_a = x[active], low[active], high[active], stds[:, active]
        z = (x_a - means[:, active]) / stds_a
        cdf = weights @ ndtr(z)
        density = weights @ (np.exp(-0.5 * z * z) / stds_a) / _SQRT_2PI
        below = cdf < probability
        low_a, high_a = np.where(below, x_a, low_a), np.where(below, high_a, x_a)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            newton = x_a - (cdf - probability) / density
        trusted = (newton >= low_a) & (newton <= high_a) & (np.abs(newton - x_a) <= 0.5 * last_step[active])
        step_to = np.where(trusted, newton, 0.5 * (low_a + high_a))
        step = np.abs(step_to - x_a)
        x[active], low[active], high[active], last_step[active] = step_to, low_a, high_a, step
        active = active[(step > tolerance[active]) & (high_a - low_a > tolerance[active])]
    return x


def central_interval(
    level: float, means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray
) -> Tuple[np.ndarray, np.ndarray]:
    """The central ``level`` interval of the mixture at each point: its (1 ∓ level)/2 quantiles."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    return tail_interval((1.0 - level) / 2, means, variances, log_weights)


def tail_interval(
    tail: float, means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray
) -> Tuple[np.ndarray, np.ndarray]:
    """``([N], [N])``: the interval that leaves probability ``tail`` ∈ (0, ½) beyond each end: the
    upper end is solved as the lower one of −Y, so a tail far below float64's resolution of 1 − tail
    (a central level of 1 − 1e-40) is still solved."""
    means = np.asarray(means, dtype=float)
    return (
        mixture_quantile(tail, means, variances, log_weights),
        -mixture_quantile(tail, -means, variances, log_weights),
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
