"""A restored run's predictive distribution on encoded table rows, in the table's units, chunk by chunk.

Every chunk comes from the model's one chunked predictive (``model.predict_mixture_chunks``) with
the run's seed and the rows' position in the file, so that a file predicted batch by batch gets
exactly what ``model.predict_y(X, seed=run seed)`` gives for all its rows at once. For regression a
chunk is the mixture over y: per path, the likelihood's moments of y given that path's Gaussian over
f (exact for a Gaussian likelihood; a moment-matched Gaussian per path for Student-t and Poisson),
in the target's original units. For classification it is the class probabilities, averaged over the
paths with their weights. With targets, a chunk also has their exact log-density under the mixture.
"""

from dataclasses import dataclass
from typing import Iterator, Optional

import numpy as np
import tensorflow as tf

from gpflow_deep.app.run_directory import Run
from gpflow_deep.core.mixtures import mixture_log_density, per_component, predict_mean_and_var
from gpflow_deep.evaluation.moments import mixture_mean_and_std

CHUNK_ROWS = 250
"""Rows per prediction chunk: every layer's ``[S, rows, width]`` outputs of S = 100 paths are held at
once (about 160 MB for a 30-wide hidden layer, 460 MB at the model's default 1,000 rows, and no
faster). Noise is keyed by row, so the chunk size changes no number."""


@dataclass
class ChunkPrediction:
    """The predictive at ``rows`` (of the batch given): a mixture over y (``means, variances:
    [S, n, 1]``, ``log_weights: [S]``, original units) for regression, ``probabilities: [n, K]``
    for classification; ``log_density: [n]`` of the targets, when they were given."""

    rows: slice
    means: Optional[np.ndarray] = None
    variances: Optional[np.ndarray] = None
    log_weights: Optional[np.ndarray] = None
    probabilities: Optional[np.ndarray] = None
    log_density: Optional[np.ndarray] = None


def predictive_chunks(
    run: Run, X: np.ndarray, first_row: int, Y: Optional[np.ndarray] = None
) -> Iterator[ChunkPrediction]:
    """The predictive at the encoded inputs X ``[n, D]``, rows ``first_row, ...`` of the table, a
    chunk of :data:`CHUNK_ROWS` rows at a time (the model's ``prediction_batch_size`` is set to it);
    with the encoded targets Y ``[n, 1]``, their log-densities too."""
    model, preprocessing = run.model, run.preprocessing
    model.prediction_batch_size = CHUNK_ROWS
    chunks = model.predict_mixture_chunks(X, seed=run.config.seed, over="f", first_row=first_row)
    for rows, mixture in chunks:
        inputs = tf.convert_to_tensor(X[rows], dtype=model.dtype)
        means, variances = (t.numpy() for t in predict_mean_and_var(model.likelihood, inputs, *mixture[:2]))
        log_weights = mixture.log_weights.numpy()
        log_density = None
        if Y is not None:
            targets = tf.convert_to_tensor(Y[rows], dtype=model.dtype)
            densities = per_component(model.likelihood.predict_log_density, inputs, *mixture[:2], targets)
            log_density = mixture_log_density(densities, mixture.log_weights).numpy()
        if preprocessing.is_classification:
            probabilities, _ = mixture_mean_and_std(means, variances, log_weights)
            if probabilities.shape[1] == 1:  # Bernoulli: p(class 1)
                probabilities = np.concatenate([1 - probabilities, probabilities], axis=1)
            yield ChunkPrediction(rows, probabilities=probabilities, log_density=log_density)
        else:
            scale, shift = preprocessing.target_std, preprocessing.target_mean
            if log_density is not None:
                log_density = log_density - np.log(scale)
            yield ChunkPrediction(
                rows, means * scale + shift, variances * scale**2, log_weights, log_density=log_density
            )
