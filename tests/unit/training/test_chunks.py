"""Batches of rows that arrive in chunks, shuffled through a bounded buffer."""

import numpy as np

import gpflow_deep as gd
from gpflow_deep.training.chunks import chunk_dataset, shuffled_batches


def chunks_of(X, Y, size):
    return [(X[i : i + size], Y[i : i + size]) for i in range(0, len(X), size)]


def test_every_row_once_per_epoch_in_whole_batches_and_a_new_order_each_epoch():
    X = np.arange(1000.0)[:, None] * np.ones((1, 2))
    Y = -np.arange(1000.0)[:, None]
    dataset = chunk_dataset(lambda: chunks_of(X, Y, 70), 2, 1, 30, shuffle_rows=100, seed=3)
    epochs = [[(x.numpy(), y.numpy()) for x, y in dataset] for _ in range(2)]
    for batches in epochs:
        assert len(batches) == 1000 // 30 and all(x.shape == (30, 2) and y.shape == (30, 1) for x, y in batches)
        rows = np.concatenate([x[:, 0] for x, _ in batches])
        assert len(np.unique(rows)) == len(rows) == 990, "every row at most once, a remainder of 10 left out"
        np.testing.assert_array_equal(np.concatenate([y[:, 0] for _, y in batches]), -rows), "rows stay whole"
    first, second = (np.concatenate([x[:, 0] for x, _ in batches]) for batches in epochs)
    assert not np.array_equal(first, second)
    assert np.corrcoef(first, np.arange(990))[0, 1] < 0.9, "rows leave in a shuffled order"


def test_chunks_are_read_only_as_batches_leave_the_buffer():
    read = []

    def chunks():
        for i in range(20):
            read.append(i)
            yield np.full((50, 1), float(i)), np.zeros((50, 1))

    batches = shuffled_batches(chunks(), 25, 100, np.random.default_rng(0))
    next(batches)
    assert read == [0, 1, 2], "150 rows read: 100 wait in the buffer, 50 leave in two batches"
    assert sum(1 for _ in batches) == 20 * 50 // 25 - 1


def test_fit_trains_on_a_chunk_dataset(rng):
    X = rng.uniform(-1, 1, (400, 1))
    Y = np.sin(3 * X) + 0.1 * rng.normal(size=(400, 1))
    model = gd.build_deep_gp(X[:50], Y[:50], num_layers=1, num_inducing=10)
    model.num_data = 400
    dataset = chunk_dataset(lambda: chunks_of(X, Y, 64), 1, 1, 100, shuffle_rows=128, seed=0)
    result = gd.fit(model, dataset, 30, seed=0, progress=False)
    assert result.objectives[-1] > result.objectives[0]
