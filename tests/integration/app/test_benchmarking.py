"""The papers' protocol as a library and as ``gpflow-deep benchmark``, its variants and the
``python -m benchmarks`` driver: resumable, summarised."""

import numpy as np
import pytest

from benchmarks import __main__ as driver
from benchmarks.experiments import protocol_variants
from gpflow_deep import datasets
from gpflow_deep.app.benchmark import PROTOCOL_MODELS, parse_splits, protocol, read_results, run_keys, summary_table
from gpflow_deep.app.cli.main import main
from gpflow_deep.builders import SoDDGPConfig, build_sod_dgp
from gpflow_deep.registry import PAPER_SOD_PATHS_AND_SUBSET
from gpflow_deep.training import fit

PAPER_SETTINGS = ["sgp", "dgp2", "dgp3", "dspp2", "rf2", "aep2", "sod2", "sod3"]


@pytest.mark.slow  # ~14 s
def test_benchmark_appends_each_split_and_resumes(tmp_path, capsys):
    results = tmp_path / "runs" / "results.jsonl"
    command = ["benchmark", "--models", "sgp", "--datasets", "boston", "--splits", "0,1", "--iterations", "5"]
    assert main(command + ["--results", str(results)]) == 0
    records = read_results(str(results))
    assert [(r["model"], r["dataset"], r["split"], r["iterations"]) for r in records] == [
        ("sgp", "boston", 0, 5),
        ("sgp", "boston", 1, 5),
    ]
    assert all(np.isfinite(r["test_log_likelihood"]) and r["test_rmse"] > 0 and r["machine"] for r in records)
    capsys.readouterr()
    assert main(command + ["--results", str(results)]) == 0  # nothing left to do: resumes, adds nothing
    out = capsys.readouterr().out
    assert "2 runs, 2 already in" in out and len(read_results(str(results))) == 2
    summary = (tmp_path / "runs" / "results_summary.md").read_text()
    mean = np.mean([r["test_log_likelihood"] for r in records])
    assert f"| boston | sgp | gpflow_deep | 5 | 10000 | float64 |  | 2 (0–1) | {mean:.2f} (" in summary


