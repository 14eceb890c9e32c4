"""A restored run's predictive distribution on table rows, in the table's units, chunk by chunk.

For regression each chunk is the mixture over y: per path, the likelihood's moments of y given
that path's Gaussian over f (exact for a Gaussian likelihood; a moment-matched Gaussian per path
for Student-t and Poisson), back in the target's original units. For classification it is the
class probabilities, averaged over the paths with their weights.
"""

from dataclasses import dataclass
from typing import Callable, Iterator, Optional

import numpy as np
import tensorflow as tf

from gpflow_deep.app.run_directory import Run
from gpflow_deep.core.mixtures import predict_mean_and_var

PREDICTION_CHUNK = 1000  # rows per chunk: bounds the [S, rows, P] arrays held at once


@dataclass
class ChunkPrediction:
    """The predictive at ``rows``: a mixture over y (``means, variances: [S, n]``, ``log_weights:
    [S]``, original units) for regression, ``probabilities: [n, K]`` for classification."""

    rows: slice
    means: Optional[np.ndarray] = None
    variances: Optional[np.ndarray] = None
    log_weights: Optional[np.ndarray] = None
    probabilities: Optional[np.ndarray] = None

    @property
    def mean(self) -> np.ndarray:
        return np.sum(np.exp(self.log_weights)[:, None] * self.means, axis=0)

    @property
    def std(self) -> np.ndarray:
        weights = np.exp(self.log_weights)[:, None]
        return np.sqrt(np.sum(weights * (self.variances + (self.means - self.mean) ** 2), axis=0))


def predictive_chunks(
    run: Run,
    X: np.ndarray,
    chunk_size: int = PREDICTION_CHUNK,
    on_chunk: Optional[Callable[[int], None]] = None,
) -> Iterator[ChunkPrediction]:
    """The predictive at the model inputs ``X`` (already preprocessed), ``chunk_size`` rows at a
    time; chunk i draws its paths with the seed (run seed, i), so results repeat exactly.
    ``on_chunk(rows_done)`` is called after each chunk."""
    model, preprocessing = run.model, run.preprocessing
    for index, start in enumerate(range(0, len(X), chunk_size)):
        rows = slice(start, min(start + chunk_size, len(X)))
        inputs = tf.convert_to_tensor(X[rows], dtype=model.dtype)
        mixture = model.predict_mixture(inputs, seed=(run.config.seed, index))
        means, variances = predict_mean_and_var(model.likelihood, inputs, mixture.means, mixture.variances)
        log_weights = mixture.log_weights.numpy()
        if preprocessing.is_classification:
            probabilities = np.sum(np.exp(log_weights)[:, None, None] * means.numpy(), axis=0)
            if probabilities.shape[1] == 1:  # Bernoulli: p(class 1)
                probabilities = np.concatenate([1 - probabilities, probabilities], axis=1)
            yield ChunkPrediction(rows, probabilities=probabilities)
        else:
            scale, shift = preprocessing.target_std, preprocessing.target_mean
            yield ChunkPrediction(
                rows,
                means=means.numpy()[..., 0] * scale + shift,
                variances=variances.numpy()[..., 0] * scale**2,
                log_weights=log_weights,
            )
        if on_chunk is not None:
            on_chunk(rows.stop)


def log_densities(run: Run, X: np.ndarray, Y: np.ndarray, chunk_size: int = PREDICTION_CHUNK) -> np.ndarray:
    """``[N]``: the exact log-density of each target under the mixture, in original units."""
    model = run.model
    pieces = [
        model.predict_log_density(
            (X[start : start + chunk_size], Y[start : start + chunk_size]), seed=(run.config.seed, i)
        ).numpy()
        for i, start in enumerate(range(0, len(X), chunk_size))
    ]
    return np.concatenate(pieces) - np.log(run.preprocessing.target_std)
