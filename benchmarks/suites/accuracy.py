"""The papers' UCI regression protocol, resumable: one JSON line per finished split.

20 random 90/10 splits (split i uses seed i), X and y standardised with the training part's
statistics, test log-likelihood (log of the predictive mixture: S=100 paths for Monte Carlo
models, the exact finite mixture for DSPP), RMSE and CRPS in original units. Example (the paper's
DGP 2 on boston, splits 0-4, 20,000 full-batch Adam steps)::

    python -m benchmarks accuracy --dataset boston --model dgp2 --splits 0-4

Models (``--model``): the library's protocol, each model in its paper's setting (``sgp``, ``dgp2``,
``dgp3``, ``dspp2``, ``rf2``, ``aep2``, ``sod2``, ``sod3``: ``gpflow_deep.app.benchmark.PROTOCOL_MODELS``,
also run by ``gpflow-deep benchmark``); the variants of ``benchmarks/experiments/protocol_variants.py``
(SoD's earlier defaults, DSVI at SoD's M or on its subset, ``*-held-out``: stopped on a held-out
sixth); and ``dspp2-gpytorch-setup``: a 2-layer ``DSPP`` as in the GPyTorch comparison (M=100,
width 3, S=8, fixed ``--beta``, no validation, no early stopping).

Implementations (``--implementation``): ``gpflow_deep``; ``gpflux`` (GPflux's DeepGP with the
identical architecture and initial values, ``peers/gpflux_dgp.py``); ``gpflux-builder`` (GPflux's
own ``build_constant_input_dim_deep_gp``); ``gpytorch`` (GPyTorch's DSPP with the architecture of
``dspp2-gpytorch-setup``, ``peers/gpytorch_dspp.py``).

``--float-type float32`` trains and scores the package's models in float32 (records carry
``float_type``; float64 records, the default, have no such key). Re-running a command skips the
splits already in the results file.
"""

import argparse
import os
import time
from typing import List, Optional

from benchmarks.common import RESULTS_DIR, provenance, set_threads
from benchmarks.experiments import protocol_variants
from benchmarks.peers import protocol_runs
from gpflow_deep import datasets
from gpflow_deep.app.benchmark import append_result, first, parse_splits, protocol, read_results
from gpflow_deep.registry import PAPER_STEPS


def package_runner(model: str):
    """The module that runs ``model`` of the package: the library's protocol or its variants."""
    return protocol if model in protocol.PROTOCOL_MODELS else protocol_variants


def run_keys(args, split: int) -> dict:
    """What identifies a run in the results file (a split already there is skipped)."""
    if protocol_runs.is_peer_run(args):
        return protocol_runs.run_keys(args, split)
    options = dict(iterations=args.iterations, batch_size=args.batch_size, float_type=args.float_type)
    return package_runner(args.model).run_keys(args.model, args.dataset, split, **options)


def run_split(args, split: int) -> dict:
    """Train and score one split; returns the result record."""
    if protocol_runs.is_peer_run(args):
        return protocol_runs.run_split(args, split)
    options = dict(iterations=args.iterations, batch_size=args.batch_size, seed=args.seed, float_type=args.float_type)
    return package_runner(args.model).run_split(args.model, args.dataset, split, **options)


def parse(argv: Optional[List[str]]) -> argparse.Namespace:
    models = [*protocol.PROTOCOL_MODELS, *protocol_variants.RECIPES, protocol_runs.GPYTORCH_MODEL]
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks accuracy", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", required=True, choices=datasets.DATASETS)
    parser.add_argument("--model", required=True, choices=models, metavar="MODEL", help=", ".join(models))
    parser.add_argument("--implementation", default="gpflow_deep", choices=protocol_runs.IMPLEMENTATIONS)
    parser.add_argument("--splits", default="0-19")
    parser.add_argument("--iterations", type=int, default=None, help="default: the model's setting")
    parser.add_argument("--batch-size", type=int, default=None, help="default: the model's setting")
    parser.add_argument("--beta", type=float, default=1.0, help="KL weight of dspp2-gpytorch-setup")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--float-type", default="float64", choices=protocol.FLOAT_TYPES)
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "uci.jsonl"))
    parser.add_argument("--threads", type=int, default=0, help="threads per op for TensorFlow and torch (0: all cores)")
    args = parser.parse_args(argv)
    if args.implementation == "gpytorch" and args.model != protocol_runs.GPYTORCH_MODEL:
        parser.error(f"--implementation gpytorch runs --model {protocol_runs.GPYTORCH_MODEL}")
    if args.implementation.startswith("gpflux") and args.model not in protocol_runs.DEEP_GP_LAYERS:
        parser.error("GPflux runs the DeepGP models (sgp, dgp2, dgp3)")
    if protocol_runs.is_peer_run(args):
        if args.float_type != "float64":
            parser.error("--float-type float32 runs the package's own models")
        args.iterations = args.iterations or PAPER_STEPS
        args.batch_size = args.batch_size or protocol.PAPER_BATCH
    return args


def main(argv: Optional[List[str]] = None) -> int:
    args = parse(argv)
    set_threads(args.threads)
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
    return 0


if __name__ == "__main__":
    main()
