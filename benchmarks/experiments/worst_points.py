"""Which test rows decide a split's log-likelihood: each model's lowest per-row log-densities.

For one split of the calibration suite (a random 90/10 split with that seed), each builder's
defaults are trained as ``python -m benchmarks calibration`` trains them (``--steps`` full-batch
Adam steps, the split as seed) and ``exact_gp`` is the suite's exact GP. Printed per model: the
split's mean test log-likelihood, the ``--worst`` lowest rows (their log-density, target and
predictive mean, original units) and the mean over the other rows. Example::

    python -m benchmarks worst_points --dataset boston --split 1005 --builders exact_gp build_deep_gp \
        --results benchmarks/results/worst_points.jsonl
"""

import argparse
from typing import List, Optional

import numpy as np

from benchmarks.common import provenance, set_threads
from benchmarks.suites.calibration import EXACT_GP, exact_gp_mixture, mixture_chunks, trained


def per_row(chunks, Y) -> tuple:
    """``[n]`` log-densities and ``[n]`` predictive means of targets ``Y [n, 1]`` under ``chunks``
    (each chunk's log-weights normalised, as the predictive mixtures' are)."""
    from gpflow_deep.evaluation.moments import mixture_mean_and_std
    from gpflow_deep.evaluation.pointwise import log_predictive_density

    log_density, mean = np.empty(len(Y)), np.empty(len(Y))
    for rows, means, variances, log_weights in chunks:
        log_density[rows] = log_predictive_density(Y[rows], means, variances, log_weights)
        mean[rows] = mixture_mean_and_std(means, variances, log_weights)[0][:, 0]
    return log_density, mean


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks worst_points",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", default="boston")
    parser.add_argument("--split", type=int, default=1005)
    parser.add_argument("--builders", nargs="+", default=[EXACT_GP, "build_deep_gp"])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--worst", type=int, default=3, help="how many of the lowest rows to list")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results", default=None, help="a JSON-lines file to append each model's record to")
    args = parser.parse_args(argv)
    set_threads(args.threads)
    import gpflow_deep as gd
    from gpflow_deep.app.benchmark import append_result

    part = gd.datasets.uci_split(gd.datasets.load(args.dataset), args.split)
    X, Y, y_std = part.X_train, part.Y_train, float(np.reshape(part.y_std, -1)[0])
    y_mean = float(np.reshape(part.y_mean, -1)[0])
    for builder in args.builders:
        if builder == EXACT_GP:
            chunks = exact_gp_mixture(X, Y, part.X_test, y_std)
        else:
            chunks = mixture_chunks(trained(builder, X, Y, args.steps, args.split), part.X_test, y_std)
        log_density, mean = per_row(chunks, part.Y_test * y_std)
        order = np.argsort(log_density)
        worst = [
            dict(row=int(i), log_density=float(log_density[i]), target=float(part.Y_test[i, 0] * y_std + y_mean))
            for i in order[: args.worst]
        ]
        for entry in worst:
            entry["predicted_mean"] = float(mean[entry["row"]] + y_mean)
        rest = float(np.mean(log_density[order[args.worst :]]))
        rows = ", ".join(f"({w['log_density']:.2f}, {w['target']:.1f}, {w['predicted_mean']:.1f})" for w in worst)
        print(f"{builder} {args.dataset} split {args.split}: mean {np.mean(log_density):.3f}, {rest:.3f} without")
        print(f"  its {args.worst} worst rows (log-density, target, predicted mean): {rows}")
        record = dict(kind="worst_points", builder=builder, dataset=args.dataset, split=args.split)
        record.update(steps=None if builder == EXACT_GP else args.steps, num_test=len(log_density))
        record.update(log_likelihood=float(np.mean(log_density)), without_worst=rest, worst=worst, **provenance())
        if args.results:
            append_result(args.results, record)
    return 0
