"""The calibration benchmark's scoring and its summary: the figures issue 34's tables are read from."""

import json

import numpy as np
import pytest
from scipy.stats import norm

from benchmarks.experiments.worst_points import nearest_distances, per_row
from benchmarks.suites.calibration import _scored, trained
from benchmarks.suites.calibration_summary import grouped, paired_table, pit_table, reference_table, row, split_table
from gpflow_deep.app.benchmark import read_results


def test_one_gaussian_per_point_scores_its_own_density_and_coverage():
    rng = np.random.default_rng(0)
    mean, std = rng.normal(size=(200, 1)), rng.uniform(0.5, 2.0, size=(200, 1))
    y = mean + std * rng.standard_normal((200, 1))
    record = _scored(y, [(slice(None), mean[None], std[None] ** 2, np.zeros(1))])
    assert record["log_likelihood"] == pytest.approx(np.mean(norm.logpdf(y, mean, std)), rel=1e-10)
    assert record["rmse"] == pytest.approx(np.sqrt(np.mean((y - mean) ** 2)), rel=1e-10)
    inside = np.abs(y - mean) <= norm.ppf(0.95) * std
    assert record["coverage_90"] == pytest.approx(np.mean(inside))
    assert sum(record["pit_histogram"]) == 200


def test_an_exact_density_replaces_the_mixture_s_own():
    y, means, variances = np.zeros((3, 1)), np.zeros((1, 3, 1)), np.ones((1, 3, 1))
    exact = np.array([-1.0, -2.0, -3.0])
    assert _scored(y, [(slice(None), means, variances, np.zeros(1))], exact)["log_likelihood"] == pytest.approx(-2.0)


def test_per_row_scores_are_the_mixture_s_density_and_mean_at_each_row():
    rng = np.random.default_rng(1)
    means, variances = rng.normal(size=(2, 5, 1)), rng.uniform(0.5, 2.0, size=(2, 5, 1))
    weights = np.array([0.3, 0.7])
    y = rng.normal(size=(5, 1))
    chunks = [(slice(0, 2), means[:, :2], variances[:, :2], np.log(weights))]
    chunks.append((slice(2, 5), means[:, 2:], variances[:, 2:], np.log(weights)))
    log_density, mean, std = per_row(chunks, y)
    density = weights @ norm.pdf(y[:, 0], means[..., 0], np.sqrt(variances[..., 0]))
    np.testing.assert_allclose(log_density, np.log(density), rtol=1e-12)
    np.testing.assert_allclose(mean, weights @ means[..., 0], rtol=1e-12)
    second_moment = weights @ (variances[..., 0] + means[..., 0] ** 2)
    np.testing.assert_allclose(std, np.sqrt(second_moment - mean**2), rtol=1e-10)


def test_the_nearest_training_row_distance_is_the_direct_minimum():
    rng = np.random.default_rng(2)
    X_test, X_train = rng.normal(size=(7, 3)), rng.normal(size=(20, 3))
    direct = np.min(np.linalg.norm(X_test[:, None] - X_train[None], axis=-1), axis=1)
    np.testing.assert_allclose(nearest_distances(X_test, X_train), direct, rtol=1e-10)
    assert nearest_distances(X_train[:2], X_train)[0] == pytest.approx(0.0, abs=1e-7)


TODAY = "2099-01-01 00:00:00"


def _record(split, log_likelihood, coverage_90, dataset="boston", fraction=0.0, **extra):
    """A record of ``build_deep_gp`` (by default of its defaults today: dated after every change)."""
    extra.setdefault("date", TODAY)
    coverage = {f"coverage_{level}": coverage_90 for level in (50, 80, 90, 95)}
    return dict(
        builder="build_deep_gp",
        dataset=dataset,
        split=split,
        steps=3000,
        calibration_fraction=fraction,
        log_likelihood=log_likelihood,
        **coverage,
        **extra,
    )


