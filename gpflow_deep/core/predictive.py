"""The one chunked predictive: every prediction of every model, in Python, in the SavedModel and on
the command line, is a compiled evaluation of one chunk of rows, keyed by the chunk's first row.

A chunk of rows ``first_row, ..., first_row + n - 1`` of a larger input gets the call's seed and
its first row's index, and the propagation noise of each row is keyed by its index
(:mod:`gpflow_deep.core.row_noise`): the chunk size, and whether the rows arrive as one array or
as batches read from a file, change nothing.
"""

import functools
import weakref
from typing import Any, Callable, Iterator, List, Optional, Tuple

import tensorflow as tf

from gpflow_deep.core.mixtures import (
    GaussianMixture,
    mixture_log_density,
    mixture_moments,
    per_component,
    predict_mean_and_var,
)
from gpflow_deep.core.noise_strata import y_mixture

QUANTITIES = ("paths", "f", "y", "y_mixture", "log_density")
"""What a chunk evaluates: every layer's outputs and the log-weights (``"paths"``); the moments of
the mixture over f or y; the mixture over y itself (each path's moments of y; for a Student-t
likelihood, the strata of its noise, :mod:`gpflow_deep.core.noise_strata`); the exact log-density."""

_COMPILED_PREDICTIONS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def evaluate_chunk(model, quantity: str, X: tf.Tensor, *args: tf.Tensor) -> Any:
    """``quantity`` at the rows X ``[n, D]``; ``args`` is ``([Y,] num_samples, seed, first_row)``."""
    *targets, num_samples, seed, first_row = args
    if quantity == "paths":
        return model._paths(X, num_samples, seed, first_row)
    mixture = model._mixture(X, num_samples, seed, first_row)
    if quantity == "f":
        return mixture_moments(*mixture)
    if quantity == "log_density":
        logp = per_component(model.likelihood.predict_log_density, X, mixture.means, mixture.variances, *targets)
        return mixture_log_density(logp, mixture.log_weights)
    if quantity == "y":
        means, variances = predict_mean_and_var(model.likelihood, X, mixture.means, mixture.variances)
        return mixture_moments(means, variances, mixture.log_weights)
    return y_mixture(model.likelihood, X, mixture, model.paths_equally_weighted)


def compiled_prediction(model, quantity: str) -> Callable:
    """The compiled chunk evaluation of ``quantity`` for ``model``, traced once per model.

    Kept outside the model so that ``gpflow.utilities.deepcopy`` and checkpoints never meet a
    traced graph; the partial over a weak reference gives every model its own function (TensorFlow
    counts retracing per Python function) without keeping the model alive. Traced without
    AutoGraph, as the SavedModel's functions are: the chunk has no Python control flow on tensors,
    and converting the code cost most of a first prediction's time.
    """
    if quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {QUANTITIES}, got {quantity!r}")
    functions = _COMPILED_PREDICTIONS.setdefault(model, {})
    if quantity not in functions:
        signature = [tf.TensorSpec([None, model.input_dim], model.dtype)]
        if quantity == "log_density":
            signature.append(tf.TensorSpec([None, None], model.dtype))
        signature += [tf.TensorSpec([], tf.int32), tf.TensorSpec([2], tf.int64), tf.TensorSpec([], tf.int64)]
        python_function = functools.partial(_evaluate_referenced, weakref.ref(model), quantity)
        functions[quantity] = tf.function(python_function, input_signature=signature, autograph=False)
    return functions[quantity]


def _evaluate_referenced(model_ref, quantity: str, X: tf.Tensor, *args: tf.Tensor) -> Any:
    return evaluate_chunk(model_ref(), quantity, X, *args)


def row_chunks(num_rows: int, chunk_size: int) -> List[slice]:
    """The row ranges of the chunks of ``num_rows`` rows (one, empty, for no rows)."""
    return [slice(start, min(start + chunk_size, num_rows)) for start in range(0, max(num_rows, 1), chunk_size)]


def evaluate(
    model,
    quantity: str,
    X: tf.Tensor,
    Y: Optional[tf.Tensor] = None,
    *,
    num_samples: int,
    seed: tf.Tensor,
    first_row: int,
) -> Any:
    """``quantity`` at the rows X (and Y, for ``"log_density"``), which are rows ``first_row, ...``
    of a larger input, as checked tensors."""
    targets = () if Y is None else (Y,)
    start = tf.constant(first_row, tf.int64)
    return compiled_prediction(model, quantity)(X, *targets, tf.constant(num_samples, tf.int32), seed, start)


def chunks(
    model, quantity: str, X: tf.Tensor, Y: Optional[tf.Tensor] = None, *, first_row: int = 0, **options
) -> Iterator[Tuple[slice, Any]]:
    """``(rows, quantity at X[rows])`` for chunks of the model's ``prediction_batch_size`` rows of
    X (rows ``first_row, ...`` of a larger input); ``options`` are ``num_samples`` and ``seed``,
    the same for every chunk, so that every chunk has the same paths."""
    for rows in row_chunks(X.shape[0], model.prediction_batch_size):
        Y_rows = None if Y is None else Y[rows]
        yield rows, evaluate(model, quantity, X[rows], Y_rows, first_row=first_row + rows.start, **options)


def joined(model, quantity: str, X: tf.Tensor, Y: Optional[tf.Tensor] = None, **options) -> Any:
    """:func:`chunks` joined along the point axis (paths: the outputs' axis 1, with one log-weights)."""
    pieces = [piece for _, piece in chunks(model, quantity, X, Y, **options)]
    if quantity == "paths":
        return _concat([piece[0] for piece in pieces], axis=1), pieces[0][1]
    if quantity == "y_mixture":
        return GaussianMixture(*_concat([piece[:2] for piece in pieces], axis=1), pieces[0].log_weights)
    return _concat(pieces, axis=0)


def _concat(pieces: List[Any], axis: int) -> Any:
    return tf.nest.map_structure(lambda *parts: tf.concat(parts, axis=axis), *pieces)
