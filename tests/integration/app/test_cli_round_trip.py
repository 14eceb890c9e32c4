"""``gpflow-deep fit``, ``predict`` and ``evaluate`` end to end on small CSV files."""

import json
import logging

import numpy as np
import pytest
from fixtures.tables import classification_rows, read_csv, regression_rows, write_csv, write_train_and_test

from gpflow_deep.app.cli.main import main

ITERATIONS = "40"


@pytest.fixture(scope="module")
def regression_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("regression")
    header, rows = regression_rows(48)
    train, test = write_train_and_test(folder, header, rows, train_rows=40)
    run_dir = folder / "run"
    arguments = ["fit", train, "--target", "price", "--out", str(run_dir), "--iterations", ITERATIONS]
    assert main(arguments + ["--validation-fraction", "0.25"]) == 0
    return run_dir, test, [float(row[3]) for row in rows[40:]]


def test_fit_writes_a_complete_run_directory(regression_run):
    run_dir, _, _ = regression_run
    config = json.loads((run_dir / "config.json").read_text())
    assert config["builder"] == "build_deep_gp" and config["num_layers"] == 2 and config["seed"] == 0
    preprocessing = json.loads((run_dir / "preprocessing.json").read_text())
    colour = next(feature for feature in preprocessing["features"] if feature["name"] == "colour")
    assert colour == {"name": "colour", "kind": "categorical", "categories": ["blue", "green", "red"]}
    assert 90 < preprocessing["target_mean"] < 115 and preprocessing["target_std"] > 1
    summary = json.loads((run_dir / "training.json").read_text())
    assert summary["training_rows"] + summary["held_out_rows"] == 40 and 4 <= summary["held_out_rows"] <= 16
    assert summary["inputs"] == ["x", "size", "colour=blue", "colour=green", "colour=red"]
    assert config["num_data"] == summary["training_rows"] and config["sample_shape"] == [summary["training_rows"], 5]
    assert list((run_dir / "logs").iterdir()), "TensorBoard events are written"
    assert sorted(path.name for path in run_dir.iterdir()) == [
        "config.json",
        "logs",
        "parameters",
        "preprocessing.json",
        "training.json",
    ], "the model, its encoding and configuration: no training data"


def test_predict_writes_mixture_intervals_in_original_units(regression_run, tmp_path, capsys):
    run_dir, test, targets = regression_run
    out = tmp_path / "predictions.csv"
    assert main(["predict", str(run_dir), test, "--out", str(out)]) == 0
    assert f"wrote 8 predictions to {out}" in capsys.readouterr().out
    header, rows = read_csv(out)
    assert header == ["mean", "std", "q05", "q95"]
    values = np.array(rows, dtype=float)
    mean, std, low, high = values.T
    assert np.all(low < mean) and np.all(mean < high) and np.all(std > 0)
    assert abs(np.mean(mean) - np.mean(targets)) < 15, "the target's units are restored"
    again = tmp_path / "again.csv"
    assert main(["predict", str(run_dir), test, "--out", str(again)]) == 0
    assert again.read_text() == out.read_text(), "a restored run predicts the same every time"


def test_predict_accepts_rows_without_the_target(regression_run, tmp_path):
    run_dir, test, _ = regression_run
    header, rows = read_csv(test)
    features = write_csv(tmp_path / "features.csv", header[:3], [row[:3] for row in rows])
    assert main(["predict", str(run_dir), features, "--out", str(tmp_path / "p.csv")]) == 0
    assert len(read_csv(tmp_path / "p.csv")[1]) == 8


def test_evaluate_prints_scores_and_writes_a_calibration_plot(regression_run, tmp_path, capsys):
    run_dir, test, _ = regression_run
    plot = tmp_path / "calibration.png"
    assert main(["evaluate", str(run_dir), test, "--plot", str(plot)]) == 0
    lines = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines() if line.strip())
    assert set(lines) >= {"rows", "log_likelihood", "rmse", "crps", "coverage_90"}
    assert lines["rows"] == "8" and 0 <= float(lines["coverage_90"]) <= 1
    assert float(lines["crps"]) > 0 and float(lines["rmse"]) > 0
    assert plot.read_bytes()[:4] == b"\x89PNG"


