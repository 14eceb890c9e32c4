"""A restored run's predictive distribution on encoded table rows, in the table's units, chunk by chunk.

Every chunk comes from the model's one chunked predictive (``model.predict_mixture_chunks``) with
the run's seed and the rows' position in the file, so that a file predicted batch by batch gets
exactly what ``model.predict_y(X, seed=run seed)`` gives for all its rows at once. For regression a
chunk is the mixture over y: per path, the likelihood's moments of y given that path's Gaussian over
f (exact for a Gaussian likelihood and, through the strata of its noise, for Student-t; a
moment-matched Gaussian per path for Poisson),
in the target's original units. For classification it is the class probabilities, averaged over the
paths with their weights. With targets, a chunk also has their exact log-density under the mixture.
"""

from dataclasses import dataclass
from typing import Iterator, Optional

import numpy as np
import tensorflow as tf

from gpflow_deep.app.run_directory import Run
from gpflow_deep.core.mixtures import mixture_log_density, per_component
from gpflow_deep.core.noise_strata import y_mixture
from gpflow_deep.evaluation.moments import mixture_mean_and_std

CHUNK_ROWS = 256
"""Rows per prediction chunk: every layer's ``[S, rows, width]`` outputs of S = 100 paths are held at
once (about 160 MB for a 30-wide hidden layer; 1,000 rows take 4 times that and are slower), and a
multiple of the 64-row blocks row-keyed noise is drawn in. Noise is keyed by row, so the chunk size
changes no number."""


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
    with the encoded targets Y ``[n, 1]``, their log-densities too. Without targets the mixture over
    y comes whole from the compiled predictive; with them, the mixture over f does, and the
    likelihood's moments and densities per path are taken from it here."""
    model = run.model
    model.prediction_batch_size = CHUNK_ROWS
    over = "y" if Y is None else "f"
    for rows, mixture in model.predict_mixture_chunks(X, seed=run.config.seed, over=over, first_row=first_row):
        log_density = None
        if Y is None:
            means, variances, log_weights = (t.numpy() for t in mixture)
        else:
            inputs = tf.convert_to_tensor(X[rows], dtype=model.dtype)
            over_y = y_mixture(model.likelihood, inputs, mixture, model.paths_equally_weighted)
            means, variances, log_weights = (t.numpy() for t in over_y)
            targets = tf.convert_to_tensor(Y[rows], dtype=model.dtype)
            densities = per_component(model.likelihood.predict_log_density, inputs, *mixture[:2], targets)
            log_density = mixture_log_density(densities, mixture.log_weights).numpy()
        yield _in_table_units(run.preprocessing, rows, means, variances, log_weights, log_density)


def _in_table_units(preprocessing, rows: slice, means, variances, log_weights, log_density) -> ChunkPrediction:
    """A chunk's mixture over encoded y as class probabilities, or in the target's original units."""
    if preprocessing.is_classification:
        probabilities, _ = mixture_mean_and_std(means, variances, log_weights)
        if probabilities.shape[1] == 1:  # Bernoulli: p(class 1)
            probabilities = np.concatenate([1 - probabilities, probabilities], axis=1)
        return ChunkPrediction(rows, probabilities=probabilities, log_density=log_density)
    scale, shift = preprocessing.target_std, preprocessing.target_mean
    if log_density is not None:
        log_density = log_density - np.log(scale)
    return ChunkPrediction(rows, means * scale + shift, variances * scale**2, log_weights, log_density=log_density)
