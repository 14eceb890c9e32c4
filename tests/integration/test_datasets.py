"""Bundled data and the split protocols."""

import numpy as np
import pytest

import gpflow_deep as gd


@pytest.mark.parametrize("name, shape", [("boston", (506, 13)), ("concrete", (1030, 8))])
def test_bundled_data(name, shape):
    data = gd.datasets.load(name)
    assert data.X.shape == shape and data.Y.shape == (shape[0], 1)
    assert len(data.feature_names) == shape[1] and np.all(np.isfinite(data.X))
    with pytest.raises(ValueError, match="unknown dataset 'yacht'"):
        gd.datasets.load("yacht")


def test_uci_split_protocol():
    data = gd.datasets.load("boston")
    split = gd.datasets.uci_split(data, 3)
    assert len(split.X_train) == 455 and len(split.X_test) == 51
    np.testing.assert_allclose(split.X_train.mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(split.Y_train.std(0), 1, atol=1e-12)
    np.testing.assert_allclose(
        split.Y_test * split.y_std + split.y_mean, data.Y[np.random.RandomState(3).permutation(506)[455:]]
    )
    again = gd.datasets.uci_split(data, 3)
    np.testing.assert_array_equal(split.X_test, again.X_test)
    assert not np.array_equal(split.X_test, gd.datasets.uci_split(data, 4).X_test)


def test_train_validation_test_split_is_15_3_2():
    data = gd.datasets.load("concrete")
    selection, final = gd.datasets.train_validation_test_split(data, 0)
    assert (len(selection.X_train), len(selection.X_test)) == (772, 154)
    assert (len(final.X_train), len(final.X_test)) == (926, 104)
    train, validation, test = gd.datasets.split_indices(1030, 0, (0.75, 0.15, 0.10))
    assert sorted(np.concatenate([train, validation, test])) == list(range(1030))


def test_split_arguments_are_checked():
    with pytest.raises(ValueError, match="split must be a non-negative integer"):
        gd.datasets.split_indices(10, -1, (0.5, 0.5))
    with pytest.raises(ValueError, match="fractions must be positive and sum to one"):
        gd.datasets.split_indices(10, 0, (0.5, 0.6))
