"""``fit`` on a ``tf.data.Dataset`` streamed from files: the same run as on the same batches in
memory, checks of the dataset before training, and checkpoints of the stream's position."""

import logging

import numpy as np
import pytest
import tensorflow as tf

import gpflow_deep as gd
from gpflow_deep.training.data import csv_dataset, minibatches

N, SEED = 30, 4


def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(N, 2))
    return X, np.sin(X[:, :1]) * X[:, 1:] + 0.1 * rng.standard_normal((N, 1))


def write_csv(path, X, Y):
    """A CSV file with a header; %.17g keeps every float64 exactly."""
    table = np.concatenate([X, Y], axis=1)
    np.savetxt(path, table, delimiter=",", header="x0,x1,y", comments="", fmt="%.17g")


def write_tfrecord(path, X, Y):
    """One record per row: the row's X and Y as serialised float64 tensors."""
    with tf.io.TFRecordWriter(str(path)) as writer:
        for x, y in zip(X, Y):
            features = {
                name: tf.train.Feature(bytes_list=tf.train.BytesList(value=[tf.io.serialize_tensor(value).numpy()]))
                for name, value in (("x", x), ("y", y))
            }
            writer.write(tf.train.Example(features=tf.train.Features(feature=features)).SerializeToString())


def read_tfrecord(path, batch_size):
    description = {name: tf.io.FixedLenFeature([], tf.string) for name in ("x", "y")}

    def parse(record):
        example = tf.io.parse_single_example(record, description)
        return tuple(tf.ensure_shape(tf.io.parse_tensor(example[k], tf.float64), [w]) for k, w in (("x", 2), ("y", 1)))

    return tf.data.TFRecordDataset(str(path)).map(parse).batch(batch_size)


def model():
    X, Y = data()
    return gd.build_deep_gp(X, Y, num_layers=2, num_inducing=5, num_samples=2, seed=SEED)


def trained(data_or_dataset, iterations=4, **options):
    fitted_model = model()
    result = gd.fit(fitted_model, data_or_dataset, iterations, seed=SEED, progress=False, **options)
    return result.objectives, np.concatenate([v.numpy().ravel() for v in fitted_model.trainable_variables])


def test_csv_files_stream_as_the_same_batches_in_memory(tmp_path):
    """Two CSV files read in order, batches of 8 (the last of each epoch 6 rows): the same
    objectives and parameters as a dataset of the same batches from arrays in memory."""
    X, Y = data()
    write_csv(tmp_path / "a.csv", X[:13], Y[:13])
    write_csv(tmp_path / "b.csv", X[13:], Y[13:])
    paths = [str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]
    streamed = trained(csv_dataset(paths, ["x0", "x1"], ["y"], batch_size=8), iterations=6)
    in_memory = trained(tf.data.Dataset.from_tensor_slices((X, Y)).batch(8), iterations=6)
    for a, b in zip(streamed, in_memory):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


def test_tfrecord_stream_of_whole_batches_is_the_full_batch_fit(tmp_path):
    """A TFRecord file read in batches of N: the run of ``fit`` on the arrays, full batch."""
    X, Y = data()
    write_tfrecord(tmp_path / "train.tfrecord", X, Y)
    streamed = trained(read_tfrecord(tmp_path / "train.tfrecord", N))
    in_memory = trained((X, Y))
    for a, b in zip(streamed, in_memory):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


def test_a_resumed_stream_continues_where_it_stopped(tmp_path):
    """Killed after 3 steps (mid-epoch) and resumed: the run of an uninterrupted one."""
    X, Y = data()
    write_csv(tmp_path / "train.csv", X, Y)

    def stream():
        return csv_dataset(str(tmp_path / "train.csv"), ["x0", "x1"], ["y"], batch_size=8)

    checkpoints = dict(checkpoint_dir=str(tmp_path / "ckpt"), checkpoint_every=3)
    trained(stream(), iterations=3, **checkpoints)
    resumed = trained(stream(), iterations=6, **checkpoints)
    uninterrupted = trained(stream(), iterations=6)
    np.testing.assert_array_equal(resumed[1], uninterrupted[1])
    np.testing.assert_array_equal(resumed[0], uninterrupted[0][3:])


