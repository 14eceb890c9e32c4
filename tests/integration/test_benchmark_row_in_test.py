"""``row_in_test``: which calibration splits test a given row, and the scores with and without it."""

import numpy as np
import pytest

from benchmarks.experiments.row_in_test import chance_in_some, holds_row, main, table
from gpflow_deep.datasets.uci import load

BOSTON_ROWS = 506
FAR_HOUSE = 364  # price 21.9, 8.78 rooms: the far row of boston's split 1005 (docs/benchmarks.md §12)


def test_boston_s_far_house_is_tested_by_split_1005_alone_of_1000_to_1009():
    data = load("boston")
    assert data.Y[FAR_HOUSE, 0] == pytest.approx(21.9) and data.X[FAR_HOUSE, 5] == pytest.approx(8.78)
    assert [split for split in range(1000, 1010) if holds_row(BOSTON_ROWS, split, FAR_HOUSE)] == [1005]


def test_a_row_is_tested_by_a_tenth_of_the_splits_and_by_some_of_ten_with_the_closed_form_chance():
    held = np.array([holds_row(BOSTON_ROWS, split, 17) for split in range(4000)])
    share = 51 / BOSTON_ROWS  # 506 − int(0.9 × 506) test rows
    assert abs(held.mean() - share) < 4 * np.sqrt(share * (1 - share) / held.size)
    some_of_ten = held.reshape(-1, 10).any(axis=1)
    expected = chance_in_some(BOSTON_ROWS, 10)
    assert expected == pytest.approx(1 - (1 - share) ** 10)
    assert abs(some_of_ten.mean() - expected) < 4 * np.sqrt(expected * (1 - expected) / some_of_ten.size)


def _record(builder, split, score, **fields):
    record = dict(builder=builder, dataset="boston", split=split, steps=3000, calibration_fraction=0.0)
    return {**record, "likelihood": "default", "log_likelihood": score, "date": "2026-12-01 00:00:00", **fields}


def test_the_table_separates_the_splits_holding_the_row_and_summarises_the_others():
    scores = {split: -2.0 - 0.01 * (split - 1000) for split in range(1000, 1010)}
    scores[1005] = -4.0
    records = [_record("build_deep_gp", split, score) for split, score in scores.items()]
    records.append(_record("build_deep_gp", 1001, -9.0, calibration_fraction=0.2))  # calibrated: left out
    rows = table(records, BOSTON_ROWS, FAR_HOUSE, "boston").splitlines()
    others = np.array([score for split, score in scores.items() if split != 1005])
    error = others.std(ddof=1) / np.sqrt(others.size)
    assert rows[2] == f"| deep_gp | 10 | 1005 (-4.000) | {others.mean():.3f} ({error:.3f}) | -2.090 (1009) |"
    assert len(rows) == 3


def test_a_row_outside_the_table_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["--row", "506", "--results", "unused.jsonl"])
    assert "--row must be in 0..505" in capsys.readouterr().err
