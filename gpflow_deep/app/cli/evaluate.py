"""``gpflow-deep evaluate``: scores of a trained run on labelled rows, and a calibration plot."""

import argparse
import os

import numpy as np

from gpflow_deep.app.cli.parsing import example_epilog, paragraph
from gpflow_deep.app.cli.progress import RowProgress
from gpflow_deep.app.cli.rows import load_rows

COVERAGE_LEVEL = 0.9
CALIBRATION_LEVELS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)


def register(commands, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "evaluate",
        parents=[common],
        help="score a trained run on labelled rows",
        description=paragraph(
            "Score a trained run on DATA, which has the training columns and the target. Regression: mean "
            "test log-likelihood, RMSE and CRPS (original units) and the coverage of the central 90% "
            "interval; classification: log-likelihood and accuracy. Writes a calibration plot (PNG)."
        ),
        epilog=example_epilog("gpflow-deep evaluate runs/houses test_houses.csv"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a directory written by gpflow-deep fit")
    parser.add_argument("data", metavar="DATA", help="a CSV or Parquet file with the target column")
    parser.add_argument("--plot", default=None, help="the calibration PNG (default: RUN_DIR/calibration_<DATA>.png)")
    parser.add_argument("--drop-missing", action="store_true", help="skip rows with missing values instead of failing")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gpflow_deep.app.table_predictions import log_densities

    run_, table, X = load_rows(args.run_dir, args.data, target_needed=True, drop_missing=args.drop_missing)
    Y = run_.preprocessing.targets(table)
    scores = dict(rows=len(X), log_likelihood=float(np.mean(log_densities(run_, X, Y))))
    stem = os.path.splitext(os.path.basename(args.data))[0]
    plot = args.plot or os.path.join(args.run_dir, f"calibration_{stem}.png")
    title = f"{run_.config.model} on {table.name}"
    if run_.preprocessing.is_classification:
        scores.update(_classification_scores(run_, X, Y[:, 0].astype(int), plot, title))
    else:
        scores.update(_regression_scores(run_, X, table.columns[run_.preprocessing.target], plot, title))
    width = max(len(name) for name in scores)
    for name, value in scores.items():
        print(f"{name:<{width}}  {value:.4f}" if isinstance(value, float) else f"{name:<{width}}  {value}")
    print(f"calibration plot: {plot}")
    return 0


def _regression_scores(run_, X: np.ndarray, y: np.ndarray, plot: str, title: str) -> dict:
    from gpflow_deep import metrics
    from gpflow_deep.app.plots import calibration_plot
    from gpflow_deep.app.table_predictions import predictive_chunks
    from gpflow_deep.evaluation.calibration import central_interval_hits, mixture_cdf

    squared_errors, crps, hits, pit = [], [], [], []
    for chunk in predictive_chunks(run_, X, on_chunk=RowProgress("evaluating", len(X))):
        targets = y[chunk.rows]
        squared_errors.append((chunk.mean - targets) ** 2)
        crps.append(
            metrics.crps(targets[:, None], chunk.means[..., None], chunk.variances[..., None], chunk.log_weights)
        )
        hits.append(central_interval_hits(CALIBRATION_LEVELS, targets, chunk.means, chunk.variances, chunk.log_weights))
        pit.append(mixture_cdf(targets, chunk.means, chunk.variances, chunk.log_weights))
    observed = np.concatenate(hits, axis=1).mean(axis=1)
    calibration_plot(plot, CALIBRATION_LEVELS, observed, np.concatenate(pit), title)
    return dict(
        rmse=float(np.sqrt(np.mean(np.concatenate(squared_errors)))),
        crps=float(np.mean(np.concatenate(crps))),
        coverage_90=float(observed[CALIBRATION_LEVELS.index(COVERAGE_LEVEL)]),
    )


def _classification_scores(run_, X: np.ndarray, labels: np.ndarray, plot: str, title: str) -> dict:
    from gpflow_deep.app.plots import reliability_plot
    from gpflow_deep.app.table_predictions import predictive_chunks

    probabilities = np.concatenate(
        [chunk.probabilities for chunk in predictive_chunks(run_, X, on_chunk=RowProgress("evaluating", len(X)))]
    )
    chosen = probabilities.argmax(axis=1)
    correct = chosen == labels
    reliability_plot(plot, probabilities.max(axis=1), correct, title)
    return dict(accuracy=float(np.mean(correct)))
