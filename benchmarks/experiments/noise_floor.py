"""What a likelihood noise floor costs on a table with little noise: Friedman's first function,
y = 10 sin(π x₁x₂) + 20 (x₃ − ½)² + 10 x₄ + 5 x₅ + ε on ten uniform inputs (five irrelevant),
whose noise ε ~ N(0, ``--noise``²) is about 1% of var(y) at the default 0.5, where a floor of 5%
of the targets' variance is five times the noise. ``--inputs`` adds irrelevant uniform inputs beyond
the ten, where a pilot GP of one lengthscale overstates the noise.

For each seed: ``--rows`` rows drawn with that seed, split 90/10 and standardised on the
training part by the package's ``uci_split`` (split = seed); each builder trained as the
calibration suite trains it (3,000 full-batch Adam steps at the model's default learning rate)
with each of ``--likelihoods``: the calibration suite's ``floored`` (a Gaussian started at 0.1,
bounded below by 0.05: 5% of the standardised targets' variance), ``unbounded`` (the same start,
GPflow's own lower bound of 1e-6) or ``default`` (the builder's own), scored on the test part in
original units. Examples::

    python -m benchmarks noise_floor --builders aep_dgp --seeds 0-1 --results benchmarks/results/noise_floor.jsonl
    python -m benchmarks noise_floor --builders aep_dgp --seeds 0-1 --likelihoods default
    python -m benchmarks noise_floor --builders aep_dgp --likelihoods default --options '{"likelihood_floor": 0}'
    python -m benchmarks noise_floor --builders dspp --likelihoods default --inputs 25
"""

import argparse
import json
import time
from typing import List, Optional

import numpy as np

from benchmarks.common import provenance, set_threads
from benchmarks.suites.calibration import test_scores, trained
from gpflow_deep.app.benchmark import append_result, parse_splits
from gpflow_deep.datasets.uci import Dataset, Split, uci_split

INPUTS = 10


def friedman1(rows: int, noise: float, seed: int, inputs: int = INPUTS):
    """X ``[rows, inputs]`` uniform on the unit cube and y ``[rows, 1]``, Friedman's first function of
    the first five inputs plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(rows, inputs))
    f = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3] + 5 * X[:, 4]
    return X, (f + noise * rng.standard_normal(rows))[:, None]


def friedman1_split(rows: int, noise: float, seed: int, inputs: int = INPUTS) -> Split:
    """``rows`` rows of :func:`friedman1` drawn with ``seed``, split 90/10 and standardised on the
    training part as the UCI protocol splits a table (``uci_split``, split ``seed``)."""
    X, Y = friedman1(rows, noise, seed, inputs)
    names = tuple(f"x{i + 1}" for i in range(inputs))
    return uci_split(Dataset("friedman1", X, Y, names, "y"), seed)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks noise_floor",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--builders", nargs="+", default=["aep_dgp"])
    parser.add_argument("--seeds", default="0-1")
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--noise", type=float, default=0.5, help="the noise's standard deviation")
    parser.add_argument("--inputs", type=int, default=INPUTS, help="the inputs, the first five relevant (at least 5)")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument(
        "--likelihoods", nargs="+", choices=("floored", "unbounded", "default"), default=["floored", "unbounded"]
    )
    parser.add_argument("--options", default="{}", help="a JSON object of builder options, as the calibration suite's")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results", default=None, help="a JSON-lines file to append each run to")
    args = parser.parse_args(argv)
    if args.inputs < 5:
        parser.error(f"--inputs must be at least 5 (Friedman's function reads five), got {args.inputs}")
    set_threads(args.threads)
    options = json.loads(args.options)
    for seed in parse_splits(args.seeds):
        split = friedman1_split(args.rows, args.noise, seed, args.inputs)
        for name in args.builders:
            builder = name if name.startswith("build_") else f"build_{name}"
            for likelihood in args.likelihoods:
                began = time.perf_counter()
                model = trained(builder, split.X_train, split.Y_train, args.steps, seed, likelihood, options)
                scores = test_scores(model, split.X_test, split.Y_test, float(split.y_std[0]))
                noise = float(np.mean(model.likelihood.variance.numpy()))
                record = dict(builder=builder, seed=seed, rows=args.rows, noise=args.noise, steps=args.steps)
                record.update(options=options, **({"inputs": args.inputs} if args.inputs != INPUTS else {}))
                record.update(likelihood=likelihood, fitted_noise_variance=noise, **scores)
                record.update(seconds=time.perf_counter() - began, threads=args.threads, **provenance())
                print(
                    f"{builder} seed {seed} {likelihood:9s}: test log-lik {scores['log_likelihood']:7.3f} "
                    f"RMSE {scores['rmse']:6.3f} 90% coverage {scores['coverage_90']:.2f} "
                    f"noise {noise:.2e} (standardised)  {record['seconds']:.0f} s",
                    flush=True,
                )
                if args.results:
                    append_result(args.results, record)
    return 0


if __name__ == "__main__":
    main()