def test_the_summary_keeps_the_latest_run_of_each_split_and_reads_the_bars():
    records = [_record(1000, -9.0, 0.5), _record(1000, -2.2, 0.9), _record(1001, -2.6, 0.92), _record(1002, -2.9, 0.88)]
    records.append(_record(1001, -2.0, 0.9) | {"steps": 100})
    groups = grouped(records, splits=None, steps=3000)
    [(key, runs)] = groups.items()
    assert key == ("build_deep_gp", "boston", "default", 0.0)
    assert [run["split"] for run in runs] == [1000, 1001, 1002]
    line = row(key, runs)
    scores = np.array([-2.2, -2.6, -2.9])
    assert f"{scores.mean():.3f} ({scores.std(ddof=1) / np.sqrt(3):.3f})" in line
    assert "-2.900 (1002)" in line and "3 (1000–1002)" in line
    assert "mean not met, worst not met, 90% within 0.87–0.93" in line


def test_a_row_gives_the_mean_rmse_and_leaves_it_blank_where_a_record_has_none():
    runs = [_record(1000, -2.2, 0.9, rmse=2.5), _record(1001, -2.4, 0.9, rmse=3.0)]
    [(key, grouped_runs)] = grouped(runs, splits=None, steps=3000).items()
    assert "| -2.400 (1001) | 2.75 | " in row(key, grouped_runs)
    assert "| -2.400 (1001) |  | " in row(key, [grouped_runs[0], _record(1001, -2.4, 0.9)])


def test_a_row_names_separate_sets_of_splits_as_runs():
    splits = [1000, 1001, 1002, 1005, 3000, 3001]
    records = [_record(split, -2.2, 0.9) for split in splits]
    [(key, runs)] = grouped(records, splits=None, steps=3000).items()
    assert "| 6 (1000–1002, 1005, 3000–3001) |" in row(key, runs)


def test_the_summary_reads_several_result_files_as_one(tmp_path, capsys):
    from benchmarks.suites.calibration_summary import main

    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text(
        "".join(json.dumps(_record(1000 + i, -2.0 - i / 10, 0.9, pit_histogram=[1] * 10)) + "\n" for i in range(2))
    )
    second.write_text(json.dumps(_record(1002, -2.6, 0.9, pit_histogram=[1] * 10)) + "\n")
    assert main(["--results", str(first), str(second), "--splits", "1000-1002"]) == 0
    scores = np.array([-2.0, -2.1, -2.6])
    mean = f"{scores.mean():.3f} ({scores.std(ddof=1) / np.sqrt(3):.3f})"
    assert f"| 3 (1000–1002) | {mean} | -2.600 (1002) |" in capsys.readouterr().out


def test_against_pairs_every_run_with_a_builder_s_defaults(tmp_path, capsys):
    from benchmarks.suites.calibration_summary import main

    runs = [_record(1000, -2.3, 0.9), _record(1001, -2.5, 0.9)]
    runs += [
        _record(1000, -2.4, 0.9) | {"builder": "build_sod_dgp"},
        _record(1001, -2.7, 0.9) | {"builder": "build_sod_dgp"},
    ]
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(run | {"pit_histogram": [1] * 10}) + "\n" for run in runs))
    assert main(["--results", str(path), "--against", "build_deep_gp"]) == 0
    printed = capsys.readouterr().out.split("test log-lik, builder − deep_gp (s.e.)")[1]
    assert "| sod_dgp | boston | default | 2 | -0.150 (0.050) | 0 of 2 |" in printed
    assert "| deep_gp | boston" not in printed


def test_the_pit_table_sums_the_uncalibrated_histograms():
    histograms = ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
    runs = [_record(1000 + i, -2.3, 0.9, pit_histogram=h) for i, h in enumerate(histograms)]
    calibrated = [_record(1000, -2.3, 0.9, fraction=0.2, pit_histogram=[1] * 10)]
    lines = pit_table(grouped(runs + calibrated, splits=None, steps=3000)).splitlines()
    assert len(lines) == 3  # the header, its rule and one row: the calibrated run has none
    assert lines[2] == "| deep_gp | boston | default | 2 | 90 | 9, 9, 9, 9, 9, 9, 9, 9, 9, 9 | 9.0 | 0.0 |"


