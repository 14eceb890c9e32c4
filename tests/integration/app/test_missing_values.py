"""Missing values in a user's table: inputs filled and marked by default, rows without a target left
out, and ``--drop-missing`` (or a run saved before filling existed) dropping or refusing them."""

import json

import numpy as np
import pytest
from fixtures.tables import read_csv, regression_rows, write_csv

from gpflow_deep.app.cli.main import main
from gpflow_deep.app.tables import Preprocessing, TableReader, learn_table
from gpflow_deep.app.tables import reader as reader_module
from gpflow_deep.app.tables.rows import Rows
from gpflow_deep.app.tables.stream import training_chunks


def with_gaps(num_rows: int = 40):
    """``regression_rows`` with x missing in every 5th row, the colour in every 7th and the price in
    rows 3 and 13."""
    header, rows = regression_rows(num_rows)
    for i, row in enumerate(rows):
        if i % 5 == 0:
            row[0] = ""
        if i % 7 == 0:
            row[2] = "NA"
    rows[3][3] = rows[13][3] = ""
    return header, rows


def test_learned_moments_and_categories_skip_missing_values_and_mark_their_columns(tmp_path, monkeypatch):
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 200)  # several batches
    header, rows = with_gaps()
    table = learn_table(TableReader(write_csv(tmp_path / "gaps.csv", header, rows)), "price", "gaussian")
    kept = [row for row in rows if row[3] != ""]
    x = np.array([float(row[0]) for row in kept if row[0] != ""])
    assert table.rows == 40 and table.missing_rows == 2 and table.training_rows == 38
    assert table.filled_columns == {
        "x": sum(row[0] == "" for row in kept),
        "colour": sum(row[2] == "NA" for row in kept),
    }
    features = {feature["name"]: feature for feature in table.preprocessing.features}
    np.testing.assert_allclose([features["x"]["mean"], features["x"]["std"]], [x.mean(), x.std()])
    assert features["x"]["missing"] and features["colour"]["missing"] and "missing" not in features["size"]
    assert features["colour"]["categories"] == ["blue", "green", "red"]
    assert table.preprocessing.encoded_names == [
        "x", "x=(missing)", "size", "colour=blue", "colour=green", "colour=red", "colour=(missing)"
    ]  # fmt: skip
    assert table.preprocessing.fill_missing


def test_missing_inputs_are_filled_with_the_mean_or_no_category_and_marked():
    preprocessing = Preprocessing(
        "price",
        "gaussian",
        features=[
            dict(name="x", kind="numeric", mean=1.0, std=2.0, missing=True),
            dict(name="size", kind="numeric", mean=0.0, std=1.0),
            dict(name="colour", kind="categorical", categories=["blue", "red"], other=True, missing=True),
        ],
        fill_missing=True,
    )
    rows = Rows.from_numpy(
        dict(
            x=np.array([3.0, np.nan, 1.0]),
            size=np.array([0.5, 1.5, np.nan]),
            colour=np.array(["red", None, "green"], dtype=object),
        )
    )
    expected = [
        # x, x missing, size, blue, red, other, colour missing
        [1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.0],
        [0.0, 1.0, 1.5, 0.0, 0.0, 0.0, 1.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0],  # a column never missing in training is filled, not marked
    ]
    np.testing.assert_array_equal(preprocessing.inputs(rows, "t.csv"), expected)


def test_a_column_without_values_is_left_out_and_drop_missing_drops_instead(tmp_path):
    header, rows = with_gaps(30)
    data = write_csv(tmp_path / "t.csv", header + ["notes"], [row + [""] for row in rows])
    table = learn_table(TableReader(data), "price", "gaussian")
    assert table.preprocessing.left_out == ["notes"] and "notes" not in table.filled_columns
    assert "column 'notes' left out: it has no value in any row with a target" in table.notes
    dropped = learn_table(TableReader(data), "price", "gaussian", drop_missing=True)
    assert dropped.missing_rows == 30 and dropped.training_rows == 0 and not dropped.preprocessing.fill_missing


