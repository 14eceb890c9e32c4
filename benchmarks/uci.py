"""The papers' UCI regression protocol, resumable: one JSON line per finished split.

20 random 90/10 splits (split i uses seed i), X and y standardised with the training part's
statistics, test log-likelihood (log of the predictive mixture: S=100 paths for Monte Carlo
models, the exact finite mixture for DSPP) and RMSE in original units. Example (the paper's DGP 2
on boston, splits 0-4, 20,000 full-batch Adam steps)::

    python benchmarks/uci.py --dataset boston --model dgp2 --splits 0-4 --iterations 20000

Models (``--model``):

- ``sgp``, ``dgp2``, ``dgp3``: ``DeepGP`` with 1-3 layers, ``build_deep_gp`` defaults (M=100);
- ``dspp2``: a 2-layer ``DSPP`` (M=100, width 3, S=10) with the paper's protocol: β from
  {0.01, 0.05, 0.2, 1.0} on a validation part of 1/6 of the training split (15:3:2 overall), early
  stopping on it (``select_beta``);
- ``dspp2-gpytorch-setup``: a 2-layer ``DSPP`` as in the GPyTorch comparison (M=100, width 3, S=8,
  fixed ``--beta``, no validation, no early stopping).

Implementations (``--implementation``): ``gpflow_deep``; ``gpflux`` (GPflux's DeepGP with the
identical architecture and initial values, ``peers/gpflux_dgp.py``); ``gpflux-builder`` (GPflux's
own ``build_constant_input_dim_deep_gp``, 2 layers, M=100); ``gpytorch`` (GPyTorch's DSPP with the
architecture of ``dspp2-gpytorch-setup``, ``peers/gpytorch_dspp.py``).

Re-running a command skips the splits already in the results file.
"""

import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpflow_deep as gd  # noqa: E402
from benchmarks.common import RESULTS_DIR, append_result, first, machine, parse_splits, read_results, versions  # noqa: E402

DEEP_GP_LAYERS = {"sgp": 1, "dgp2": 2, "dgp3": 3}
GPYTORCH_SETUP = dict(num_inducing=100, hidden_width=3, num_sigma_points=8)
PAPER_BATCH = 10_000  # full batch below this many points


def run_keys(args, split: int) -> dict:
    """What identifies a run in the results file (a split already there is skipped)."""
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


def _deep_gp(args, part, train, batch):
    """``sgp``, ``dgp2``, ``dgp3``: ``build_deep_gp`` defaults, or a GPflux peer of the same model."""
    test = (part.X_test, part.Y_test)
    if args.implementation == "gpflow_deep":
        model = gd.build_deep_gp(*train, DEEP_GP_LAYERS[args.model], seed=args.seed)
        result = gd.fit(model, train, args.iterations, batch_size=batch, seed=args.seed, progress=False)
        return result.seconds, gd.metrics.evaluate(model, *test, part.y_std, num_samples=100, seed=args.seed), {}
    from benchmarks.peers import gpflux_dgp

    if args.implementation == "gpflux":
        dgp = gpflux_dgp.mirror(gd.build_deep_gp(*train, DEEP_GP_LAYERS[args.model], seed=args.seed))
    else:
        dgp = gpflux_dgp.own_builder(part.X_train, DEEP_GP_LAYERS[args.model])
    seconds = gpflux_dgp.train_keras(dgp, *train, args.iterations, batch)
    return seconds, gpflux_dgp.evaluate(dgp, *test, part.y_std, num_samples=100), {}


def _dspp_protocol(args, part, train, batch):
    """``dspp2``: β and early stopping on a validation part (``select_beta``)."""
    began = time.perf_counter()
    selection = gd.select_beta(
        *train,
        iterations=args.iterations,
        batch_size=batch,
        seed=args.seed,
        progress=False,
        builder_options=dict(num_inducing=100, hidden_width=3, num_sigma_points=10),
    )
    seconds, model = time.perf_counter() - began, selection.model
    extra = dict(beta=selection.beta, best_iteration=selection.fits[selection.beta].best_iteration)
    return seconds, gd.metrics.evaluate(model, part.X_test, part.Y_test, part.y_std), extra


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


def _sod_dgp(args, part, train, batch):
    """``sod2``: a 2-layer ``SoDDGP`` with the paper's settings: a k-means subset of M=50 on boston
    and 100 on concrete (the builder's default elsewhere), 10 training and 50 test paths."""
    subset_size = {"boston": 50, "concrete": 100}.get(args.dataset)
    model = gd.build_sod_dgp(*train, 2, subset_size, seed=args.seed)
    result = gd.fit(model, train, args.iterations, batch_size=batch, seed=args.seed, progress=False)
    scores = gd.metrics.evaluate(model, part.X_test, part.Y_test, part.y_std, num_samples=50, seed=args.seed)
    extra = dict(subset_size=model.num_subset, seconds_per_iteration=result.seconds_per_iteration)
    return result.seconds, scores, extra