@pytest.fixture(scope="module")
def classification_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("classification")
    header, rows = classification_rows(45)
    train = write_csv(folder / "train.csv", header, rows)
    run_dir = folder / "run"
    arguments = ["fit", train, "--target", "species", "--likelihood", "multiclass", "--model", "dspp"]
    assert main(arguments + ["--out", str(run_dir), "--iterations", ITERATIONS, "--layers", "1"]) == 0
    return run_dir, train


def test_classification_round_trip(classification_run, tmp_path, capsys):
    run_dir, data = classification_run
    preprocessing = json.loads((run_dir / "preprocessing.json").read_text())
    assert preprocessing["labels"] == ["setosa", "versicolor", "virginica"]
    out = tmp_path / "classes.csv"
    assert main(["predict", str(run_dir), data, "--out", str(out)]) == 0
    header, rows = read_csv(out)
    assert header == ["predicted", "probability_setosa", "probability_versicolor", "probability_virginica"]
    probabilities = np.array([row[1:] for row in rows], dtype=float)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-4)
    assert all(row[0] == header[1 + int(np.argmax(p))].split("_", 1)[1] for row, p in zip(rows, probabilities))
    capsys.readouterr()
    assert main(["evaluate", str(run_dir), data]) == 0
    out_lines = capsys.readouterr().out
    accuracy = float(next(line.split()[1] for line in out_lines.splitlines() if line.startswith("accuracy")))
    assert accuracy > 1 / 3, "better than chance on its training rows"
    assert (run_dir / "calibration_train.png").exists()


def test_a_class_run_uses_the_softmax_and_an_older_one_restores_the_robust_max(classification_run, tmp_path):
    import gpflow

    from gpflow_deep.app.run_directory import RunConfig, load_run, sample_moments, save_run
    from gpflow_deep.app.tables import Preprocessing
    from gpflow_deep.likelihoods import Softmax

    run_dir, _ = classification_run
    assert json.loads((run_dir / "config.json").read_text())["multiclass_link"] == "softmax"
    assert isinstance(load_run(str(run_dir)).model.likelihood, Softmax)

    X = np.random.default_rng(0).normal(size=(12, 2))
    Y = (np.arange(12) % 3).astype(float)[:, None]
    older = RunConfig("deep_gp", "build_deep_gp", 1, "multiclass", 0, 12, [12, 2], sample_moments(X, Y), num_classes=3)
    model = older.build(X, Y)
    preprocessing = Preprocessing("y", "multiclass", [dict(name=c, kind="numeric", mean=0.0, std=1.0) for c in "ab"])
    save_run(str(tmp_path / "older"), older, preprocessing, model, summary={})
    config = json.loads((tmp_path / "older" / "config.json").read_text())
    del config["multiclass_link"]  # as written before 2026-11-30, by a model trained with GPflow's MultiClass
    (tmp_path / "older" / "config.json").write_text(json.dumps(config))
    restored = load_run(str(tmp_path / "older")).model
    assert isinstance(restored.likelihood, gpflow.likelihoods.MultiClass)
    np.testing.assert_allclose(restored.predict_y(X, seed=1)[0], model.predict_y(X, seed=1)[0], rtol=1e-10)


