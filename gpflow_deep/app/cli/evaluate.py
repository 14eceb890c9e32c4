"""``gpflow-deep evaluate``: scores of a trained run on labelled rows, and a calibration plot."""

import argparse
import os

import numpy as np

from gpflow_deep.app.cli.parsing import example_epilog, paragraph
from gpflow_deep.app.cli.progress import RowProgress
from gpflow_deep.app.cli.rows import add_drop_missing, checked_rows

COVERAGE_LEVEL = 0.9
CALIBRATION_LEVELS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
PLOTTED_ROWS = 100_000  # rows of a classification's reliability plot: a uniform sample beyond that


def register(commands, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "evaluate",
        parents=[common],
        help="score a trained run on labelled rows",
        description=paragraph(
            "Score a trained run on DATA, which has the training columns and the target. Regression: mean "
            "test log-likelihood, RMSE and CRPS (original units) and the coverage of the central 90% "
            "interval, and of the calibrated one if the run was calibrated (gpflow-deep calibrate); "
            "classification: log-likelihood and accuracy. Writes a calibration plot (PNG). "
            "The file is read in batches, so memory does not grow with its length."
        ),
        epilog=example_epilog("gpflow-deep evaluate runs/houses test_houses.csv"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a directory written by gpflow-deep fit")
    parser.add_argument("data", metavar="DATA", help="a CSV or Parquet file with the target column")
    parser.add_argument("--plot", default=None, help="the calibration PNG (default: RUN_DIR/calibration_<DATA>.png)")
    add_drop_missing(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gpflow_deep.app.table_predictions import predictive_chunks

    table = checked_rows(args.run_dir, args.data, target_needed=True, drop_missing=args.drop_missing)
    preprocessing = table.run.preprocessing
    if preprocessing.is_classification:
        scores = _ClassificationScores()
    else:
        from gpflow_deep.app.calibration import load_calibration

        scores = _RegressionScores(preprocessing, load_calibration(args.run_dir))
    progress = RowProgress("evaluating", total=table.usable)
    for first_row, rows, X in table.batches():
        Y = preprocessing.targets(rows, table.reader.name)
        for chunk in predictive_chunks(table.run, X, first_row, Y):
            scores.add(chunk, Y[chunk.rows])
        progress(first_row + X.shape[0])
    progress.close()
    stem = os.path.splitext(os.path.basename(args.data))[0]
    plot = args.plot or os.path.join(args.run_dir, f"calibration_{stem}.png")
    results = dict(rows=table.usable, **scores.results())
    scores.plot(plot, f"{table.run.config.model} on {table.reader.name}")
    width = max(len(name) for name in results)
    for name, value in results.items():
        print(f"{name:<{width}}  {value:.4f}" if isinstance(value, float) else f"{name:<{width}}  {value}")
    if results.get("coverage_90_calibrated") is not None:
        print(f"calibrated on {scores.calibration.describe()}")
    print(f"calibration plot: {plot}")
    return 0


class _RegressionScores:
    """Log-likelihood, RMSE, CRPS and interval coverage in original units, summed chunk by chunk;
    with the run's calibration, the coverage of its calibrated interval too."""

    def __init__(self, preprocessing, calibration=None):
        from gpflow_deep.evaluation.accumulator import ScoreAccumulator

        self.scale, self.shift = preprocessing.target_std, preprocessing.target_mean
        self.scores = ScoreAccumulator(CALIBRATION_LEVELS)
        self.calibration = calibration
        self.calibrated_hits = 0

    def add(self, chunk, Y: np.ndarray) -> None:
        """Score a chunk against its encoded targets ``Y: [n, 1]``."""
        from gpflow_deep.app.calibration import chunk_scores

        y = Y * self.scale + self.shift
        self.scores.add(y, chunk.means, chunk.variances, chunk.log_weights, chunk.log_density)
        if self.calibration is not None:  # y is in the calibrated interval exactly when its score is ≤ s*
            reach = self.calibration.levels.calibrated_score(COVERAGE_LEVEL)
            self.calibrated_hits += int(np.count_nonzero(chunk_scores(chunk, y[:, 0]) <= reach))

    def results(self) -> dict:
        coverage = self.scores.coverage()[CALIBRATION_LEVELS.index(COVERAGE_LEVEL)]
        results = dict(**self.scores.scores(), coverage_90=float(coverage))
        if self.calibration is not None:
            results["coverage_90_calibrated"] = self.calibrated_hits / self.scores.rows
        return results

    def plot(self, path: str, title: str) -> None:
        from gpflow_deep.app.plots import calibration_plot

        calibration_plot(path, CALIBRATION_LEVELS, self.scores.coverage(), self.scores.pit(), title)


class _ClassificationScores:
    """Log-likelihood and accuracy summed chunk by chunk; a sample of rows for the reliability plot."""

    def __init__(self):
        from gpflow_deep.evaluation.reservoir import Reservoir

        self.rows, self.log_density, self.correct = 0, 0.0, 0
        self.sample = Reservoir(PLOTTED_ROWS)

    def add(self, chunk, Y: np.ndarray) -> None:
        chosen = chunk.probabilities.argmax(axis=1)
        correct = chosen == Y[:, 0].astype(int)
        self.rows += len(correct)
        self.log_density += float(np.sum(chunk.log_density))
        self.correct += int(np.count_nonzero(correct))
        self.sample.offer({"confidence": chunk.probabilities.max(axis=1), "correct": correct})

    def results(self) -> dict:
        return dict(log_likelihood=self.log_density / self.rows, accuracy=self.correct / self.rows)

    def plot(self, path: str, title: str) -> None:
        from gpflow_deep.app.plots import reliability_plot

        sample = self.sample.sample
        reliability_plot(path, sample["confidence"], sample["correct"], title)
