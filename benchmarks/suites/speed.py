"""Time per training step of each model beside its peer, in one run, rounds alternating.

Each model (``--models``) beside its peers:

- ``deep_gp``: GPflux's DeepGP with the same layers and initial values, through Keras ``fit`` and
  a compiled elbo loop;
- ``dspp`` (in GPyTorch's setup: M=100, width 3, S=8, β=1): GPyTorch's DSPP, same inducing inputs;
- ``aep_dgp`` (Monte Carlo, S=20): the same by moment matching (Bui et al.), and ``build_deep_gp``;
- ``sod_dgp`` (the paper's M, 10 paths): ``build_deep_gp`` at the same M and paths;
- ``random_feature_dgp``: ``build_deep_gp`` of width 3, same paths.

Ours is ``gd.fit`` (what users call); every contender is timed from a fresh model, its first
(tracing) step excluded, on split 0 of each data set with ``--layers`` GP layers, full batches or
``--batch-sizes``, and ``--samples`` paths per step (each comparison's own by default). The medians
over ``--rounds`` (all rounds kept) go to ``--results``. ``--float32`` adds ours in float32,
``--xla`` ours with ``jit_compile=True``; ``--processes`` runs every measurement in a process of
its own (in one process one library's thread pools slow the other's: the GPyTorch comparison
needs it); ``--predictions`` also times the S=100 predictive mixture at the test points and at
10,000 points (GPflux's beside ours for ``deep_gp``). Peers are optional dependencies
(``peers/``). Examples::

    python -m benchmarks speed --models deep_gp --datasets boston concrete --steps 300 --rounds 3 --xla --predictions
    python -m benchmarks speed --models deep_gp --steps 200 --rounds 5 --threads 1 --float32
    python -m benchmarks speed --models dspp --steps 200 --rounds 5 --processes
    python -m benchmarks speed --models aep_dgp sod_dgp --steps 50 --rounds 3 --threads 1
    python -m benchmarks speed --models random_feature_dgp --batch-sizes 200 --samples 1 10 --threads 1
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from typing import List, Optional

import numpy as np

import gpflow_deep as gd
from benchmarks.common import RESULTS_DIR, ROOT, median_seconds, provenance, set_threads
from benchmarks.suites.contenders import COMPARISONS, Problem, contenders
from gpflow_deep import datasets
from gpflow_deep.app.benchmark import append_result


def parse(argv: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks speed", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--models", nargs="+", default=list(COMPARISONS), choices=list(COMPARISONS))
    parser.add_argument("--datasets", nargs="+", default=["boston", "concrete"], choices=datasets.DATASETS)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--batch-sizes", nargs="+", default=["full"], help="'full' or a number, each in turn")
    parser.add_argument("--samples", type=int, nargs="+", default=None, help="paths per step, each in turn")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--float32", action="store_true", help="also ours in float32")
    parser.add_argument("--xla", action="store_true", help="also ours compiled with XLA")
    parser.add_argument("--processes", action="store_true", help="each measurement in a process of its own")
    parser.add_argument("--predictions", action="store_true", help="also time the S=100 predictive mixture")
    parser.add_argument("--threads", type=int, default=0, help="threads per op (0: TensorFlow's choice)")
    parser.add_argument("--label", default="cpu", help="a name for this run in the results file")
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "speed.jsonl"))
    parser.add_argument("--worker", nargs=2, metavar=("MODEL", "CONTENDER"), help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def problem(args, dataset: str, batch: str, samples: Optional[int]) -> Problem:
    part = datasets.uci_split(datasets.load(dataset), 0)
    batch_size = None if batch == "full" else int(batch)
    return Problem(part.X_train, part.Y_train, args.layers, samples, args.steps, batch_size)


def seconds(args, model: str, name: str, dataset: str, batch: str, samples: Optional[int]) -> float:
    """One measurement of contender ``name``, here or in a process of its own."""
    if not args.processes:
        return contenders(model, args.float32, args.xla)[name](problem(args, dataset, batch, samples))
    command = [sys.executable, "-m", "benchmarks", "speed", "--worker", model, name, "--datasets", dataset]
    command += ["--batch-sizes", batch, "--layers", str(args.layers), "--steps", str(args.steps)]
    command += ["--threads", str(args.threads)] + (["--samples", str(samples)] if samples else [])
    command += ["--float32"] * args.float32 + ["--xla"] * args.xla
    output = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return float(output.strip().splitlines()[-1])


def train_step_row(args, model: str, dataset: str, batch: str, samples: Optional[int]) -> dict:
    """Median seconds per step of every contender over the rounds, and ours against each."""
    names = list(contenders(model, args.float32, args.xla))
    setting = problem(args, dataset, batch, samples)
    times = {name: [] for name in names}
    for _ in range(args.rounds):
        for name in names:
            times[name].append(seconds(args, model, name, dataset, batch, samples))
    medians = {name: statistics.median(values) for name, values in times.items()}
    return dict(
        kind="train_step",
        model=model,
        dataset=dataset,
        num_layers=args.layers,
        batch_size=setting.batch_size or len(setting.X),
        num_samples=samples,
        steps=args.steps,
        rounds=args.rounds,
        seconds=medians,
        all_seconds=times,
        ours_vs={name: medians["ours"] / medians[name] for name in names[1:]},
    )


def prediction_rows(args, model: str, dataset: str) -> List[dict]:
    """Seconds for the S=100 predictive mixture of ours after 50 steps (and of its peers) at the
    test points and at 10,000 points."""
    part = datasets.uci_split(datasets.load(dataset), 0)
    trained = COMPARISONS[model].ours(problem(args, dataset, "full", COMPARISONS[model].samples))
    gd.fit(trained, (part.X_train, part.Y_train), 50, progress=False)
    predictors = dict(ours=lambda X: trained.predict_mixture(X, num_samples=100).means.numpy())
    predictors.update(COMPARISONS[model].peer_predictions(trained))
    many = np.tile(part.X_test, (int(np.ceil(10_000 / len(part.X_test))), 1))[:10_000]
    rows = []
    for X in (part.X_test, many):
        timed = {name: median_seconds(lambda: predict(X), 3) for name, predict in predictors.items()}
        row = dict(kind="predict_mixture_S100", model=model, dataset=dataset, points=len(X), seconds=timed)
        rows.append(dict(row, ours_vs={name: timed["ours"] / value for name, value in timed.items() if name != "ours"}))
    return rows


def main(argv: Optional[List[str]] = None) -> int:
    args = parse(argv)
    set_threads(args.threads)
    if args.worker:
        model, name = args.worker
        setting = problem(args, args.datasets[0], args.batch_sizes[0], args.samples and args.samples[0])
        print(contenders(model, args.float32, args.xla)[name](setting))
        return 0
    origin = provenance()
    for model in args.models:
        for dataset in args.datasets:
            rows = [
                train_step_row(args, model, dataset, batch, samples)
                for batch in args.batch_sizes
                for samples in (args.samples or [COMPARISONS[model].samples])
            ]
            rows += prediction_rows(args, model, dataset) if args.predictions else []
            for row in rows:
                row.update(label=args.label, **origin)
                append_result(args.results, row)
                print(json.dumps({k: v for k, v in row.items() if k not in ("versions", "command", "all_seconds")}))
    return 0


if __name__ == "__main__":
    main()
