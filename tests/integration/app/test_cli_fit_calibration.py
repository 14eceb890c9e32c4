"""``gpflow-deep fit --calibration-fraction F``: rows held out of training calibrate the run's intervals."""

import json
import os

import numpy as np
import pytest
from fixtures.tables import regression_rows, write_csv

from gpflow_deep.app.calibration import CALIBRATION_FILE
from gpflow_deep.app.cli.held_out import (
    DEFAULT_CALIBRATION_FRACTION,
    HeldOut,
    default_applies,
)
from gpflow_deep.app.cli.main import main


def fit(data, out, *options):
    arguments = ["fit", data, "--target", "price", "--out", str(out), "--iterations", "5", "--likelihood", "gaussian"]
    return main([*arguments, *options])


def test_held_out_rows_calibrate_the_run(tmp_path, capsys):
    data = write_csv(tmp_path / "houses.csv", *regression_rows(200))
    assert fit(data, tmp_path / "run", "--calibration-fraction", "0.25") == 0
    out = capsys.readouterr().out
    held = int(out.split("calibration: ")[1].split(" rows held out")[0])
    assert 25 <= held <= 75 and f"calibrated on {held} held-out rows" in out
    stored = json.loads((tmp_path / "run" / CALIBRATION_FILE).read_text())
    assert len(stored["log_tail_scores"]) == held and stored["source"] == "houses.csv (held out by fit)"
    training = json.loads((tmp_path / "run" / "training.json").read_text())
    assert training["training_rows"] + training["held_out_rows"] == 200
    predictions = tmp_path / "predictions.csv"
    assert main(["predict", str(tmp_path / "run"), data, "--out", str(predictions)]) == 0
    assert f"calibrated on {held} held-out rows of houses.csv (held out by fit)" in capsys.readouterr().out


def test_a_small_table_keeps_every_row_by_default(tmp_path, capsys):
    data = write_csv(tmp_path / "houses.csv", *regression_rows(60))
    assert fit(data, tmp_path / "run") == 0
    assert "calibration" not in capsys.readouterr().out
    assert not os.path.exists(tmp_path / "run" / CALIBRATION_FILE)
    assert json.loads((tmp_path / "run" / "training.json").read_text())["training_rows"] == 60


def test_early_stopping_and_calibration_rows_are_not_both_held_out(tmp_path, capsys):
    data = write_csv(tmp_path / "houses.csv", *regression_rows(60))
    options = ["--validation-fraction", "0.2", "--calibration-fraction", "0.2"]
    assert fit(data, tmp_path / "run", *options) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "not both" in err and "gpflow-deep calibrate" in err
    assert fit(data, tmp_path / "run", "--calibration-fraction", "1.5") == 1
    assert "--calibration-fraction must be in [0, 1)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "rows, classification, keeps",
    [(10_000, False, False), (10_001, False, True), (1_000_000, True, False)],
)
def test_the_default_calibration_rows_are_kept_on_large_regression_tables_only(rows, classification, keeps):
    default = HeldOut(DEFAULT_CALIBRATION_FRACTION, calibrate=True, default=True)
    assert default_applies(default, rows, classification, in_memory_rows=10_000) == keeps
    assert default_applies(HeldOut(0.1, calibrate=True), 50, classification, in_memory_rows=10_000)
    assert np.isclose(DEFAULT_CALIBRATION_FRACTION, 0.02)
