"""Where the batches of a training run come from: arrays in memory (shuffled minibatches of a
fixed size, or the full batch) or a ``tf.data.Dataset`` of (X, Y) batches streamed from disk.

A dataset is checked before training from its ``element_spec`` (a pair of rank-2 tensors whose
widths fit the model, of a numeric type) and from its first batch (the checks in-memory data get);
it is then read batch by batch, repeated when exhausted, and never held in memory as a whole.
"""

import logging
import tempfile
from typing import Iterator, Optional, Sequence, Tuple, Union

import numpy as np
import tensorflow as tf
from gpflow.config import default_float

from gpflow_deep.core.validation import as_model_data, check_num_data, check_positive_int, check_targets

TrainingData = Union[Tuple[tf.Tensor, tf.Tensor], tf.data.Dataset]
"""Checked training data: (X ``[N, D]``, Y ``[N, P]``) in memory, or a dataset of such batches."""

logger = logging.getLogger("gpflow_deep")


def check_training_data(data, model, batch_size: Optional[int]) -> TrainingData:
    """``data`` checked against ``model``: a pair (X, Y) converted to tensors of the model's float
    type, or a ``tf.data.Dataset`` of (X ``[B, D]``, Y ``[B, P]``) batches cast to it. The model's
    ``num_data`` must be at least a batch."""
    if isinstance(data, tf.data.Dataset):
        if batch_size is not None:
            raise ValueError(
                f"batch_size={batch_size!r}: a tf.data.Dataset brings its own batches; batch it "
                "(dataset.batch(size)) and leave batch_size=None"
            )
        dataset = check_dataset(data, model)
        check_num_data(model.num_data, int(training_inputs(dataset).shape[0]))
        return dataset
    X, Y = as_model_data(data, model, training=True)
    if batch_size is not None:
        check_positive_int("batch_size", batch_size)
    check_num_data(model.num_data, min(batch_size or X.shape[0], X.shape[0]))
    return X, Y


def check_dataset(dataset: tf.data.Dataset, model) -> tf.data.Dataset:
    """``dataset`` if its elements are batches (X ``[B, D]``, Y ``[B, P]``) the model can train on,
    cast to the model's float type; its first batch gets the checks of in-memory data (finite values,
    targets the likelihood can score). A ValueError or TypeError naming what is wrong otherwise."""
    spec = dataset.element_spec
    if not isinstance(spec, (tuple, list)) or len(spec) != 2 or not all(isinstance(s, tf.TensorSpec) for s in spec):
        raise TypeError(
            f"data: a tf.data.Dataset must yield pairs (X, Y) of tensors, got elements {spec!r}; map it to "
            "pairs first (e.g. gpflow_deep.training.data.csv_dataset for CSV files)"
        )
    for name, part in zip("XY", spec):
        _check_spec(name, part)
    width = spec[0].shape[1]
    if width is not None and width != model.input_dim:
        raise ValueError(f"data: the dataset's X have {width} columns, but the model takes {model.input_dim} inputs")
    if spec[1].shape[1] is not None:
        empty = np.zeros((0, spec[1].shape[1]))
        check_targets("data: the dataset's Y", empty, model.likelihood, model.layers[-1].output_dim)
    if any(part.dtype != model.dtype for part in spec):
        dataset = dataset.map(lambda X, Y: (tf.cast(X, model.dtype), tf.cast(Y, model.dtype)))
    first = _first_batch(dataset)
    as_model_data(first, model, "data: the dataset's first batch,", training=True)
    return dataset


def _check_spec(name: str, spec: tf.TensorSpec) -> None:
    """One part of a dataset's elements is a batch: rank 2 and a real or integer type."""
    rank = spec.shape.rank
    if rank is not None and rank < 2:
        raise ValueError(
            f"data: the dataset's {name} have shape {spec.shape.as_list()}, single rows rather than batches; "
            "batch the dataset (dataset.batch(batch_size)) so that it yields X [B, D] and Y [B, P]"
        )
    if rank is not None and rank != 2:
        raise ValueError(f"data: the dataset's {name} must be rank-2 batches [B, columns], got shape {spec.shape}")
    if not (spec.dtype.is_floating or spec.dtype.is_integer or spec.dtype.is_bool) or spec.dtype.is_complex:
        raise TypeError(f"data: the dataset's {name} must be real numbers, got dtype {spec.dtype.name}")


def _first_batch(dataset: tf.data.Dataset) -> Tuple[tf.Tensor, tf.Tensor]:
    """The first element of ``dataset`` (reads one batch); a ValueError if there is none."""
    for batch in dataset.take(1):
        return batch
    raise ValueError("data: the tf.data.Dataset is empty")


