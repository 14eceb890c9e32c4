"""``gpflow-deep fit``: train a model on a user's table and write a run directory."""

import argparse
import logging
import os

import numpy as np

from gpflow_deep.app.cli.parsing import CommandError, example_epilog, paragraph
from gpflow_deep.app.tables import Preprocessing, missing_values_message, read_table, rows_with_missing
from gpflow_deep.registry import LIKELIHOODS, MODEL_BUILDERS, available_models

logger = logging.getLogger("gpflow_deep.app.cli")

CHECKS_PER_RUN = 20  # held-out checks (and TensorBoard points) per run, every 10 to 100 steps


def register(commands, common: argparse.ArgumentParser) -> None:
    models = available_models()
    parser = commands.add_parser(
        "fit",
        parents=[common],
        help="train a model on a CSV or Parquet table",
        description=paragraph(
            "Train a deep GP on a table: numeric columns are standardised on the training rows, string "
            "columns one-hot encoded, and RUN_DIR receives the trained model, its configuration, the "
            "preprocessing and TensorBoard logs (RUN_DIR/logs)."
        ),
        epilog=example_epilog(
            "gpflow-deep fit houses.csv --target price --out runs/houses",
            "gpflow-deep fit iris.csv --target species --likelihood multiclass --validation-fraction 0.2 --out iris",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("data", metavar="DATA", help="a CSV file with a header line, or a Parquet file")
    parser.add_argument("--target", required=True, metavar="COLUMN", help="the column to predict")
    parser.add_argument("--out", required=True, metavar="RUN_DIR", help="a new directory for the trained run")
    parser.add_argument("--model", default="deep_gp", choices=models, help="(default: %(default)s)")
    parser.add_argument("--layers", type=int, default=2, help="number of GP layers (default: %(default)s)")
    parser.add_argument("--iterations", type=int, default=2000, help="training steps (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=None, help="minibatch size (default: full batch)")
    parser.add_argument("--learning-rate", type=float, default=0.01, help="Adam's step size (default: %(default)s)")
    parser.add_argument(
        "--likelihood",
        default="gaussian",
        choices=LIKELIHOODS,
        help="gaussian or studentt regression, poisson counts, bernoulli or multiclass labels (default: %(default)s)",
    )
    parser.add_argument(
        "--validation-fraction",
        type=float,
        default=0.0,
        metavar="F",
        help="hold out this fraction of the rows for early stopping (default: none)",
    )
    parser.add_argument(
        "--patience", type=int, default=10, help="held-out checks without improvement before stopping (default: 10)"
    )
    parser.add_argument("--drop-missing", action="store_true", help="drop rows with missing values instead of failing")
    parser.add_argument("--seed", type=int, default=0, help="seeds the model, the split and training")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    _check_options(args)
    table = read_table(args.data)
    if args.target not in table.columns:
        raise CommandError(f"{table.name} has no column {args.target!r} (columns: {', '.join(table.columns)})")
    message = missing_values_message(table, list(table.columns))
    if message is not None:
        if not args.drop_missing:
            raise CommandError(f"{message}; fix them or pass --drop-missing")
        table = table.rows(~rows_with_missing(table, list(table.columns))[0])
        print(message.replace(" have missing values", " had missing values and were dropped"))
        if table.num_rows == 0:
            raise CommandError("no rows left after dropping those with missing values")

    training_rows, held_out_rows = _split(table.num_rows, args.validation_fraction, args.seed)
    preprocessing = Preprocessing.fit(table.rows(training_rows), args.target, args.likelihood, all_rows=table)
    X, Y = preprocessing.inputs(table), preprocessing.targets(table)
    logger.info("inputs: %s", ", ".join(preprocessing.encoded_names))

    from gpflow_deep import training
    from gpflow_deep.app.run_directory import LOG_DIR, RunConfig, save_run

    config = RunConfig(
        model=args.model,
        builder=MODEL_BUILDERS[args.model],
        num_layers=args.layers,
        likelihood=args.likelihood,
        seed=args.seed,
        num_classes=len(preprocessing.labels) if args.likelihood == "multiclass" else None,
        training=dict(
            iterations=args.iterations,
            batch_size=args.batch_size,
            learning_rate=args.learning_rate,
            validation_fraction=args.validation_fraction,
            patience=args.patience if len(held_out_rows) else None,
        ),
    )
    X_train, Y_train = X[training_rows], Y[training_rows]
    model = config.build(X_train, Y_train)
    held_out = (X[held_out_rows], Y[held_out_rows]) if len(held_out_rows) else None
    print(
        f"training {args.model} ({args.layers} layers, {args.likelihood} likelihood) on {len(training_rows)} rows "
        f"and {X.shape[1]} inputs" + (f", {len(held_out_rows)} rows held out for early stopping" if held_out else "")
    )
    result = training.fit(
        model,
        (X_train, Y_train),
        args.iterations,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        seed=args.seed,
        log_dir=os.path.join(args.out, LOG_DIR),
        monitor_every=max(10, min(100, args.iterations // CHECKS_PER_RUN)),
        validation_data=held_out,
        patience=config.training["patience"],
        progress=True,
    )
    summary = dict(
        iterations=result.iterations,
        seconds=result.seconds,
        seconds_per_iteration=result.seconds_per_iteration,
        final_objective=float(result.objectives[-1]),
        best_iteration=result.best_iteration,
        held_out_log_density=max(score for _, score in result.validation) if result.validation else None,
        training_rows=len(training_rows),
        held_out_rows=len(held_out_rows),
        inputs=preprocessing.encoded_names,
    )
    save_run(args.out, config, preprocessing, X_train, Y_train, model, summary)
    stopped = f", best held-out check at step {result.best_iteration}" if result.best_iteration else ""
    print(f"trained {result.iterations} steps in {result.seconds:.1f} s{stopped}")
    print(f"run directory: {os.path.abspath(args.out)}")
    print(f"TensorBoard: tensorboard --logdir {os.path.join(args.out, LOG_DIR)}")
    return 0


def _check_options(args: argparse.Namespace) -> None:
    for name in ("layers", "iterations", "patience"):
        if getattr(args, name) < 1:
            raise CommandError(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.batch_size is not None and args.batch_size < 1:
        raise CommandError(f"--batch-size must be at least 1, got {args.batch_size}")
    if not 0.0 <= args.validation_fraction < 1.0:
        raise CommandError(f"--validation-fraction must be in [0, 1), got {args.validation_fraction}")
    if args.learning_rate <= 0:
        raise CommandError(f"--learning-rate must be positive, got {args.learning_rate}")
    if os.path.exists(args.out) and (not os.path.isdir(args.out) or os.listdir(args.out)):
        raise CommandError(f"{args.out} already exists and is not empty; choose a new --out")


def _split(num_rows: int, fraction: float, seed: int):
    """Training and held-out row indices, the held-out ones a random ``fraction`` of the rows."""
    order = np.random.default_rng(seed).permutation(num_rows)
    held_out = int(round(fraction * num_rows))
    if fraction > 0 and held_out == 0:
        raise CommandError(f"--validation-fraction {fraction} of {num_rows} rows holds out no row")
    if num_rows - held_out < 2:
        raise CommandError(f"too few rows to train on: {num_rows - held_out}")
    return np.sort(order[held_out:]), np.sort(order[:held_out])
