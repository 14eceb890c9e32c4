"""Scores of predictive mixtures against held-out targets: the per-point scores
(:mod:`~gpflow_deep.evaluation.pointwise`) and :func:`evaluate`, a model's test scores streamed over
its prediction chunks."""

from typing import Dict

import numpy as np
from gpflow.likelihoods import Gaussian

from gpflow_deep.evaluation.accumulator import ScoreAccumulator
from gpflow_deep.evaluation.pointwise import crps, log_predictive_density, rmse

__all__ = ["crps", "evaluate", "log_predictive_density", "rmse"]


def evaluate(model, X, Y, y_std=1.0, **prediction_options) -> Dict[str, float]:
    """Test scores of a regression model (Gaussian likelihood) in original units, streamed over
    the model's prediction chunks (``model.predict_mixture_chunks``), so that only one chunk's
    ``[S, rows, P]`` mixture is held at a time.

    ``y_std`` (a scalar or one per output) undoes the standardisation of the targets; the mean
    shift does not change any score. ``prediction_options`` go to the model's predictions
    (``num_samples`` and ``seed`` for Monte Carlo models).

    :returns: ``log_likelihood`` (mean per point), ``rmse``, ``crps`` (mean per point and output).
    """
    if not isinstance(model.likelihood, Gaussian):
        raise TypeError("evaluate scores regression models: the likelihood must be gpflow's Gaussian")
    X, Y = np.asarray(X), np.asarray(Y)
    if Y.ndim != 2 or len(Y) != len(X):
        raise ValueError(f"Y must be [N, P] with the N = {len(X)} rows of X, got shape {Y.shape}")
    scale = np.broadcast_to(np.asarray(y_std, dtype=float).reshape(-1), (Y.shape[1],))
    scores = ScoreAccumulator()
    for rows, mixture in model.predict_mixture_chunks(X, over="y", **prediction_options):
        means, variances = mixture.means.numpy() * scale, mixture.variances.numpy() * scale**2
        scores.add(Y[rows] * scale, means, variances, mixture.log_weights.numpy())
    return scores.scores()