def test_skip_missing_keeps_one_line_per_row(regression_run, classification_run, tmp_path, capsys):
    """Rows missing an input get empty fields in place; the others are predicted exactly as in a
    file without the incomplete rows (noise is keyed by the position among usable rows)."""
    for run_dir, data in (regression_run[:2], classification_run):
        header, rows = read_csv(data)
        gaps = [1, 2, 5]
        for row in gaps:
            rows[row][1 if row != 5 else 0] = ""  # a text cell (classification) or numbers
        with_gaps = write_csv(tmp_path / "gaps.csv", header, rows)
        complete = write_csv(tmp_path / "complete.csv", header, [r for i, r in enumerate(rows) if i not in gaps])
        out, reference = tmp_path / "with_gaps_predicted.csv", tmp_path / "complete_predicted.csv"
        assert main(["predict", str(run_dir), with_gaps, "--out", str(out), "--skip-missing"]) == 0
        assert f"3 of {len(rows)} rows have missing values" in capsys.readouterr().out
        assert main(["predict", str(run_dir), complete, "--out", str(reference)]) == 0
        out_header, predicted = read_csv(out)
        assert out_header == read_csv(reference)[0] and len(predicted) == len(rows)
        assert all(all(field == "" for field in predicted[i]) for i in gaps)
        assert [row for i, row in enumerate(predicted) if i not in gaps] == read_csv(reference)[1]


def test_skip_missing_across_batches_with_no_usable_row(regression_run, tmp_path, monkeypatch):
    run_dir, test, _ = regression_run
    header, rows = read_csv(test)
    for row in rows[1:6]:
        row[0] = ""
    data = write_csv(tmp_path / "gaps.csv", header, rows)
    monkeypatch.setattr("gpflow_deep.app.tables.reader.BLOCK_BYTES", 64)  # about two rows a batch
    out = tmp_path / "predicted.csv"
    assert main(["predict", str(run_dir), data, "--out", str(out), "--skip-missing"]) == 0
    _, predicted = read_csv(out)
    assert [all(field == "" for field in row) for row in predicted] == [i in range(1, 6) for i in range(len(rows))]


def test_evaluate_and_predict_report_skipped_rows_per_column(regression_run, tmp_path, capsys):
    run_dir, test, _ = regression_run
    header, rows = read_csv(test)
    rows[0][0], rows[2][0], rows[2][1] = "", "", ""
    data = write_csv(tmp_path / "gaps.csv", header, rows)
    assert main(["evaluate", str(run_dir), data, "--drop-missing"]) == 0
    out = capsys.readouterr().out
    assert "gaps.csv: 2 of 8 rows had missing values and were dropped (rows per column: x 2, size 1)" in out
    assert "rows 6" in " ".join(out.split())
    assert main(["predict", str(run_dir), data, "--out", str(tmp_path / "p.csv"), "--skip-missing"]) == 0
    expected = "gaps.csv: 2 of 8 rows have missing values (rows per column: x 2, size 1): their lines have empty fields"
    assert expected in capsys.readouterr().out


def test_binary_labels_and_dropped_missing_rows(tmp_path, capsys):
    header, rows = regression_rows(30)
    rows = [row[:3] + ["high" if float(row[3]) > 100 else "low"] for row in rows]
    rows[3][1] = ""
    data = write_csv(tmp_path / "binary.csv", header[:3] + ["band"], rows)
    arguments = ["fit", data, "--target", "band", "--likelihood", "bernoulli", "--drop-missing"]
    assert main(arguments + ["--out", str(tmp_path / "run"), "--iterations", "10"]) == 0
    assert (
        "binary.csv: 1 of 30 rows had missing values and were dropped (rows per column: size 1)"
        in capsys.readouterr().out
    )
    assert json.loads((tmp_path / "run" / "training.json").read_text())["training_rows"] == 29


def test_a_parquet_file_predicts_as_its_csv(regression_run, tmp_path):
    import pyarrow as pa
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    run_dir, test, _ = regression_run
    parquet = tmp_path / "test.parquet"
    pq.write_table(pa_csv.read_csv(test), parquet)
    assert pa.types.is_floating(pq.read_schema(parquet).field("x").type)
    for data, out in ((test, tmp_path / "from_csv.csv"), (parquet, tmp_path / "from_parquet.csv")):
        assert main(["predict", str(run_dir), str(data), "--out", str(out)]) == 0
    assert (tmp_path / "from_parquet.csv").read_text() == (tmp_path / "from_csv.csv").read_text()


