"""Checks on user input that fail early, naming the argument and what was expected."""

from typing import Optional, Sequence, Tuple

import numpy as np
import tensorflow as tf
from gpflow.likelihoods import Likelihood

from .layers import check_layer


def check_positive_int(name: str, value) -> int:
    """``value`` as an int, or a ValueError if it is not a positive integer."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def as_array(name: str, value, dtype) -> np.ndarray:
    """``value`` as a finite, rank-2 array of ``dtype``."""
    if isinstance(value, (tf.Tensor, tf.Variable)):
        value = value.numpy()
    array = np.asarray(value)
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.bool_)):
        raise TypeError(f"{name} must be a numeric array, got dtype {array.dtype}")
    if array.ndim != 2:
        raise ValueError(f"{name} must be a rank-2 array [N, columns], got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or Inf values")
    return array.astype(np.dtype(tf.as_dtype(dtype).as_numpy_dtype), copy=False)


def as_inputs(name: str, X, input_dim: Optional[int], dtype) -> tf.Tensor:
    """Inputs ``[N, input_dim]`` (any width if ``input_dim`` is None) as a tensor of ``dtype``."""
    array = as_array(name, X, dtype)
    if input_dim is not None and array.shape[1] != input_dim:
        raise ValueError(f"{name} must have {input_dim} columns (the model's input width), got {array.shape[1]}")
    return tf.convert_to_tensor(array)


def as_targets(name: str, Y, num_points: int, dtype) -> tf.Tensor:
    """Targets with one row per input point as a tensor of ``dtype``."""
    array = as_array(name, Y, dtype)
    if array.shape[0] != num_points:
        raise ValueError(f"{name} has {array.shape[0]} rows but the inputs have {num_points}")
    return tf.convert_to_tensor(array)


def as_data(data, input_dim: Optional[int], dtype) -> Tuple[tf.Tensor, tf.Tensor]:
    """A pair (X ``[N, input_dim]``, Y ``[N, P]``) checked and converted to ``dtype``."""
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise TypeError("data must be a pair (X, Y)")
    X = as_inputs("X", data[0], input_dim, dtype)
    return X, as_targets("Y", data[1], X.shape[0], dtype)


def check_layer_stack(layers: Sequence, likelihood: Likelihood) -> None:
    """Every layer keeps the layer protocol, consecutive widths agree, and the last width matches
    the likelihood's latent dimension."""
    if not isinstance(likelihood, Likelihood):
        raise TypeError(f"likelihood must be a gpflow.likelihoods.Likelihood, got {type(likelihood).__name__}")
    if len(layers) == 0:
        raise ValueError("layers: at least one layer is needed")
    for index, layer in enumerate(layers):
        check_layer(index, layer)
    for index, (below, above) in enumerate(zip(layers[:-1], layers[1:])):
        if below.output_dim != above.input_dim:
            raise ValueError(
                f"layers[{index}] outputs {below.output_dim} values but layers[{index + 1}] "
                f"takes inputs of width {above.input_dim}"
            )
    latent_dim = getattr(likelihood, "latent_dim", None)
    if latent_dim is not None and layers[-1].output_dim != latent_dim:
        raise ValueError(
            f"the last layer outputs {layers[-1].output_dim} values but the likelihood "
            f"({type(likelihood).__name__}) needs {latent_dim} latent functions"
        )


def check_non_negative(name: str, value) -> float:
    """``value`` as a float, or a ValueError if it is not a finite number ≥ 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be non-negative (a finite number ≥ 0), got {value!r}")
    return float(value)
