"""The obvious path, for any builder: defaults only, a fixed number of full-batch Adam steps, no
held-out data, scored on the test part (the acceptance harness of the builders' defaults).

For every builder, data set and split: ``build(X, Y, **options)`` on the standardised training
part of the papers' protocol (``gpflow_deep.datasets.uci_split``), then ``--steps`` full-batch Adam
steps at ``--learning-rate`` through ``gd.fit`` (``--loop fit``), through the plain GPflow loop
(``training_loss_closure`` and a compiled ``optimizer.minimize``, ``--loop plain``) or both, from
a fresh model each. Prints and appends to ``--results`` the test log-likelihood, RMSE and CRPS in
original units, the training log-likelihood (original units), the wall time and the machine.
``--options`` is a JSON object passed to the builder (``{}``: the builder's defaults, which is the
point). Besides the UCI sets, ``fifty-points`` is the 50-point 1-D problem of
``tests/unit/builders/test_safe_defaults.py`` (y = sin 2x + noise of sd 0.1, 30 held-out points, y_std 1).

Examples::

    python -m benchmarks safe_defaults --builders build_dspp --datasets boston concrete --splits 0-2
    python -m benchmarks safe_defaults --builders dspp deep_gp --datasets fifty-points --steps 500
    python -m benchmarks safe_defaults --builders dspp --options '{"paper_defaults": true}' --loop plain
"""

import argparse
import json
import os
import time
from typing import List, Optional

import numpy as np

from benchmarks.common import RESULTS_DIR, provenance, set_threads
from gpflow_deep.app.benchmark import append_result, parse_splits, read_results

LOOPS = ("fit", "plain")
FIFTY_POINTS = "fifty-points"


def fifty_points():
    """The 50-point 1-D problem of ``tests/unit/builders/test_safe_defaults.py``: (X, Y, X_test, Y_test, y_std)."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-3, 3, (80, 1))
    Y = np.sin(2 * X) + 0.1 * rng.standard_normal(X.shape)
    return X[:50], Y[:50], X[50:], Y[50:], 1.0


def problem(dataset: str, split: int):
    """Standardised (X, Y, X_test, Y_test) of one split and the y_std that undoes the scaling."""
    import gpflow_deep as gd

    if dataset == FIFTY_POINTS:
        return fifty_points()
    part = gd.datasets.uci_split(gd.datasets.load(dataset), split)
    return part.X_train, part.Y_train, part.X_test, part.Y_test, part.y_std


def plain_gpflow_loop(model, data, steps: int, learning_rate: float) -> None:
    """Full-batch Adam on ``training_loss_closure``, as a GPflow user writes it."""
    import tensorflow as tf
    from gpflow.keras import tf_keras

    loss = model.training_loss_closure(data)
    optimizer = tf_keras.optimizers.Adam(learning_rate)
    step = tf.function(lambda: optimizer.minimize(loss, model.trainable_variables))
    for _ in range(steps):
        step()


def run(builder: str, dataset: str, split: int, loop: str, args, options: dict) -> dict:
    import gpflow_deep as gd
    from gpflow_deep.evaluation import metrics

    X, Y, Xt, Yt, y_std = problem(dataset, split)
    began = time.perf_counter()
    model = getattr(gd, builder)(X, Y, **options)
    if loop == "fit":
        gd.fit(model, (X, Y), args.steps, learning_rate=args.learning_rate, progress=False)
    else:
        plain_gpflow_loop(model, (X, Y), args.steps, args.learning_rate)
    seconds = time.perf_counter() - began
    test = metrics.evaluate(model, Xt, Yt, y_std)
    train = metrics.evaluate(model, X, Y, y_std)
    return dict(
        builder=builder,
        options=options,
        dataset=dataset,
        split=split,
        loop=loop,
        steps=args.steps,
        learning_rate=args.learning_rate,
        num_train=len(X),
        test_log_likelihood=test["log_likelihood"],
        test_rmse=test["rmse"],
        test_crps=test["crps"],
        train_log_likelihood=train["log_likelihood"],
        seconds=seconds,
        threads=args.threads,
        label=args.label,
        **provenance(),
    )


def finished_runs(path: str, options: dict, args) -> set:
    """(builder, dataset, split, loop) of the runs with these options, steps and label that ``path``
    holds already: an interrupted sweep resumes where it stopped."""
    return {
        (r["builder"], r["dataset"], r["split"], r["loop"])
        for r in read_results(path)
        if r["options"] == options and r["steps"] == args.steps and r["label"] == args.label
    }


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks safe_defaults",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--builders", nargs="+", default=["build_dspp"], help="build_dspp or dspp, ...")
    parser.add_argument("--datasets", nargs="+", default=["boston", "concrete"], help=f"UCI names or {FIFTY_POINTS}")
    parser.add_argument("--splits", default="0-2")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--learning-rate", type=float, default=0.01)
    parser.add_argument("--loop", choices=[*LOOPS, "both"], default="both")
    parser.add_argument("--options", default="{}", help="builder keyword arguments as a JSON object")
    parser.add_argument("--threads", type=int, default=1, help="TensorFlow intra- and inter-op threads (0: TF's)")
    parser.add_argument("--label", default="", help="a name for this candidate, kept in the records")
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "safe_defaults.jsonl"))
    args = parser.parse_args(argv)
    options = json.loads(args.options)
    if not isinstance(options, dict):
        parser.error("--options must be a JSON object")
    set_threads(args.threads)
    builders = [name if name.startswith("build_") else f"build_{name}" for name in args.builders]
    loops = LOOPS if args.loop == "both" else (args.loop,)
    done = finished_runs(args.results, options, args)
    for builder in builders:
        for dataset in args.datasets:
            splits = [0] if dataset == FIFTY_POINTS else parse_splits(args.splits)
            for split in splits:
                for loop in loops:
                    if (builder, dataset, split, loop) in done:
                        print(f"{builder} {dataset} split {split} {loop}: in {args.results} already", flush=True)
                        continue
                    record = run(builder, dataset, split, loop, args, options)
                    append_result(args.results, record)
                    print(
                        f"{builder} {json.dumps(options)} {dataset} split {split} {loop:>5}: "
                        f"test log-lik {record['test_log_likelihood']:8.3f}  RMSE {record['test_rmse']:7.3f}  "
                        f"train log-lik {record['train_log_likelihood']:8.3f}  {record['seconds']:6.1f} s",
                        flush=True,
                    )
    return 0


if __name__ == "__main__":
    main()
