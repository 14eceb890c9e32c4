"""Numerical failures explained: which layer broke, and what to change.

TensorFlow reports a failed Cholesky factorisation either as a bare ``InvalidArgumentError`` or,
on CPU since 2.x, by filling the factor with NaN; both end here as a :class:`NumericalError`
naming the layer (when one can be found) and the usual fixes.
"""

import contextlib
from typing import Any, Callable, Optional

import numpy as np
import tensorflow as tf
from gpflow.config import default_jitter
from gpflow.covariances import Kuu


class NumericalError(FloatingPointError):
    """A computation of a model gave NaN or a matrix that could not be factorised.

    :ivar layer: the index of the layer found at fault, or None.
    :ivar iteration: for a failure in :func:`~gpflow_deep.fit`, the iteration whose step failed.
    """

    def __init__(self, message: str, layer: Optional[int] = None, iteration: Optional[int] = None):
        super().__init__(message)
        self.layer, self.iteration = layer, iteration


def advice(model) -> str:
    """The usual fixes, with the settings in force."""
    return (
        f"Try more jitter (gpflow.config.set_default_jitter(1e-4); now {default_jitter():g}), "
        f"float64 (gpflow.config.set_default_float(np.float64); the model is {model.dtype.name}), "
        "or a smaller learning rate"
    )


def layer_name(model, index: int) -> str:
    """``layer 1 (layer_1, GPLayer)``."""
    layer = model.layers[index]
    return f"layer {index} ({getattr(layer, 'name', '?')}, {type(layer).__name__})"


def failing_layer(model, X: Optional[tf.Tensor]) -> Optional[tuple]:
    """``(index, what failed)`` for the first layer whose inducing-point covariance Kuu cannot be
    factorised, else (given inputs X ``[N, D]``) the first whose marginals are NaN on one path; None
    if every layer looks sound."""
    for index, layer in enumerate(model.layers):
        if _kuu_fails(layer):
            return index, "the Cholesky factorisation of its inducing-point covariance Kuu failed"
    if X is None:
        return None
    with contextlib.suppress(tf.errors.OpError, ValueError):
        outputs, _ = model._paths(X, tf.constant(1), tf.zeros([2], tf.int64))
        for index, output in enumerate(outputs):
            if np.isnan(output.means.numpy()).any() or np.isnan(output.variances.numpy()).any():
                return index, "its marginals are NaN (a Cholesky factorisation or a variance failed)"
    return None


def explain(
    model, what: str, X: Optional[tf.Tensor] = None, iteration: Optional[int] = None, then: str = ""
) -> NumericalError:
    """A :class:`NumericalError` saying ``what`` went wrong, the layer at fault if one is found (on
    inputs X ``[N, D]``), the usual fixes and ``then``, what became of the model."""
    found = failing_layer(model, X)
    where = f"{layer_name(model, found[0])}: {found[1]}" if found else f"the {type(model).__name__} model"
    message = f"{what}; at fault: {where}. {then + '. ' if then else ''}{advice(model)}."
    return NumericalError(message, layer=found[0] if found else None, iteration=iteration)


def is_factorisation_error(error: Exception) -> bool:
    """Whether a TensorFlow error is a failed Cholesky (or matrix inverse)."""
    text = str(error)
    return isinstance(error, tf.errors.InvalidArgumentError) and ("Cholesky" in text or "invertible" in text)


def checked_prediction(model, method: str, X: Any, predict: Callable[[], Any]) -> Any:
    """``predict()``, with a failed factorisation or NaN in its results raised as a
    :class:`NumericalError` naming ``method`` and the layer at fault (X: the checked inputs, or a
    pair whose first member they are)."""
    inputs = X[0] if isinstance(X, tuple) else X
    try:
        result = predict()
    except tf.errors.InvalidArgumentError as error:
        if not is_factorisation_error(error):
            raise
        raise explain(model, f"{method} failed: {error.message.splitlines()[0]}", inputs[:100]) from error
    if any(np.isnan(np.asarray(part)).any() for part in tf.nest.flatten(result)):
        raise explain(model, f"{method} gave NaN", inputs[:100])
    return result


def _kuu_fails(layer) -> bool:
    kernel, inducing = getattr(layer, "kernel", None), getattr(layer, "inducing_variable", None)
    if kernel is None or inducing is None:
        return False
    try:
        matrix = Kuu(inducing, kernel, jitter=default_jitter()).numpy()
    except (tf.errors.OpError, NotImplementedError, TypeError, ValueError):
        return False
    if np.isnan(matrix).any():
        return True
    try:
        np.linalg.cholesky(matrix)  # in the matrix's own precision, as TensorFlow factorises it
    except np.linalg.LinAlgError:
        return True
    return False
