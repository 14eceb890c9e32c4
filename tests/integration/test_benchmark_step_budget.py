"""The step-budget benchmark's bookkeeping: which point is the largest within the budget, the caps."""

import pytest

from benchmarks.suites.scale.step_budget import largest_within, parse_caps, peak_resident_mb


def test_the_largest_batch_within_the_budget_skips_failed_and_oversized_points():
    points = [
        dict(batch=1_000, peak_mb=900.0, rows_per_second=10.0),
        dict(batch=2_000, peak_mb=1_500.0, rows_per_second=20.0),
        dict(batch=5_000, peak_mb=2_100.0, rows_per_second=30.0),
        dict(batch=10_000, failed=-9),
    ]
    assert largest_within(points, 2_048)["batch"] == 2_000
    assert largest_within(points, 4_000)["batch"] == 5_000
    assert largest_within(points, 800) is None


def test_caps_name_a_model_and_a_row_count():
    assert parse_caps(["aep_dgp=20000", "dspp=5000"]) == {"aep_dgp": 20_000, "dspp": 5_000}
    for bad in ("aep=20000", "dspp=many", "dspp"):
        with pytest.raises(SystemExit, match="--cap takes MODEL=ROWS"):
            parse_caps([bad])


def test_the_peak_memory_is_this_process_high_water_mark():
    before = peak_resident_mb()
    block = bytearray(64 * 1024 * 1024)
    block[::4096] = b"\x01" * len(block[::4096])
    assert peak_resident_mb() >= max(before, 64)
