"""Where a random-feature step's time goes, and what it buys: RandomFeatureDGP beside DeepGP.

Both models have 2 layers, hidden width 3, and take Adam steps (lr 0.01) on minibatches of 200
with S Monte Carlo paths; RandomFeatureDGP has 100 RBF features per layer (the paper's UCI
setting), DeepGP 100 inducing points per layer (``build_deep_gp``). Their time per step is the
speed suite's (``python -m benchmarks speed --models random_feature_dgp ...``); this measures

1. where the time goes: compiled forward objective, its gradient, and (random features) the
   feature maps alone, at the same batch, for each ``--samples``;
2. the time to reach a test log-likelihood: each model trained for ``--budget`` iterations on
   split 0 (S=1), scored on the test part every ``--every`` iterations (S=100 paths, original
   units); the training time at the first score at or above ``--target``.

Example::

    python -m benchmarks random_feature_cost --dataset concrete --samples 1 10 --threads 1
"""

import argparse
import os
from typing import List, Optional

import numpy as np
import tensorflow as tf

import gpflow_deep as gd
from benchmarks.common import RESULTS_DIR, median_seconds, provenance, set_threads
from gpflow_deep.app.benchmark import append_result

BATCH = 200


def build(name, data, num_samples, seed=0):
    if name == "RandomFeatureDGP":
        return gd.build_random_feature_dgp(*data, 2, num_samples=num_samples, seed=seed)
    return gd.build_deep_gp(*data, 2, hidden_width=3, num_samples=num_samples, seed=seed)


def time_to_target(name, part, budget, every, target):
    """(training seconds to the first test log-lik ≥ target or None, [(iteration, seconds, log-lik)]).

    One run of ``budget`` iterations scored every ``every`` (the scoring, 100 paths on ~100 test
    points, is a small part of the run); the time at iteration i is the first (tracing) step plus
    i − 1 mean steps."""
    train = (part.X_train, part.Y_train)
    model = build(name, train, 1)
    test = (part.X_test, part.Y_test)
    result = gd.fit(
        model, train, budget, batch_size=BATCH, seed=0, progress=False, validation_data=test, monitor_every=every
    )
    trace, reached = [], None
    for iteration, score in result.validation:
        seconds = result.first_step_seconds + (iteration - 1) * result.seconds_per_iteration
        log_likelihood = score - float(np.sum(np.log(part.y_std)))  # in the targets' original units
        trace.append((iteration, seconds, log_likelihood))
        if reached is None and log_likelihood >= target:
            reached = seconds
    return reached, trace


def breakdown(name, data, num_samples):
    """Milliseconds of the compiled forward objective, its gradient, and the feature maps."""
    model = build(name, data, num_samples)
    X, Y = (tf.constant(a[:BATCH]) for a in data)

    def gradient():
        with tf.GradientTape() as tape:
            loss = model.training_loss((X, Y))
        return tape.gradient(loss, model.trainable_variables)

    parts = {
        "objective": tf.function(lambda: model.training_loss((X, Y))),
        "objective + gradient": tf.function(gradient),
    }
    if name == "RandomFeatureDGP":
        paths = model.predict_all_layers(X, num_samples=num_samples, seed=0)
        X_paths = tf.broadcast_to(X[None], [num_samples, *X.shape])
        fed = [
            tf.concat([o.values, X_paths], -1) if layer.fed_input_dim else o.values
            for layer, o in zip(model.layers[1:], paths[:-1])
        ]  # X fed forward to later layers
        for index, (layer, layer_inputs) in enumerate(zip(model.layers, [X_paths, *fed])):
            parts[f"features, layer {index}"] = tf.function(lambda lay=layer, x=layer_inputs: lay.features(x))
    return {what: 1000 * median_seconds(function, 20) for what, function in parts.items()}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks random_feature_cost",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", default="concrete")
    parser.add_argument("--samples", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--every", type=int, default=500)
    parser.add_argument("--target", type=float, default=-3.4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "speed_random_features.jsonl"))
    args = parser.parse_args(argv)
    set_threads(args.threads)
    part = gd.datasets.uci_split(gd.datasets.load(args.dataset), 0)
    train = (part.X_train, part.Y_train)
    models = ("RandomFeatureDGP", "DeepGP")
    record = dict(benchmark="random_feature_cost", dataset=args.dataset, batch=BATCH, breakdown_ms={})

    for S in args.samples:
        record["breakdown_ms"][S] = {name: breakdown(name, train, S) for name in models}
        for name, parts in record["breakdown_ms"][S].items():
            print(f"S={S} {name}: " + "  ".join(f"{what} {v:.2f} ms" for what, v in parts.items()), flush=True)

    record["time_to_target"] = {}
    for name in models:
        reached, trace = time_to_target(name, part, args.budget, args.every, args.target)
        record["time_to_target"][name] = dict(seconds=reached, trace=trace)
        shown = "not reached" if reached is None else f"{reached:.0f} s"
        print(
            f"{name}: test log-lik {args.target} {shown}; trace "
            + ", ".join(f"{i}: {s:.0f} s {v:.2f}" for i, s, v in trace),
            flush=True,
        )

    record.update(target=args.target, budget=args.budget, **provenance())
    append_result(args.results, record)
    return 0


if __name__ == "__main__":
    main()
