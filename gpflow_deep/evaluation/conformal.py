"""Split-conformal recalibration of a predictive mixture's central intervals.

On n held-out calibration rows, each row's score is r_i = |2 F_i(y_i) − 1| ∈ [0, 1], with F_i the
predictive CDF at x_i: how far out in its own predictive the target fell (the central interval of
level r_i just reaches y_i). For a nominal level p, the calibrated interval at a new x is the
predictive's central interval of level r*, the ⌈(n + 1) p⌉-th smallest score (all of ℝ if
⌈(n + 1) p⌉ > n). If the calibration and test rows are exchangeable, the new target lies in it with
probability at least p, and below p + 1/(n + 1) when the scores have no ties (Vovk et al. 2005;
Lei et al. 2018): a finite-sample guarantee that holds whatever the model, and the interval keeps
the mixture's shape (skew, several modes) because it is one of its own central intervals.
"""

import math
from typing import Optional, Tuple

import numpy as np

from gpflow_deep.evaluation.calibration import central_interval, mixture_cdf, mixture_quantile

_RANK_ROUNDING = 1e-9  # (n + 1) p a hair above an integer by rounding is that integer


def conformity_scores(y: np.ndarray, means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray) -> np.ndarray:
    """``[n]``: r = |2 F(y) − 1| = 1 − 2 min(F(y), 1 − F(y)) of targets ``y: [n]`` under their
    mixtures (components ``[S, n]``), the nearer tail summed on its own side: far out it is exactly
    0, where 1 − F would be the rounding of the weights' sum (±2e-16), so the score is exactly 1."""
    y = np.asarray(y)
    lower_tail = mixture_cdf(y, means, variances, log_weights)
    upper_tail = mixture_cdf(-y, -np.asarray(means), variances, log_weights)  # P(Y ≥ y), by symmetry
    return np.clip(1.0 - 2.0 * np.minimum(lower_tail, upper_tail), 0.0, 1.0)


