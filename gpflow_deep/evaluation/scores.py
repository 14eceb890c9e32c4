"""Scores of a regression model on held-out points, in original units, from one predictive mixture."""

from typing import Dict

import numpy as np
import tensorflow as tf

from gpflow_deep.core.mixtures import predict_mean_and_var
from gpflow_deep.evaluation.calibration import central_interval, interval_coverage
from gpflow_deep.evaluation.metrics import crps, log_predictive_density, rmse

INTERVAL_LEVEL = 0.9


def regression_scores(model, X, Y, y_mean=0.0, y_std=1.0, seed=0) -> Dict[str, object]:
    """Mean test log-likelihood, RMSE, CRPS and coverage of the central 90% interval (scalars),
    and per point the predictive ``mean``, ``lower`` and ``upper`` and the target ``y`` (arrays),
    all in the units of ``Y * y_std + y_mean``; single-output models with a Gaussian likelihood
    (for others, each path's y is moment-matched)."""
    mixture = model.predict_mixture(X, seed=seed)
    inputs = tf.convert_to_tensor(np.asarray(X), dtype=model.dtype)
    means, variances = predict_mean_and_var(model.likelihood, inputs, mixture.means, mixture.variances)
    scale, shift = float(np.reshape(y_std, -1)[0]), float(np.reshape(y_mean, -1)[0])
    means, variances = means.numpy() * scale + shift, variances.numpy() * scale**2
    y = np.asarray(Y) * scale + shift
    log_weights = mixture.log_weights.numpy()
    mean = np.sum(np.exp(log_weights)[:, None, None] * means, axis=0)
    lower, upper = central_interval(INTERVAL_LEVEL, means[..., 0], variances[..., 0], log_weights)
    return dict(
        log_likelihood=float(np.mean(log_predictive_density(y, means, variances, log_weights))),
        rmse=rmse(y, mean),
        crps=float(np.mean(crps(y, means, variances, log_weights))),
        coverage_90=interval_coverage(y[:, 0], lower, upper),
        mean=mean[:, 0],
        lower=lower,
        upper=upper,
        y=y[:, 0],
    )