def test_a_large_table_is_streamed_from_disk_without_its_missing_rows(tmp_path, capsys, monkeypatch):
    from gpflow_deep.app.cli import fit as fit_command
    from gpflow_deep.app.cli import fit_plan

    for module in (fit_command, fit_plan):  # "large": more training rows than the sample holds
        monkeypatch.setattr(module, "IN_MEMORY_ROWS", 20)
    header, rows = regression_rows(60)
    rows[3][1] = ""
    data = write_csv(tmp_path / "large.csv", header, rows)
    arguments = ["fit", data, "--target", "price", "--drop-missing", "--batch-size", "10", "--epochs", "2"]
    arguments += ["--calibration-fraction", "0", "--likelihood", "gaussian"]  # every row trains, no pilots
    assert main(arguments + ["--out", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "minibatches of 10 rows (59 training rows, read from disk)" in out and "10 iterations (1.69 epochs)" in out
    assert "from a random sample of 20 of the 59 training rows" in out
    summary = json.loads((tmp_path / "run" / "training.json").read_text())
    assert summary["training_rows"] == 59 and summary["dropped_rows"] == 1 and summary["iterations"] == 10
    assert main(["predict", str(tmp_path / "run"), data, "--out", str(tmp_path / "p.csv")]) == 1


def test_fit_logs_what_it_did_to_a_column_once(tmp_path, caplog):
    # a small table is read twice (the default calibration hold-out applies only above 10,000 rows)
    header, rows = regression_rows(150)
    data = write_csv(tmp_path / "named.csv", header + ["name"], [row + [f"house{i}"] for i, row in enumerate(rows)])
    with caplog.at_level(logging.WARNING, logger="gpflow_deep"):
        arguments = ["fit", data, "--target", "price", "--likelihood", "gaussian", "--iterations", "2"]
        assert main(arguments + ["--out", str(tmp_path / "run")]) == 0
    notes = [record.getMessage() for record in caplog.records if "identifier" in record.getMessage()]
    assert notes == [
        "named.csv: column 'name' left out: an identifier (150 distinct values, over 50% of the rows with no "
        "missing value)"
    ]


def test_ignored_columns_are_never_read_and_a_table_to_predict_may_have_them(tmp_path):
    header, rows = regression_rows(48)
    extra = [[str(i), "" if i % 3 else "see note", "x" if i == 5 else "1"] for i in range(48)]
    wide_header = ["row"] + header + ["notes", "mostly_numbers"]  # "notes" mostly empty, one text cell in a number
    wide = [[e[0]] + row + e[1:] for e, row in zip(extra, rows)]
    train = write_csv(tmp_path / "train.csv", wide_header, wide[:40])
    run_dir = tmp_path / "run"
    arguments = ["fit", train, "--target", "price", "--out", str(run_dir), "--iterations", ITERATIONS]
    assert main(arguments + ["--likelihood", "gaussian", "--ignore", "notes", "row", "mostly_numbers"]) == 0
    preprocessing = json.loads((run_dir / "preprocessing.json").read_text())
    assert preprocessing["left_out"] == ["row", "notes", "mostly_numbers"]
    assert json.loads((run_dir / "training.json").read_text())["training_rows"] == 40
    narrow = write_csv(tmp_path / "narrow.csv", header, rows[40:])
    wide_test = write_csv(tmp_path / "wide.csv", wide_header, wide[40:])
    for data in (narrow, wide_test):
        assert main(["predict", str(run_dir), data, "--out", str(data) + ".out"]) == 0
    assert read_csv(narrow + ".out") == read_csv(wide_test + ".out")


def test_ignoring_the_target_or_an_absent_column_is_refused(tmp_path, capsys):
    header, rows = regression_rows(20)
    data = write_csv(tmp_path / "t.csv", header, rows)
    arguments = ["fit", data, "--target", "price", "--out", str(tmp_path / "run"), "--iterations", "2"]
    assert main(arguments + ["--ignore", "price"]) == 1
    assert "--ignore: the target 'price' cannot be left out" in capsys.readouterr().err
    assert main(arguments + ["--ignore", "colour", "weight"]) == 1
    assert "t.csv has no column 'weight' to ignore (columns: x, size, colour, price)" in capsys.readouterr().err