def _random_feature_dgp(args, part, train, batch):
    """``rf2``: DGP-RBF in the paper's UCI setting (Cutajar et al. 2017): one hidden layer of 3 GPs,
    100 random features, Ω var-fixed, Θ fixed for the first 3/5 of the run (12,000 of 20,000),
    Adam 0.01; run it with ``--batch-size 200``. One Monte Carlo path in training (the paper's
    switch to 100 halfway costs ~0.6 s a step on 2 cores: see docs/random_features.md), 100 at test."""
    model = gd.build_random_feature_dgp(*train, 2, seed=args.seed)
    fixed_for = args.iterations * 3 // 5
    options = dict(batch_size=batch, seed=args.seed, progress=False, fixed_hyperparameters_for=fixed_for)
    result = gd.fit(model, train, args.iterations, **options)
    scores = gd.metrics.evaluate(model, part.X_test, part.Y_test, part.y_std, num_samples=100, seed=args.seed)
    extra = dict(fixed_hyperparameters_for=fixed_for, seconds_per_iteration=result.seconds_per_iteration)
    return result.seconds, scores, extra


def _aep_dgp(args, part, train, batch):
    """``aep2``: a 2-layer ``AEPDGP`` (``build_aep_dgp`` defaults: M=100, S=20 Monte Carlo paths
    through the cavities in training, 100 through the posteriors for the test scores)."""
    model = gd.build_aep_dgp(*train, 2, seed=args.seed)
    result = gd.fit(model, train, args.iterations, batch_size=batch, seed=args.seed, progress=False)
    scores = gd.metrics.evaluate(model, part.X_test, part.Y_test, part.y_std, num_samples=100, seed=args.seed)
    return result.seconds, scores, dict(seconds_per_iteration=result.seconds_per_iteration)


# --model name -> runner(args, part, train, batch) -> (train seconds, test scores, extra record fields).
# A new model joins the benchmarks with one entry here.
RUNNERS = {
    **{name: _deep_gp for name in DEEP_GP_LAYERS},
    "dspp2": _dspp_protocol,
    "dspp2-gpytorch-setup": _dspp_gpytorch_setup,
    "sod2": _sod_dgp,
    "rf2": _random_feature_dgp,
    "aep2": _aep_dgp,
}


def run_split(args, split: int) -> dict:
    """Train and score one split; returns the result record."""
    part = gd.datasets.uci_split(gd.datasets.load(args.dataset), split)
    train = (part.X_train, part.Y_train)
    batch = None if args.batch_size >= len(part.X_train) else args.batch_size
    seconds, scores, extra = RUNNERS[args.model](args, part, train, batch)
    return dict(
        run_keys(args, split),
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
    parser.add_argument("--model", required=True, choices=sorted(RUNNERS))
    parser.add_argument(
        "--implementation", default="gpflow_deep", choices=["gpflow_deep", "gpflux", "gpflux-builder", "gpytorch"]
    )
    parser.add_argument("--splits", default="0-19")
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--batch-size", type=int, default=PAPER_BATCH)
    parser.add_argument("--beta", type=float, default=1.0, help="KL weight of dspp2-gpytorch-setup")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "uci.jsonl"))
    parser.add_argument("--threads", type=int, default=0, help="threads per op for TensorFlow and torch (0: all cores)")
    args = parser.parse_args()
    if args.implementation == "gpytorch" and args.model != "dspp2-gpytorch-setup":
        parser.error("--implementation gpytorch runs --model dspp2-gpytorch-setup")
    if args.implementation.startswith("gpflux") and args.model not in DEEP_GP_LAYERS:
        parser.error("GPflux runs the DeepGP models (sgp, dgp2, dgp3)")
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
    where = machine()
    for split in parse_splits(args.splits):
        if first(done, run_keys(args, split)) is not None:
            print(f"split {split}: already in {args.results}, skipped")
            continue
        began = time.perf_counter()
        record = run_split(args, split)
        record.update(machine=where, versions=versions(), command=" ".join(sys.argv))
        append_result(args.results, record)
        print(
            f"split {split}: test log-lik {record['test_log_likelihood']:.3f}  RMSE {record['test_rmse']:.3f}  "
            f"({time.perf_counter() - began:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