@pytest.mark.parametrize(
    "option, message",
    [
        (["--models", "dgp9"], "--models: unknown dgp9; choose from sgp, dgp2"),
        (["--datasets", "iris"], "--datasets: unknown iris"),
        (["--splits", "a-b"], "--splits: expected numbers and ranges"),
        (["--iterations", "0"], "--iterations must be a positive integer"),
    ],
)
def test_benchmark_rejects_bad_options_in_one_line(option, message, tmp_path, capsys):
    assert main(["benchmark", "--results", str(tmp_path / "r.jsonl"), *option]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and not (tmp_path / "r.jsonl").exists()


def test_paper_settings_per_model():
    # AEP: the public code's 1,000 epochs of minibatch 100 (boston has 455 training points: 5 batches)
    assert run_keys("aep2", "boston", 0) == dict(
        dataset="boston", model="aep2", implementation="gpflow_deep", split=0, iterations=5000, batch_size=100
    )
    assert run_keys("dgp2", "concrete", 3)["iterations"] == 20_000 and PROTOCOL_MODELS["rf2"].batch_size == 200
    assert run_keys("dgp2", "boston", 0, iterations=7, batch_size=50)["iterations"] == 7
    with pytest.raises(ValueError, match="unknown 'dgp9'"):
        run_keys("dgp9", "boston", 0)


def test_parse_splits():
    assert parse_splits("0-3,7") == [0, 1, 2, 3, 7]
    for bad in ("", "x", "-1"):
        with pytest.raises(ValueError, match="splits"):
            parse_splits(bad)


def test_summary_table_gives_mean_and_standard_error_per_setting():
    keys = dict(dataset="boston", model="dgp2", implementation="gpflow_deep", iterations=10, batch_size=10000)
    values = [-2.0, -2.2, -2.4]
    records = [
        dict(keys, split=s, test_log_likelihood=v, test_rmse=3.0, train_seconds=1.0) for s, v in enumerate(values)
    ]
    records.append(dict(keys, split=0, model="sgp", test_log_likelihood=-9.0, test_rmse=1.0, train_seconds=1.0))
    records.append(dict(keys, split=0, seconds_per_step=0.1))  # a speed record: skipped
    records.append(
        dict(keys, split=1, float_type="float32", test_log_likelihood=-5.0, test_rmse=1.0, train_seconds=1.0)
    )
    records.insert(0, dict(keys, split=2, test_log_likelihood=-7.0, test_rmse=1.0, train_seconds=1.0))  # run again
    lines = summary_table(records).splitlines()
    error = np.std(values, ddof=1) / np.sqrt(3)
    assert len(lines) == 5
    assert f"| float64 |  | 3 (0–2) | -2.20 ({error:.2f}) | 3.00 (0.00) | – | 1 |" in lines[2]
    assert "| float32 |  | 1 (1–1) | -5.00 (nan)" in lines[3]
    assert "| sgp |" in lines[4] and "-9.00 (nan)" in lines[4]


def test_held_out_variants_fit_five_sixths_stop_on_the_sixth_and_keep_the_papers_subset(monkeypatch):
    fitted = []

    def recording_fit(model, data, iterations, **options):
        held_out = options["validation_data"]
        fitted.append((data[0], held_out[0], options["monitor_every"], options["patience"]))
        return fit(model, data, iterations, **options)

    monkeypatch.setattr(protocol, "fit", recording_fit)
    record = protocol_variants.run_split("sod2-held-out", "concrete", 0, iterations=5)
    ((X_fit, X_held_out, every, patience),) = fitted
    assert (len(X_fit), len(X_held_out), every, patience) == (772, 155, 500, 6)  # concrete's 927 training rows

    def sorted_rows(X):
        return X[np.lexsort(X.T)]

    training_part = datasets.uci_split(datasets.load("concrete"), 0).X_train  # together, exactly the split's rows
    assert np.array_equal(sorted_rows(np.concatenate([X_fit, X_held_out])), sorted_rows(training_part))
    # the subset size of the whole split (927 points: 100), not of the 772 fitted (50)
    assert record["subset_size"] == 100 and record["best_iteration"] == 5 and record["stopped_at"] == 5


def test_the_protocol_steps_every_model_at_the_papers_constant_rate_whatever_its_default(monkeypatch):
    """AEPDGP anneals 0.7 of its step by default; the papers' protocol keeps Adam at 0.01 throughout."""
    from gpflow_deep.models import AEPDGP

    assert AEPDGP.default_anneal > 0
    used = []

    def recording_fit(model, data, iterations, **options):
        used.append((options["learning_rate"], options.get("anneal")))  # None: the model's
        return fit(model, data, iterations, **options)

    monkeypatch.setattr(protocol, "fit", recording_fit)
    protocol.run_split("aep2", "boston", 0, iterations=2)
    assert used == [(protocol.PROTOCOL_LEARNING_RATE, 0.0)]


def test_dgp_on_the_sod_subset_keeps_the_first_layers_inducing_inputs_at_sods_points(monkeypatch):
    trained = []

    def inducing_inputs(layer):
        return layer.inducing_variable.inducing_variable.Z.numpy()  # shared by the layer's outputs

    def recording_fit(model, data, iterations, **options):
        first_Z, second_Z = (inducing_inputs(layer) for layer in model.layers[:2])
        result = fit(model, data, iterations, **options)
        trained.append((model, data[0], first_Z, second_Z))
        return result

    monkeypatch.setattr(protocol_variants, "fit", recording_fit)
    record = protocol_variants.run_split("dgp3-sod-subset", "boston", 0, iterations=3)
    ((model, X, first_Z, second_Z),) = trained
    sod = build_sod_dgp(X, X[:, :1], 3, record["subset_size"], seed=0)  # the SoD entry's subset
    assert record["subset_size"] == 50 and np.array_equal(first_Z, sod.subset_inputs.numpy())
    assert np.array_equal(inducing_inputs(model.layers[0]), first_Z)  # fixed in training
    assert not np.allclose(inducing_inputs(model.layers[1]), second_Z)  # deeper ones learned


def test_the_library_protocol_holds_the_papers_settings_and_the_variants_live_in_benchmarks(tmp_path, capsys):
    assert list(PROTOCOL_MODELS) == PAPER_SETTINGS
    assert not set(protocol_variants.RECIPES) & set(PROTOCOL_MODELS)
    assert main(["benchmark", "--models", "sod3-m100", "--results", str(tmp_path / "r.jsonl")]) == 1
    assert "unknown sod3-m100" in capsys.readouterr().err
    # a variant is its paper setting with one change, keyed as before
    m100 = protocol_variants.RECIPES["sod3-m100"]
    assert m100.builder == "build_sod_dgp" and dict(m100.builder_options) == dict(
        PAPER_SOD_PATHS_AND_SUBSET, subset_size=100, whiten=False
    )
    paper = SoDDGPConfig.paper()  # the protocol's SoD recipes keep the paper's T and small-data M
    assert PAPER_SOD_PATHS_AND_SUBSET == {field: getattr(paper, field) for field in PAPER_SOD_PATHS_AND_SUBSET}
    assert PROTOCOL_MODELS["sod2"].builder_options == PAPER_SOD_PATHS_AND_SUBSET
    assert protocol_variants.run_keys("sod3-m100", "boston", 0) == dict(
        dataset="boston", model="sod3-m100", implementation="gpflow_deep", split=0, iterations=20_000, batch_size=10_000
    )


def test_the_driver_runs_the_accuracy_suite_resumably_and_summarises(tmp_path, capsys):
    results = str(tmp_path / "uci.jsonl")
    command = ["accuracy", "--dataset", "boston", "--model", "dgp3-m50", "--splits", "0", "--iterations", "3"]
    assert driver.main(command + ["--results", results]) == 0
    assert driver.main(command + ["--results", results]) == 0
    assert "split 0: already in" in capsys.readouterr().out
    (record,) = read_results(results)
    assert (record["model"], record["iterations"], record["batch_size"]) == ("dgp3-m50", 3, 10_000)
    assert record["command"] and record["machine"]
    assert driver.main(["summarize", results]) == 0
    assert "| boston | dgp3-m50 | gpflow_deep | 3 | 10000 |" in capsys.readouterr().out


@pytest.mark.parametrize("entry", sorted(driver.ENTRIES))
def test_every_driver_entry_imports_and_has_help(entry, capsys):
    with pytest.raises(SystemExit) as finished:
        driver.main([entry, "--help"])
    assert finished.value.code == 0 and "usage: python -m benchmarks " + entry in capsys.readouterr().out


def test_the_driver_lists_its_entries_and_refuses_unknown_ones(capsys):
    assert driver.main([]) == 0
    out = capsys.readouterr().out
    assert all(entry in out for entry in driver.ENTRIES)
    assert driver.main(["uci"]) == 2 and "unknown entry 'uci'" in capsys.readouterr().err
