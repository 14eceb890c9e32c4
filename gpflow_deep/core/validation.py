"""Checks on user input that fail early, naming the argument and what was expected."""

from typing import Optional, Sequence, Tuple

import numpy as np
import tensorflow as tf
from gpflow.likelihoods import Bernoulli, Likelihood, MultiClass, Poisson

from gpflow_deep.layers import check_layer
from gpflow_deep.likelihoods import Softmax

CATEGORICAL = (MultiClass, Softmax)  # likelihoods of class labels 0…K−1 in one column


def check_positive_int(name: str, value) -> int:
    """``value`` as an int, or a ValueError if it is not a positive integer."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_non_negative_int(name: str, value) -> int:
    """``value`` as an int, or a ValueError if it is not an integer ≥ 0."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def as_array(name: str, value, dtype) -> np.ndarray:
    """``value`` as a finite, rank-2 array of ``dtype``."""
    if isinstance(value, (tf.Tensor, tf.Variable)):
        value = value.numpy()
    array = np.asarray(value)
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.bool_)):
        raise TypeError(f"{name} must be a numeric array, got dtype {array.dtype}")
    if np.issubdtype(array.dtype, np.complexfloating):
        raise TypeError(f"{name} must be a real array, got dtype {array.dtype}")
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


def as_data(data, input_dim: Optional[int], dtype, name: str = "data") -> Tuple[tf.Tensor, tf.Tensor]:
    """A pair (X ``[N, input_dim]``, Y ``[N, P]``) checked and converted to ``dtype``; errors name
    X and Y, prefixed by ``name`` unless it is ``"data"``."""
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise TypeError(f"{name} must be a pair (X, Y), got {type(data).__name__}")
    prefix = "" if name == "data" else f"{name} "
    X = as_inputs(f"{prefix}X", data[0], input_dim, dtype)
    return X, as_targets(f"{prefix}Y", data[1], X.shape[0], dtype)


def as_training_data(data, input_dim: Optional[int], dtype, name: str = "data") -> Tuple[tf.Tensor, tf.Tensor]:
    """:func:`as_data` for training: at least one point and one input column."""
    X, Y = as_data(data, input_dim, dtype, name)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must have at least one row and one column to train on, got shape {tuple(X.shape)}")
    return X, Y


def as_model_data(data, model, name: str = "data", training: bool = False) -> Tuple[tf.Tensor, tf.Tensor]:
    """(X, Y) checked against ``model``: its input width and float type, and targets its
    likelihood can score (:func:`check_targets`); ``training`` also asks for at least one point."""
    convert = as_training_data if training else as_data
    X, Y = convert(data, model.input_dim, model.dtype, name)
    check_targets(f"{'' if name == 'data' else name + ' '}Y", Y.numpy(), model.likelihood, model.layers[-1].output_dim)
    return X, Y


def check_targets(name: str, Y, likelihood: Likelihood, output_dim: int) -> None:
    """Targets ``[N, P]`` that ``likelihood`` can score on a last layer of ``output_dim`` latent
    functions: the right column count, 0/1 labels for ``Bernoulli``, integer labels in [0, K) for
    ``MultiClass`` or ``Softmax``, counts ≥ 0 for ``Poisson``."""
    Y = np.asarray(Y)
    kind = type(likelihood).__name__
    columns = _target_columns(likelihood, output_dim)
    if columns is not None and Y.shape[1] != columns:
        raise ValueError(
            f"{name} must have {columns} column(s) for a {kind} likelihood on {output_dim} latent function(s), "
            f"got {Y.shape[1]}"
        )
    if isinstance(likelihood, Bernoulli):
        _reject(name, Y, ~np.isin(Y, (0, 1)), "0/1 labels for a Bernoulli likelihood")
    elif isinstance(likelihood, CATEGORICAL):
        K = likelihood.num_classes
        _reject(name, Y, (Y < 0) | (Y >= K) | (Y != np.round(Y)), f"integer class labels in [0, {K}) for {kind}")
    elif isinstance(likelihood, Poisson):
        _reject(name, Y, Y < 0, "non-negative counts for a Poisson likelihood")


def _target_columns(likelihood: Likelihood, output_dim: int) -> Optional[int]:
    """The column count of Y the likelihood takes; None when it cannot be told."""
    if isinstance(likelihood, CATEGORICAL):
        return 1
    if getattr(likelihood, "observation_dim", None) is not None:
        return likelihood.observation_dim
    return output_dim if getattr(likelihood, "latent_dim", None) is None else None


def _reject(name: str, Y: np.ndarray, bad: np.ndarray, expected: str) -> None:
    if bad.any():
        examples = ", ".join(f"{value:g}" for value in np.unique(Y[bad])[:3])
        raise ValueError(f"{name} must hold {expected}, got {int(bad.sum())} value(s) such as {examples}")


def check_num_data(num_data: int, batch_rows: int) -> None:
    """A model's ``num_data`` (N, which minibatch terms are scaled to) is at least a batch."""
    if num_data < batch_rows:
        raise ValueError(
            f"num_data: the model was built for num_data={num_data} training points, fewer than the "
            f"{batch_rows} points of a batch; build it on this data (or give num_data ≥ {batch_rows})"
        )


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


def check_positive(name: str, value) -> float:
    """``value`` as a float, or a ValueError if it is not a finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be positive (a finite number > 0), got {value!r}")
    return float(value)


def check_above(name: str, value, bound_name: str, bound: float) -> float:
    """``value`` as a float, or a ValueError if it is not a finite number > 0 above ``bound``."""
    value = check_positive(name, value)
    if value <= bound:
        raise ValueError(f"{name}={value:.3g} must exceed {bound_name}={bound:.3g}")
    return value


def check_choice(name: str, value, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``, else a ValueError listing them."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_seed(name: str, value) -> Optional[int]:
    """``value`` as an int, or None; a TypeError for anything else."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be None or an integer, got {value!r}")
    return int(value)
