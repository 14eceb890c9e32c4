"""The Bayesian linear model y = Φ W + ε, W ~ N(0, I), ε ~ N(0, σ²) on fixed features Φ: W's exact
posterior, and the noise σ² of greatest evidence. ``build_random_feature_dgp`` starts its last
layer there: a random-feature GP is this model on its random features."""

from typing import Sequence, Tuple

import numpy as np

from gpflow_deep.builders.initialisation import mean_column_variance

NOISE_GRID = np.logspace(-4.0, 0.5, 181)
"""The noise variances, as fractions of the targets' variance, among which :func:`evidence_noise_variance`
chooses: 1e-4 to 3.16, 40 per decade."""


def linear_model_posterior(
    Phi: np.ndarray, Y: np.ndarray, noise_variance: float, scale: float = 1.0
) -> Tuple[np.ndarray, np.ndarray]:
    """W's exact posterior from ``Phi [n, F]`` and ``Y [n, L]``, each row standing for ``scale``
    rows: the mean ``[F, L]``, A⁻¹ scale ΦᵀY/σ², and the lower Cholesky factor ``[F, F]`` of the
    precision A = I + scale ΦᵀΦ/σ² (the covariance is A⁻¹ for every column of W)."""
    precision = np.eye(Phi.shape[1]) + scale * Phi.T @ Phi / noise_variance
    chol = np.linalg.cholesky(precision)
    mean = np.linalg.solve(chol.T, np.linalg.solve(chol, scale * Phi.T @ Y / noise_variance))
    return mean, chol


def log_evidence(Phi: np.ndarray, Y: np.ndarray, noise_variances: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """log p(Y | Φ, σ²) ``[G]`` for each of ``noise_variances [G]``, summed over Y's ``L`` columns:
    with ΦᵀΦ = V diag(λ) Vᵀ and b = Vᵀ ΦᵀY (both times ``scale``), each column's
    −½ [n log 2πσ² + Σᵢ log(1 + λᵢ/σ²) + (yᵀy − Σᵢ bᵢ²/(σ² + λᵢ))/σ²], n = ``scale`` × rows."""
    eigenvalues, vectors = np.linalg.eigh(scale * Phi.T @ Phi)
    eigenvalues = np.maximum(eigenvalues, 0.0)
    projected = np.sum((vectors.T @ (scale * Phi.T @ Y)) ** 2, axis=1)  # Σ over columns of bᵢ²: [F]
    squares, columns, rows = scale * np.sum(Y**2), Y.shape[1], scale * len(Y)
    s = np.asarray(noise_variances, dtype=float)[:, None]
    fitted = np.sum(projected / (s + eigenvalues), axis=1)
    determinant = columns * (rows * np.log(2 * np.pi * s[:, 0]) + np.sum(np.log1p(eigenvalues / s), axis=1))
    return -0.5 * (determinant + (squares - fitted) / s[:, 0])


def evidence_noise_variance(Phis: Sequence[np.ndarray], Y: np.ndarray, scale: float = 1.0) -> float:
    """The σ² of :data:`NOISE_GRID` × var(Y) with the greatest evidence summed over the feature
    matrices ``Phis`` (one ``[n, F]`` per member), all of the same targets ``Y [n, L]``."""
    grid = NOISE_GRID * mean_column_variance(Y)
    total = sum(log_evidence(Phi, Y, grid, scale) for Phi in Phis)
    return float(grid[int(np.argmax(total))])
