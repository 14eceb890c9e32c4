"""Date and time columns of a table become one number each: days since 1970-01-01, standardised."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gpflow_deep.app.tables import Preprocessing, TableError, TableReader, learn_table
from gpflow_deep.app.tables import reader as reader_module
from gpflow_deep.app.tables.stream import encoded

DAYS = np.array([-365.0, 0.0, 0.5, 31.0, 365.0, 18262.0])  # days since 1970-01-01 of the stamps below
STAMPS = [
    "1969-01-01T00:00:00Z",
    "1970-01-01T00:00:00Z",
    "1970-01-01T12:00:00Z",
    "1970-02-01T00:00:00Z",
    "1971-01-01T00:00:00Z",
    "2020-01-01T00:00:00Z",
]


def write(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def stamp_table(tmp_path, stamps, name="t.csv"):
    return write(
        tmp_path,
        "when,colour,y\n" + "".join(f"{s},{'red' if i % 2 else 'blue'},{i}\n" for i, s in enumerate(stamps)),
        name,
    )


def test_timestamps_are_days_since_1970_standardised(tmp_path, monkeypatch):
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 64)  # several batches
    reader = TableReader(stamp_table(tmp_path, STAMPS))
    table = learn_table(reader, "y", "gaussian")
    feature = table.preprocessing.features[0]
    assert feature == dict(name="when", kind="date", mean=pytest.approx(DAYS.mean()), std=pytest.approx(DAYS.std()))
    assert table.preprocessing.encoded_names == ["when", "colour=blue", "colour=red"]
    X, _ = encoded(table.sample, table.preprocessing, reader.name)
    np.testing.assert_allclose(np.sort(X[:, 0]), (DAYS - DAYS.mean()) / DAYS.std())


def test_a_restored_encoding_reads_dates_the_same_at_predict_time(tmp_path):
    reader = TableReader(stamp_table(tmp_path, STAMPS))
    preprocessing = learn_table(reader, "y", "gaussian").preprocessing
    restored = Preprocessing.from_dict(json.loads(json.dumps(preprocessing.to_dict())))
    assert restored == preprocessing
    new = ["1970-01-01T12:00:00Z", "1969-01-01", "1971-01-01 00:00:00", "1970-01-01T02:00:00+02:00"]
    predict_path = write(tmp_path, "when,colour\n" + "".join(f"{s},red\n" for s in new), "new.csv")
    new_reader = TableReader(predict_path, kinds=restored.column_kinds(with_target=False))
    restored.check_columns(new_reader.name, new_reader.columns, target_needed=False)
    X = np.concatenate([restored.inputs(batch, new_reader.name) for batch in new_reader.batches()])
    mean, std = restored.features[0]["mean"], restored.features[0]["std"]
    np.testing.assert_allclose(X[:, 0] * std + mean, [0.5, -365.0, 365.0, 0.0])


def test_parquet_timestamps_and_dates_encode_as_their_text_in_a_csv(tmp_path):
    csv_path = stamp_table(tmp_path, STAMPS)
    seconds = (DAYS * 86_400).astype(np.int64)
    for when in (pa.array(seconds, pa.timestamp("s", tz="UTC")), pa.array(seconds * 10**9, pa.timestamp("ns"))):
        colour = pa.array(["red" if i % 2 else "blue" for i in range(len(STAMPS))])
        table = pa.table({"when": when, "colour": colour, "y": pa.array(np.arange(len(STAMPS)))})
        pq.write_table(table, tmp_path / "t.parquet")
        parquet = learn_table(TableReader(str(tmp_path / "t.parquet")), "y", "gaussian").preprocessing
        assert parquet == learn_table(TableReader(csv_path), "y", "gaussian").preprocessing
    whole_days = [-365, 0, 31, 365]
    pq.write_table(pa.table({"day": pa.array(whole_days, pa.date32()), "y": [1.0, 2.0, 3.0, 4.0]}), tmp_path / "d.pq")
    feature = learn_table(TableReader(str(tmp_path / "d.pq")), "y", "gaussian").preprocessing.features[0]
    assert feature["kind"] == "date" and feature["mean"] == pytest.approx(np.mean(whole_days))


def test_iso_date_text_is_a_date_and_other_text_is_not(tmp_path):
    text = "day,note,y\n2020-01-01,2020-01-01,1\n2020-01-03,NA,2\n2020-01-05,later,3\n"
    preprocessing = learn_table(TableReader(write(tmp_path, text)), "y", "gaussian", sample_rows=10).preprocessing
    day, note = preprocessing.features
    assert day["kind"] == "date" and day["mean"] == pytest.approx(18262 + 2)
    assert note == dict(name="note", kind="categorical", categories=["2020-01-01", "later"], missing=True)


def test_a_value_that_is_not_a_date_is_refused_at_predict_time(tmp_path):
    preprocessing = learn_table(TableReader(stamp_table(tmp_path, STAMPS)), "y", "gaussian").preprocessing
    path = write(tmp_path, "when,colour\n1970-01-01,red\nsoon,red\n", "new.csv")
    reader = TableReader(path, kinds=preprocessing.column_kinds(with_target=False))
    with pytest.raises(TableError, match="new.csv: column 'when' has values that are not dates: 'soon'"):
        preprocessing.inputs(next(reader.batches()), reader.name)


def test_an_encoding_saved_before_dates_existed_still_loads(tmp_path):
    saved = {
        "target": "y",
        "likelihood": "gaussian",
        "features": [
            {"name": "x", "kind": "numeric", "mean": 1.0, "std": 2.0},
            {"name": "colour", "kind": "categorical", "categories": ["blue", "red"]},
        ],
        "target_mean": 0.0,
        "target_std": 1.0,
        "labels": None,
    }
    preprocessing = Preprocessing.from_dict(saved)
    assert preprocessing.left_out == [] and preprocessing.encoded_names == ["x", "colour=blue", "colour=red"]
    reader = TableReader(write(tmp_path, "x,colour\n3,red\n"), kinds=preprocessing.column_kinds(False))
    np.testing.assert_allclose(preprocessing.inputs(next(reader.batches()), reader.name), [[1.0, 0.0, 1.0]])
    with pytest.raises(TableError, match="categories not seen in training: green"):
        preprocessing.inputs(next(TableReader(write(tmp_path, "x,colour\n3,green\n")).batches()), "t.csv")
