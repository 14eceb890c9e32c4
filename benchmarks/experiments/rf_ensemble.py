"""Independent random-feature models pooled as an equal mixture, beside the members of one model.

For each split of the calibration suite (a random 90/10 split with that seed), ``--size`` copies of
``build_random_feature_dgp``'s defaults are built with seeds 0, 1, ... (so each has its own Ω's ε,
its own kernels' hyperparameters and its own likelihood) and trained as ``python -m benchmarks
calibration`` trains them (3,000 full-batch Adam steps, copy k with the seed split + 7919 k; copy 0
is the suite's own run). Their predictive mixtures are pooled with equal weights and scored as the
suite scores a model; the record keeps each copy's test log-likelihood too. ``num_members`` is the
same mixture inside one model, whose members share the hyperparameters and the likelihood.

Example::

    python -m benchmarks rf_ensemble --splits 1005,3006 --size 3 --results benchmarks/results/rf_ensemble.jsonl
"""

from typing import List, Optional

import numpy as np

from benchmarks.common import provenance, split_experiment_arguments
from benchmarks.suites.calibration import _scored, coverage_text, mixture_chunks, trained

BUILDER = "build_random_feature_dgp"
SEED_STRIDE = 7919
"""Copy k trains with the seed split + 7919 k."""


def pooled(members: List[list]) -> list:
    """The equal mixture of the members' chunked mixtures (chunks over the same rows, in order)."""
    size, chunks = len(members), []
    for parts in zip(*members):
        rows = parts[0][0]
        means, variances = (np.concatenate([part[index] for part in parts]) for index in (1, 2))
        log_weights = np.concatenate([part[3] - np.log(size) for part in parts])
        chunks.append((rows, means, variances, log_weights))
    return chunks


def main(argv: Optional[List[str]] = None) -> int:
    args = split_experiment_arguments(
        "python -m benchmarks rf_ensemble", __doc__, argv, extra=[("--size", dict(type=int, default=3))]
    )
    import gpflow_deep as gd
    from gpflow_deep.app.benchmark import append_result, parse_splits

    for split in parse_splits(args.splits):
        part = gd.datasets.uci_split(gd.datasets.load(args.dataset), split)
        y_std = float(np.reshape(part.y_std, -1)[0])
        Y = part.Y_test * y_std
        members = []
        for copy in range(args.size):
            seed = split + SEED_STRIDE * copy
            model = trained(BUILDER, part.X_train, part.Y_train, args.steps, seed, options={"seed": copy})
            members.append(mixture_chunks(model, part.X_test, y_std))
        copies = [_scored(Y, chunks)["log_likelihood"] for chunks in members]
        record = _scored(Y, pooled(members))
        coverage = coverage_text(record)
        print(
            f"{args.dataset} split {split}: pooled {record['log_likelihood']:.3f} (copies "
            f"{', '.join(f'{score:.3f}' for score in copies)}), coverage 50/80/90/95% {coverage}",
            flush=True,
        )
        record.update(kind="rf_ensemble", builder=BUILDER, dataset=args.dataset, split=split, size=args.size)
        record.update(copies_log_likelihood=copies, steps=args.steps, **provenance())
        if args.results:
            append_result(args.results, record)
    return 0
