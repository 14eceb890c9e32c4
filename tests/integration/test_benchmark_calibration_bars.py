"""Issue 34's bars set by set (``python -m benchmarks calibration_bars``): only the current defaults,
complete sets, and each bar read as the issue states it."""

import json

from benchmarks.suites.calibration_bars import bars_table, chance_of_meeting_every_bar, main

TODAY = "2100-01-01 00:00:00"


def _record(split, log_likelihood, coverage_90=0.9, builder="build_deep_gp", dataset="boston", **extra):
    """A calibration record dated after every change of the defaults."""
    return dict(
        builder=builder,
        dataset=dataset,
        split=split,
        steps=3000,
        calibration_fraction=0.0,
        log_likelihood=log_likelihood,
        coverage_90=coverage_90,
        date=TODAY,
        **extra,
    )


def _row(table: str, builder: str, dataset: str) -> str:
    [line] = [line for line in table.splitlines() if line.startswith(f"| {builder} | {dataset} |")]
    return line


def test_each_set_reads_its_mean_worst_and_coverage_against_the_bars():
    good = [_record(1000 + i, -2.3 - i / 100) for i in range(10)]
    bad = [_record(1010 + i, -2.35) for i in range(9)] + [_record(1019, -2.9, coverage_90=0.7)]
    table = bars_table(good + bad, ["1000-1009", "1010-1019"])
    cells = _row(table, "deep_gp", "boston").rstrip(" |").split(" | ")[2:]
    assert cells[0] == "−2.345, −2.390 (1009), 0.90: all met"
    # one split below −2.8 misses the worst-split bar alone: the mean and the mean coverage hold
    assert cells[1] == "−2.405, −2.900 (1019), 0.88: **worst missed**"
    assert cells[2] == "1 of 2"
    # half the sets of ten drawn from the twenty splits leave out split 1019, and only those meet every bar
    assert cells[3].endswith("(20 splits)") and abs(float(cells[3].split()[0]) - 0.5) < 0.03


def test_the_coverage_bar_is_the_mean_90_percent_band():
    records = [_record(1000 + i, -2.2, coverage_90=0.95) for i in range(10)]
    assert "**90% missed**" in _row(bars_table(records, ["1000-1009"]), "deep_gp", "boston")


def test_variants_held_out_runs_and_incomplete_sets_are_left_out():
    records = [_record(1000 + i, -2.2) for i in range(10)]
    records += [_record(1000 + i, -2.0, options={"num_layers": 3}) for i in range(10)]
    records += [_record(1000 + i, -2.0, builder="build_dspp") | {"calibration_fraction": 0.2} for i in range(10)]
    records += [_record(1000 + i, -2.0, builder="build_sod_dgp") for i in range(9)]
    table = bars_table(records, ["1000-1009"])
    assert len(table.splitlines()) == 3
    assert _row(table, "deep_gp", "boston").endswith(
        "−2.200, −2.200 (1000), 0.90: all met | 1 of 1 | 1.00 (10 splits) |"
    )
    # asked for, the variant run on the whole set is a row of its own; the held-out runs and the
    # incomplete set stay out
    with_variants = bars_table(records, ["1000-1009"], variants=True)
    assert len(with_variants.splitlines()) == 4
    assert _row(with_variants, 'deep_gp {"num_layers": 3}', "boston").endswith("all met | 1 of 1 | 1.00 (10 splits) |")


def test_a_set_not_run_is_blank_and_concrete_has_its_own_bars(tmp_path, capsys):
    records = [_record(1000 + i, -3.2, dataset="concrete") for i in range(10)]
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    assert main(["--results", str(path), "--sets", "1000-1009", "3000-3009"]) == 0
    line = _row(capsys.readouterr().out, "deep_gp", "concrete")
    # the blank set is not counted
    assert line.endswith("| −3.200, −3.200 (1000), 0.90: **mean missed** |  | 0 of 1 | 0.00 (10 splits) |")


def test_the_chance_counts_every_bar_on_sets_drawn_without_repeats():
    # 20 splits, three of them below the worst-split bar: a set of ten avoids all three with
    # probability C(17, 10) / C(20, 10) = 19448 / 184756
    records = [_record(1000 + i, -2.9 if i < 3 else -2.3) for i in range(20)]
    assert abs(chance_of_meeting_every_bar("boston", records) - 19448 / 184756) < 0.01
    # the coverage bar: every split's 90% coverage 0.8 fails every set, whatever its scores
    assert chance_of_meeting_every_bar("boston", [_record(1000 + i, -2.0, coverage_90=0.8) for i in range(20)]) == 0.0
    # ten splits give the one set they make up
    assert chance_of_meeting_every_bar("boston", records[3:13]) == 1.0