def training_inputs(data: TrainingData) -> tf.Tensor:
    """The training inputs ``[N, D]`` of in-memory data, or the first batch's ``[B, D]`` of a dataset
    (what diagnoses and plots look at)."""
    if isinstance(data, tf.data.Dataset):
        return _first_batch(data)[0]
    return data[0]


def batch_iterator(data: TrainingData, batch_size: Optional[int], seed: Optional[int]) -> Optional[Iterator]:
    """An endless iterator over (X, Y) batches: a dataset's own, repeated, or arrays' shuffled
    minibatches; None for arrays trained on in full (``batch_size`` None or at least N)."""
    if isinstance(data, tf.data.Dataset):
        return iter(data.repeat().prefetch(tf.data.AUTOTUNE))
    return minibatches(*data, batch_size, seed)


def minibatches(X: tf.Tensor, Y: tf.Tensor, batch_size: Optional[int], seed: Optional[int]) -> Optional[Iterator]:
    """An iterator over minibatches of X ``[N, D]`` and Y ``[N, P]`` of ``batch_size`` rows,
    reshuffled every epoch (the remainder dropped, so every batch has one shape), or None for full batch.

    Epoch e is one permutation of the row numbers, keyed by (``seed``, e), cut into batches of row
    numbers; each batch is then one gather of X's and Y's rows. The iterator's state (to
    checkpoint) is the epoch count and the epoch's remaining row numbers."""
    N = int(X.shape[0])
    if batch_size is None or check_positive_int("batch_size", batch_size) >= N:
        return None
    per_epoch = N // batch_size
    key = tf.constant(np.random.default_rng().integers(2**31) if seed is None else seed, tf.int64)

    def epoch(count: tf.Tensor) -> tf.Tensor:
        order = tf.random.experimental.stateless_shuffle(tf.range(N), seed=tf.stack([key, count]))
        return tf.reshape(order[: per_epoch * batch_size], [per_epoch, batch_size])

    rows = tf.data.Dataset.counter().map(epoch).unbatch()
    batches = rows.map(lambda batch: (tf.gather(X, batch), tf.gather(Y, batch)))
    return iter(batches.prefetch(tf.data.AUTOTUNE))


def saveable(iterator: Iterator) -> bool:
    """Whether a checkpoint can hold ``iterator``'s position (not for datasets reading through
    Python, such as ``Dataset.from_generator``); tried by writing it to a temporary directory."""
    try:
        with tempfile.TemporaryDirectory() as directory:
            tf.train.Checkpoint(data=iterator).write(f"{directory}/probe")
    except (tf.errors.OpError, ValueError, TypeError) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        logger.warning(
            "fit: the dataset's iterator cannot be checkpointed (%s); checkpoints hold the model and "
            "optimizer only, and a resumed run reads the data stream from its start",
            reason,
        )
        return False
    return True


def csv_dataset(
    paths: Union[str, Sequence[str]],
    input_columns: Sequence[str],
    target_columns: Sequence[str],
    batch_size: int,
    *,
    shuffle_buffer: Optional[int] = None,
    seed: Optional[int] = None,
    dtype=None,
) -> tf.data.Dataset:
    """One pass over CSV files with a header row, as batches (X ``[B, D]``, Y ``[B, P]``) for
    :func:`~gpflow_deep.fit`: ``input_columns`` and ``target_columns`` (names from the header) in
    the order given, parsed as ``dtype`` (GPflow's default float). The files are read in the order
    given, rows in file order unless ``shuffle_buffer`` rows are shuffled (keyed by ``seed``); the
    last batch may be smaller. ``fit`` repeats the dataset, so each epoch is one pass.

    :param paths: a file, a glob pattern or a list of files.
    """
    input_columns, target_columns = list(input_columns), list(target_columns)
    if not input_columns or not target_columns:
        raise ValueError(
            f"input_columns and target_columns must each name at least one column, got {input_columns} "
            f"and {target_columns}"
        )
    overlap = sorted(set(input_columns) & set(target_columns))
    if overlap:
        raise ValueError(f"input_columns and target_columns share columns {overlap}")
    dtype = tf.as_dtype(dtype or default_float())
    columns = input_columns + target_columns
    dataset = tf.data.experimental.make_csv_dataset(
        paths,
        check_positive_int("batch_size", batch_size),
        column_defaults=[dtype] * len(columns),  # one type for all, so the order of the list is moot
        select_columns=columns,
        num_epochs=1,
        shuffle=shuffle_buffer is not None,
        shuffle_buffer_size=shuffle_buffer or 1,
        shuffle_seed=seed,
    )

    def as_pair(row):
        return tuple(tf.stack([row[name] for name in names], axis=1) for names in (input_columns, target_columns))

    return dataset.map(as_pair)