def test_the_pit_table_gives_pearson_s_chi_square_against_flat():
    counts = [3, 7, 5, 5, 5, 5, 5, 5, 5, 5]  # 50 targets, 5 expected per tenth: (4 + 4) / 5 = 1.6
    runs = [_record(1000, -2.3, 0.9, pit_histogram=counts)]
    [line] = pit_table(grouped(runs, splits=None, steps=3000)).splitlines()[2:]
    assert line.endswith("| 5.0 | 1.6 |")


def test_the_split_table_has_a_column_per_split_and_leaves_unrun_ones_empty():
    runs = [_record(1000, -2.345, 0.9), _record(1002, -2.5, 0.875), _record(1000, -3.0, 0.85, dataset="concrete")]
    runs.append(_record(1001, -2.2, 0.9, fraction=0.2))  # calibrated: not in this table
    lines = split_table(grouped(runs, splits=None, steps=3000)).splitlines()
    assert lines[0] == "| builder | data set | likelihood | 1000 | 1002 |"
    assert lines[2] == "| deep_gp | boston | default | -2.35 (0.90) | -2.50 (0.88) |"
    assert lines[3] == "| deep_gp | concrete | default | -3.00 (0.85) |  |"


def test_a_calibrated_run_is_read_against_nominal_within_two_points():
    values = (0.5, 0.8, 0.91, 0.95)
    calibrated = {f"calibrated_coverage_{level}": value for level, value in zip((50, 80, 90, 95), values)}
    runs = [_record(split, -3.0, 0.8, dataset="concrete", fraction=0.2, **calibrated) for split in (1000, 1003)]
    [(key, grouped_runs)] = grouped(runs, splits=[1000, 1003], steps=3000).items()
    line = row(key, grouped_runs)
    assert "2 (1000, 1003)" in line and "calibrated 0.500 / 0.800 / 0.910 / 0.950" in line
    assert "mean met, worst met, calibrated every level within ±0.02" in line
    short = [run | {"calibrated_coverage_80": 0.775} for run in grouped_runs]
    assert row(key, short).endswith("mean met, worst met, calibrated 80% outside ±0.02 |")


def test_a_floored_likelihood_keeps_its_noise_above_the_floor():
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((60, 2)), rng.standard_normal((60, 1))
    model = trained("build_random_feature_dgp", X, Y, steps=1, seed=0, likelihood="floored")
    variance = model.likelihood.variance
    variance.unconstrained_variable.assign(-50.0)  # as far down as training could push it
    assert float(variance.numpy()) == pytest.approx(0.05)


def test_a_variant_of_the_defaults_is_a_row_of_its_own_named_by_its_options():
    runs = [_record(2000, -2.5, 0.9), _record(2000, -2.7, 0.9, options={"num_features": 300})]
    groups = grouped(runs, splits=None, steps=3000)
    assert sorted(key[0] for key in groups) == ["build_deep_gp", 'build_deep_gp {"num_features": 300}']
    [variant] = [runs for key, runs in groups.items() if "num_features" in key[0]]
    assert [run["log_likelihood"] for run in variant] == [-2.7]


def test_the_options_reach_the_builder():
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((40, 2)), rng.standard_normal((40, 1))
    model = trained("build_random_feature_dgp", X, Y, steps=1, seed=0, options={"num_features": 7})
    assert model.layers[0].w_mean.shape[0] == 2 * 7  # a cosine and a sine per feature


