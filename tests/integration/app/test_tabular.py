"""Reading a user's table in batches and turning it into model inputs and targets."""

import numpy as np
import pytest

from gpflow_deep.app.tables import Preprocessing, TableError, TableReader, learn_table
from gpflow_deep.app.tables import reader as reader_module
from gpflow_deep.app.tables.split import held_out


def write(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def rows_of(reader):
    batches = list(reader.batches())
    return {column: np.concatenate([b.as_numpy()[column] for b in batches]) for column in reader.columns}


def test_numeric_and_string_columns(tmp_path):
    reader = TableReader(write(tmp_path, "a,b ,c\n1,x,2.5\n2, y ,NA\n3,,4\ninf,null,nan\n"))
    assert reader.columns == ["a", "b", "c"] and reader.kinds == dict(a="numeric", b="text", c="numeric")
    columns = rows_of(reader)
    assert list(columns["b"]) == ["x", "y", None, None]
    batch = next(reader.batches())
    np.testing.assert_array_equal(batch.missing("c"), [False, True, False, True])
    np.testing.assert_array_equal(batch.missing("a"), [False, False, False, True])


def test_a_column_with_text_after_the_first_look_is_text(tmp_path, monkeypatch):
    monkeypatch.setattr(reader_module, "FIRST_LOOK_BYTES", 64)
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 64)
    lines = [f"{i},{i % 3}" for i in range(40)] + ["41,seven"]
    reader = TableReader(write(tmp_path, "x,code\n" + "\n".join(lines) + "\n"))
    assert reader.kinds["code"] == "numeric", "the first look saw numbers only"
    table = learn_table(reader, "x", "gaussian")
    assert reader.kinds["code"] == "text" and table.rows == 41
    assert table.preprocessing.features[0]["categories"] == ["0", "1", "2", "seven"]


def test_an_ignored_column_is_never_read_and_the_kinds_still_name_the_right_column(tmp_path, monkeypatch):
    monkeypatch.setattr(reader_module, "FIRST_LOOK_BYTES", 64)
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 64)
    lines = [f"{i},{'' if i % 2 else 'n'},{i},{i % 3}" for i in range(40)] + ["41,,41,seven"]
    reader = TableReader(write(tmp_path, "row,notes,x,code\n" + "\n".join(lines) + "\n"), ignore=["notes", "row"])
    assert reader.columns == ["x", "code"] and reader.ignored == ["row", "notes"] and set(reader.kinds) == {"x", "code"}
    table = learn_table(reader, "x", "gaussian")
    assert reader.kinds["code"] == "text", "pyarrow's column number counts the ignored columns too"
    assert table.rows == 41 and table.missing_rows == 0
    assert table.preprocessing.left_out == ["row", "notes"] and table.preprocessing.input_columns == ["code"]


def test_learned_encoding_standardises_and_one_hot_encodes(tmp_path, monkeypatch):
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 40)  # several batches
    reader = TableReader(write(tmp_path, "size,colour,price\n1,red,10\n3,blue,20\n5,red,30\n7,green,40\n"))
    table = learn_table(reader, "price", "gaussian")
    preprocessing = table.preprocessing
    assert preprocessing.encoded_names == ["size", "colour=blue", "colour=green", "colour=red"]
    assert preprocessing.features[0]["mean"] == pytest.approx(4.0)
    assert preprocessing.features[0]["std"] == pytest.approx(np.std([1, 3, 5, 7]))
    batches = list(reader.batches())
    assert len(batches) > 1
    X = np.concatenate([preprocessing.inputs(batch, reader.name) for batch in batches])
    Y = np.concatenate([preprocessing.targets(batch, reader.name) for batch in batches])
    np.testing.assert_allclose(X[:, 1:], [[0, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 0]])
    np.testing.assert_allclose([Y.mean(), Y.std()], [0.0, 1.0], atol=1e-12)
    assert Preprocessing.from_dict(preprocessing.to_dict()) == preprocessing


def test_held_out_rows_are_left_out_of_the_statistics(tmp_path):
    values = np.arange(200.0)
    text = "x,y\n" + "".join(f"{v},{2 * v}\n" for v in values)
    table = learn_table(TableReader(write(tmp_path, text)), "y", "gaussian", validation_fraction=0.3, seed=4)
    held = held_out(0, 200, 0.3, 4)
    assert table.held_out_rows == held.sum() and table.training_rows == 200 - held.sum()
    assert table.preprocessing.features[0]["mean"] == pytest.approx(values[~held].mean())
    np.testing.assert_array_equal(np.sort(table.held_out_sample["x"]), values[held])


def test_the_sample_is_bounded(tmp_path):
    text = "x,y\n" + "".join(f"{v},{v}\n" for v in range(500))
    table = learn_table(TableReader(write(tmp_path, text)), "y", "gaussian", sample_rows=50)
    assert len(table.sample["x"]) == 50 and len(np.unique(table.sample["x"])) == 50


def test_class_labels_are_mapped_in_sorted_order(tmp_path):
    reader = TableReader(write(tmp_path, "x,label\n1,3\n2,10\n3,3\n4,1\n"))
    preprocessing = learn_table(reader, "label", "multiclass").preprocessing
    assert preprocessing.labels == ["1", "3", "10"]
    np.testing.assert_array_equal(preprocessing.targets(next(reader.batches()), reader.name)[:, 0], [1, 2, 1, 0])


def test_poisson_targets_must_be_counts(tmp_path):
    with pytest.raises(TableError, match="non-negative whole counts"):
        learn_table(TableReader(write(tmp_path, "x,count\n1,3\n2,0.5\n")), "count", "poisson")


def test_too_many_class_labels(tmp_path):
    text = "x,label\n" + "".join(f"{i},class{i}\n" for i in range(1001))
    with pytest.raises(
        TableError, match="target 'label' has more than 1000 distinct values, too many for class labels"
    ):
        learn_table(TableReader(write(tmp_path, text)), "label", "multiclass")


def test_blank_lines_and_a_byte_order_mark_are_ignored(tmp_path):
    reader = TableReader(write(tmp_path, "\ufeffx,y\n\n1,2\n\n3,4\n"))
    assert reader.columns == ["x", "y"] and sum(batch.num_rows for batch in reader.batches()) == 2


def test_repeated_column_names(tmp_path):
    with pytest.raises(TableError, match="repeated column names: x"):
        TableReader(write(tmp_path, "x,x\n1,2\n"))


def test_text_in_a_column_numeric_in_training(tmp_path):
    reader = TableReader(write(tmp_path, "x,y\n1,2\nabc,3\n"), kinds={"x": "numeric"})
    with pytest.raises(TableError, match="column 'x' was numeric in training, has 'abc'"):
        list(reader.batches())


def test_parquet_in_batches(tmp_path, monkeypatch):
    pandas = pytest.importorskip("pandas")
    monkeypatch.setattr(reader_module, "PARQUET_BATCH_ROWS", 2)
    path = tmp_path / "t.parquet"
    pandas.DataFrame({"x": [1.0, None, 3.0], "colour": ["red", None, " NA "], "n": [1, 2, 3]}).to_parquet(path)
    reader = TableReader(str(path))
    assert reader.kinds == dict(x="numeric", colour="text", n="numeric")
    assert len(list(reader.batches())) == 2
    columns = rows_of(reader)
    np.testing.assert_array_equal(np.isnan(columns["x"]), [False, True, False])
    assert list(columns["colour"]) == ["red", None, None]
