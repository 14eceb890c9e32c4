"""The papers' UCI regression protocol, resumable: one JSON line per finished split.

20 random 90/10 splits (split i uses seed i), X and y standardised with the training part's
statistics, test log-likelihood (log of the predictive mixture: S=100 paths for Monte Carlo
models, the exact finite mixture for DSPP) and RMSE in original units. Example (the paper's DGP 2
on boston, splits 0-4, 20,000 full-batch Adam steps)::

    python benchmarks/uci.py --dataset boston --model dgp2 --splits 0-4 --iterations 20000

Models (``--model``): every entry of ``gpflow_deep.app.benchmark.PROTOCOL_MODELS`` (``sgp``,
``dgp2``, ``dgp3``, ``dspp2``, ``rf2``, ``aep2``, ``sod2``, ``sod3``: each its paper's setting, also run by
``gpflow-deep benchmark``; the other ``sod*`` entries: SoD's earlier defaults and variants, and
``dgp3-m50``: DSVI at SoD's boston M, and ``dgp3-sod-subset``: DSVI with its first layer's
inducing inputs fixed at SoD's subset, ``docs/sod.md``; the ``*-held-out`` entries: trained on 5/6
of the split and stopped on the other sixth),
and ``dspp2-gpytorch-setup``: a 2-layer ``DSPP`` as in the GPyTorch comparison (M=100, width 3,
S=8, fixed ``--beta``, no validation, no early stopping).

Implementations (``--implementation``): ``gpflow_deep``; ``gpflux`` (GPflux's DeepGP with the
identical architecture and initial values, ``peers/gpflux_dgp.py``); ``gpflux-builder`` (GPflux's
own ``build_constant_input_dim_deep_gp``, 2 layers, M=100); ``gpytorch`` (GPyTorch's DSPP with the
architecture of ``dspp2-gpytorch-setup``, ``peers/gpytorch_dspp.py``).

``--float-type float32`` trains and scores the package's models in float32 (records carry
``float_type``; float64 records, the default, have no such key).

Re-running a command skips the splits already in the results file.
"""

import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpflow_deep as gd  # noqa: E402
from benchmarks.common import RESULTS_DIR, append_result, first, parse_splits, provenance, read_results  # noqa: E402
from gpflow_deep import benchmarking  # noqa: E402

DEEP_GP_LAYERS = {"sgp": 1, "dgp2": 2, "dgp3": 3}
GPYTORCH_SETUP = dict(num_inducing=100, hidden_width=3, num_sigma_points=8, paper_defaults=True)
PEER_MODELS = (*DEEP_GP_LAYERS, "dspp2-gpytorch-setup")


def run_keys(args, split: int) -> dict:
    """What identifies a run in the results file (a split already there is skipped)."""
    if not peer_run(args):
        return benchmarking.run_keys(args.model, args.dataset, split, args.iterations, args.batch_size, args.float_type)
    keys = dict(
        dataset=args.dataset,
        model=args.model,
        implementation=args.implementation,
        split=split,
        iterations=args.iterations,
        batch_size=args.batch_size,
    )
    if args.model == "dspp2-gpytorch-setup":
        keys["beta"] = args.beta
    return keys


def peer_run(args) -> bool:
    """Whether the run is a peer's (GPflux, GPyTorch) or the GPyTorch comparison's setup, which
    this script runs itself; every other run is the package's protocol."""
    return args.implementation != "gpflow_deep" or args.model == "dspp2-gpytorch-setup"


def _gpflux_deep_gp(args, part, train, batch):
    """GPflux's DeepGP mirroring ``build_deep_gp`` (``gpflux``) or from GPflux's own builder."""
    from benchmarks.peers import gpflux_dgp

    if args.implementation == "gpflux":
        dgp = gpflux_dgp.mirror(gd.build_deep_gp(*train, DEEP_GP_LAYERS[args.model], seed=args.seed))
    else:
        dgp = gpflux_dgp.own_builder(part.X_train, DEEP_GP_LAYERS[args.model])
    seconds = gpflux_dgp.train_keras(dgp, *train, args.iterations, batch)
    return seconds, gpflux_dgp.evaluate(dgp, part.X_test, part.Y_test, part.y_std, num_samples=100), {}


