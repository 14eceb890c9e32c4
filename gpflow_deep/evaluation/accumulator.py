"""Regression scores summed over chunks of a predictive mixture over y, so that memory does not
grow with the number of rows scored."""

from typing import Dict, Optional, Sequence

import numpy as np

from gpflow_deep.evaluation.calibration import mixture_cdf
from gpflow_deep.evaluation.moments import mixture_mean_and_std
from gpflow_deep.evaluation.pointwise import crps, log_predictive_density
from gpflow_deep.evaluation.reservoir import Reservoir

PIT_SAMPLE = 100_000  # F(y) values kept for a histogram: a uniform sample of the rows beyond that


class ScoreAccumulator:
    """Running sums of the scores of a predictive mixture over y against targets, chunk by chunk.

    Each :meth:`add` takes targets ``y: [n, P]`` and the mixture at those rows (``means,
    variances: [S, n, P]``, ``log_weights: [S]``), all in the units to score in. It adds up the
    log-density, the squared error of the mixture's mean, the CRPS and, per output, whether y lies in
    the mixture's central interval of each of ``levels``; it keeps a uniform sample of at most
    ``pit_sample`` values of F(y), the probability integral transform.

    :param levels: central-interval levels in (0, 1) whose coverage is counted.
    """

    def __init__(self, levels: Sequence[float] = (0.9,), pit_sample: int = PIT_SAMPLE, seed: int = 0):
        self.levels = np.asarray(levels, dtype=float)
        self.rows = 0
        self.values = 0
        self._log_density = self._squared_error = self._crps = 0.0
        self._hits = np.zeros(len(self.levels), dtype=np.int64)
        self._pit = Reservoir(pit_sample, seed)

    def add(
        self,
        y: np.ndarray,
        means: np.ndarray,
        variances: np.ndarray,
        log_weights: np.ndarray,
        log_density: Optional[np.ndarray] = None,
    ) -> None:
        """Add the rows ``y: [n, P]`` scored by the mixture ``[S, n, P]``; ``log_density: [n]``, if
        given, replaces the mixture's own Gaussian log-density (for likelihoods whose mixture over y
        is a moment-matched Gaussian per path, the exact one)."""
        y, means, variances = np.asarray(y), np.asarray(means), np.asarray(variances)
        log_weights = np.asarray(log_weights)
        if log_density is None:
            log_density = log_predictive_density(y, means, variances, log_weights)
        mean, _ = mixture_mean_and_std(means, variances, log_weights)
        self._log_density += float(np.sum(log_density))
        self._squared_error += float(np.sum((y - mean) ** 2))
        self._crps += float(np.sum(crps(y, means, variances, log_weights)))
        u = np.stack([mixture_cdf(y[:, p], means[..., p], variances[..., p], log_weights) for p in range(y.shape[1])])
        u = u.reshape(-1)
        self._hits += np.sum(np.abs(u - 0.5)[None, :] <= 0.5 * self.levels[:, None], axis=1)
        self._pit.offer({"pit": u})
        self.rows += y.shape[0]
        self.values += y.size

    def scores(self) -> Dict[str, float]:
        """``log_likelihood`` (mean per row), ``rmse``, ``crps`` (mean per row and output)."""
        if self.rows == 0:
            raise ValueError("no rows were scored")
        return dict(
            log_likelihood=self._log_density / self.rows,
            rmse=float(np.sqrt(self._squared_error / self.values)),
            crps=self._crps / self.values,
        )

    def coverage(self) -> np.ndarray:
        """``[L]``: the fraction of targets inside the central interval of each level."""
        return self._hits / max(self.values, 1)

    def pit(self) -> np.ndarray:
        """F(y) at the targets: every one, or a uniform sample of ``pit_sample`` of them."""
        return self._pit.sample.get("pit", np.zeros(0))
