"""Text columns with many distinct values: the most frequent one-hot with an "other" level, or
identifiers left out, counted in bounded memory."""

import numpy as np
import pyarrow as pa
import pytest

from gpflow_deep.app.tables import TableError, TableReader, learn_table
from gpflow_deep.app.tables import reader as reader_module
from gpflow_deep.app.tables.statistics import ONE_HOT_LIMIT, CategoryCounts


def write(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def skewed_codes(distinct: int) -> list:
    """Codes c0…c{distinct-1} in random order: c{i} for i < 100 occurs 150 - i times, the rest twice."""
    frequent = [f"c{i}" for i in range(ONE_HOT_LIMIT) for _ in range(150 - i)]
    rare = [f"c{i}" for i in range(ONE_HOT_LIMIT, distinct)] * 2
    return list(np.random.default_rng(0).permutation(frequent + rare))


def test_a_text_column_with_many_values_keeps_the_most_frequent_and_other(tmp_path, monkeypatch):
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 4096)  # several batches
    codes = skewed_codes(300)
    text = "code,x,y\n" + "".join(f"{code},{i % 7},{i}\n" for i, code in enumerate(codes))
    table = learn_table(TableReader(write(tmp_path, text)), "y", "gaussian")
    feature = table.preprocessing.features[0]
    assert feature == dict(name="code", kind="categorical", categories=sorted(f"c{i}" for i in range(100)), other=True)
    assert (
        len(table.preprocessing.encoded_names) == ONE_HOT_LIMIT + 2
        and "code=(other)" in table.preprocessing.encoded_names
    )
    assert table.notes == [
        "column 'code': 300 distinct values; one-hot of the 100 most frequent and one 'other' input for the rest "
        "(at most 100 are kept)"
    ]
    reader = TableReader(write(tmp_path, "code,x\nc0,1\nc250,1\nnever-seen,1\n", "new.csv"))
    X = table.preprocessing.inputs(next(reader.batches()), reader.name)
    np.testing.assert_array_equal(X[:, :-1].argmax(axis=1), [0, ONE_HOT_LIMIT, ONE_HOT_LIMIT])
    np.testing.assert_array_equal(X[:, :-1].sum(axis=1), [1, 1, 1])


def test_an_identifier_column_is_left_out(tmp_path):
    text = "name,x,y\n" + "".join(f"person{i},{i % 5},{i}\n" for i in range(400))
    table = learn_table(TableReader(write(tmp_path, text)), "y", "gaussian")
    preprocessing = table.preprocessing
    assert preprocessing.input_columns == ["x"] and preprocessing.left_out == ["name"]
    assert table.notes == [
        "column 'name' left out: an identifier (400 distinct values, over 50% of the rows with no missing value)"
    ]
    preprocessing.check_columns("new.csv", ["x"], target_needed=False)
    preprocessing.check_columns("new.csv", ["name", "x", "y"], target_needed=True)
    with pytest.raises(TableError, match="columns the model was not trained on: other"):
        preprocessing.check_columns("new.csv", ["x", "other"], target_needed=False)


def test_an_identifier_is_no_longer_counted_once_it_has_too_many_values(tmp_path, monkeypatch):
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 64 << 10)  # batches of about 4,000 rows
    text = "name,x,y\n" + "".join(f"person{i},{i % 5},{i}\n" for i in range(24_000))
    table = learn_table(TableReader(write(tmp_path, text)), "y", "gaussian")
    assert table.preprocessing.left_out == ["name"]
    assert table.notes == [
        "column 'name' left out: an identifier (more than 10,000 distinct values, over 50% of the rows "
        "with no missing value)"
    ]


def test_a_table_of_identifiers_only_is_refused(tmp_path):
    text = "name,y\n" + "".join(f"person{i},{i}\n" for i in range(400))
    with pytest.raises(TableError, match="no input columns left: name are identifiers"):
        learn_table(TableReader(write(tmp_path, text)), "y", "gaussian")


def test_a_few_categories_are_all_kept_without_other(tmp_path):
    text = "state,y\n" + "".join(f"s{i % 60},{i}\n" for i in range(120))
    table = learn_table(TableReader(write(tmp_path, text)), "y", "gaussian")
    assert len(table.preprocessing.features[0]["categories"]) == 60 and "other" not in table.preprocessing.features[0]
    assert table.notes == []


def test_counting_an_identifier_stops_and_holds_nothing():
    counts = CategoryCounts(capacity=1000)
    for batch in range(5):
        counts.add(pa.array([f"id{batch * 600 + i}" for i in range(600)]))
        assert len(counts.values) <= 1000
    assert counts.identifier and len(counts.values) == 0
    choice = counts.choice(limit=100)
    assert choice.categories is None and choice.distinct is None


def test_counts_beyond_capacity_are_pruned_and_keep_the_frequent_values():
    rng = np.random.default_rng(1)
    counts = CategoryCounts(capacity=200)
    for batch in range(20):  # 20,000 values: 300 rare ones, 3 frequent ones
        values = [f"rare{i}" for i in rng.integers(0, 300, 900)] + ["a"] * 50 + ["b"] * 30 + ["c"] * 20
        counts.add(pa.array(values))
        assert len(counts.values) <= 200
    assert not counts.identifier and not counts.exact
    choice = counts.choice(limit=3)
    assert choice.categories == ["a", "b", "c"] and choice.other and choice.distinct is None
