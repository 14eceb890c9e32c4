"""``gpflow-deep calibrate``: the calibrated intervals of ``predict`` cover fresh rows at the level
asked (the split-conformal guarantee), ``evaluate`` reports both coverages, ``--uncalibrated`` and
``--level`` give the mixture's own intervals, and classification runs are refused."""

import csv
import json

import numpy as np
import pytest
from fixtures.tables import classification_rows, write_csv

from gpflow_deep.app.calibration import CALIBRATION_FILE, calibrate_run, load_calibration
from gpflow_deep.app.cli.main import main
from gpflow_deep.app.run_directory import load_run
from gpflow_deep.app.tables import TableReader
from gpflow_deep.evaluation.calibration import central_interval

TRAINING, CALIBRATION, FRESH = 100, 400, 600


def heavy_tailed_rows(num_rows: int, seed: int):
    """(x, size, price): a smooth function of x and size plus Student-t noise of 2 degrees of
    freedom, which a Gaussian likelihood cannot fit: its intervals are miscalibrated."""
    rng = np.random.default_rng(seed)
    x, size = rng.uniform(-2, 2, num_rows), rng.normal(size=num_rows)
    price = 100 + 10 * np.sin(2 * x) + 5 * size + rng.standard_t(2, num_rows)
    return ["x", "size", "price"], [[f"{a:.4f}", f"{b:.4f}", f"{c:.4f}"] for a, b, c in zip(x, size, price)]


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    """A run of a Gaussian likelihood on heavy-tailed targets; 400 held-out rows, 600 fresh rows."""
    folder = tmp_path_factory.mktemp("calibration")
    header, rows = heavy_tailed_rows(TRAINING + CALIBRATION + FRESH, seed=3)
    train = write_csv(folder / "train.csv", header, rows[:TRAINING])
    held_out = write_csv(folder / "held_out.csv", header, rows[TRAINING : TRAINING + CALIBRATION])
    fresh = write_csv(folder / "fresh.csv", header, rows[TRAINING + CALIBRATION :])
    run_dir = str(folder / "run")
    fit = ["fit", train, "--target", "price", "--likelihood", "gaussian", "--out", run_dir, "--iterations", "20"]
    assert main(fit) == 0
    return run_dir, held_out, fresh


def printed_values(text: str) -> dict:
    return dict(line.split(None, 1) for line in text.splitlines() if line.strip())


def encoded(run, path):
    reader = TableReader(path)
    batches = list(reader.batches())
    X = np.concatenate([run.preprocessing.inputs(batch, reader.name) for batch in batches])
    Y = np.concatenate([run.preprocessing.targets(batch, reader.name) for batch in batches])
    return X, Y


def written(path) -> tuple:
    with open(path, newline="") as handle:
        lines = list(csv.reader(handle))
    return lines[0], np.array(lines[1:], dtype=float)


def binomial_spread(level: float) -> float:
    """The standard deviation of the coverage of the fresh rows: the calibration rows are one draw,
    and coverage given them is Beta(k, n + 1 − k), k = ⌈level (n + 1)⌉, of variance ≈ level (1 −
    level) / (n + 2); the fresh rows add the binomial variance level (1 − level) / FRESH."""
    return np.sqrt(level * (1 - level) * (1 / FRESH + 1 / (CALIBRATION + 2)))


def fresh_coverage(path, y: np.ndarray) -> float:
    _, predictions = written(path)
    return float(np.mean((predictions[:, 2] <= y) & (y <= predictions[:, 3])))


@pytest.mark.slow
def test_calibrated_intervals_cover_fresh_rows_at_the_level(calibrated, tmp_path, capsys):
    """The calibrated 50% and 90% intervals cover 600 fresh rows within 3.5 standard deviations of
    the level; the raw 50% interval does not (a Gaussian likelihood on heavy-tailed noise, briefly
    trained: it covers 0.42)."""
    run_dir, held_out, fresh = calibrated
    assert main(["calibrate", run_dir, held_out]) == 0
    out = capsys.readouterr().out
    assert f"calibrated on {CALIBRATION} held-out rows of held_out.csv" in out
    assert "  90%  " in out and ">= 0.90" in out
    with open(f"{run_dir}/{CALIBRATION_FILE}") as handle:
        stored = json.load(handle)
    assert stored["rows"] == CALIBRATION and stored["source"] == "held_out.csv" and stored["created"]
    assert len(stored["log_tail_scores"]) == CALIBRATION and stored["log_tail_scores"] == sorted(
        stored["log_tail_scores"]
    )

    assert main(["evaluate", run_dir, fresh, "--plot", fresh + ".png"]) == 0
    scores = printed_values(capsys.readouterr().out)
    assert abs(float(scores["coverage_90_calibrated"]) - 0.9) < 3.5 * binomial_spread(0.9)

    with open(fresh, newline="") as handle:
        y = np.array([float(row[-1]) for row in list(csv.reader(handle))[1:]])
    assert main(["predict", run_dir, fresh, "--out", str(tmp_path / "calibrated.csv"), "--level", "0.5"]) == 0
    raw = ["predict", run_dir, fresh, "--out", str(tmp_path / "raw.csv"), "--level", "0.5", "--uncalibrated"]
    assert main(raw) == 0
    assert abs(fresh_coverage(tmp_path / "calibrated.csv", y) - 0.5) < 3.5 * binomial_spread(0.5)
    raw_spread = np.sqrt(0.5 * 0.5 / FRESH)  # the raw interval's coverage varies only with the fresh rows
    assert abs(fresh_coverage(tmp_path / "raw.csv", y) - 0.5) > 3.5 * raw_spread, "the raw interval is calibrated"


