"""``gpflow-deep predict`` and ``evaluate`` give exactly what the restored model gives for the
whole file at once, however the file is split into batches and chunks."""

import csv

import numpy as np
import pytest
from fixtures.tables import regression_rows, write_train_and_test

from gpflow_deep.app.cli.main import main
from gpflow_deep.app.run_directory import load_run
from gpflow_deep.app.tables import TableReader
from gpflow_deep.app.tables import reader as reader_module

PREDICTED_ROWS = 2500  # several of the model's 1,000-row prediction chunks


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("predictions")
    train, test = write_train_and_test(folder, *regression_rows(PREDICTED_ROWS + 40, seed=1), train_rows=40)
    assert main(["fit", train, "--target", "price", "--out", str(folder / "run"), "--iterations", "20"]) == 0
    return str(folder / "run"), test


def whole_file(run, path):
    reader = TableReader(path)
    batches = list(reader.batches())
    X = np.concatenate([run.preprocessing.inputs(batch, reader.name) for batch in batches])
    Y = np.concatenate([run.preprocessing.targets(batch, reader.name) for batch in batches])
    return X, Y


def test_predict_equals_the_models_predict_y(fitted, tmp_path, monkeypatch):
    run_dir, test = fitted
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 30_000)  # the file in several batches
    out = tmp_path / "p.csv"
    assert main(["predict", run_dir, test, "--out", str(out)]) == 0
    with open(out, newline="") as handle:
        written = np.array(list(csv.reader(handle))[1:], dtype=float)
    run = load_run(run_dir)
    X, _ = whole_file(run, test)
    mean, variance = (t.numpy()[:, 0] for t in run.model.predict_y(X, seed=run.config.seed))
    scale, shift = run.preprocessing.target_std, run.preprocessing.target_mean
    assert written.shape == (PREDICTED_ROWS, 4)
    np.testing.assert_allclose(written[:, 0], mean * scale + shift, rtol=1e-10)
    np.testing.assert_allclose(written[:, 1] ** 2, variance * scale**2, rtol=1e-10)


def test_evaluate_equals_the_models_scores(fitted, capsys, monkeypatch):
    run_dir, test = fitted
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 30_000)
    assert main(["evaluate", run_dir, test, "--plot", test + ".png"]) == 0
    printed = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines() if line.strip())
    run = load_run(run_dir)
    X, Y = whole_file(run, test)
    scale, seed = run.preprocessing.target_std, run.config.seed
    log_density = run.model.predict_log_density((X, Y), seed=seed).numpy() - np.log(scale)
    mean = run.model.predict_y(X, seed=seed)[0].numpy()
    assert int(printed["rows"]) == PREDICTED_ROWS
    assert float(printed["log_likelihood"]) == pytest.approx(np.mean(log_density), abs=6e-5)
    assert float(printed["rmse"]) == pytest.approx(scale * np.sqrt(np.mean((mean - Y) ** 2)), abs=6e-5)