def test_a_run_stopped_on_held_out_rows_records_its_best_check(tmp_path):
    from benchmarks.suites.calibration import main

    results = str(tmp_path / "runs.jsonl")
    argv = [
        "--builders",
        "random_feature_dgp",
        "--datasets",
        "boston",
        "--splits",
        "7",
        "--steps",
        "300",
        "--threads",
        "0",
    ]
    main(argv + ["--validation-fraction", "0.2", "--patience", "1", "--results", results])
    [record] = read_results(results)
    assert record["validation_fraction"] == 0.2 and record["patience"] == 1
    assert record["best_iteration"] in (100, 200, 300)  # a check every 100 steps
    [key] = grouped([record], splits=None, steps=300)
    assert key[0] == "build_random_feature_dgp stopped on 0.2 held out, 300 steps at most"
    with pytest.raises(SystemExit):  # held-out rows for one end at a time
        main(argv + ["--validation-fraction", "0.2", "--calibration-fraction", "0.2", "--results", results])


def test_a_record_of_a_builder_s_older_defaults_is_a_row_of_its_own_and_is_run_again(tmp_path, monkeypatch):
    from benchmarks import defaults_history
    from benchmarks.suites import calibration

    change = defaults_history.DefaultsChange("2026-11-27 03:54:39", ("subset_size", "num_samples"), "M = 50, T = 10")
    monkeypatch.setitem(defaults_history.DEFAULTS_CHANGES, "build_deep_gp", (change,))
    before, after = "2026-11-26 10:00:00", "2026-11-27 04:00:00"
    both_fields = {"subset_size": 100, "num_samples": 3}  # a variant setting both: the same model either side
    runs = [
        _record(1000, -2.5, 0.9, date=before),
        _record(1000, -2.4, 0.9, date=after),
        _record(1000, -2.6, 0.9, date=before, options={"subset_size": 100}),
        _record(1000, -2.3, 0.9, date=before, options=both_fields),
    ]
    names = sorted(key[0] for key in grouped(runs, splits=None, steps=3000))
    assert names == [
        "build_deep_gp",
        "build_deep_gp (older defaults: M = 50, T = 10)",
        'build_deep_gp {"num_samples": 3, "subset_size": 100}',
        'build_deep_gp {"subset_size": 100} (older defaults: M = 50, T = 10)',
    ]
    results = tmp_path / "runs.jsonl"
    results.write_text("".join(json.dumps(run) + "\n" for run in runs[:1]))
    ran = []
    monkeypatch.setattr(
        calibration,
        "run",
        lambda builder, dataset, split, args: ran.append(split) or runs[1] | dict(rmse=1.0, seconds=1.0),
    )
    argv = ["--builders", "deep_gp", "--datasets", "boston", "--splits", "1000", "--threads", "0"]
    calibration.main(argv + ["--results", str(results)])
    assert ran == [1000]  # the split's only record is of the older defaults: run again
    calibration.main(argv + ["--results", str(results)])
    assert ran == [1000]  # now done


def test_a_record_older_than_two_changes_names_both_and_a_change_confined_to_some_tables_spares_the_others(
    monkeypatch,
):
    from benchmarks import defaults_history

    changes = (
        defaults_history.DefaultsChange("2026-11-27 00:00:00", ("learning_rate",), "Adam at 0.01"),
        defaults_history.DefaultsChange("2026-11-28 00:00:00", ("noise",), "noise at 1%", ("cps1985",)),
    )
    monkeypatch.setitem(defaults_history.DEFAULTS_CHANGES, "build_deep_gp", changes)
    first, between = "2026-11-26 10:00:00", "2026-11-27 10:00:00"
    assert defaults_history.older_defaults(_record(1, -2.5, 0.9, dataset="cps1985", date=first)) == (
        "Adam at 0.01; noise at 1%"
    )
    assert defaults_history.older_defaults(_record(1, -2.5, 0.9, dataset="boston", date=first)) == "Adam at 0.01"
    assert defaults_history.older_defaults(_record(1, -2.5, 0.9, dataset="cps1985", date=between)) == "noise at 1%"
    assert defaults_history.older_defaults(_record(1, -2.5, 0.9, dataset="boston", date=between)) == ""
    assert (
        defaults_history.older_defaults(_record(1, -2.5, 0.9, dataset="cps1985", date=between, options={"noise": 1}))
        == ""
    )


