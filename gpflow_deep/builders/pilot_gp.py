"""A pilot exact GP on a few hundred rows, whose noise variance starts a deep GP's likelihood.

A deep GP started with little noise on a noisy table explains the noise as signal first and lets
the noise rise only slowly (on the CASchools table, from 0.01 to 0.16 of var(y) in 3,000 Adam
steps, where an exact GP finds 0.27). One GP by type II maximum likelihood, on at most
:data:`PILOT_ROWS` rows with one lengthscale over the column-standardised inputs, finds the noise
in under a second (0.1–0.3 s on the tables of docs/benchmarks.md §12) whatever the table's size.
"""

from typing import Optional, Tuple

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.spatial.distance import pdist, squareform

from gpflow_deep.builders.configuration import log_choice
from gpflow_deep.core.validation import check_positive_int

PILOT_ROWS = 500
PILOT_FLOOR_ROWS = 10_000
"""The most training rows whose noise a floor taken from the pilot bounds by default. The pilot
sees :data:`PILOT_ROWS` of them; a deep GP trained on many more learns what they cannot show, and
the noise left falls below the pilot's (``docs/design.md``, "Noise floors from a pilot GP")."""
PILOT_ITERATIONS = 100
NOISE_BOUNDS = (1e-4, 3.0)
"""The pilot's noise variance stays within these fractions of the targets' variance."""


def pilot_noise_variance(X: np.ndarray, Y: np.ndarray, seed: int = 0, rows: int = PILOT_ROWS) -> Optional[float]:
    """The noise variance σ² of an exact GP fitted to at most ``rows`` rows of X ``[n, D]`` and
    Y ``[n, P]`` (drawn with ``seed``) by type II maximum likelihood: zero mean on the centred
    columns of Y, one squared-exponential kernel of variance s and lengthscale ℓ over X's columns
    scaled to unit variance, s, ℓ and σ² shared by the columns of Y. None when the targets are
    constant or the fit fails."""
    if len(X) > rows:
        chosen = np.random.default_rng(seed).choice(len(X), rows, replace=False)
        X, Y = X[chosen], Y[chosen]
    Y = Y - np.mean(Y, axis=0)
    scale = float(np.mean(Y**2))
    if not np.isfinite(scale) or scale <= 0:
        return None
    std = np.std(X, axis=0)
    squared_distances = squareform(pdist(X / np.where(std > 0, std, 1.0), "sqeuclidean"))
    start = np.log([1.0, np.sqrt(X.shape[1]), 0.1])  # s and σ² in units of the targets' variance
    bounds = [(-3 * np.log(10), 3 * np.log(10)), (start[1] - np.log(100), start[1] + np.log(100)), np.log(NOISE_BOUNDS)]
    try:
        result = minimize(
            _negative_log_marginal_likelihood,
            start,
            args=(squared_distances, Y / np.sqrt(scale)),
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options=dict(maxiter=PILOT_ITERATIONS),
        )
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(result.x)):
        return None
    return float(np.exp(result.x[2]) * scale)


def pilot_floor_applies(builder: str, option: str, num_data: int, most_rows: Optional[int]) -> bool:
    """Whether ``builder``'s noise floor from the pilot bounds a training set of ``num_data`` rows:
    at most ``most_rows`` of them (None: of any size). Where it does not, logs ``option`` as
    unbounded."""
    if most_rows is None or num_data <= check_positive_int("pilot_noise_floor_rows", most_rows):
        return True
    log_choice(builder, option, None, f"none: {num_data:,} training rows, above {most_rows:,}")
    return False


def _negative_log_marginal_likelihood(
    log_parameters: np.ndarray, squared_distances: np.ndarray, Y: np.ndarray
) -> Tuple[float, np.ndarray]:
    """−log N(Y | 0, K) summed over Y's columns, K = s exp(−d²/2ℓ²) + σ² I, and its gradient with
    respect to (log s, log ℓ, log σ²), ½ tr((P K⁻¹ − ααᵀ) ∂K) with α = K⁻¹Y and P columns."""
    variance, lengthscale, noise = np.exp(log_parameters)
    correlation = np.exp(-0.5 * squared_distances / lengthscale**2)
    K = variance * correlation + noise * np.eye(len(Y))
    factor = cho_factor(K, lower=True)
    alpha = cho_solve(factor, Y)
    columns = Y.shape[1]
    value = 0.5 * np.sum(Y * alpha) + columns * (np.sum(np.log(np.diag(factor[0]))) + 0.5 * len(Y) * np.log(2 * np.pi))
    inner = columns * cho_solve(factor, np.eye(len(Y))) - alpha @ alpha.T
    derivatives = (variance * correlation, variance * correlation * squared_distances / lengthscale**2, noise)
    gradient = [
        0.5 * np.sum(inner * derivatives[0]),
        0.5 * np.sum(inner * derivatives[1]),
        0.5 * noise * np.trace(inner),
    ]
    return float(value), np.array(gradient)
