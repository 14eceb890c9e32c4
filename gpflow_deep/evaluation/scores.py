"""Scores of a regression model on held-out points, in original units, with the per-point
predictions the demo plots."""

from typing import Dict

import numpy as np

from gpflow_deep.evaluation.accumulator import ScoreAccumulator
from gpflow_deep.evaluation.calibration import central_interval
from gpflow_deep.evaluation.moments import mixture_mean_and_std

INTERVAL_LEVEL = 0.9


def regression_scores(model, X, Y, y_mean=0.0, y_std=1.0, seed=0) -> Dict[str, object]:
    """Mean test log-likelihood, RMSE, CRPS and coverage of the central 90% interval (scalars),
    and per point the predictive ``mean``, ``lower`` and ``upper`` and the target ``y`` (arrays),
    all in the units of ``Y * y_std + y_mean``; single-output models with a Gaussian likelihood
    (for others, each path's y is moment-matched)."""
    scale, shift = float(np.reshape(y_std, -1)[0]), float(np.reshape(y_mean, -1)[0])
    y = np.asarray(Y) * scale + shift
    scores = ScoreAccumulator(levels=(INTERVAL_LEVEL,), seed=seed)
    means, lowers, uppers = [], [], []
    for rows, mixture in model.predict_mixture_chunks(X, seed=seed, over="y"):
        components = mixture.means.numpy() * scale + shift, mixture.variances.numpy() * scale**2
        log_weights = mixture.log_weights.numpy()
        scores.add(y[rows], *components, log_weights)
        means.append(mixture_mean_and_std(*components, log_weights)[0][:, 0])
        lower, upper = central_interval(INTERVAL_LEVEL, components[0][..., 0], components[1][..., 0], log_weights)
        lowers.append(lower)
        uppers.append(upper)
    return dict(
        **scores.scores(),
        coverage_90=float(scores.coverage()[0]),
        mean=np.concatenate(means),
        lower=np.concatenate(lowers),
        upper=np.concatenate(uppers),
        y=y[:, 0],
    )
