"""The peers on the protocol's splits: GPflux's DeepGP (a copy of ours, or GPflux's own builder),
and GPyTorch's DSPP beside ours in GPyTorch's setup (``dspp2-gpytorch-setup``: fixed β, no
validation, no early stopping)."""

import time

import gpflow_deep as gd
from benchmarks.peers import GPYTORCH_SETUP
from gpflow_deep import datasets
from gpflow_deep.evaluation import metrics

DEEP_GP_LAYERS = {"sgp": 1, "dgp2": 2, "dgp3": 3}
GPYTORCH_MODEL = "dspp2-gpytorch-setup"
IMPLEMENTATIONS = ("gpflow_deep", "gpflux", "gpflux-builder", "gpytorch")


def is_peer_run(args) -> bool:
    """Whether the run is a peer's, or the GPyTorch comparison's setup (which this module runs for
    both libraries); every other run is the package's protocol."""
    return args.implementation != "gpflow_deep" or args.model == GPYTORCH_MODEL


def run_keys(args, split: int) -> dict:
    """What identifies a peer run in a results file."""
    keys = dict(
        dataset=args.dataset,
        model=args.model,
        implementation=args.implementation,
        split=split,
        iterations=args.iterations,
        batch_size=args.batch_size,
    )
    return dict(keys, beta=args.beta) if args.model == GPYTORCH_MODEL else keys


def _gpflux_deep_gp(args, part, train, batch):
    """GPflux's DeepGP mirroring ``build_deep_gp`` (``gpflux``) or from GPflux's own builder."""
    from benchmarks.peers import gpflux_dgp

    if args.implementation == "gpflux":
        dgp = gpflux_dgp.mirror(gd.build_deep_gp(*train, DEEP_GP_LAYERS[args.model], seed=args.seed, setup="paper"))
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
    return result.seconds, metrics.evaluate(model, *test, part.y_std), extra


def run_split(args, split: int) -> dict:
    """Train and score one split; returns the result record."""
    keys = run_keys(args, split)
    part = datasets.uci_split(datasets.load(args.dataset), split)
    train = (part.X_train, part.Y_train)
    batch = None if keys["batch_size"] >= len(part.X_train) else keys["batch_size"]
    runner = _dspp_gpytorch_setup if args.model == GPYTORCH_MODEL else _gpflux_deep_gp
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
