"""Where a DSPP collapses, or another builder's intervals narrow: test and training
log-likelihood along a plain full-batch Adam run.

``build_dspp(X, Y, **options)`` (``--builder`` another builder's name) on one split of the
papers' protocol, full-batch Adam at 0.01 through ``training_loss_closure``; at each of
``--checkpoints`` (cumulative step counts) it prints the test and training log-likelihood
(original units) and the coverage of their central 90% intervals, the noise variance, the mean
latent variance and the spread of the path means on the training inputs (standardised units), each
layer's KL (layers with one), inter-layer noise (layers with one), the first and last layers'
lengthscales and variances, and the mixture weights (a DSPP's).
``"freeze": ["Z", "kernel", "mean"]`` in the options holds those parameters of every layer at
their starting values. Example::

    python -m benchmarks dspp_trajectory --options '{"num_inducing": 50, "freeze": ["Z"]}'
    python -m benchmarks dspp_trajectory --split 1001 --checkpoints 500,1000,2000,3000 \
        --results benchmarks/results/dspp_trajectory.jsonl
    python -m benchmarks dspp_trajectory --builder build_aep_dgp --split 1006 --noise-floor 0.05

``--results`` appends each checkpoint's record, with the command, machine and date.
"""

import argparse
import json
from typing import List, Optional

import gpflow
import numpy as np
import tensorflow as tf
from gpflow.keras import tf_keras

import gpflow_deep as gd
from benchmarks.common import provenance, set_threads
from benchmarks.suites.calibration import floored_gaussian, test_scores
from benchmarks.suites.calibration_tables import load_dataset
from gpflow_deep.app.benchmark import append_result

FREEZABLE = {"Z": "inducing_variable", "kernel": "kernel", "mean": "mean_function"}
"""``freeze``'s names: the layer attribute each holds at its starting value."""


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks dspp_trajectory",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--builder", default="build_dspp", help="a builder of gpflow_deep, by name")
    parser.add_argument("--dataset", default="boston")
    parser.add_argument("--split", type=int, default=0)
    parser.add_argument("--options", default="{}", help="the builder's options as JSON, plus 'freeze'")
    parser.add_argument("--checkpoints", default="300,1000,3000")
    parser.add_argument(
        "--noise-floor",
        type=float,
        default=None,
        help="pass a Gaussian likelihood with this lower bound on its variance (started at twice it)",
    )
    parser.add_argument("--learning-rate", type=float, default=0.01, help="Adam's step (the records before it: 0.01)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results", default=None, help="a JSON-lines file to append each checkpoint to")
    args = parser.parse_args(argv)
    set_threads(args.threads)
    options = json.loads(args.options)
    freeze = options.pop("freeze", [])
    part = gd.datasets.uci_split(load_dataset(args.dataset), args.split)
    X, Y = part.X_train, part.Y_train
    y_std = float(np.reshape(part.y_std, -1)[0])
    if args.noise_floor is not None:
        options["likelihood"] = floored_gaussian(args.noise_floor)
    model = getattr(gd, args.builder)(X, Y, **options)
    for layer in model.layers:
        for name in freeze:  # a random-feature layer has no inducing variable nor mean function
            gpflow.set_trainable(getattr(layer, FREEZABLE[name]), False)
    loss = model.training_loss_closure((X, Y))
    optimizer = tf_keras.optimizers.Adam(args.learning_rate)
    step = tf.function(lambda: optimizer.minimize(loss, model.trainable_variables))
    done = 0
    for checkpoint in (int(c) for c in args.checkpoints.split(",")):
        while done < checkpoint:
            step()
            done += 1
        test, train = test_scores(model, part.X_test, part.Y_test, y_std), test_scores(model, X, Y, y_std)
        mixture = model.predict_mixture(X)
        first, last = (stationary_kernel(layer) for layer in (model.layers[0], model.layers[-1]))
        record = dict(
            step=done,
            test=round(test["log_likelihood"], 2),
            train=round(train["log_likelihood"], 2),
            test_coverage_90=round(test["coverage_90"], 3),
            train_coverage_90=round(train["coverage_90"], 3),
            noise=float(model.likelihood.variance.numpy()),
            latent_variance=float(tf.reduce_mean(mixture.variances)),
            path_spread=float(tf.reduce_mean(tf.math.reduce_variance(mixture.means, axis=0))),
            kl=[round(float(layer.prior_kl()), 1) for layer in model.layers if hasattr(layer, "prior_kl")],
            inter_layer_noise=[float(noise.numpy()) for noise in inter_layer_noises(model)],
            lengthscales_first=np.round(first.lengthscales.numpy(), 2).tolist(),
            variance_first=round(float(first.variance.numpy()), 2),
            lengthscales_last=np.round(last.lengthscales.numpy(), 2).tolist(),
            variance_last=round(float(last.variance.numpy()), 2),
        )
        if hasattr(model, "log_weights"):
            record["weights"] = np.round(np.exp(model.log_weights().numpy()), 2).tolist()
        print(json.dumps(record), flush=True)
        if args.results:
            where = dict(builder=args.builder, dataset=args.dataset, split=args.split, noise_floor=args.noise_floor)
            append_result(args.results, dict(record, **where, **provenance()))
    return 0


def stationary_kernel(layer):
    """The layer's kernel with lengthscales: under a multi-output wrapper, the first of a sum
    (a ``DeepGP``'s hidden layers add a white kernel)."""
    kernel = getattr(layer.kernel, "kernel", layer.kernel)
    parts = getattr(kernel, "kernels", [kernel])
    return next(part for part in parts if hasattr(part, "lengthscales"))


def inter_layer_noises(model) -> list:
    """The learned inter-layer noise variances of the layers that have one (AEP's inner layers)."""
    noises = (getattr(layer, "noise_variance", None) for layer in model.layers)
    return [noise for noise in noises if noise is not None]


if __name__ == "__main__":
    main()
