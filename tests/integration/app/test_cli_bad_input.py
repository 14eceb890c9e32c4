"""Every bad input to ``gpflow-deep`` gives one line on stderr and a non-zero exit, no traceback."""

import pytest
from fixtures.tables import regression_rows, write_csv

from gpflow_deep.app.cli.main import main


def one_line_error(capsys, arguments, code=1):
    assert main(arguments) == code
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    return lines[0]


@pytest.fixture
def table(tmp_path):
    return write_csv(tmp_path / "houses.csv", *regression_rows(20))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run")
    data = write_csv(folder / "houses.csv", *regression_rows(20))
    assert main(["fit", data, "--target", "price", "--out", str(folder / "run"), "--iterations", "5"]) == 0
    return str(folder / "run")


def fit(data, *options, out=None):
    out = str(out) if out else str(data) + ".run"
    return ["fit", str(data), "--target", "price", "--out", out, "--iterations", "5", *options]


def test_nonexistent_file(capsys, tmp_path):
    assert one_line_error(capsys, fit(tmp_path / "nope.csv")).endswith("nope.csv: no such file")


def test_empty_file(capsys, tmp_path):
    (tmp_path / "empty.csv").write_text("")
    assert one_line_error(capsys, fit(tmp_path / "empty.csv")).endswith("empty.csv is empty")


def test_header_without_rows(capsys, tmp_path):
    (tmp_path / "header.csv").write_text("x,price\n")
    assert "header.csv has column names but no data rows" in one_line_error(capsys, fit(tmp_path / "header.csv"))


def test_missing_target_column(capsys, table):
    message = one_line_error(capsys, ["fit", table, "--target", "cost", "--out", table + ".run"])
    assert "houses.csv has no column 'cost' (columns: x, size, colour, price)" in message


def test_non_numeric_target_for_regression(capsys, tmp_path):
    data = write_csv(tmp_path / "t.csv", ["x", "price"], [["1", "cheap"], ["2", "dear"], ["3", "cheap"]])
    message = one_line_error(capsys, fit(data, "--likelihood", "gaussian"))
    assert "target 'price' is not numeric (e.g. 'cheap')" in message and "--likelihood" in message


def test_ragged_csv_line(capsys, tmp_path):
    (tmp_path / "ragged.csv").write_text("x,price\n1,2\n3\n")
    assert "line 3 has 1 fields, the header has 2" in one_line_error(capsys, fit(tmp_path / "ragged.csv"))


def test_unknown_option(capsys, table):
    message = one_line_error(capsys, fit(table, "--shuffle", "3"), code=2)
    assert message.startswith("gpflow-deep fit: error: unrecognized arguments: --shuffle 3")


def test_iterations_and_epochs_together(capsys, table):
    message = one_line_error(capsys, fit(table, "--epochs", "3"), code=2)
    assert "--epochs: not allowed with argument --iterations" in message


def test_bad_time_budget(capsys, tmp_path, table):
    arguments = ["fit", table, "--target", "price", "--out", str(tmp_path / "r"), "--time-budget", "soon"]
    assert "--time-budget: 'soon' is not a positive duration" in one_line_error(capsys, arguments)


def test_text_after_numbers_in_a_prediction_file(capsys, tmp_path, run_dir):
    data = write_csv(tmp_path / "typo.csv", ["x", "size", "colour"], [["1", "2", "red"], ["1", "two", "red"]])
    message = one_line_error(capsys, ["predict", run_dir, data, "--out", str(tmp_path / "p.csv")])
    assert message.endswith("typo.csv: column 'size' was numeric in training, has 'two'")
    assert not (tmp_path / "p.csv").exists(), "nothing is written before the file is checked"


def test_unknown_model(capsys, table):
    assert "invalid choice: 'gpt'" in one_line_error(capsys, fit(table, "--model", "gpt"), code=2)


def test_run_directory_in_use(capsys, table, run_dir):
    assert "already exists and is not empty" in one_line_error(capsys, fit(table, out=run_dir))


def test_bernoulli_needs_two_classes(capsys, tmp_path):
    data = write_csv(tmp_path / "c.csv", ["x", "price"], [["1", "a"], ["2", "b"], ["3", "c"]])
    message = one_line_error(capsys, fit(data, "--likelihood", "bernoulli"))
    assert "bernoulli likelihood needs 2 classes" in message and "multiclass" in message


def test_bad_validation_fraction(capsys, table):
    assert "--validation-fraction must be in [0, 1)" in one_line_error(
        capsys, fit(table, "--validation-fraction", "1.5")
    )


def test_prediction_file_with_other_columns(capsys, tmp_path, run_dir):
    header, rows = regression_rows(5)
    data = write_csv(tmp_path / "other.csv", header + ["id"], [row + [str(i)] for i, row in enumerate(rows)])
    message = one_line_error(capsys, ["predict", run_dir, data, "--out", str(tmp_path / "p.csv")])
    assert message.endswith("other.csv has columns the model was not trained on: id")


def test_prediction_file_lacking_columns(capsys, tmp_path, run_dir):
    data = write_csv(tmp_path / "short.csv", ["x", "size"], [["1", "2"]])
    message = one_line_error(capsys, ["predict", run_dir, data, "--out", str(tmp_path / "p.csv")])
    assert message.endswith("short.csv lacks columns the model was trained on: colour")


def test_unseen_category(capsys, tmp_path, run_dir):
    data = write_csv(tmp_path / "new.csv", ["x", "size", "colour"], [["1", "2", "purple"]])
    message = one_line_error(capsys, ["predict", run_dir, data, "--out", str(tmp_path / "p.csv")])
    assert "column 'colour' has categories not seen in training: purple" in message


def test_evaluate_needs_the_target(capsys, tmp_path, run_dir):
    data = write_csv(tmp_path / "features.csv", ["x", "size", "colour"], [["1", "2", "red"]])
    assert "lacks columns the model was trained on: price" in one_line_error(capsys, ["evaluate", run_dir, data])


def test_not_a_run_directory(capsys, tmp_path, table):
    message = one_line_error(capsys, ["predict", str(tmp_path / "nothing"), table, "--out", str(tmp_path / "p.csv")])
    assert "no such run directory" in message
