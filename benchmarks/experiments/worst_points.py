"""Which test rows decide a split's log-likelihood: each model's lowest per-row log-densities.

For one split of the calibration suite (a random 90/10 split with that seed), each builder's
defaults are trained as ``python -m benchmarks calibration`` trains them (``--steps`` full-batch
Adam steps, the split as seed) and ``exact_gp`` is the suite's exact GP. Printed per model: the
split's mean test log-likelihood, the ``--worst`` lowest rows and the ``--rows`` asked for (each
row's log-density, target, predictive mean and standard deviation, original units, and its
Euclidean distance to the nearest training row in the standardised inputs), the mean over the
rows not among the worst, and the median predictive standard deviation and nearest-row distance
over the test rows. Example::

    python -m benchmarks worst_points --dataset boston --split 1005 --builders exact_gp build_deep_gp \
        --rows 5 --results benchmarks/results/worst_points.jsonl
"""

import argparse
import json
from typing import List, Optional

import numpy as np
from scipy.spatial.distance import cdist

from benchmarks.common import provenance, set_threads
from benchmarks.suites.calibration import EXACT_GP, exact_gp_mixture, mixture_chunks, trained
from benchmarks.suites.calibration_tables import load_dataset


def per_row(chunks, Y) -> tuple:
    """``[n]`` log-densities, ``[n]`` predictive means and ``[n]`` predictive standard deviations of
    targets ``Y [n, 1]`` under ``chunks`` (each chunk's log-weights normalised, as the predictive
    mixtures' are)."""
    from gpflow_deep.evaluation.moments import mixture_mean_and_std
    from gpflow_deep.evaluation.pointwise import log_predictive_density

    log_density, mean, std = np.empty(len(Y)), np.empty(len(Y)), np.empty(len(Y))
    for rows, means, variances, log_weights in chunks:
        log_density[rows] = log_predictive_density(Y[rows], means, variances, log_weights)
        mean[rows], std[rows] = (moment[:, 0] for moment in mixture_mean_and_std(means, variances, log_weights))
    return log_density, mean, std


def nearest_distances(X_test: np.ndarray, X_train: np.ndarray) -> np.ndarray:
    """``[m]``: each test row's Euclidean distance to its nearest training row."""
    return cdist(X_test, X_train).min(axis=1)


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
    parser.add_argument("--rows", type=int, nargs="*", default=[], help="test rows to list for every model too")
    parser.add_argument("--options", type=json.loads, default={}, help="builder fields as JSON, for every builder")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results", default=None, help="a JSON-lines file to append each model's record to")
    args = parser.parse_args(argv)
    if args.options and EXACT_GP in args.builders:
        parser.error("exact_gp is the Gaussian reference: run it without --options")
    set_threads(args.threads)
    import gpflow_deep as gd
    from gpflow_deep.app.benchmark import append_result

    part = gd.datasets.uci_split(load_dataset(args.dataset), args.split)
    X, Y, y_std = part.X_train, part.Y_train, float(np.reshape(part.y_std, -1)[0])
    y_mean = float(np.reshape(part.y_mean, -1)[0])
    distance = nearest_distances(part.X_test, X)
    bad = [row for row in args.rows if not 0 <= row < len(distance)]
    if bad:
        parser.error(f"--rows {bad}: the split has {len(distance)} test rows")
    for builder in args.builders:
        if builder == EXACT_GP:
            chunks = exact_gp_mixture(X, Y, part.X_test, y_std)
        else:
            model = trained(builder, X, Y, args.steps, args.split, options=args.options)
            chunks = mixture_chunks(model, part.X_test, y_std)
        log_density, mean, std = per_row(chunks, part.Y_test * y_std)

        def described(i: int) -> dict:
            return dict(
                row=int(i),
                log_density=float(log_density[i]),
                target=float(part.Y_test[i, 0] * y_std + y_mean),
                predicted_mean=float(mean[i] + y_mean),
                predicted_std=float(std[i]),
                nearest_training_distance=float(distance[i]),
            )

        order = np.argsort(log_density)
        worst, asked = [described(i) for i in order[: args.worst]], [described(i) for i in args.rows]
        rest = float(np.mean(log_density[order[args.worst :]]))
        print(f"{builder} {args.dataset} split {args.split}: mean {np.mean(log_density):.3f}, {rest:.3f} without")
        print(f"  median predictive s.d. {np.median(std):.2f}, median nearest-row distance {np.median(distance):.2f}")
        for label, entries in ((f"its {args.worst} worst rows", worst), ("the rows asked for", asked)):
            listed = ", ".join(
                f"row {e['row']}: {e['log_density']:.2f}, {e['target']:.1f}, {e['predicted_mean']:.1f} ± "
                f"{e['predicted_std']:.2f}, {e['nearest_training_distance']:.2f}"
                for e in entries
            )
            if entries:
                print(f"  {label} (log-density, target, mean ± s.d., nearest-row distance): {listed}")
        record = dict(kind="worst_points", builder=builder, dataset=args.dataset, split=args.split)
        record.update(steps=None if builder == EXACT_GP else args.steps, num_test=len(log_density))
        if args.options:
            record["options"] = args.options
        record.update(log_likelihood=float(np.mean(log_density)), without_worst=rest, worst=worst, rows=asked)
        record.update(median_std=float(np.median(std)), median_nearest_distance=float(np.median(distance)))
        record.update(provenance())
        if args.results:
            append_result(args.results, record)
    return 0
