"""``gpflow-deep fit``'s defaults: the likelihood chosen for the target, minibatches of 1,000 rows
above 1,000, and a training length bounded in time on every table."""

import argparse
import json

import gpflow
import numpy as np
import pytest
from fixtures.tables import classification_rows, regression_rows, write_csv

from gpflow_deep.app.cli import fit as fit_command
from gpflow_deep.app.cli import fit_plan
from gpflow_deep.app.cli.fit_plan import plan_training
from gpflow_deep.app.cli.main import main


def options(**given):
    chosen = dict(model="deep_gp", batch_size=None, iterations=None, epochs=None, time_budget=None)
    return argparse.Namespace(**{**chosen, **given})


def heavy_tailed_table(path, rows: int = 300, seed: int = 0) -> str:
    """(x1, x2, y): y a smooth function plus 0.3 × Student-t noise with 2 degrees of freedom."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (rows, 2))
    y = np.sin(2 * X[:, 0]) + X[:, 1] + 0.3 * rng.standard_t(2, rows)
    return write_csv(path, ["x1", "x2", "y"], [[f"{a:.5f}", f"{b:.5f}", f"{c:.5f}"] for (a, b), c in zip(X, y)])


def test_a_streamed_table_trains_50_epochs_or_10_minutes_by_default():
    plan = plan_training(options(), 300_000)
    assert (plan.batch_size, plan.iterations, plan.time_budget, plan.streamed) == (1_000, 15_000, 600.0, True)
    assert plan.describe(batch_given=False) == (
        "training: minibatches of 1,000 rows (300,000 training rows, read from disk) [default above 1,000 "
        "rows], 15,000 iterations (50 epochs) or 10 min, whichever comes first "
        "[default]"
    )


@pytest.mark.parametrize(
    "rows, iterations", [(10_001, 10_000), (200_000, 10_000), (200_999, 10_000), (210_000, 10_500)]
)
def test_a_streamed_table_takes_at_least_10000_steps(rows, iterations):
    assert plan_training(options(), rows).iterations == iterations
    assert plan_training(options(batch_size=500), rows).iterations == max(10_000, 50 * (rows // 500))


def test_a_small_table_keeps_full_batch_and_2000_steps_or_10_minutes():
    plan = plan_training(options(), 1_000)
    assert (plan.batch_size, plan.iterations, plan.time_budget, plan.streamed) == (None, 2000, 600.0, False)
    assert plan.describe(batch_given=False) == (
        "training: full batch (1,000 rows per step, in memory) [default up to 1,000 rows], "
        "2,000 iterations (2e+03 epochs) or 10 min, whichever comes first [default]"
    )


@pytest.mark.parametrize("rows", [1_001, 9_000, 10_000])
def test_a_table_held_in_memory_above_1000_rows_trains_2000_minibatches_of_1000(rows):
    plan = plan_training(options(), rows)
    assert (plan.batch_size, plan.iterations, plan.time_budget, plan.streamed) == (1_000, 2_000, 600.0, False)
    assert plan.describe(batch_given=False) == (
        f"training: minibatches of 1,000 rows ({rows:,} training rows, in memory) [default above 1,000 rows], "
        f"2,000 iterations ({2_000_000 / rows:.3g} epochs) or 10 min, whichever comes first [default]"
    )
    assert plan_training(options(batch_size=rows), rows).batch_size is None  # the full batch, asked for


@pytest.mark.parametrize(
    "given, iterations, budget, length",
    [
        (dict(iterations=50), 50, None, "50 iterations (0.167 epochs)"),
        (dict(epochs=2.0), 600, None, "600 iterations (2 epochs)"),
        (dict(time_budget="90s"), None, 90.0, "at most 90 s"),
        (dict(epochs=3.0, time_budget="2h"), 900, 7200.0, "900 iterations (3 epochs) or 2 h, whichever comes first"),
    ],
)
def test_a_given_length_replaces_the_default(given, iterations, budget, length):
    plan = plan_training(options(**given), 300_000)
    assert (plan.iterations, plan.time_budget) == (iterations, budget)
    assert plan.describe(batch_given=False).endswith(f"rows], {length}")


def test_the_default_time_bound_stops_a_streamed_fit_and_is_recorded(tmp_path, capsys, monkeypatch):
    for module in (fit_command, fit_plan):  # "streamed": more training rows than the sample holds
        monkeypatch.setattr(module, "IN_MEMORY_ROWS", 20)
    monkeypatch.setattr(fit_plan, "DEFAULT_SECONDS", 1.0)
    data = write_csv(tmp_path / "large.csv", *regression_rows(60))
    arguments = ["fit", data, "--target", "price", "--batch-size", "10", "--calibration-fraction", "0"]
    assert main(arguments + ["--out", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "10,000 iterations (1.67e+03 epochs) or 1 s, whichever comes first [default]" in out
    assert "choosing" not in out
    assert "likelihood: gaussian (20 rows are too few to choose; at least 100)" in out
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert (config["training"]["iterations"], config["training"]["time_budget"]) == (10_000, 1.0)
    assert json.loads((tmp_path / "run" / "training.json").read_text())["iterations"] < 10_000


def test_the_default_time_bound_stops_a_full_batch_fit(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(fit_plan, "DEFAULT_SECONDS", 1.0)
    data = write_csv(tmp_path / "small.csv", *regression_rows(60))
    assert main(["fit", data, "--target", "price", "--likelihood", "gaussian", "--out", str(tmp_path / "run")]) == 0
    assert "2,000 iterations (2e+03 epochs) or 1 s, whichever comes first [default]" in capsys.readouterr().out
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert (config["training"]["iterations"], config["training"]["time_budget"]) == (2000, 1.0)
    assert json.loads((tmp_path / "run" / "training.json").read_text())["iterations"] < 2000


def test_an_explicit_likelihood_skips_the_choice(tmp_path, capsys):
    data = heavy_tailed_table(tmp_path / "t.csv")
    arguments = ["fit", data, "--target", "y", "--likelihood", "gaussian", "--iterations", "3"]
    assert main(arguments + ["--out", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "likelihood:" not in out and "(2 layers, gaussian likelihood)" in out
    assert json.loads((tmp_path / "run" / "config.json").read_text())["likelihood"] == "gaussian"
    assert json.loads((tmp_path / "run" / "training.json").read_text())["likelihood_choice"] is None


def test_labels_are_classification_without_pilots(tmp_path, capsys):
    data = write_csv(tmp_path / "iris.csv", *classification_rows(40))
    assert main(["fit", data, "--target", "species", "--iterations", "3", "--out", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "likelihood: multiclass (target 'species' has 3 labels)" in out and "choosing" not in out
    assert json.loads((tmp_path / "run" / "config.json").read_text())["likelihood"] == "multiclass"


def test_a_gaussian_only_model_keeps_gaussian_without_pilots(tmp_path, capsys):
    data = heavy_tailed_table(tmp_path / "t.csv")
    arguments = ["fit", data, "--target", "y", "--model", "sod_dgp", "--iterations", "3"]
    assert main(arguments + ["--out", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "likelihood: gaussian (sod_dgp supports only a Gaussian likelihood)" in out and "choosing" not in out


@pytest.mark.slow  # two pilots and a fit: about 40 s of CPU
def test_the_chosen_likelihood_is_kept_and_restored_for_predict(tmp_path, capsys, monkeypatch):
    from gpflow_deep.app import likelihood_choice
    from gpflow_deep.app.run_directory import load_run

    monkeypatch.setattr(likelihood_choice, "PILOT_STEPS", 40)
    data = heavy_tailed_table(tmp_path / "t.csv")
    run_dir = tmp_path / "run"
    assert main(["fit", data, "--target", "y", "--iterations", "20", "--out", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "likelihood: studentt (held-out log-likelihood per row on 60 sample rows, 40 pilot steps each" in out
    assert "(2 layers, studentt likelihood)" in out
    summary = json.loads((run_dir / "training.json").read_text())["likelihood_choice"]
    assert summary["likelihood"] == "studentt" and summary["scores"]["studentt"] > summary["scores"]["gaussian"]
    for name in ("config.json", "preprocessing.json"):
        assert json.loads((run_dir / name).read_text())["likelihood"] == "studentt"
    assert isinstance(load_run(str(run_dir)).model.likelihood, gpflow.likelihoods.StudentT)
    assert main(["predict", str(run_dir), data, "--out", str(tmp_path / "p.csv")]) == 0
    assert len((tmp_path / "p.csv").read_text().splitlines()) == 301
    assert main(["evaluate", str(run_dir), data]) == 0
    assert "log_likelihood" in capsys.readouterr().out


@pytest.mark.parametrize(
    "model, given, used",
    [("aep_dgp", [], 0.003), ("random_feature_dgp", [], 0.003), ("deep_gp", [], 0.01), ("aep_dgp", ["0.02"], 0.02)],
)
def test_the_learning_rate_is_the_models_own_unless_given(tmp_path, model, given, used):
    data = write_csv(tmp_path / "t.csv", *regression_rows(40))
    arguments = ["fit", data, "--target", "price", "--model", model, "--iterations", "2", "--likelihood", "gaussian"]
    arguments += ["--learning-rate", *given] if given else []
    assert main(arguments + ["--calibration-fraction", "0", "--out", str(tmp_path / "run")]) == 0
    assert json.loads((tmp_path / "run" / "config.json").read_text())["training"]["learning_rate"] == used


@pytest.mark.parametrize(
    "model, given, share",
    [
        ("random_feature_dgp", [], 0.7),
        ("aep_dgp", [], 0.7),
        ("deep_gp", [], 0.0),
        ("deep_gp", ["--anneal"], 1.0),
        ("random_feature_dgp", ["--anneal", "0"], 0.0),
        ("aep_dgp", ["--anneal", "0"], 0.0),
        ("aep_dgp", ["--time-budget", "1h"], 0.7),
    ],
)
def test_the_step_is_annealed_by_the_models_share_unless_given(tmp_path, model, given, share):
    data = write_csv(tmp_path / "t.csv", *regression_rows(40))
    arguments = ["fit", data, "--target", "price", "--model", model, "--iterations", "2", "--likelihood", "gaussian"]
    assert main(arguments + given + ["--calibration-fraction", "0", "--out", str(tmp_path / "run")]) == 0
    assert json.loads((tmp_path / "run" / "config.json").read_text())["training"]["anneal"] == share


def test_a_time_bound_alone_keeps_the_default_step_constant_and_refuses_a_share(tmp_path, capsys):
    data = write_csv(tmp_path / "t.csv", *regression_rows(40))
    arguments = ["fit", data, "--target", "price", "--model", "aep_dgp", "--time-budget", "1s"]
    assert main(arguments + ["--likelihood", "gaussian", "--out", str(tmp_path / "run")]) == 0
    assert json.loads((tmp_path / "run" / "config.json").read_text())["training"]["anneal"] == 0.0
    assert main(arguments + ["--anneal", "--out", str(tmp_path / "again")]) != 0
    assert "--anneal: anneal=1.0 needs the iterations to anneal over" in capsys.readouterr().err


@pytest.mark.parametrize("given", [["1.5"], ["t.csv"]])
def test_anneal_takes_a_share_and_says_so_of_anything_else(tmp_path, capsys, given):
    data = write_csv(tmp_path / "t.csv", *regression_rows(40))
    assert main(["fit", "--anneal", *given, data, "--target", "price", "--out", str(tmp_path / "run")]) == 2
    assert f"argument --anneal: '{given[0]}' is not a share in [0, 1] (e.g. 0.7)" in capsys.readouterr().err


def test_the_learning_rate_help_names_the_models_defaults(capsys):
    from gpflow_deep.models import AEPDGP, DeepGP, RandomFeatureDGP

    assert main(["fit", "--help"]) == 0
    words = " ".join(capsys.readouterr().out.split())  # the help, unwrapped
    assert AEPDGP.default_learning_rate == RandomFeatureDGP.default_learning_rate
    rates = f"the model's: {DeepGP.default_learning_rate:g}; aep_dgp and random_feature_dgp"
    assert f"{rates} {AEPDGP.default_learning_rate:g})" in words
    assert AEPDGP.default_anneal == RandomFeatureDGP.default_anneal
    shares = f"the model's where it can: {DeepGP.default_anneal:g}; aep_dgp and random_feature_dgp"
    assert f"{shares} {AEPDGP.default_anneal:g};" in words