def test_a_stream_that_cannot_be_checkpointed_warns_and_trains(tmp_path, caplog):
    X, Y = data()

    def rows():
        yield from zip(X, Y)

    signature = (tf.TensorSpec([2], tf.float64), tf.TensorSpec([1], tf.float64))
    dataset = tf.data.Dataset.from_generator(rows, output_signature=signature).batch(10)
    with caplog.at_level(logging.WARNING, logger="gpflow_deep"):
        objectives, _ = trained(dataset, iterations=2, checkpoint_dir=str(tmp_path / "ckpt"))
    assert np.all(np.isfinite(objectives)) and len(objectives) == 2
    assert "cannot be checkpointed" in caplog.text and "from its start" in caplog.text
    assert tf.train.latest_checkpoint(str(tmp_path / "ckpt")) is not None


def test_csv_columns_are_parsed_as_named(tmp_path):
    """Columns are picked by name in the order given, whatever their order in the file."""
    X, Y = data()
    write_csv(tmp_path / "train.csv", X, Y)
    X_batch, Y_batch = next(iter(csv_dataset(str(tmp_path / "train.csv"), ["x1", "x0"], ["y"], batch_size=5)))
    np.testing.assert_array_equal(X_batch.numpy(), X[:5, ::-1])
    np.testing.assert_array_equal(Y_batch.numpy(), Y[:5])
    assert X_batch.dtype == tf.float64


def unbatched():
    return tf.data.Dataset.from_tensor_slices(data())


@pytest.mark.parametrize(
    "dataset, options, error, message",
    [
        (unbatched, {}, ValueError, "batch the dataset"),
        (lambda: unbatched().batch(5), dict(batch_size=5), ValueError, "brings its own batches"),
        (lambda: tf.data.Dataset.from_tensor_slices((data()[0][:, :1], data()[1])).batch(5), {}, ValueError, "1 col"),
        (lambda: tf.data.Dataset.from_tensor_slices((data()[0], data()[0])).batch(5), {}, ValueError, "column"),
        (lambda: tf.data.Dataset.from_tensor_slices({"x": data()[0]}).batch(5), {}, TypeError, r"pairs \(X, Y\)"),
        (lambda: tf.data.Dataset.from_tensor_slices((data()[0], data()[1].astype(str))).batch(5), {}, TypeError, "Y"),
        (lambda: unbatched().batch(5).take(0), {}, ValueError, "empty"),
        (lambda: unbatched().repeat(2).batch(2 * N), {}, ValueError, "num_data"),
    ],
    ids=["unbatched", "batch_size", "X width", "Y width", "dict", "strings", "empty", "num_data"],
)
def test_a_dataset_the_model_cannot_train_on_is_refused_before_training(dataset, options, error, message):
    fitted_model = model()
    before = [v.numpy() for v in fitted_model.trainable_variables]
    with pytest.raises(error, match=message):
        gd.fit(fitted_model, dataset(), 2, progress=False, **options)
    for value, variable in zip(before, fitted_model.trainable_variables):
        np.testing.assert_array_equal(value, variable.numpy())


def test_in_memory_minibatches_are_one_permutation_per_epoch_keyed_by_the_seed():
    """Each epoch's batches hold distinct rows (N // B batches, the remainder dropped), the next
    epoch reshuffles, and the same seed gives the same batches."""
    X = tf.constant(np.arange(10.0)[:, None])
    first, again = minibatches(X, 2 * X, 3, seed=4), minibatches(X, 2 * X, 3, seed=4)
    epochs = [[next(first) for _ in range(3)] for _ in range(2)]
    for batches in epochs:
        rows = np.concatenate([x.numpy().ravel() for x, _ in batches])
        assert len(set(rows)) == 9
        for x, y in batches:
            np.testing.assert_array_equal(y, 2 * x)
    orders = [np.concatenate([x.numpy().ravel() for x, _ in batches]) for batches in epochs]
    assert not np.array_equal(orders[0], orders[1])
    np.testing.assert_array_equal(next(again)[0], epochs[0][0][0])
    assert minibatches(X, X, 10, seed=0) is None and minibatches(X, X, None, seed=0) is None
