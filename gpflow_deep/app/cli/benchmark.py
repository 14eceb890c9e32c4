"""``gpflow-deep benchmark``: the papers' UCI protocol for chosen models, resumable, summarised."""

import argparse
import os
import time

from gpflow_deep.app.cli.parsing import CommandError, comma_separated, example_epilog, paragraph

DEFAULT_RESULTS = os.path.join("gpflow_deep_benchmark", "results.jsonl")


def register(commands, common: argparse.ArgumentParser) -> None:
    from gpflow_deep.datasets import DATASETS
    from gpflow_deep.registry import PROTOCOL_RECIPES as PROTOCOL_MODELS

    parser = commands.add_parser(
        "benchmark",
        parents=[common],
        help="the papers' UCI protocol: models × data sets × splits, resumable",
        description=paragraph(
            "Train each model in its paper's setting on each 90/10 split (split i uses seed i; inputs and "
            "targets standardised on the training part) and score the test log-likelihood, RMSE and CRPS in "
            "original units. Each finished split is appended to the results file, so an interrupted run "
            "resumes where it stopped; a markdown table of means and standard errors is printed and written "
            "beside the results. The papers' runs are long (20,000 steps: minutes per split): try "
            "--iterations first."
        ),
        epilog=example_epilog(
            "gpflow-deep benchmark --models dgp2,rf2 --datasets boston --splits 0-4",
            "gpflow-deep benchmark --models sgp --datasets concrete --splits 0,1 --iterations 500",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--models", default="dgp2", help=f"comma-separated, from: {', '.join(PROTOCOL_MODELS)} (default: %(default)s)"
    )
    parser.add_argument(
        "--datasets",
        default="boston,concrete",
        help=f"comma-separated, from: {', '.join(DATASETS)} (default: %(default)s)",
    )
    parser.add_argument(
        "--splits", default="0-4", help="split numbers and ranges, e.g. 0-4 or 0,3,7 (default: %(default)s)"
    )
    parser.add_argument(
        "--iterations", type=int, default=None, help="training steps (default: each model's paper setting)"
    )
    parser.add_argument("--batch-size", type=int, default=None, help="minibatch (default: each model's paper setting)")
    parser.add_argument("--results", default=DEFAULT_RESULTS, help="JSON-lines results file (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the models' initialisation and training")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gpflow_deep.app.benchmark import (
        PROTOCOL_MODELS,
        append_result,
        first,
        parse_splits,
        read_results,
        run_keys,
        run_split,
        summary_table,
    )
    from gpflow_deep.datasets import DATASETS
    from gpflow_deep.training.progress import time_left

    models = _names(args.models, PROTOCOL_MODELS, "--models")
    datasets = _names(args.datasets, DATASETS, "--datasets")
    try:
        splits = parse_splits(args.splits)
    except ValueError as error:
        raise CommandError(f"--{error}") from None
    for option in ("iterations", "batch_size"):
        if getattr(args, option) is not None and getattr(args, option) < 1:
            raise CommandError(f"--{option.replace('_', '-')} must be a positive integer, got {getattr(args, option)}")
    runs = [(model, dataset, split) for model in models for dataset in datasets for split in splits]
    done = read_results(args.results)
    todo = [run for run in runs if first(done, run_keys(*run, args.iterations, args.batch_size)) is None]
    print(f"{len(runs)} runs, {len(runs) - len(todo)} already in {args.results}, {len(todo)} to do")
    began = time.perf_counter()
    for count, (model, dataset, split) in enumerate(todo, start=1):
        print(f"[{count}/{len(todo)}] {model} on {dataset}, split {split}", flush=True)
        record = run_split(model, dataset, split, args.iterations, args.batch_size, args.seed, progress=True)
        append_result(args.results, dict(record, command="gpflow-deep benchmark"))
        left = (time.perf_counter() - began) / count * (len(todo) - count)
        print(
            f"[{count}/{len(todo)}] test log-lik {record['test_log_likelihood']:.3f}, RMSE {record['test_rmse']:.3f}, "
            f"{record['train_seconds']:.0f} s; about {time_left(left)}",
            flush=True,
        )
    wanted = [record for record in read_results(args.results) if (record["model"], record["dataset"]) in _pairs(runs)]
    table = summary_table(wanted)
    summary = os.path.splitext(args.results)[0] + "_summary.md"
    with open(summary, "w") as handle:
        handle.write(table + "\n")
    print(table)
    print(f"results: {os.path.abspath(args.results)}\nsummary: {os.path.abspath(summary)}")
    return 0


def _names(text: str, known, option: str):
    names = comma_separated(text)
    unknown = [name for name in names if name not in known]
    if not names or unknown:
        raise CommandError(f"{option}: unknown {', '.join(unknown) or 'empty list'}; choose from {', '.join(known)}")
    return names


def _pairs(runs):
    return {(model, dataset) for model, dataset, _ in runs}