def test_a_record_that_set_todays_annealed_share_before_it_became_the_default_is_of_todays_defaults(
    tmp_path, monkeypatch
):
    from benchmarks.defaults_history import DEFAULTS_CHANGES
    from benchmarks.suites import calibration
    from gpflow_deep.models import AEPDGP

    [change] = [c for c in DEFAULTS_CHANGES["build_aep_dgp"] if c.fields == ("anneal",)]
    before = "2026-12-01 08:00:00"
    assert before < change.date
    records = [_record(1, -2.5, 0.9, date=before), _record(1, -2.4, 0.9, date=before, anneal=AEPDGP.default_anneal)]
    records.append(_record(1, -2.6, 0.9, date=before, anneal=0.3))
    for record in records:
        record["builder"] = "build_aep_dgp"
    labels = [key[0] for key in grouped(records, splits=None, steps=3000)]
    assert labels == [
        "build_aep_dgp",
        "build_aep_dgp (older defaults: a constant Adam step)",
        "build_aep_dgp with 0.3 of Adam's step annealed",
    ]
    results = tmp_path / "runs.jsonl"
    results.write_text("".join(json.dumps(record) + "\n" for record in records[1:]))
    ran = []
    fresh = records[0] | dict(rmse=1.0, seconds=1.0)
    monkeypatch.setattr(
        calibration, "run", lambda builder, dataset, split, args: ran.append((split, args.anneal)) or fresh
    )
    argv = ["--builders", "aep_dgp", "--datasets", "boston", "--splits", "1,2", "--threads", "0", "--steps", "3000"]
    calibration.main(argv + ["--results", str(results)])
    assert ran == [(2, None)]  # split 1's run at today's share is done


def test_a_record_of_todays_defaults_counts_as_done_for_its_models_share_given_explicitly(tmp_path, monkeypatch):
    """A record made after a model's share changed has no ``anneal`` field (the model's own share
    ran): ``--anneal`` of that share skips its split, any other share runs it."""
    from benchmarks.defaults_history import DEFAULTS_CHANGES
    from benchmarks.suites import calibration
    from gpflow_deep.models import AEPDGP

    [change] = [c for c in DEFAULTS_CHANGES["build_aep_dgp"] if c.fields == ("anneal",)]
    today = _record(1, -2.5, 0.9, date="2026-12-31 00:00:00") | dict(builder="build_aep_dgp")
    assert today["date"] > change.date and "anneal" not in today
    results = tmp_path / "runs.jsonl"
    results.write_text(json.dumps(today) + "\n")
    ran = []
    fresh = today | dict(rmse=1.0, seconds=1.0)
    monkeypatch.setattr(
        calibration, "run", lambda builder, dataset, split, args: ran.append((split, args.anneal)) or fresh
    )
    argv = ["--builders", "aep_dgp", "--datasets", "boston", "--splits", "1,2", "--threads", "0", "--steps", "3000"]
    calibration.main(argv + ["--anneal", f"{AEPDGP.default_anneal:g}", "--results", str(tmp_path / "a.jsonl")])
    assert ran == [(1, AEPDGP.default_anneal), (2, AEPDGP.default_anneal)], "a file without the record runs both"
    ran.clear()
    calibration.main(argv + ["--anneal", f"{AEPDGP.default_anneal:g}", "--results", str(results)])
    assert ran == [(2, AEPDGP.default_anneal)]
    ran.clear()
    calibration.main(argv + ["--anneal", "0", "--results", str(results)])
    assert ran == [(1, 0.0), (2, 0.0)]


