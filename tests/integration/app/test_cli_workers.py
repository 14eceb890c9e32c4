"""``gpflow-deep fit --cluster ... --worker-index I``: one run over several processes."""

import json
import os
import subprocess
import sys

import pytest
from fixtures.network import free_ports
from fixtures.tables import regression_rows, write_csv

from gpflow_deep.app.cli.main import main
from gpflow_deep.app.workers import TF_CONFIG, cluster_workers


def fit_arguments(data, out, *options):
    return ["fit", data, "--target", "price", "--out", str(out), "--likelihood", "gaussian", *options]


@pytest.mark.parametrize(
    "options, message",
    [
        (["--worker-index", "0"], "--cluster and --worker-index go together"),
        (["--cluster", "localhost:1,localhost:2"], "--cluster and --worker-index go together"),
        (["--cluster", "localhost,localhost:2", "--worker-index", "0"], "'localhost' is not HOST:PORT"),
        (["--cluster", "localhost:1,localhost:1", "--worker-index", "0"], "lists a worker twice"),
        (["--cluster", "localhost:1,localhost:2", "--worker-index", "2"], "--worker-index must be in 0..1"),
        (
            ["--cluster", "localhost:1,localhost:2", "--worker-index", "0", "--time-budget", "10m"],
            "--iterations or --epochs",
        ),
    ],
)
def test_bad_cluster_options_are_one_line_errors(tmp_path, capsys, options, message):
    data = write_csv(tmp_path / "houses.csv", *regression_rows(20))
    assert main(fit_arguments(data, tmp_path / "run", "--iterations", "2", *options)) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "config, message",
    [
        ("not json", "TF_CONFIG is not a cluster of workers"),
        (
            json.dumps({"cluster": {"worker": ["a:1"], "ps": ["b:2"]}, "task": {"type": "worker", "index": 0}}),
            "workers only",
        ),
        (json.dumps({"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 5}}), "in 0..1"),
    ],
)
def test_a_bad_tf_config_is_refused(monkeypatch, config, message):
    monkeypatch.setenv(TF_CONFIG, config)
    with pytest.raises(Exception, match=message):
        cluster_workers(None, None)


def test_no_cluster_without_options_or_tf_config(monkeypatch):
    monkeypatch.delenv(TF_CONFIG, raising=False)
    assert cluster_workers(None, None) is None


@pytest.mark.slow
def test_two_workers_train_one_run(tmp_path):
    """Two worker processes on localhost train the same run: they report the same final objective,
    and only the chief writes the run directory, which predicts."""
    data = write_csv(tmp_path / "houses.csv", *regression_rows(60))
    cluster = ",".join(f"localhost:{port}" for port in free_ports(2))
    environment = {key: value for key, value in os.environ.items() if key != TF_CONFIG}
    launcher = "import sys; from gpflow_deep.app.cli import main; sys.exit(main())"
    options = ["--iterations", "6", "--batch-size", "16", "--cluster", cluster]
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                launcher,
                *fit_arguments(data, tmp_path / "run", *options, "--worker-index", str(i)),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        for i in range(2)
    ]
    outputs = [worker.communicate(timeout=300) for worker in workers]
    for worker, (out, err) in zip(workers, outputs):
        assert worker.returncode == 0, err
    finals = [next(line for line in out.splitlines() if "final objective" in line) for out, _ in outputs]
    assert finals[0].split("final objective")[1] == finals[1].split("final objective")[1]
    assert "worker 0 of 2" in outputs[0][0] and "worker 1 of 2" in outputs[1][0]
    assert {"config.json", "preprocessing.json", "parameters"} <= set(os.listdir(tmp_path / "run"))
    assert sorted(os.listdir(tmp_path)) == ["houses.csv", "run"]
    predictions = tmp_path / "predictions.csv"
    assert main(["predict", str(tmp_path / "run"), data, "--out", str(predictions)]) == 0
    assert len(predictions.read_text().splitlines()) == 61
