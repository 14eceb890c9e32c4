"""``gpflow-deep calibrate``: split-conformal calibration of a regression run's intervals from
held-out rows, stored in the run directory for ``predict`` and ``evaluate``."""

import argparse

import numpy as np

from gpflow_deep.app.cli.parsing import example_epilog, paragraph
from gpflow_deep.app.cli.progress import RowProgress
from gpflow_deep.app.cli.rows import add_drop_missing, checked_rows

REPORTED_LEVELS = (0.5, 0.8, 0.9, 0.95)
WIDTH_SAMPLE = 1000  # rows whose interval widths are compared (a uniform sample beyond that)


def register(commands, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "calibrate",
        parents=[common],
        help="calibrate a regression run's intervals on held-out rows",
        description=paragraph(
            "Calibrate the predictive intervals of a regression run by split-conformal prediction on "
            "HELD_OUT, rows with the target that the run was not trained on. Stores the calibration in "
            "RUN_DIR/calibration.json (replacing any earlier one): predict then writes intervals that "
            "cover a new row with probability at least the level, and evaluate reports their coverage. "
            "Prints the held-out coverage of the uncalibrated 50/80/90/95% intervals and what "
            "calibration makes of them. The file is read in batches, so memory does not grow with its length."
        ),
        epilog=example_epilog("gpflow-deep calibrate runs/houses held_out_houses.csv"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a regression run written by gpflow-deep fit")
    parser.add_argument("data", metavar="HELD_OUT", help="a CSV or Parquet file of rows not used in training")
    add_drop_missing(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gpflow_deep.app.calibration import calibration_from_scores, check_regression, chunk_scores, save_calibration
    from gpflow_deep.app.table_predictions import predictive_chunks
    from gpflow_deep.evaluation.reservoir import Reservoir

    table = checked_rows(args.run_dir, args.data, target_needed=True, drop_missing=args.drop_missing)
    check_regression(table.run)
    preprocessing = table.run.preprocessing
    scores, sample, log_weights = [], Reservoir(WIDTH_SAMPLE), None
    progress = RowProgress("calibrating", total=table.usable)
    for first_row, rows, X in table.batches():
        y = preprocessing.targets(rows, table.reader.name)[:, 0] * preprocessing.target_std + preprocessing.target_mean
        for chunk in predictive_chunks(table.run, X, first_row):
            scores.append(chunk_scores(chunk, y[chunk.rows]))
            sample.offer(dict(means=chunk.means[..., 0].T, variances=chunk.variances[..., 0].T))
            log_weights = chunk.log_weights  # the same paths in every chunk
        progress(first_row + X.shape[0])
    progress.close()
    scores = np.concatenate(scores)
    calibration = calibration_from_scores(scores, table.reader.name)
    path = save_calibration(args.run_dir, calibration)
    print(f"calibrated on {calibration.describe()}")
    components = (sample.sample["means"].T, sample.sample["variances"].T, log_weights)
    _print_changes(scores, calibration.levels, components)
    print(f"stored in {path}: predict writes calibrated intervals from now on (--uncalibrated for the raw ones)")
    return 0


def _print_changes(scores: np.ndarray, levels, components: tuple) -> None:
    """Per level: the held-out coverage of the raw interval (``scores: [n]``), the predictive's
    central level that calibration uses instead, the coverage guaranteed on new rows, and the median
    change in width over the sampled mixtures ``components`` (``[S, m]``, ``[S, m]``, ``[S]``)."""
    from gpflow_deep.evaluation.calibration import central_interval
    from gpflow_deep.evaluation.conformal import describe_level, score_of_level

    print(f"{'level':>5}  {'held-out coverage':>17}  {'calibrated to':>20}  {'new rows covered':>18}  width")
    for level in REPORTED_LEVELS:
        raw = float(np.mean(scores <= score_of_level(level)))
        expected = levels.expected_coverage(level)
        if levels.is_unbounded(level):
            used, width = "unbounded", "unbounded (too few rows)"
        else:
            used = f"central {describe_level(levels.calibrated_score(level))}"
            raw_lower, raw_upper = central_interval(level, *components)
            lower, upper = levels.interval(level, *components)
            width = f"x{np.median((upper - lower) / (raw_upper - raw_lower)):.2f}"
        guarantee = f">= {level:.2f} (~{expected:.3f})"
        print(f"{100 * level:>4.0f}%  {raw:>17.3f}  {used:>20}  {guarantee:>18}  {width}")