@pytest.mark.slow
def test_predict_writes_the_calibrated_or_the_raw_intervals(calibrated, tmp_path, capsys):
    run_dir, held_out, fresh = calibrated
    run = load_run(run_dir)
    X, Y = encoded(run, held_out)
    calibration = calibrate_run(run, X, Y, source="held_out.csv")
    assert calibration.levels.num_rows == CALIBRATION
    assert main(["calibrate", run_dir, held_out]) == 0
    np.testing.assert_allclose(load_calibration(run_dir).levels.scores, calibration.levels.scores, rtol=1e-12)
    capsys.readouterr()

    assert main(["predict", run_dir, fresh, "--out", str(tmp_path / "calibrated.csv")]) == 0
    assert "calibrated on 400 held-out rows of held_out.csv" in capsys.readouterr().out
    raw = ["predict", run_dir, fresh, "--out", str(tmp_path / "raw.csv"), "--uncalibrated", "--level", "0.8"]
    assert main(raw) == 0
    assert "(--uncalibrated)" in capsys.readouterr().out
    header, calibrated_rows = written(tmp_path / "calibrated.csv")
    raw_header, raw_rows = written(tmp_path / "raw.csv")
    assert header == ["mean", "std", "q05", "q95"] and raw_header == ["mean", "std", "q10", "q90"]
    np.testing.assert_array_equal(calibrated_rows[:, :2], raw_rows[:, :2])

    X_fresh, _ = encoded(run, fresh)
    mixture = run.model.predict_mixture(X_fresh, seed=run.config.seed)
    scale, shift = run.preprocessing.target_std, run.preprocessing.target_mean
    components = (
        mixture.means.numpy()[..., 0] * scale + shift,
        (mixture.variances.numpy()[..., 0] + float(run.model.likelihood.variance.numpy())) * scale**2,
        mixture.log_weights.numpy(),
    )
    np.testing.assert_allclose(calibrated_rows[:, 2:].T, calibration.levels.interval(0.9, *components), rtol=1e-9)
    np.testing.assert_allclose(raw_rows[:, 2:].T, central_interval(0.8, *components), rtol=1e-9)


@pytest.mark.slow
def test_classification_runs_are_refused(tmp_path, capsys):
    header, rows = classification_rows(60)
    train = write_csv(tmp_path / "train.csv", header, rows[:40])
    held_out = write_csv(tmp_path / "held_out.csv", header, rows[40:])
    run_dir = str(tmp_path / "run")
    fit = ["fit", train, "--target", "species", "--likelihood", "multiclass", "--out", run_dir, "--iterations", "5"]
    assert main(fit) == 0
    capsys.readouterr()
    assert main(["calibrate", run_dir, held_out]) == 1
    assert "calibration is for regression runs" in capsys.readouterr().err
    assert main(["predict", run_dir, held_out, "--out", str(tmp_path / "p.csv"), "--level", "0.8"]) == 1
    assert "for regression" in capsys.readouterr().err


def test_a_bad_level_is_refused_in_one_line(tmp_path, capsys):
    assert main(["predict", "run", "rows.csv", "--out", str(tmp_path / "p.csv"), "--level", "90"]) == 1
    assert "--level must be between 0 and 1" in capsys.readouterr().err


def test_calibrate_has_help_with_an_example(capsys):
    assert main(["calibrate", "--help"]) == 0
    out = capsys.readouterr().out
    assert "gpflow-deep calibrate runs/houses" in out.split("example:")[1] and "HELD_OUT" in out
