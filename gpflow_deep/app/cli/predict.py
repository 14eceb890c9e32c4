"""``gpflow-deep predict``: predictions of a trained run on new rows, written as CSV."""

import argparse
import csv
import os

from gpflow_deep.app.cli.parsing import example_epilog, paragraph
from gpflow_deep.app.cli.progress import RowProgress
from gpflow_deep.app.cli.rows import load_rows

INTERVAL_LEVEL = 0.9  # the central interval written: the 5% and 95% quantiles


def register(commands, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "predict",
        parents=[common],
        help="predict new rows with a trained run",
        description=paragraph(
            "Predict the rows of DATA (same columns as in training; the target column may be there and "
            "is ignored). Regression: mean, standard deviation and the 5% and 95% quantiles of the "
            "predictive mixture, in the target's units. Classification: the predicted label and the "
            "probability of every class."
        ),
        epilog=example_epilog("gpflow-deep predict runs/houses new_houses.csv --out predictions.csv"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a directory written by gpflow-deep fit")
    parser.add_argument("data", metavar="DATA", help="a CSV or Parquet file of rows to predict")
    parser.add_argument("--out", required=True, metavar="PREDICTIONS.csv", help="where to write the predictions")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gpflow_deep.app.table_predictions import predictive_chunks
    from gpflow_deep.evaluation.calibration import central_interval

    run_, table, X = load_rows(args.run_dir, args.data, target_needed=False, drop_missing=False)
    preprocessing = run_.preprocessing
    if preprocessing.is_classification:
        header = ["predicted"] + [f"probability_{label}" for label in preprocessing.labels]
    else:
        header = ["mean", "std", "q05", "q95"]
    directory = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(directory, exist_ok=True)
    with open(args.out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for chunk in predictive_chunks(run_, X, on_chunk=RowProgress("predicting", len(X))):
            if preprocessing.is_classification:
                for probabilities in chunk.probabilities:
                    label = preprocessing.labels[int(probabilities.argmax())]
                    writer.writerow([label] + [f"{p:.6g}" for p in probabilities])
            else:
                lower, upper = central_interval(INTERVAL_LEVEL, chunk.means, chunk.variances, chunk.log_weights)
                for row in zip(chunk.mean, chunk.std, lower, upper):
                    writer.writerow([f"{value:.8g}" for value in row])
    print(f"wrote {len(X)} predictions to {args.out}")
    return 0
