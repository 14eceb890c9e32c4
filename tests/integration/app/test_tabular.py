"""Reading a user's table and turning it into model inputs and targets."""

import numpy as np
import pytest

from gpflow_deep.app.tables import Preprocessing, TableError, read_table


def write(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_numeric_and_string_columns(tmp_path):
    table = read_table(write(tmp_path, "a,b,c\n1,x,2.5\n2, y ,NA\n3,,4\n"))
    assert table.num_rows == 3 and table.is_numeric("a") and not table.is_numeric("b")
    assert list(table.columns["b"]) == ["x", "y", None]
    np.testing.assert_array_equal(table.missing("c"), [False, True, False])


def test_preprocessing_standardises_on_training_rows_and_one_hot_encodes(tmp_path):
    table = read_table(write(tmp_path, "size,colour,price\n1,red,10\n3,blue,20\n5,red,30\n7,green,40\n"))
    training = table.rows(np.array([0, 1, 2]))
    preprocessing = Preprocessing.fit(training, "price", all_rows=table)
    assert preprocessing.encoded_names == ["size", "colour=blue", "colour=green", "colour=red"]
    X, Y = preprocessing.inputs(table), preprocessing.targets(table)
    np.testing.assert_allclose(X[:3, 0].mean(), 0.0, atol=1e-12)
    np.testing.assert_allclose(X[:, 1:], [[0, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 0]])
    np.testing.assert_allclose(Y[:3, 0].std(), 1.0)
    assert Preprocessing.from_dict(preprocessing.to_dict()) == preprocessing


def test_class_labels_are_mapped_in_sorted_order(tmp_path):
    table = read_table(write(tmp_path, "x,label\n1,3\n2,10\n3,3\n4,1\n"))
    preprocessing = Preprocessing.fit(table, "label", "multiclass")
    assert preprocessing.labels == ["1", "3", "10"]
    np.testing.assert_array_equal(preprocessing.targets(table)[:, 0], [1, 2, 1, 0])


def test_poisson_targets_must_be_counts(tmp_path):
    table = read_table(write(tmp_path, "x,count\n1,3\n2,0.5\n"))
    with pytest.raises(TableError, match="non-negative whole counts"):
        Preprocessing.fit(table, "count", "poisson")


def test_blank_lines_and_a_byte_order_mark_are_ignored(tmp_path):
    table = read_table(write(tmp_path, "\ufeffx,y\n\n1,2\n\n3,4\n"))
    assert list(table.columns) == ["x", "y"] and table.num_rows == 2


def test_repeated_column_names(tmp_path):
    with pytest.raises(TableError, match="repeated column names: x"):
        read_table(write(tmp_path, "x,x\n1,2\n"))


def test_parquet_round_trip(tmp_path):
    pandas = pytest.importorskip("pandas", reason="Parquet needs pandas")
    pytest.importorskip("pyarrow", reason="Parquet needs pyarrow")
    path = tmp_path / "t.parquet"
    pandas.DataFrame({"x": [1.0, None], "colour": ["red", None]}).to_parquet(path)
    table = read_table(str(path))
    np.testing.assert_array_equal(table.missing("x"), [False, True])
    assert list(table.columns["colour"]) == ["red", None]