def test_streamed_training_rows_are_the_rows_with_a_target(tmp_path, monkeypatch):
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 200)
    header, rows = with_gaps()
    reader = TableReader(write_csv(tmp_path / "gaps.csv", header, rows))
    for drop, expected in ((False, 38), (True, sum(r[0] != "" and r[2] != "NA" and r[3] != "" for r in rows))):
        table = learn_table(reader, "price", "gaussian", drop_missing=drop)
        chunks = list(training_chunks(reader, table.preprocessing, 0.0, 0))
        X = np.concatenate([X for X, _ in chunks])
        assert len(X) == table.training_rows == expected and np.all(np.isfinite(X))


def test_fit_predict_and_evaluate_fill_missing_inputs(tmp_path, capsys):
    header, rows = with_gaps()
    data = write_csv(tmp_path / "gaps.csv", header, rows)
    run = tmp_path / "run"
    assert (
        main(["fit", data, "--target", "price", "--likelihood", "gaussian", "--iterations", "5", "--out", str(run)])
        == 0
    )
    out = capsys.readouterr().out
    assert "gaps.csv: 2 of 40 rows have no value of the target 'price': left out" in out
    assert "gaps.csv: missing input values filled (rows per column, of 38: x 8, colour 6)" in out
    summary = json.loads((run / "training.json").read_text())
    assert summary["training_rows"] == 38 and summary["filled_rows_per_column"] == {"x": 8, "colour": 6}
    assert "x=(missing)" in summary["inputs"]

    predictions = tmp_path / "p.csv"
    assert main(["predict", str(run), data, "--out", str(predictions)]) == 0
    assert (
        "gaps.csv: 12 of 40 rows have missing values (rows per column: x 8, colour 6): filled"
        in capsys.readouterr().out
    )
    _, predicted = read_csv(predictions)
    assert len(predicted) == 40 and all(field != "" for row in predicted for field in row)

    assert main(["evaluate", str(run), data]) == 0
    out = capsys.readouterr().out
    assert "gaps.csv: 2 of 40 rows have no value of the target 'price' and were skipped" in out
    assert [line.split() for line in out.splitlines() if line.startswith("rows ")] == [["rows", "38"]]


def test_a_run_that_drops_missing_values_refuses_them_when_predicting(tmp_path, capsys):
    header, rows = with_gaps()
    data = write_csv(tmp_path / "gaps.csv", header, rows)
    run = tmp_path / "run"
    arguments = ["fit", data, "--target", "price", "--likelihood", "gaussian", "--iterations", "5", "--drop-missing"]
    assert main(arguments + ["--out", str(run)]) == 0
    assert "gaps.csv: 14 of 40 rows had missing values and were dropped" in capsys.readouterr().out
    preprocessing = json.loads((run / "preprocessing.json").read_text())
    assert not preprocessing["fill_missing"] and all("missing" not in f for f in preprocessing["features"])
    assert main(["predict", str(run), data, "--out", str(tmp_path / "p.csv")]) == 1
    assert "fill them in or pass --skip-missing" in capsys.readouterr().err


def test_a_run_saved_before_filling_existed_still_refuses_missing_values(tmp_path, capsys):
    header, rows = regression_rows(20)
    data = write_csv(tmp_path / "complete.csv", header, rows)
    run = tmp_path / "run"
    assert (
        main(["fit", data, "--target", "price", "--likelihood", "gaussian", "--iterations", "2", "--out", str(run)])
        == 0
    )
    saved = json.loads((run / "preprocessing.json").read_text())
    del saved["fill_missing"]  # as written before 2026-11-30
    (run / "preprocessing.json").write_text(json.dumps(saved))
    rows[4][1] = ""
    gaps = write_csv(tmp_path / "gaps.csv", header, rows)
    capsys.readouterr()
    assert main(["evaluate", str(run), gaps]) == 1
    assert "1 of 20 rows have missing values (rows per column: size 1); fix them or pass --drop-missing" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("drop", [False, True])
def test_a_table_without_any_target_value_is_refused(tmp_path, capsys, drop):
    header, rows = regression_rows(10)
    for row in rows:
        row[3] = ""
    data = write_csv(tmp_path / "t.csv", header, rows)
    arguments = ["fit", data, "--target", "price", "--likelihood", "gaussian", "--out", str(tmp_path / "run")]
    assert main(arguments + (["--drop-missing"] if drop else [])) == 1
    assert "no rows left" in capsys.readouterr().err
