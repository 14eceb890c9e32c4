"""How much one data row decides the calibration suite's bars: the splits whose test part holds it.

The calibration suite's split s is a random 90/10 partition with seed s (``uci_split``), so any
one row lands in a split's test part with probability t/n (t test rows of n) and in at least one
of k splits with probability 1 − (1 − t/n)^k. For ``--row`` (0-based, in the shipped table's
order) of ``--dataset``, printed: the row, that chance for ten splits, and per builder of the
``--results`` runs of 3,000 steps without calibration (default likelihood), the splits holding
the row with their test log-likelihood, and the mean (standard error) and worst of the others.
Example::

    python -m benchmarks row_in_test --dataset boston --row 364 --results \
        benchmarks/results/calibration.jsonl benchmarks/results/calibration_second_ten.jsonl \
        benchmarks/results/calibration_third_set.jsonl --splits 1000-1019,3000-3019
"""

import argparse
from typing import Dict, List, Optional, Sequence

from benchmarks.suites.calibration_summary import grouped, score_cells
from gpflow_deep.app.benchmark import parse_splits, read_results
from gpflow_deep.datasets.uci import load, split_indices

TEST_FRACTION = 0.1
"""The calibration suite's test fraction (``uci_split``'s default)."""


def holds_row(num_rows: int, split: int, row: int) -> bool:
    """Whether split ``split``'s test part (of ``num_rows`` rows) holds ``row``."""
    return row in split_indices(num_rows, split, (1.0 - TEST_FRACTION, TEST_FRACTION))[1]


def chance_in_some(num_rows: int, num_splits: int) -> float:
    """1 − (1 − t/n)^k: the probability that a row is in the test part of at least one of
    ``num_splits`` random splits of ``num_rows`` rows."""
    test_rows = num_rows - int(num_rows * (1.0 - TEST_FRACTION))
    return 1.0 - (1.0 - test_rows / num_rows) ** num_splits


def table(records: List[Dict], num_rows: int, row: int, dataset: str, splits: Optional[Sequence[int]] = None) -> str:
    """One markdown row per builder of ``dataset`` (3,000 steps, default likelihood, no
    calibration; only ``splits`` if given): the splits holding ``row`` and their scores, then the
    others' mean (s.e.) and worst (split)."""
    header = (
        "| builder | splits | holding the row: split (test log-lik) | the others: mean (s.e.) | worst (split) |"
        "\n|---|---|---|---|---|"
    )
    rows = [header]
    for (builder, data, likelihood, fraction), runs in grouped(records, splits, steps=3000).items():
        if data != dataset or likelihood != "default" or fraction:
            continue
        tested = [holds_row(num_rows, run["split"], row) for run in runs]
        holding = [run for run, held in zip(runs, tested) if held]
        others = [run for run, held in zip(runs, tested) if not held]
        listed = ", ".join(f"{run['split']} ({run['log_likelihood']:.3f})" for run in holding) or "none"
        summary = f"| {score_cells(others)} |" if len(others) > 1 else "| | |"
        rows.append(f"| {builder.removeprefix('build_')} | {len(runs)} | {listed} {summary}")
    return "\n".join(rows)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks row_in_test",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", default="boston")
    parser.add_argument("--row", type=int, required=True, help="0-based, in the shipped table's order")
    parser.add_argument("--results", nargs="+", required=True)
    parser.add_argument("--splits", default=None, help="only these split seeds, e.g. 1000-1019,3000-3019")
    args = parser.parse_args(argv)
    data = load(args.dataset)
    if not 0 <= args.row < len(data.X):
        parser.error(f"--row must be in 0..{len(data.X) - 1} for {args.dataset}, got {args.row}")
    records = [record for path in args.results for record in read_results(path)]
    splits = None if args.splits is None else parse_splits(args.splits)
    inputs = ", ".join(f"{value:g}" for value in data.X[args.row])
    print(f"{args.dataset} row {args.row}: target {data.Y[args.row, 0]:g}, inputs {inputs}")
    print(f"in at least one test part of ten random splits with probability {chance_in_some(len(data.X), 10):.2f}")
    print()
    print(table(records, len(data.X), args.row, args.dataset, splits))
    return 0


if __name__ == "__main__":
    main()
