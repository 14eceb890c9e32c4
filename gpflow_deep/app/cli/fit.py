"""``gpflow-deep fit``: train a model on a user's table and write a run directory.

The table is read in batches: one pass learns the encoding and draws a bounded sample of rows to
initialise the model from; small tables are then trained on in memory, large ones in minibatches
read from disk epoch after epoch, so that memory does not grow with the number of rows. With
``--likelihood auto`` (the default) a text or 0/1 target is classification and a numeric one takes
Gaussian or Student-t noise, whichever two short pilots on the sample score higher on held-out rows
(:mod:`gpflow_deep.app.likelihood_choice`).
"""

import argparse
import contextlib
import logging
import os
import time

from gpflow_deep.app.cli.builder_options import described, parse_options
from gpflow_deep.app.cli.fit_plan import (
    DEFAULT_ITERATIONS,
    DEFAULT_MINIBATCH,
    DEFAULT_SECONDS,
    DEFAULT_STREAMED_EPOCHS,
    DEFAULT_STREAMED_MIN_ITERATIONS,
    IN_MEMORY_ROWS,
    plan_training,
)
from gpflow_deep.app.cli.held_out import (
    DEFAULT_CALIBRATION_FRACTION,
    NOTHING,
    default_applies,
    requested_held_out,
)
from gpflow_deep.app.cli.parsing import CommandError, example_epilog, paragraph, share
from gpflow_deep.app.cli.progress import RowProgress
from gpflow_deep.app.tables.learning import AUTO
from gpflow_deep.registry import (
    LIKELIHOODS,
    MODEL_BUILDERS,
    MODELS,
    accepts_likelihood,
    available_models,
    builder_named,
)

logger = logging.getLogger("gpflow_deep.app.cli")

CHECKS_PER_RUN = 20  # held-out checks (and TensorBoard points) per run, every 10 to 100 steps
SHUFFLE_ROWS = 100_000  # rows in the shuffle buffer of a table streamed from disk


