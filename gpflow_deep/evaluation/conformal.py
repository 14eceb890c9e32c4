"""Split-conformal recalibration of a predictive mixture's central intervals.

On n held-out calibration rows, each row's score is how far out in its own predictive the target
fell: s_i = −log(2 min(F_i(y_i), 1 − F_i(y_i))) ∈ [0, ∞), with F_i the predictive CDF at x_i, so
that the central interval of level 1 − exp(−s_i) just reaches y_i. For a nominal level p, the
calibrated interval at a new x is the predictive's central interval of level 1 − exp(−s*), s* the
⌈(n + 1) p⌉-th smallest score (all of ℝ if ⌈(n + 1) p⌉ > n). If the calibration and test rows are
exchangeable, the new target lies in it with probability at least p, and below p + 1/(n + 1) when
the scores have no ties (Vovk et al. 2005; Lei et al. 2018): a finite-sample guarantee that holds
whatever the model, and the interval keeps the mixture's shape (skew, several modes) because it is
one of its own central intervals.

The score is the level's log tail, computed from each component's log tail, rather than the level
|2F − 1| itself: a target 9 predictive standard deviations out has a level of 1 − 2e-19, which is
1.0 in float64, and a calibration set whose targets often fall that far out (a narrow predictive of
a discrete target) would tie at 1.0 and calibrate to the whole line. In log tails those rows keep
their order, and the calibrated interval is the finite central interval that they call for.
"""

import math
from typing import Optional, Tuple

import numpy as np
from scipy.special import log_ndtr, logsumexp

from gpflow_deep.evaluation.calibration import central_interval, mixture_quantile, tail_interval

_RANK_ROUNDING = 1e-9  # (n + 1) p a hair above an integer by rounding is that integer


def conformity_scores(y: np.ndarray, means: np.ndarray, variances: np.ndarray, log_weights: np.ndarray) -> np.ndarray:
    """``[n]``: s = −log(2 min(F(y), 1 − F(y))) of targets ``y: [n]`` under their mixtures
    (components ``[S, n]``), each tail summed on its own side in logs: 0 at the median, and finite
    and increasing with the distance however far out y lies."""
    z = (np.asarray(y)[None] - means) / np.sqrt(variances)
    log_weights = np.asarray(log_weights, dtype=float)[:, None]
    log_lower = logsumexp(log_weights + log_ndtr(z), axis=0)  # log P(Y ≤ y)
    log_upper = logsumexp(log_weights + log_ndtr(-z), axis=0)  # log P(Y ≥ y)
    return np.maximum(-(np.log(2.0) + np.minimum(log_lower, log_upper)), 0.0)


def level_of_score(score: float) -> float:
    """1 − exp(−s): the central level whose interval just reaches a target of score s."""
    return float(-np.expm1(-score))


def score_of_level(level: float) -> float:
    """−log(1 − level): a target's score is at most this exactly when it is in the level's central interval."""
    return float(-np.log1p(-level))


def describe_level(score: float) -> str:
    """The central level of score s for people: ``93.4%``, or ``1 − 2.3e-19`` above 99.9%."""
    if level_of_score(score) < 0.999:
        return f"{100 * level_of_score(score):.1f}%"
    return f"1 − {math.exp(-score):.1e}"


class ConformalLevels:
    """The nominal → calibrated level map of split-conformal prediction, from calibration scores.

    It needs the k-th smallest of the n scores only at the ranks k = ⌈(n + 1) p⌉ of the levels p
    asked for: :meth:`thinned` keeps them at the ranks of a grid of levels, for a small file.

    :param scores: ``[n]`` conformity scores s_i ≥ 0 of the calibration rows
        (:func:`conformity_scores`); or, with ``ranks``, the ``[K]`` order statistics at those ranks.
    :param ranks: ``[K]`` increasing ranks (1-based) of ``scores`` among the n, the last n.
    :param num_rows: n (with ``ranks``).
    """

    def __init__(self, scores: np.ndarray, ranks: Optional[np.ndarray] = None, num_rows: Optional[int] = None):
        scores = np.asarray(scores, dtype=float).reshape(-1)
        if scores.size == 0:
            raise ValueError("calibration needs at least one held-out row")
        if not np.all(scores >= 0):
            raise ValueError("conformity scores must be at least 0 (and not NaN)")
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

    def calibrated_score(self, level: float) -> float:
        """s*: a new target is in the calibrated ``level`` interval exactly when its score is at
        most s*; inf (all of ℝ) when n is too small for ``level`` (⌈(n + 1) level⌉ > n). Between
        the ranks kept by :meth:`thinned`, the score at the next rank kept (a wider interval)."""
        rank = self.rank(level)
        if rank > self.num_rows:
            return math.inf
        return float(self.scores[np.searchsorted(self.ranks, rank)])

    def calibrated_level(self, level: float) -> float:
        """1 − exp(−s*): the predictive's central level that calibrates ``level`` (1.0 when
        unbounded, and when it is within float64's resolution of 1)."""
        return level_of_score(self.calibrated_score(level))

    def is_unbounded(self, level: float) -> bool:
        """Whether n is too small for ``level``, so that its calibrated interval is all of ℝ."""
        return math.isinf(self.calibrated_score(level))

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
        mixture's central interval that leaves exp(−s*)/2 in each tail, (−∞, ∞) where that
        underflows or n is too small."""
        tail = 0.5 * math.exp(-self.calibrated_score(level))
        if tail == 0.0:
            shape = np.shape(means)[1:]
            return np.full(shape, -np.inf), np.full(shape, np.inf)
        if tail >= 0.5:
            median = mixture_quantile(0.5, means, variances, log_weights)
            return median, median
        return tail_interval(tail, means, variances, log_weights)

    def to_dict(self) -> dict:
        """n and the sorted scores (with their ranks if thinned), for a run directory's JSON."""
        data = {"rows": self.num_rows, "log_tail_scores": self.scores.tolist()}
        if self.ranks.size < self.num_rows:
            data["ranks"] = self.ranks.tolist()
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "ConformalLevels":
        """The map of :meth:`to_dict`; or of a file written before 2026-11-30, whose ``scores`` are the
        levels r = 1 − exp(−s) themselves (a score of 1.0 there is the whole line)."""
        if "log_tail_scores" in data:
            scores = np.asarray(data["log_tail_scores"], dtype=float)
        else:
            with np.errstate(divide="ignore"):
                scores = -np.log1p(-np.asarray(data["scores"], dtype=float))
        return cls(scores, data.get("ranks"), data.get("rows"))


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
