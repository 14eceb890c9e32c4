"""``gpflow-deep predict``: predictions of a trained run on new rows, written as CSV batch by batch."""

import argparse
import os

import numpy as np

from gpflow_deep.app.cli.parsing import CommandError, example_epilog, paragraph
from gpflow_deep.app.cli.progress import RowProgress
from gpflow_deep.app.cli.rows import checked_rows

DEFAULT_LEVEL = 0.9  # the central interval written: q05 and q95


def register(commands, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "predict",
        parents=[common],
        help="predict new rows with a trained run",
        description=paragraph(
            "Predict the rows of DATA (same columns as in training; the target column may be there and "
            "is ignored). Regression: mean, standard deviation and the bounds of the central interval of "
            "--level (q05 and q95 for 0.9), in the target's units: the conformal interval if the run was "
            "calibrated (gpflow-deep calibrate), otherwise the predictive mixture's own quantiles. "
            "Classification: the predicted label and the probability of every class. One output line per "
            "row of DATA, in order; a missing input is filled as fit filled it, or with --skip-missing its "
            "row gets empty fields. The "
            "file is read and written in batches, so memory does not grow with its length."
        ),
        epilog=example_epilog("gpflow-deep predict runs/houses new_houses.csv --out predictions.csv"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a directory written by gpflow-deep fit")
    parser.add_argument("data", metavar="DATA", help="a CSV or Parquet file of rows to predict")
    parser.add_argument("--out", required=True, metavar="PREDICTIONS.csv", help="where to write the predictions")
    parser.add_argument(
        "--level", type=float, default=None, help=f"the central interval written (default: {DEFAULT_LEVEL})"
    )
    parser.add_argument(
        "--uncalibrated", action="store_true", help="the mixture's own quantiles even if the run is calibrated"
    )
    parser.add_argument(
        "--skip-missing",
        action="store_true",
        help="write empty fields for rows with missing inputs instead of filling them as fit did (or, for a run "
        "that drops them, instead of failing; the lines stay in order)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    from gpflow_deep.app.table_predictions import predictive_chunks

    level = DEFAULT_LEVEL if args.level is None else args.level
    if not 0.0 < level < 1.0:
        raise CommandError(f"--level must be between 0 and 1, got {level}")
    table = checked_rows(
        args.run_dir,
        args.data,
        target_needed=False,
        drop_missing=args.skip_missing,
        skipped_as="their lines have empty fields",
    )
    labels = table.run.preprocessing.labels
    if labels and (args.level is not None or args.uncalibrated):
        raise CommandError("--level and --uncalibrated are for regression; this run predicts classes")
    intervals = None if labels else _Intervals(args.run_dir, level, args.uncalibrated)
    if labels:
        schema = pa.schema([("predicted", pa.string())] + [(f"probability_{label}", pa.float64()) for label in labels])
    else:
        schema = pa.schema([(name, pa.float64()) for name in ["mean", "std", *intervals.names]])
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    progress = RowProgress("predicting", total=table.usable)
    with pa.OSFile(args.out, "wb") as sink:
        sink.write((",".join(schema.names) + "\n").encode())
        writer = pa_csv.CSVWriter(sink, schema, write_options=pa_csv.WriteOptions(include_header=False))
        for first_row, usable, X in table.file_batches():
            chunks = predictive_chunks(table.run, X, first_row) if len(X) else []
            columns = [_columns(chunk, labels, intervals) for chunk in chunks]
            predicted = [np.concatenate([chunk[i] for chunk in columns]) if columns else [] for i in range(len(schema))]
            writer.write_batch(_in_file_order(predicted, usable, schema))
            progress(first_row + X.shape[0])
        writer.close()
    progress.close()
    print(f"wrote {table.usable} predictions to {args.out}")
    if intervals is not None:
        print(intervals.description)
    return 0


class _Intervals:
    """The central interval of ``level`` written for each row: the conformal one of the run's
    calibration, if it has one and ``uncalibrated`` is not asked for, else the mixture's own."""

    def __init__(self, run_dir: str, level: float, uncalibrated: bool):
        from gpflow_deep.app.calibration import load_calibration
        from gpflow_deep.evaluation.conformal import describe_level

        self.level = level
        calibration = None if uncalibrated else load_calibration(run_dir)
        self.levels = None if calibration is None else calibration.levels
        tail = 100 * (1 - level) / 2
        self.names = [f"q{tail:02.6g}", f"q{100 - tail:02.6g}"]
        interval = f"{self.names[0]}, {self.names[1]}: the central {100 * level:g}% interval"
        if self.levels is None:
            reason = " (--uncalibrated)" if uncalibrated else " (the run is not calibrated)"
            self.description = f"{interval} of the predictive mixture{reason}"
        elif self.levels.is_unbounded(level):
            self.description = (
                f"{interval}, calibrated on {calibration.describe()}: unbounded, as {self.levels.num_rows} "
                f"held-out rows are too few for this level"
            )
        else:
            self.description = (
                f"{interval}, calibrated on {calibration.describe()}: the predictive's central "
                f"{describe_level(self.levels.calibrated_score(level))} interval"
            )

    def __call__(self, means, variances, log_weights) -> tuple:
        """``([n], [n])``: the bounds for mixtures ``[S, n]``."""
        from gpflow_deep.evaluation.calibration import central_interval

        if self.levels is None:
            return central_interval(self.level, means, variances, log_weights)
        return self.levels.interval(self.level, means, variances, log_weights)


def _in_file_order(predicted: list, usable, schema):
    """A batch of the file's rows: the ``predicted`` columns (of the usable rows) where ``usable``
    ``[batch rows]`` is True, empty fields elsewhere."""
    import pyarrow as pa

    if usable.all():
        return pa.record_batch(
            [pa.array(values, field.type) for values, field in zip(predicted, schema)], schema=schema
        )
    columns = []
    for values, field in zip(predicted, schema):
        full = np.full(len(usable), None, dtype=object)
        full[usable] = list(values)
        columns.append(pa.array(full, field.type))
    return pa.record_batch(columns, schema=schema)


def _columns(chunk, labels, intervals) -> list:
    """The output columns of a chunk: mean, std and the interval's bounds (in the target's units),
    or the predicted label and every class's probability. Numbers are written in full (the
    shortest text that reads back as the same float64)."""
    from gpflow_deep.evaluation.moments import mixture_mean_and_std

    if labels:
        probabilities = chunk.probabilities
        return [np.asarray(labels, dtype=object)[probabilities.argmax(axis=1)]] + list(probabilities.T)
    means, variances = chunk.means[..., 0], chunk.variances[..., 0]
    mean, std = mixture_mean_and_std(means, variances, chunk.log_weights)
    return [mean, std, *intervals(means, variances, chunk.log_weights)]