class ConformalLevels:
    """The nominal → calibrated level map of split-conformal prediction, from calibration scores.

    It needs the k-th smallest of the n scores only at the ranks k = ⌈(n + 1) p⌉ of the levels p
    asked for: :meth:`thinned` keeps them at the ranks of a grid of levels, for a small file.

    :param scores: ``[n]`` conformity scores r_i ∈ [0, 1] of the calibration rows
        (:func:`conformity_scores`); or, with ``ranks``, the ``[K]`` order statistics at those ranks.
    :param ranks: ``[K]`` increasing ranks (1-based) of ``scores`` among the n, the last n.
    :param num_rows: n (with ``ranks``).
    """

    def __init__(self, scores: np.ndarray, ranks: Optional[np.ndarray] = None, num_rows: Optional[int] = None):
        scores = np.asarray(scores, dtype=float).reshape(-1)
        if scores.size == 0:
            raise ValueError("calibration needs at least one held-out row")
        if not np.all((scores >= 0) & (scores <= 1)):
            raise ValueError("conformity scores must lie in [0, 1]")
        self.scores = np.sort(scores)
        self.num_rows = scores.size if num_rows is None else int(num_rows)
        self.ranks = np.arange(1, scores.size + 1) if ranks is None else np.asarray(ranks, dtype=np.int64)
        if self.ranks.shape != scores.shape or np.any(np.diff(self.ranks) <= 0) or self.ranks[-1] != self.num_rows:
            raise ValueError("ranks must increase, one per score, and end at the number of rows")

    def rank(self, level: float) -> int:
        """⌈(n + 1) ``level``⌉: the rank of the score that calibrates ``level`` (n + 1 or more: none)."""
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must be in (0, 1), got {level}")
        return math.ceil((self.num_rows + 1) * level - _RANK_ROUNDING)

    def calibrated_level(self, level: float) -> float:
        """r*: the central-interval level of the predictive that covers with probability ≥ ``level``;
        1.0 (all of ℝ) when n is too small for ``level`` (⌈(n + 1) level⌉ > n). Between the ranks
        kept by :meth:`thinned`, the score at the next rank kept (a wider interval)."""
        rank = self.rank(level)
        if rank > self.num_rows:
            return 1.0
        return float(self.scores[np.searchsorted(self.ranks, rank)])

    def expected_coverage(self, level: float) -> float:
        """k / (n + 1), the probability that the calibrated interval covers a new exchangeable row
        (continuous scores; k the rank used): at least ``level``, below ``level`` + 1/(n + 1)
        unless thinned."""
        rank = self.rank(level)
        if rank > self.num_rows:
            return 1.0
        return int(self.ranks[np.searchsorted(self.ranks, rank)]) / (self.num_rows + 1)

    def thinned(self, grid: int) -> "ConformalLevels":
        """The map kept at the ranks ⌈(n + 1) j / ``grid``⌉ (j = 1, ..., grid − 1) and n: exact for
        the levels j / ``grid``, and for every level when n < ``grid``."""
        if self.ranks.size < self.num_rows:
            raise ValueError("these levels are already thinned")
        ceilings = -((-(self.num_rows + 1) * np.arange(1, grid)) // grid)
        kept = np.union1d(np.minimum(ceilings, self.num_rows), [self.num_rows])
        return ConformalLevels(self.scores[kept - 1], kept, self.num_rows)

    def interval(
        self, level: float, means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray
    ) -> Tuple[np.ndarray, np.ndarray]:
        """The calibrated central ``level`` interval ``([n], [n])`` of mixtures ``[S, n]``: the
        mixture's central interval of :meth:`calibrated_level`, (−∞, ∞) where that is 1."""
        calibrated = self.calibrated_level(level)
        if calibrated >= 1.0:
            shape = np.shape(means)[1:]
            return np.full(shape, -np.inf), np.full(shape, np.inf)
        if calibrated <= 0.0:
            median = mixture_quantile(0.5, means, variances, log_weights)
            return median, median
        return central_interval(calibrated, means, variances, log_weights)

    def to_dict(self) -> dict:
        """n and the sorted scores (with their ranks if thinned), for a run directory's JSON."""
        data = {"rows": self.num_rows, "scores": self.scores.tolist()}
        if self.ranks.size < self.num_rows:
            data["ranks"] = self.ranks.tolist()
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "ConformalLevels":
        return cls(np.asarray(data["scores"]), data.get("ranks"), data.get("rows"))


def calibrate(model, X: np.ndarray, Y: np.ndarray, **prediction_options) -> ConformalLevels:
    """The conformal level map of ``model`` from held-out rows ``X: [n, D]``, ``Y: [n, 1]`` that
    it was not trained on, scored chunk by chunk on the predictive over y (``prediction_options``:
    ``num_samples``, ``seed``; use the same seed for the predictions to calibrate)."""
    Y = np.asarray(Y)
    if Y.ndim != 2 or Y.shape[1] != 1 or len(Y) != len(X):
        raise ValueError(f"Y must be [n, 1] with the n = {len(X)} rows of X, got shape {Y.shape}")
    scores = [
        conformity_scores(
            Y[rows, 0], mixture.means.numpy()[..., 0], mixture.variances.numpy()[..., 0], mixture.log_weights.numpy()
        )
        for rows, mixture in model.predict_mixture_chunks(X, over="y", **prediction_options)
    ]
    return ConformalLevels(np.concatenate(scores))


def predict_interval(
    model, X: np.ndarray, level: float = 0.9, calibrate: Optional[ConformalLevels] = None, **prediction_options
) -> Tuple[np.ndarray, np.ndarray]:
    """``([N], [N])``: the central ``level`` interval of the predictive over y at ``X: [N, D]``
    (one output), computed chunk by chunk; with ``calibrate`` (from :func:`calibrate`) the
    split-conformal interval, which covers with probability ≥ ``level``."""
    pieces = []
    for _, mixture in model.predict_mixture_chunks(X, over="y", **prediction_options):
        components = (mixture.means.numpy()[..., 0], mixture.variances.numpy()[..., 0], mixture.log_weights.numpy())
        if calibrate is None:
            pieces.append(central_interval(level, *components))
        else:
            pieces.append(calibrate.interval(level, *components))
    return np.concatenate([lower for lower, _ in pieces]), np.concatenate([upper for _, upper in pieces])
