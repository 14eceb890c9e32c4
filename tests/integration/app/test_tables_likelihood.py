"""``likelihood="auto"``: the target's values choose classification, or leave a regression target
for the caller to choose its likelihood."""

import numpy as np
import pytest

from gpflow_deep.app.tables import TableError, TableReader, learn_table


def write(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def learned(tmp_path, targets, likelihood="auto"):
    text = "x,y\n" + "".join(f"{i},{target}\n" for i, target in enumerate(targets))
    reader = TableReader(write(tmp_path, text))
    preprocessing = learn_table(reader, "y", likelihood).preprocessing
    Y = np.concatenate([preprocessing.targets(batch, reader.name) for batch in reader.batches()])
    return preprocessing, Y[:, 0]


def test_yes_and_no_are_bernoulli(tmp_path):
    preprocessing, Y = learned(tmp_path, ["no", "yes", "yes", " no"])
    assert (preprocessing.likelihood, preprocessing.labels) == ("bernoulli", ["no", "yes"])
    np.testing.assert_array_equal(Y, [0, 1, 1, 0])


def test_three_labels_are_multiclass(tmp_path):
    preprocessing, Y = learned(tmp_path, ["b", "a", "c", "a"])
    assert (preprocessing.likelihood, preprocessing.labels) == ("multiclass", ["a", "b", "c"])
    np.testing.assert_array_equal(Y, [1, 0, 2, 0])


def test_zeros_and_ones_are_bernoulli(tmp_path):
    preprocessing, Y = learned(tmp_path, [0, 1, 1.0, 0])
    assert (preprocessing.likelihood, preprocessing.labels) == ("bernoulli", ["0", "1"])
    np.testing.assert_array_equal(Y, [0, 1, 1, 0])


@pytest.mark.parametrize("targets", [[0, 1, 2, 1], [0.5, 1, 0, 1], [0, 0, 0, 0], [3.0, 1.5, -2.0, 7.0]])
def test_other_numbers_are_a_regression_target_left_auto(tmp_path, targets):
    preprocessing, Y = learned(tmp_path, targets)
    assert preprocessing.likelihood == "auto" and preprocessing.labels is None
    assert not preprocessing.is_classification
    assert preprocessing.target_mean == pytest.approx(np.mean(targets))
    np.testing.assert_allclose(Y, (np.array(targets) - np.mean(targets)) / preprocessing.target_std)


def test_a_numeric_target_with_many_values_is_not_counted_as_labels(tmp_path):
    preprocessing, _ = learned(tmp_path, np.arange(1500) % 1200)
    assert preprocessing.likelihood == "auto"


def test_explicit_likelihoods_are_kept(tmp_path):
    assert learned(tmp_path, [0, 1, 1, 0], "gaussian")[0].likelihood == "gaussian"
    assert learned(tmp_path, [0, 1, 1, 0], "multiclass")[0].likelihood == "multiclass"
    with pytest.raises(TableError, match="target 'y' is not numeric"):
        learned(tmp_path, ["no", "yes"], "gaussian")


def test_a_single_label_is_refused(tmp_path):
    with pytest.raises(TableError, match="target 'y' has a single class"):
        learned(tmp_path, ["yes", "yes", "yes"])


def test_an_unknown_likelihood_names_auto_among_the_choices(tmp_path):
    with pytest.raises(TableError, match="unknown likelihood 'normal'; choose from .*multiclass, auto"):
        learned(tmp_path, [1, 2], "normal")
