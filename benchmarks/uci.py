"""The papers' UCI regression protocol, resumable: one JSON line per finished split.

20 random 90/10 splits (split i uses seed i), X and y standardised with the training part's
statistics, test log-likelihood (log of the predictive mixture, S=100 paths) and RMSE in original
units. Example (the paper's DGP 2 on boston, splits 0-4, 20,000 full-batch Adam steps)::

    python benchmarks/uci.py --dataset boston --model dgp2 --splits 0-4 --iterations 20000

``--implementation gpflux`` trains GPflux's DeepGP with the identical architecture and initial
values (see ``benchmarks/peers/gpflux_dgp.py``). Re-running a command skips the splits already in
the results file, so an interrupted run is completed by running it again.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpflow_deep as gd  # noqa: E402
from benchmarks.common import RESULTS_DIR, append_result, first, machine, parse_splits, read_results, versions  # noqa: E402

MODELS = {
    "sgp": dict(num_layers=1),
    "dgp2": dict(num_layers=2),
    "dgp3": dict(num_layers=3),
}
PAPER_BATCH = 10_000  # full batch below this many points


def run_split(dataset: str, model_name: str, implementation: str, split: int, iterations: int, batch_size, seed: int):
    """Train and score one split; returns the result record."""
    data = gd.datasets.load(dataset)
    part = gd.datasets.uci_split(data, split)
    model = gd.build_deep_gp(part.X_train, part.Y_train, seed=seed, **MODELS[model_name])
    batch = None if batch_size is None or batch_size >= len(part.X_train) else batch_size
    if implementation == "gpflow_deep":
        result = gd.fit(model, (part.X_train, part.Y_train), iterations, batch_size=batch, seed=seed, progress=False)
        seconds = result.seconds
        scores = gd.metrics.evaluate(model, part.X_test, part.Y_test, part.y_std, num_samples=100, seed=seed)
    else:
        from benchmarks.peers import gpflux_dgp

        dgp = gpflux_dgp.mirror(model)
        seconds = gpflux_dgp.train_keras(dgp, part.X_train, part.Y_train, iterations, batch)
        scores = gpflux_dgp.evaluate(dgp, part.X_test, part.Y_test, part.y_std, num_samples=100)
    return dict(
        dataset=dataset,
        model=model_name,
        implementation=implementation,
        split=split,
        iterations=iterations,
        batch_size=batch_size,
        effective_batch=batch or len(part.X_train),
        test_log_likelihood=scores["log_likelihood"],
        test_rmse=scores["rmse"],
        test_crps=scores.get("crps"),
        train_seconds=seconds,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True, choices=gd.datasets.DATASETS)
    parser.add_argument("--model", required=True, choices=sorted(MODELS))
    parser.add_argument("--implementation", default="gpflow_deep", choices=["gpflow_deep", "gpflux"])
    parser.add_argument("--splits", default="0-19")
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--batch-size", type=int, default=PAPER_BATCH)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "uci.jsonl"))
    parser.add_argument("--threads", type=int, default=0, help="TensorFlow threads per op (0: all cores)")
    args = parser.parse_args()
    if args.threads:
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)

    done = read_results(args.results)
    where = machine()
    for split in parse_splits(args.splits):
        keys = dict(dataset=args.dataset, model=args.model, implementation=args.implementation, split=split,
                    iterations=args.iterations, batch_size=args.batch_size)
        if first(done, keys) is not None:
            print(f"split {split}: already in {args.results}, skipped")
            continue
        began = time.perf_counter()
        record = run_split(args.dataset, args.model, args.implementation, split, args.iterations, args.batch_size, args.seed)
        record.update(machine=where, versions=versions(), command=" ".join(sys.argv))
        append_result(args.results, record)
        print(
            f"split {split}: test log-lik {record['test_log_likelihood']:.3f}  RMSE {record['test_rmse']:.3f}  "
            f"({time.perf_counter() - began:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
