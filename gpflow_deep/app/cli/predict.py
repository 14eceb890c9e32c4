"""``gpflow-deep predict``: predictions of a trained run on new rows, written as CSV batch by batch."""

import argparse
import os

from gpflow_deep.app.cli.parsing import example_epilog, paragraph
from gpflow_deep.app.cli.progress import RowProgress
from gpflow_deep.app.cli.rows import checked_rows

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
            "probability of every class. The file is read and written in batches, so memory does not "
            "grow with its length."
        ),
        epilog=example_epilog("gpflow-deep predict runs/houses new_houses.csv --out predictions.csv"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a directory written by gpflow-deep fit")
    parser.add_argument("data", metavar="DATA", help="a CSV or Parquet file of rows to predict")
    parser.add_argument("--out", required=True, metavar="PREDICTIONS.csv", help="where to write the predictions")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    from gpflow_deep.app.table_predictions import predictive_chunks

    table = checked_rows(args.run_dir, args.data, target_needed=False, drop_missing=False)
    labels = table.run.preprocessing.labels
    header = ["predicted"] + [f"probability_{label}" for label in labels] if labels else ["mean", "std", "q05", "q95"]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    progress = RowProgress("predicting", total=table.usable)
    with pa.OSFile(args.out, "wb") as sink:
        sink.write((",".join(header) + "\n").encode())
        writer = None
        for first_row, _, X in table.batches():
            for chunk in predictive_chunks(table.run, X, first_row):
                batch = pa.record_batch(_columns(chunk, labels), names=header)
                if writer is None:
                    writer = pa_csv.CSVWriter(
                        sink, batch.schema, write_options=pa_csv.WriteOptions(include_header=False)
                    )
                writer.write_batch(batch)
            progress(first_row + X.shape[0])
        if writer is not None:
            writer.close()
    progress.close()
    print(f"wrote {table.usable} predictions to {args.out}")
    return 0


def _columns(chunk, labels) -> list:
    """The output columns of a chunk: mean, std and the 5% and 95% quantiles (in the target's
    units), or the predicted label and every class's probability. Numbers are written in full
    (the shortest text that reads back as the same float64)."""
    import pyarrow as pa

    from gpflow_deep.evaluation.calibration import central_interval
    from gpflow_deep.evaluation.moments import mixture_mean_and_std

    if labels:
        probabilities = chunk.probabilities
        return [pa.array([labels[i] for i in probabilities.argmax(axis=1)])] + list(probabilities.T)
    means, variances = chunk.means[..., 0], chunk.variances[..., 0]
    mean, std = mixture_mean_and_std(means, variances, chunk.log_weights)
    return [mean, std, *central_interval(INTERVAL_LEVEL, means, variances, chunk.log_weights)]
