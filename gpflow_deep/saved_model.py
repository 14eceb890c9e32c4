"""Export a model as a TensorFlow SavedModel that serves its predictions with TensorFlow alone.

The SavedModel holds the model's variables and four signatures, each a graph of TensorFlow ops
with no reference to Python objects of GPflow or of this package:

| signature | inputs | outputs |
|---|---|---|
| ``predict_f``, ``predict_y`` | X, num_samples, seed | ``mean``, ``variance``: ``[N, P]`` |
| ``predict_log_density`` | X, Y, num_samples, seed | ``log_density``: ``[N]`` |
| ``predict_mixture`` | X, num_samples, seed | ``means``, ``variances``: ``[S, N, P]``; ``log_weights``: ``[S]`` |

X is ``[N, D]`` and Y ``[N, P_y]`` in the model's float type, with any N; ``num_samples`` is an
int32 scalar and ``seed`` an int64 scalar or pair. Every model takes the same inputs, so one
serving client serves them all; models with a fixed mixture (DSPP, moment-matching AEP) ignore
``num_samples`` and ``seed``. Rows are evaluated in chunks of the model's
``prediction_batch_size``, each chunk with its own seed, exactly as ``model.predict_*`` does: the
same seed gives the same numbers in and out of the SavedModel.
"""

import functools
from typing import Callable, Dict, Sequence, Tuple

import tensorflow as tf

from gpflow_deep.core.predictive import compiled_prediction
from gpflow_deep.models import DeepMixtureModel

SIGNATURES = ("predict_f", "predict_y", "predict_log_density", "predict_mixture")


def export(model: DeepMixtureModel, path: str) -> None:
    """Write ``model`` to the directory ``path`` as a SavedModel with the signatures :data:`SIGNATURES`.

    Load it with ``tf.saved_model.load(path)`` and call, e.g.,
    ``loaded.signatures["predict_y"](X=X, num_samples=100, seed=0)``. The loaded object also has
    the variables ``monte_carlo`` (whether ``num_samples`` and ``seed`` matter) and
    ``num_prediction_samples`` (the model's default S).
    """
    if not isinstance(model, DeepMixtureModel):
        raise TypeError(f"model must be a gpflow_deep model, got {type(model).__name__}")
    root = tf.Module(name="gpflow_deep_serving")
    root.model = model
    root.monte_carlo = tf.Variable(bool(model.monte_carlo), trainable=False, name="monte_carlo")
    root.num_prediction_samples = tf.Variable(model.num_prediction_samples, dtype=tf.int32, trainable=False)
    options = tf.saved_model.SaveOptions(experimental_custom_gradients=False)  # serving needs no gradients
    tf.saved_model.save(root, path, signatures=serving_functions(model), options=options)


def serving_functions(model: DeepMixtureModel) -> Dict[str, Callable]:
    """The concrete function of each of :data:`SIGNATURES`, inputs with unknown batch size.

    They are traced here, outside the saving: functions that are attributes of the saved object
    would be traced again under the save context, and the model's prediction graphs with them.
    """
    X = tf.TensorSpec([None, model.input_dim], model.dtype, name="X")
    Y = tf.TensorSpec([None, None], model.dtype, name="Y")
    options = [tf.TensorSpec([], tf.int32, name="num_samples"), tf.TensorSpec(None, tf.int64, name="seed")]
    functions = {
        "predict_f": (functools.partial(_moments, model, "f"), [X, *options]),
        "predict_y": (functools.partial(_moments, model, "y"), [X, *options]),
        "predict_log_density": (functools.partial(_log_density, model), [X, Y, *options]),
        "predict_mixture": (functools.partial(_mixture, model), [X, *options]),
    }
    return {
        name: tf.function(function, input_signature=signature, autograph=False).get_concrete_function()
        for name, (function, signature) in functions.items()
    }


def _moments(model: DeepMixtureModel, quantity: str, X, num_samples, seed) -> Dict[str, tf.Tensor]:
    mean, variance = _in_chunks(model, quantity, X, (), num_samples, seed, lambda output: output)
    return {"mean": mean, "variance": variance}


