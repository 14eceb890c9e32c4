"""Multiclass classification of real images: scikit-learn's bundled 8×8 digits (1,797 images, 10
classes), RandomFeatureDGP beside DeepGP, both with GPflow's ``MultiClass`` (robust-max) likelihood.

Pixels scaled to [0, 1]; a fixed random 80/20 split (``--seed``); both models have 2 layers with
a hidden layer of ``--width`` GPs and take ``--iterations`` Adam steps (lr 0.01) on minibatches
of 200. RandomFeatureDGP: ``--features`` RBF features per layer, Ω var-fixed, local
reparameterisation (the builder's default with ``MultiClass``); DeepGP: 100
inducing points per layer (``build_deep_gp``). Scored on the test part with 100 paths: accuracy
of the predictive class probabilities and mean test log-likelihood. Needs scikit-learn. Example::

    python -m benchmarks digits --iterations 3000 --threads 1
"""

import argparse
import os
from typing import List, Optional

import gpflow
import numpy as np

import gpflow_deep as gd
from benchmarks.common import RESULTS_DIR, provenance, set_threads
from gpflow_deep.app.benchmark import append_result

NUM_CLASSES = 10
BATCH = 200


def digits_split(seed: int):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(seed).permutation(len(X))
    X, Y = X[order] / 16.0, y[order, None].astype(float)
    cut = int(0.8 * len(X))
    return (X[:cut], Y[:cut]), (X[cut:], Y[cut:])


def build(name: str, train, width: int, features: int, seed: int):
    likelihood = gpflow.likelihoods.MultiClass(NUM_CLASSES)
    if name == "RandomFeatureDGP":
        return gd.build_random_feature_dgp(
            *train, 2, likelihood=likelihood, hidden_width=width, num_features=features, seed=seed
        )
    return gd.build_deep_gp(*train, 2, likelihood=likelihood, hidden_width=width, num_inducing=100, seed=seed)


def scores(model, test, seed: int):
    X, Y = test
    probabilities, _ = model.predict_y(X, num_samples=100, seed=seed)
    accuracy = float(np.mean(np.argmax(probabilities.numpy(), axis=1) == Y[:, 0]))
    log_likelihood = float(np.mean(model.predict_log_density((X, Y), num_samples=100, seed=seed)))
    return dict(accuracy=accuracy, test_log_likelihood=log_likelihood)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks digits", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--models", nargs="+", default=["RandomFeatureDGP", "DeepGP"])
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--width", type=int, default=10)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "digits.jsonl"))
    args = parser.parse_args(argv)
    set_threads(args.threads)
    train, test = digits_split(args.seed)
    for name in args.models:
        model = build(name, train, args.width, args.features, args.seed)
        result = gd.fit(model, train, args.iterations, batch_size=BATCH, seed=args.seed, progress=False)
        record = dict(
            benchmark="digits",
            model=name,
            iterations=args.iterations,
            width=args.width,
            features=args.features if name == "RandomFeatureDGP" else None,
            local_reparameterisation=getattr(model.layers[0], "local_reparameterisation", None),
            seed=args.seed,
            train_seconds=result.seconds,
            seconds_per_iteration=result.seconds_per_iteration,
            **scores(model, test, args.seed),
            **provenance(),
        )
        append_result(args.results, record)
        print(
            f"{name}: accuracy {record['accuracy']:.4f}  test log-lik {record['test_log_likelihood']:.4f}  "
            f"train {result.seconds:.0f} s ({1000 * result.seconds_per_iteration:.1f} ms/step)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    main()