def test_a_learning_rate_variant_trains_at_its_rate_and_is_a_row_of_its_own(tmp_path, monkeypatch):
    import gpflow_deep as gd
    from benchmarks.suites import calibration

    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((40, 2)), rng.standard_normal((40, 1))
    start = gd.build_random_feature_dgp(X, Y).likelihood.scale.unconstrained_variable.numpy()
    for rate in (0.003, 0.02):  # Adam's first step moves every parameter by the rate (g / |g|)
        model = trained("build_random_feature_dgp", X, Y, steps=1, seed=0, learning_rate=rate)
        step = model.likelihood.scale.unconstrained_variable.numpy() - start
        assert abs(step) == pytest.approx(rate, rel=1e-3)
    runs = [_record(2000, -2.5, 0.9), _record(2000, -2.4, 0.9, learning_rate=0.003)]
    assert sorted(key[0] for key in grouped(runs, splits=None, steps=3000)) == [
        "build_deep_gp",
        "build_deep_gp at Adam 0.003",
    ]
    results = tmp_path / "runs.jsonl"
    results.write_text(json.dumps(runs[0]) + "\n")  # the defaults' record does not count as the variant's
    monkeypatch.setattr(calibration, "run", lambda builder, dataset, split, args: runs[0] | dict(rmse=1.0, seconds=1.0))
    argv = ["--builders", "deep_gp", "--datasets", "boston", "--splits", "2000", "--threads", "0"]
    calibration.main(argv + ["--learning-rate", "0.003", "--results", str(results)])
    assert len(read_results(str(results))) == 2
    with pytest.raises(SystemExit):
        calibration.main(argv + ["--learning-rate", "-1", "--results", str(results)])


def test_a_variant_is_paired_split_by_split_with_the_defaults_of_its_time(monkeypatch):
    from benchmarks import defaults_history

    change = defaults_history.DefaultsChange("2026-11-27 03:54:39", ("num_samples",), "T = 10")
    monkeypatch.setitem(defaults_history.DEFAULTS_CHANGES, "build_deep_gp", (change,))
    before, after = "2026-11-26 10:00:00", "2026-11-27 04:00:00"
    runs = [_record(s, ll, 0.9, date=after) for s, ll in ((1, -2.5), (2, -2.6), (3, -2.7))]
    runs += [_record(s, ll, 0.9, date=after, options={"a": 1}) for s, ll in ((1, -2.4), (2, -2.7), (3, -2.5))]
    runs += [_record(s, ll, 0.9, date=before) for s, ll in ((2, -2.8), (3, -2.6))]  # older defaults
    runs += [_record(s, -3.0, 0.9, date=before, likelihood="floored") for s in (2, 3)]
    lines = paired_table(grouped(runs, splits=None, steps=3000)).splitlines()[2:]
    by_name = {line.split(" | ")[0].removeprefix("| "): line for line in lines}
    error = np.std([0.1, -0.1, 0.2], ddof=1) / np.sqrt(3)
    assert by_name['deep_gp {"a": 1}'].endswith(f"| 3 | +0.067 ({error:.3f}) | 2 of 3 |")
    assert by_name["deep_gp (older defaults: T = 10)"].endswith("| 2 | -0.050 (0.150) | 1 of 2 |")
    # a variant of the older defaults is read against them, not against today's
    floored = by_name["deep_gp (older defaults: T = 10), floored likelihood"]
    assert floored.endswith("| 2 | -0.300 (0.100) | 0 of 2 |")
    assert len(lines) == 3  # the current defaults are no variant of themselves


def test_every_uncalibrated_run_is_paired_with_the_exact_gp_on_the_splits_both_ran():
    runs = [_record(s, ll, 0.9) for s, ll in ((1, -2.5), (2, -2.6), (3, -2.7), (4, -2.0))]
    runs += [_record(s, ll, 0.9) | {"builder": "exact_gp"} for s, ll in ((1, -2.4), (2, -2.8), (3, -2.9))]
    runs += [_record(s, -2.0, 0.9, fraction=0.2) for s in (1, 2, 3)]  # calibrated: not paired
    runs += [_record(s, -3.0, 0.9, dataset="concrete") for s in (1, 2)]  # no exact GP on concrete
    lines = reference_table(grouped(runs, splits=None, steps=3000)).splitlines()[2:]
    error = np.std([-0.1, 0.2, 0.2], ddof=1) / np.sqrt(3)
    assert lines == [f"| deep_gp | boston | default | 3 | +0.100 ({error:.3f}) | 2 of 3 |"]
    assert reference_table(grouped(runs, splits=None, steps=3000), "linear") == "", "no linear runs, no table"


