"""A regression target heaped at an extreme (a cap or a floor) is noted once, with its count; a
target without one, a scale of a few values, and class labels are not."""

import numpy as np
import pytest

from gpflow_deep.app.tables import TableReader, learn_table
from gpflow_deep.app.tables.statistics import heaped_extremes


def _notes(tmp_path, targets, likelihood="auto"):
    path = tmp_path / "t.csv"
    path.write_text("x,y\n" + "".join(f"{i},{target}\n" for i, target in enumerate(targets)))
    return learn_table(TableReader(str(path)), "y", likelihood).notes


def _capped_prices(rows=500, seed=0):
    """Prices like boston's: continuous, every one above 50 recorded as 50."""
    prices = np.random.default_rng(seed).lognormal(np.log(22.0), 0.45, rows).round(1)
    return np.minimum(prices, 50.0)


def test_a_capped_target_is_noted_with_its_rows():
    prices = _capped_prices()
    capped = int(np.sum(prices == 50.0))
    assert capped >= 5
    assert heaped_extremes(prices) == [("largest", 50.0, capped)]


def test_a_floor_and_a_cap_are_both_found():
    weeks = np.concatenate([np.zeros(40), np.full(30, 52.0), np.arange(1, 52).repeat(2)])
    assert heaped_extremes(weeks) == [("largest", 52.0, 30), ("smallest", 0.0, 40)]


@pytest.mark.parametrize(
    "values",
    [
        np.random.default_rng(1).normal(size=500),  # continuous: every value once
        np.arange(1, 6).repeat([10, 40, 80, 40, 10]),  # a scale: its extremes are its rarest values
        np.concatenate([np.full(4, 9.0), np.linspace(0, 8, 300)]),  # four rows at the cap: below HEAPED_ROWS
        np.concatenate([np.full(6, 9.0), np.linspace(0, 8, 1000)]),  # six rows of 1,006: below HEAPED_SHARE
        np.array([1.0, 2.0, 2.0, 2.0, 2.0, 2.0]),  # two values: nothing between the extremes
    ],
)
def test_targets_without_a_heaped_extreme_are_not_noted(values):
    assert heaped_extremes(values) == []


def test_the_table_pass_notes_a_capped_regression_target_once(tmp_path):
    prices = _capped_prices()
    [note] = _notes(tmp_path, prices)
    capped = int(np.sum(prices == 50.0))
    assert note.startswith(
        f"target 'y': {capped} of 500 training rows ({capped / 500:.1%}) hold its largest value, 50,"
    )
    assert "a cap (every value beyond it recorded as 50)" in note and "no mass at 50" in note
    assert _notes(tmp_path, prices, "gaussian") == [note]


def test_class_labels_and_poisson_counts_are_not_checked(tmp_path):
    labels = np.concatenate([np.zeros(100), np.ones(20)])
    assert _notes(tmp_path, labels) == []  # 0 and 1: bernoulli
    counts = np.concatenate([np.zeros(60), np.arange(1, 40)])
    assert _notes(tmp_path, counts, "poisson") == []
    assert len(_notes(tmp_path, counts, "gaussian")) == 1


def test_a_note_read_from_a_sample_of_the_rows_says_so(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("x,y\n" + "".join(f"{i},{price}\n" for i, price in enumerate(_capped_prices(2000))))
    [note] = learn_table(TableReader(str(path)), "y", "auto", sample_rows=500).notes
    assert " of 500 sampled training rows " in note