def _dspp_gpytorch_setup(args, part, train, batch):
    """``dspp2-gpytorch-setup``: fixed β, no validation, ours or GPyTorch's."""
    test = (part.X_test, part.Y_test)
    model = gd.build_dspp(*train, beta=args.beta, seed=args.seed, **GPYTORCH_SETUP)
    if args.implementation == "gpytorch":
        from benchmarks.peers import gpytorch_dspp

        peer = gpytorch_dspp.TwoLayerDSPP(model)
        began = time.perf_counter()
        per_iteration = gpytorch_dspp.train(peer, *train, args.iterations, args.beta)
        seconds = time.perf_counter() - began
        return seconds, gpytorch_dspp.evaluate(peer, *test, part.y_std), dict(seconds_per_iteration=per_iteration)
    result = gd.fit(model, train, args.iterations, batch_size=batch, progress=False)
    extra = dict(seconds_per_iteration=result.seconds_per_iteration)
    return result.seconds, gd.metrics.evaluate(model, *test, part.y_std), extra


def run_split(args, split: int) -> dict:
    """Train and score one split; returns the result record."""
    if not peer_run(args):
        return benchmarking.run_split(
            args.model, args.dataset, split, args.iterations, args.batch_size, args.seed, float_type=args.float_type
        )
    keys = run_keys(args, split)
    part = gd.datasets.uci_split(gd.datasets.load(args.dataset), split)
    train = (part.X_train, part.Y_train)
    batch = None if keys["batch_size"] >= len(part.X_train) else keys["batch_size"]
    runner = _dspp_gpytorch_setup if args.model == "dspp2-gpytorch-setup" else _gpflux_deep_gp
    seconds, scores, extra = runner(args, part, train, batch)
    return dict(
        keys,
        effective_batch=batch or len(part.X_train),
        test_log_likelihood=scores["log_likelihood"],
        test_rmse=scores["rmse"],
        test_crps=scores.get("crps"),
        train_seconds=seconds,
        **extra,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True, choices=gd.datasets.DATASETS)
    parser.add_argument(
        "--model", required=True, choices=sorted([*benchmarking.PROTOCOL_MODELS, "dspp2-gpytorch-setup"])
    )
    parser.add_argument(
        "--implementation", default="gpflow_deep", choices=["gpflow_deep", "gpflux", "gpflux-builder", "gpytorch"]
    )
    parser.add_argument("--splits", default="0-19")
    parser.add_argument("--iterations", type=int, default=None, help="default: the model's paper setting")
    parser.add_argument("--batch-size", type=int, default=None, help="default: the model's paper setting")
    parser.add_argument("--beta", type=float, default=1.0, help="KL weight of dspp2-gpytorch-setup")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--float-type", default="float64", choices=benchmarking.protocol.FLOAT_TYPES)
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "uci.jsonl"))
    parser.add_argument("--threads", type=int, default=0, help="threads per op for TensorFlow and torch (0: all cores)")
    args = parser.parse_args()
    if args.implementation == "gpytorch" and args.model != "dspp2-gpytorch-setup":
        parser.error("--implementation gpytorch runs --model dspp2-gpytorch-setup")
    if args.implementation.startswith("gpflux") and args.model not in DEEP_GP_LAYERS:
        parser.error("GPflux runs the DeepGP models (sgp, dgp2, dgp3)")
    if peer_run(args) and args.float_type != "float64":
        parser.error("--float-type float32 runs the package's own models")
    if peer_run(args):
        args.iterations = args.iterations or benchmarking.protocol.PAPER_ITERATIONS
        args.batch_size = args.batch_size or benchmarking.protocol.PAPER_BATCH
    if args.threads:
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    if args.implementation == "gpytorch":
        import torch

        torch.set_default_dtype(torch.float64)
        if args.threads:
            torch.set_num_threads(args.threads)

    done = read_results(args.results)
    for split in parse_splits(args.splits):
        if first(done, run_keys(args, split)) is not None:
            print(f"split {split}: already in {args.results}, skipped")
            continue
        began = time.perf_counter()
        record = dict(run_split(args, split), **provenance())
        append_result(args.results, record)
        print(
            f"split {split}: test log-lik {record['test_log_likelihood']:.3f}  RMSE {record['test_rmse']:.3f}  "
            f"({time.perf_counter() - began:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
