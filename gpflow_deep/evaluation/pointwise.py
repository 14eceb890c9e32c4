"""Scores of a Gaussian mixture at each point: log-density, CRPS, squared error.

The mixture over y has components ``means, variances: [S, N, P]`` and ``log_weights: [S]`` (for a
Gaussian likelihood, the f-mixture with the noise variance added).
"""

import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm

CRPS_CHUNK = 1000  # points per chunk in the O(S² N) CRPS


def log_predictive_density(y, means, variances, log_weights) -> np.ndarray:
    """``[N]``: log Σ_s w_s Π_p N(y_np | mean_snp, var_snp), the exact log-density of the mixture."""
    y, means, variances = np.asarray(y), np.asarray(means), np.asarray(variances)
    component = -0.5 * np.sum(np.log(2 * np.pi * variances) + (y - means) ** 2 / variances, axis=-1)
    return logsumexp(component + np.asarray(log_weights)[:, None], axis=0)


def rmse(y, mean) -> float:
    """Root mean squared error of point predictions ``mean`` against ``y`` (both ``[N, P]``)."""
    return float(np.sqrt(np.mean((np.asarray(y) - np.asarray(mean)) ** 2)))


def crps(y, means, variances, log_weights) -> np.ndarray:
    """``[N, P]``: the continuous ranked probability score of the mixture per point and output.

    Closed form for a Gaussian mixture (Grimit et al. 2006): with A(μ, σ²) = E|X| for X ~ N(μ, σ²),
    CRPS = Σ_i w_i A(y − μ_i, σ_i²) − ½ Σ_ij w_i w_j A(μ_i − μ_j, σ_i² + σ_j²). Lower is better.
    """
    y, means, variances = np.asarray(y), np.asarray(means), np.asarray(variances)
    w = np.exp(np.asarray(log_weights))[:, None, None]
    scores = []
    for start in range(0, y.shape[0], CRPS_CHUNK):
        rows = slice(start, start + CRPS_CHUNK)
        m, v = means[:, rows], variances[:, rows]
        accuracy = np.sum(w * _abs_gaussian_mean(y[rows] - m, v), axis=0)
        spread = np.sum(
            w[:, None] * w[None] * _abs_gaussian_mean(m[:, None] - m[None], v[:, None] + v[None]),
            axis=(0, 1),
        )
        scores.append(accuracy - 0.5 * spread)
    return np.concatenate(scores, axis=0)


def _abs_gaussian_mean(mu: np.ndarray, var: np.ndarray) -> np.ndarray:
    """E|X| for X ~ N(mu, var)."""
    sigma = np.sqrt(var)
    z = mu / sigma
    return mu * (2 * norm.cdf(z) - 1) + 2 * sigma * norm.pdf(z)