def _log_density(model: DeepMixtureModel, X, Y, num_samples, seed) -> Dict[str, tf.Tensor]:
    (log_density,) = _in_chunks(model, "log_density", X, (Y,), num_samples, seed, lambda output: (output,))
    return {"log_density": log_density}


def _mixture(model: DeepMixtureModel, X, num_samples, seed) -> Dict[str, tf.Tensor]:
    means, variances, log_weights = _in_chunks(model, "paths", X, (), num_samples, seed, _mixture_rows)
    return {
        "means": tf.transpose(means, [1, 0, 2]),
        "variances": tf.transpose(variances, [1, 0, 2]),
        "log_weights": log_weights[0],
    }


def _in_chunks(
    model: DeepMixtureModel,
    quantity: str,
    X: tf.Tensor,
    targets: Sequence[tf.Tensor],
    num_samples: tf.Tensor,
    seed: tf.Tensor,
    rows: Callable,
) -> Tuple[tf.Tensor, ...]:
    """``quantity`` evaluated on chunks of ``prediction_batch_size`` rows, each with the same seed
    and its first row's index (as ``DeepMixtureModel._predict``); ``rows`` turns a chunk's output
    into tensors with the point axis first, which are joined along it."""
    with tf.init_scope():  # the model's own compiled chunk (cached), called from this graph
        evaluate = compiled_prediction(model, quantity).get_concrete_function()
    seed = _seed_pair(seed)
    if model.monte_carlo:
        num_samples = _checked_sample_count(num_samples)
    size = model.prediction_batch_size
    count = tf.maximum((tf.shape(X)[0] + size - 1) // size, 1)

    def chunk_rows(chunk: tf.Tensor) -> Tuple[tf.Tensor, ...]:
        start = chunk * size
        chunk_targets = [target[start : start + size] for target in targets]
        return rows(evaluate(X[start : start + size], *chunk_targets, num_samples, seed, tf.cast(start, tf.int64)))

    first = chunk_rows(tf.constant(0))
    arrays = tuple(tf.TensorArray(part.dtype, size=count, infer_shape=False).write(0, part) for part in first)

    def body(chunk: tf.Tensor, arrays: Tuple[tf.TensorArray, ...]):
        return chunk + 1, tuple(array.write(chunk, part) for array, part in zip(arrays, chunk_rows(chunk)))

    _, arrays = tf.while_loop(lambda chunk, _: chunk < count, body, (tf.constant(1), arrays))
    joined = tuple(array.concat() for array in arrays)
    for whole, part in zip(joined, first):
        whole.set_shape(tf.TensorShape([None]).concatenate(part.shape[1:]))  # the signature shows [N, P]
    return joined


def _mixture_rows(paths) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """The last layer's means and variances ``[N, S, P]`` and the log-weights as one row ``[1, S]``."""
    outputs, log_weights = paths
    return tf.transpose(outputs[-1].means, [1, 0, 2]), tf.transpose(outputs[-1].variances, [1, 0, 2]), log_weights[None]


def _seed_pair(seed: tf.Tensor) -> tf.Tensor:
    """A ``[2]`` seed from a scalar s (taken as ``[s, 0]``, as the models do) or a pair."""
    seed = tf.reshape(seed, [-1])
    size = tf.size(seed)
    valid = tf.debugging.assert_equal(
        tf.logical_or(tf.equal(size, 1), tf.equal(size, 2)), True, message="seed must be a scalar or a pair"
    )
    with tf.control_dependencies([valid]):
        return tf.concat([seed, tf.zeros([2 - size], tf.int64)], axis=0)


def _checked_sample_count(num_samples: tf.Tensor) -> tf.Tensor:
    valid = tf.debugging.assert_positive(num_samples, message="num_samples must be positive")
    with tf.control_dependencies([valid]):
        return tf.identity(num_samples)