def test_every_uncalibrated_run_is_paired_with_least_squares_too():
    runs = [_record(s, ll, 0.9) for s, ll in ((1, -2.5), (2, -2.6))]
    runs += [_record(s, ll, 0.9) | {"builder": "exact_gp"} for s, ll in ((1, -2.4), (2, -2.8))]
    runs += [_record(s, -2.9, 0.9) | {"builder": "linear"} for s in (1, 2)]
    table = reference_table(grouped(runs, splits=None, steps=3000), "linear").splitlines()
    assert "builder − linear (s.e.)" in table[0]
    assert sorted(table[2:]) == [
        "| deep_gp | boston | default | 2 | +0.350 (0.050) | 2 of 2 |",
        "| exact_gp | boston | default | 2 | +0.300 (0.200) | 2 of 2 |",
    ]


@pytest.mark.slow  # a full L-BFGS fit of boston in a subprocess: about 35 s
def test_the_exact_gp_reference_holds_on_the_split_whose_lengthscale_collapsed(tmp_path):
    """Boston split 2004 on one thread: unbounded, L-BFGS drove a lengthscale to zero and the
    posterior's Cholesky factor to NaN; bounded, the reference scores it."""
    import subprocess
    import sys

    results = tmp_path / "exact.jsonl"
    argv = ["--builders", "exact_gp", "--datasets", "boston", "--splits", "2004", "--threads", "1"]
    command = [sys.executable, "-m", "benchmarks", "calibration", *argv, "--results", str(results)]
    subprocess.run(command, check=True, capture_output=True)
    [record] = read_results(str(results))
    assert np.isfinite(record["log_likelihood"]) and -3.0 < record["log_likelihood"] < -2.0
    assert 0.8 <= record["coverage_90"] <= 1.0


def test_worst_points_refuses_options_for_the_exact_gp(capsys):
    from benchmarks.experiments.worst_points import main

    with pytest.raises(SystemExit):
        main(["--builders", "exact_gp", "build_random_feature_dgp", "--options", '{"num_members": 3}'])
    assert "without --options" in capsys.readouterr().err


def test_an_annealed_variant_trains_along_the_half_cosine_and_is_a_row_of_its_own(tmp_path):
    import gpflow_deep as gd
    from benchmarks.suites import calibration
    from gpflow_deep.models import RandomFeatureDGP

    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((40, 2)), rng.standard_normal((40, 1))
    annealed, _ = calibration.fitted("build_random_feature_dgp", X, Y, steps=3, seed=0, anneal=True)
    by_hand = gd.build_random_feature_dgp(X, Y)
    gd.fit(by_hand, (X, Y), 3, seed=0, progress=False, anneal=True)
    for theirs, same in zip(by_hand.trainable_variables, annealed.trainable_variables):
        np.testing.assert_array_equal(theirs.numpy(), same.numpy())
    default = trained("build_random_feature_dgp", X, Y, steps=3, seed=0)
    assert any(
        not np.array_equal(a.numpy(), b.numpy())
        for a, b in zip(default.trainable_variables, annealed.trainable_variables)
    )
    results = str(tmp_path / "runs.jsonl")
    argv = ["--builders", "random_feature_dgp", "--datasets", "boston", "--splits", "7", "--steps", "20"]
    calibration.main(argv + ["--threads", "0", "--anneal", "--results", results])
    own = RandomFeatureDGP.default_anneal
    calibration.main(argv + ["--threads", "0", "--anneal", f"{own:g}", "--results", results])
    whole, default = read_results(results)
    assert whole["anneal"] == 1.0 and default["anneal"] == own
    keys = grouped([whole, default], splits=None, steps=20)
    assert [key[0] for key in keys] == [  # random features' own share: its defaults
        "build_random_feature_dgp",
        "build_random_feature_dgp with 1 of Adam's step annealed",
    ]
    with pytest.raises(SystemExit):  # the references have no step to anneal
        calibration.main(["--builders", "exact_gp", "--anneal", "--results", results])