def register(commands, common: argparse.ArgumentParser) -> None:
    models = available_models()
    parser = commands.add_parser(
        "fit",
        parents=[common],
        help="train a model on a CSV or Parquet table",
        description=paragraph(
            "Train a deep GP on a table: numeric columns are standardised on the training rows, string "
            "columns one-hot encoded, missing values filled (and marked by one more input per column; rows "
            "without a target are left out), and RUN_DIR receives the trained model, its configuration, the "
            "preprocessing and TensorBoard logs (RUN_DIR/logs). Training takes minibatches of "
            f"{DEFAULT_MINIBATCH:,} rows by default (a smaller table trains in full batch), held in memory for "
            f"tables of up to {IN_MEMORY_ROWS:,} training rows and read from disk for larger ones, so memory "
            "does not grow with the table. By default the "
            "likelihood is chosen from the target: text or 0/1 labels are classification, other numbers "
            "Gaussian or Student-t regression, whichever scores the higher held-out log-likelihood in two "
            "short pilot fits on a sample of the rows."
        ),
        epilog=example_epilog(
            "gpflow-deep fit houses.csv --target price --out runs/houses",
            "gpflow-deep fit iris.csv --target species --likelihood multiclass --validation-fraction 0.2 --out iris",
            "gpflow-deep fit big.csv --target y --out runs/big --time-budget 30m",
            "gpflow-deep fit houses.csv --target price --model random_feature_dgp --option num_members=3 --out rf3",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("data", metavar="DATA", help="a CSV file with a header line, or a Parquet file")
    parser.add_argument("--target", required=True, metavar="COLUMN", help="the column to predict")
    parser.add_argument("--out", required=True, metavar="RUN_DIR", help="a new directory for the trained run")
    parser.add_argument("--model", default="deep_gp", choices=models, help="(default: %(default)s)")
    parser.add_argument("--layers", type=int, default=2, help="number of GP layers (default: %(default)s)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a field of the model's builder config, e.g. num_members=3 for random_feature_dgp or "
        "subset_size=200 for sod_dgp; repeat for several (an unknown NAME lists the model's options)",
    )
    length = parser.add_mutually_exclusive_group()
    length.add_argument(
        "--iterations",
        type=int,
        default=None,
        help=f"training steps (default: {DEFAULT_ITERATIONS:,}, and above {IN_MEMORY_ROWS:,} training rows "
        f"{DEFAULT_STREAMED_EPOCHS} epochs but at least {DEFAULT_STREAMED_MIN_ITERATIONS:,} steps; either or "
        f"{DEFAULT_SECONDS / 60:.0f} minutes, whichever comes first)",
    )
    length.add_argument("--epochs", type=float, default=None, help="passes over the training rows")
    parser.add_argument(
        "--time-budget",
        default=None,
        metavar="DURATION",
        help="stop training after this long, e.g. 600, 90s, 10m, 2h (alone: train until then)",
    )
    parser.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help=f"minibatch size (default: {DEFAULT_MINIBATCH:,}; full batch for a table of up to "
        f"{DEFAULT_MINIBATCH:,} training rows)",
    )
    parser.add_argument(
        "--learning-rate",
        type=float,
        default=None,
        help="Adam's step size (default: the model's: 0.01; aep_dgp and random_feature_dgp 0.003)",
    )
    parser.add_argument(
        "--anneal",
        type=share,
        nargs="?",
        const=1.0,
        default=None,
        metavar="SHARE",
        help="take this share of Adam's step away along a half cosine over the steps: 0 keeps it constant, "
        "1 (the flag alone) lowers it to zero, 0.7 to 0.3 of it (default: the model's where it can: 0; "
        "aep_dgp and random_feature_dgp 0.7; 0 with --time-budget alone)",
    )
    parser.add_argument(
        "--likelihood",
        default=AUTO,
        choices=(AUTO,) + LIKELIHOODS,
        help="gaussian or studentt regression, poisson counts, bernoulli or multiclass labels; auto: labels "
        "for a text or 0/1 target, else gaussian or studentt by held-out pilots (random_feature_dgp: studentt, "
        "its default) (default: %(default)s)",
    )
    parser.add_argument(
        "--validation-fraction",
        type=float,
        default=0.0,
        metavar="F",
        help="hold out this fraction of the rows for early stopping (default: none)",
    )
    parser.add_argument(
        "--calibration-fraction",
        type=float,
        default=None,
        metavar="F",
        help="hold out this fraction of the rows to calibrate the intervals on (split-conformal; default: "
        f"{DEFAULT_CALIBRATION_FRACTION} for a regression table above {IN_MEMORY_ROWS:,} rows, else none)",
    )
    parser.add_argument(
        "--patience", type=int, default=10, help="held-out checks without improvement before stopping (default: 10)"
    )
    parser.add_argument(
        "--drop-missing",
        action="store_true",
        help="drop rows with missing input values (default: fill them, numbers and dates with the training "
        "mean, text with no category, and mark each such column with one more input; predict, evaluate "
        "and calibrate then fill them alike). Rows without a target are always left out",
    )
    parser.add_argument(
        "--ignore",
        nargs="+",
        default=[],
        metavar="COLUMN",
        help="columns to leave out of the inputs (ids, row numbers, mostly empty columns, ...): never read",
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds the model, the split and training")
    workers = parser.add_argument_group(
        "several processes or machines (MultiWorkerMirroredStrategy; or set TF_CONFIG instead)",
        "run the same command on every worker, each with its own --worker-index; worker 0 writes RUN_DIR",
    )
    workers.add_argument("--cluster", metavar="HOST:PORT,...", help="every worker's address, the same on all")
    workers.add_argument("--worker-index", type=int, metavar="I", help="this worker's place in --cluster")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gpflow_deep.app.tables import TableReader
    from gpflow_deep.app.tables.stream import encoded
    from gpflow_deep.app.workers import TF_CONFIG, cluster_workers

    if args.time_budget is not None and (args.cluster is not None or TF_CONFIG in os.environ):
        raise CommandError(
            "--time-budget: with several workers give --iterations or --epochs instead "
            "(each worker would stop at its own step, and the others would wait for it)"
        )
    held = requested_held_out(args)
    workers = cluster_workers(args.cluster, args.worker_index)
    _check_options(args, out_must_be_new=workers is None or workers.is_chief)
    builder_options = parse_options(args.option, args.model)
    if workers is not None:
        print(workers.describe())
    if args.target in args.ignore:
        raise CommandError(f"--ignore: the target {args.target!r} cannot be left out")
    reader = TableReader(args.data, ignore=args.ignore)
    if args.target not in reader.columns:
        raise CommandError(f"{reader.name} has no column {args.target!r} (columns: {', '.join(reader.columns)})")
    began = time.perf_counter()
    table = _learned_table(reader, args, held)
    if not default_applies(held, table.training_rows, table.preprocessing.is_classification, IN_MEMORY_ROWS):
        held = NOTHING  # a small or classification table keeps every row for training
        table = _learned_table(reader, args, held)
    _check_rows(args, table, reader.name, held)
    for note in table.notes:
        logger.warning("%s: %s", reader.name, note)
    preprocessing = table.preprocessing
    print(
        f"read {reader.name}: {table.rows:,} rows, {len(preprocessing.features)} input columns, "
        f"{len(preprocessing.encoded_names)} inputs once encoded, in {time.perf_counter() - began:.1f} s"
    )
    logger.info("inputs: %s", ", ".join(preprocessing.encoded_names))
    plan = plan_training(args, table.training_rows)
    if workers is not None:
        _fix_length_for_workers(plan)
    print(plan.describe(batch_given=args.batch_size is not None))
    X_sample, Y_sample = encoded(table.sample, preprocessing, reader.name)
    held_out = encoded(table.held_out_sample, preprocessing, reader.name)
    calibration_rows = held_out if held.calibrate else None
    if held.calibrate and held_out is not None:
        default = f" [default above {IN_MEMORY_ROWS:,} rows; {held.option} 0 to train on them]" if held.default else ""
        print(f"calibration: {table.held_out_rows:,} rows held out, {len(held_out[0]):,} of them to calibrate{default}")
        held_out = None
    elif held_out is not None:
        print(
            f"early stopping: {table.held_out_rows:,} rows held out, {len(held_out[0]):,} of them scored at each check"
        )
    likelihood, choice = _likelihood(args, table, X_sample, Y_sample)
    strategy = workers.strategy if workers is not None else None
    with strategy.scope() if strategy is not None else contextlib.nullcontext():
        model, config = _initialised_model(args, table, likelihood, builder_options, X_sample, Y_sample)
    data = (
        (X_sample, Y_sample) if not plan.streamed else _streamed(reader, table, args, held, plan.batch_size, X_sample)
    )
    result = _train(args, model, data, plan, held_out, config, workers)
    config.training["calibration_fraction"] = held.fraction if held.calibrate else 0.0
    if workers is None or workers.is_chief:
        _save(args, config, preprocessing, model, result, table, choice)
        if calibration_rows is not None:
            _calibrate(args.out, config, preprocessing, model, calibration_rows, reader.name)
    else:
        _save_elsewhere(args, config, preprocessing, model, result, table, choice)
    return 0


def _learned_table(reader, args, held):
    """One reading pass over the table with ``held.fraction`` of its rows held out."""
    from gpflow_deep.app.tables import learn_table

    progress = RowProgress(f"reading {reader.name}", fraction=lambda: reader.fraction_read)
    table = learn_table(
        reader,
        args.target,
        args.likelihood,
        validation_fraction=held.fraction,
        seed=args.seed,
        sample_rows=IN_MEMORY_ROWS,
        drop_missing=args.drop_missing,
        on_batch=progress,
    )
    progress.close()
    return table


def _calibrate(directory, config, preprocessing, model, rows, name: str) -> None:
    """Split-conformal calibration of the saved run on its held-out ``rows`` (encoded X, Y)."""
    import numpy as np

    from gpflow_deep.app.calibration import calibration_from_scores, held_out_scores, save_calibration
    from gpflow_deep.app.run_directory import Run
    from gpflow_deep.evaluation.conformal import score_of_level

    began = time.perf_counter()
    X, Y = rows
    scores = held_out_scores(Run(directory, config, preprocessing, model), X, Y)
    save_calibration(directory, calibration_from_scores(scores, f"{name} (held out by fit)"))
    raw = float(np.mean(scores <= score_of_level(0.9)))  # every score: the stored map keeps only some ranks
    print(
        f"calibrated on {len(X):,} held-out rows in {time.perf_counter() - began:.1f} s: the model's own 90% "
        f"interval covered {raw:.3f} of them; predict writes the calibrated intervals"
    )


def _fix_length_for_workers(plan) -> None:
    """Workers must all stop at the same step: not at the default time budget, which each would
    measure alone (an explicit ``--time-budget`` is refused before the cluster starts)."""
    if plan.time_budget is None:
        return
    plan.time_budget = None
    print("several workers: training the default length in steps only, without the default time budget")


def _likelihood(args, table, X_sample, Y_sample):
    """The run's likelihood (also set in ``table.preprocessing``) and, for ``auto`` on a numeric
    target, the :class:`LikelihoodChoice` that chose it; prints the choice."""
    from gpflow_deep.app.likelihood_choice import (
        CANDIDATES,
        MIN_SAMPLE_ROWS,
        PILOT_STEPS,
        LikelihoodChoice,
        choose_likelihood,
    )

    preprocessing = table.preprocessing
    if args.likelihood != AUTO:
        return args.likelihood, None
    if preprocessing.likelihood != AUTO:
        labels = len(preprocessing.labels)
        print(f"likelihood: {preprocessing.likelihood} (target {args.target!r} has {labels} labels)")
        return preprocessing.likelihood, None
    entry = MODELS.get(args.model)
    if entry is not None and entry.numeric_likelihood is not None:
        reason = f"{args.model}'s default for a numeric target; --likelihood gaussian for the Gaussian"
        choice = LikelihoodChoice(entry.numeric_likelihood, reason=reason)
    elif not accepts_likelihood(builder_named(MODEL_BUILDERS[args.model])):
        choice = LikelihoodChoice("gaussian", reason=f"{args.model} supports only a Gaussian likelihood")
    else:
        if len(X_sample) >= MIN_SAMPLE_ROWS:
            print(
                f"choosing the likelihood: {' or '.join(CANDIDATES)}, by {PILOT_STEPS}-step one-layer pilots "
                f"on the {len(X_sample):,}-row sample",
                flush=True,
            )
        choice = choose_likelihood(X_sample, Y_sample, preprocessing.target_std, seed=args.seed)
    print(choice.describe())
    preprocessing.likelihood = choice.likelihood
    return choice.likelihood, choice


def _initialised_model(args, table, likelihood: str, builder_options: dict, X_sample, Y_sample):
    from gpflow_deep.app.run_directory import RunConfig, sample_moments

    config = RunConfig(
        model=args.model,
        builder=MODEL_BUILDERS[args.model],
        num_layers=args.layers,
        likelihood=likelihood,
        seed=args.seed,
        num_data=table.training_rows,
        sample_shape=list(X_sample.shape),
        sample_moments=sample_moments(X_sample, Y_sample),
        num_classes=len(table.preprocessing.labels) if likelihood == "multiclass" else None,
        builder_options=builder_options,
        multiclass_link="softmax",
    )
    began = time.perf_counter()
    if len(X_sample) < table.training_rows:
        what = f"a random sample of {len(X_sample):,} of the {table.training_rows:,} training rows"
    else:
        what = f"all {table.training_rows:,} training rows"
    setup = ", ".join([f"{args.layers} layers", f"{likelihood} likelihood", *described(builder_options)])
    print(f"initialising {args.model} ({setup}) from {what}", flush=True)
    try:
        model = config.build(X_sample, Y_sample)
    except TypeError as error:  # a builder without a config, given a keyword it does not take
        if not builder_options:
            raise
        raise CommandError(f"--option: {error}") from error
    print(f"initialised in {time.perf_counter() - began:.1f} s")
    return model, config


def _streamed(reader, table, args, held, batch_size: int, X_sample):
    from gpflow_deep.app.tables.stream import training_chunks
    from gpflow_deep.training.chunks import chunk_dataset

    def read_chunks():
        return training_chunks(reader, table.preprocessing, held.fraction, args.seed)

    shuffle_rows = max(SHUFFLE_ROWS, 2 * batch_size)
    return chunk_dataset(read_chunks, X_sample.shape[1], 1, batch_size, shuffle_rows=shuffle_rows, seed=args.seed)


def _train(args, model, data, plan, held_out, config, workers):
    from gpflow_deep import training
    from gpflow_deep.app.run_directory import LOG_DIR
    from gpflow_deep.training.fit import anneal_for, learning_rate_for

    learning_rate = learning_rate_for(model, args.learning_rate)
    try:
        annealed = anneal_for(model, args.anneal, plan.iterations)
    except ValueError as error:
        raise CommandError(f"--anneal: {error}") from error
    config.training = dict(
        iterations=plan.iterations,
        time_budget=plan.time_budget,
        batch_size=plan.batch_size,
        learning_rate=learning_rate,
        anneal=annealed,
        validation_fraction=args.validation_fraction,
        patience=args.patience if held_out is not None else None,
    )
    monitor_every = 100 if plan.iterations is None else max(10, min(100, plan.iterations // CHECKS_PER_RUN))
    return training.fit(
        model,
        data,
        plan.iterations,
        batch_size=None if plan.streamed else plan.batch_size,
        learning_rate=learning_rate,
        anneal=annealed,
        seed=args.seed,
        log_dir=os.path.join(args.out, LOG_DIR) if workers is None or workers.is_chief else None,
        monitor_every=monitor_every,
        validation_data=held_out,
        patience=config.training["patience"],
        progress=True,
        time_budget=plan.time_budget,
        strategy=workers.strategy if workers is not None else None,
    )


def _save_elsewhere(args, config, preprocessing, model, result, table, choice) -> None:
    """A worker other than the chief saves too (writing a checkpoint of mirrored variables may need
    every worker), into a temporary directory that it then removes."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gpflow-deep-worker-") as scratch:
        args = argparse.Namespace(**{**vars(args), "out": os.path.join(scratch, "run")})
        _save(args, config, preprocessing, model, result, table, choice, quiet=True)
    print(_trained(result))
    print("worker 0 writes the run directory")


def _save(args, config, preprocessing, model, result, table, choice, quiet: bool = False) -> None:
    from gpflow_deep.app.run_directory import LOG_DIR, save_run

    summary = dict(
        iterations=result.iterations,
        seconds=result.seconds,
        seconds_per_iteration=result.seconds_per_iteration,
        final_objective=float(result.objectives[-1]),
        best_iteration=result.best_iteration,
        held_out_log_density=max(score for _, score in result.validation) if result.validation else None,
        rows=table.rows,
        dropped_rows=table.missing_rows,
        filled_rows_per_column=table.filled_columns,
        training_rows=table.training_rows,
        held_out_rows=table.held_out_rows,
        inputs=preprocessing.encoded_names,
        likelihood_choice=choice.to_dict() if choice is not None else None,
    )
    save_run(args.out, config, preprocessing, model, summary)
    if quiet:
        return
    stopped = f", best held-out check at step {result.best_iteration}" if result.best_iteration else ""
    print(_trained(result) + stopped)
    print(f"run directory: {os.path.abspath(args.out)}")
    print(f"TensorBoard: tensorboard --logdir {os.path.join(args.out, LOG_DIR)}")


def _trained(result) -> str:
    objective = float(result.objectives[-1])
    return f"trained {result.iterations} steps in {result.seconds:.1f} s (final objective {objective!r})"


def _check_rows(args, table, name: str, held) -> None:
    """The rows dropped for missing values and the columns filled, reported, and enough rows left to
    train and hold out."""
    if args.drop_missing and table.missing_rows:
        print(table.missing_message(name, dropped=True))
    elif table.missing_rows:
        target = table.preprocessing.target
        print(f"{name}: {table.missing_rows:,} of {table.rows:,} rows have no value of the target {target!r}: left out")
    filled = table.filled_message(name)
    if filled is not None:
        print(filled)
    if table.rows == table.missing_rows:
        raise CommandError("no rows left after dropping those with missing values")
    if held.fraction > 0 and not held.default and table.held_out_rows == 0:
        raise CommandError(f"{held.option} {held.fraction} of {table.rows} rows holds out no row")
    if table.training_rows < 2:
        raise CommandError(f"too few rows to train on: {table.training_rows}")


def _check_options(args: argparse.Namespace, out_must_be_new: bool = True) -> None:
    for name in ("layers", "patience"):
        if getattr(args, name) < 1:
            raise CommandError(f"--{name} must be at least 1, got {getattr(args, name)}")
    for name in ("iterations", "batch_size"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise CommandError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.epochs is not None and not args.epochs > 0:
        raise CommandError(f"--epochs must be positive, got {args.epochs}")
    if args.learning_rate is not None and args.learning_rate <= 0:
        raise CommandError(f"--learning-rate must be positive, got {args.learning_rate}")
    if out_must_be_new and os.path.exists(args.out) and (not os.path.isdir(args.out) or os.listdir(args.out)):
        raise CommandError(f"{args.out} already exists and is not empty; choose a new --out")
