"""Who the speed suite times beside each model: ours through ``gd.fit``, and its peers."""

from dataclasses import dataclass, field, replace
from typing import Callable, Dict, Optional

import gpflow
import numpy as np

import gpflow_deep as gd
from benchmarks.peers import GPYTORCH_SETUP
from gpflow_deep.builders.sod_dgp import default_subset_size


@dataclass(frozen=True)
class Problem:
    """One timed setting: the training data and the model's depth, paths per step and run."""

    X: np.ndarray
    Y: np.ndarray
    layers: int
    samples: Optional[int]  # paths per training step of ours and the peer; None: the builders' own
    steps: int
    batch_size: Optional[int]  # None for full batch


Timer = Callable[[Problem], float]
"""Seconds per training step on a fresh model, its first (tracing) step excluded."""


def paths(problem: Problem) -> dict:
    """``num_samples`` for a builder, if the problem sets it."""
    return {} if problem.samples is None else dict(num_samples=problem.samples)


def fit_seconds(build: Callable[[Problem], object], float_type=np.float64, jit_compile: bool = False) -> Timer:
    """``gd.fit`` on ``build(problem)``, built and trained in ``float_type``."""

    def timer(problem: Problem) -> float:
        X, Y = (array.astype(float_type) for array in (problem.X, problem.Y))
        with gpflow.config.as_context(gpflow.config.Config(float=float_type)):
            model = build(replace(problem, X=X, Y=Y))
            options = dict(batch_size=problem.batch_size, jit_compile=jit_compile, progress=False)
            return gd.fit(model, (X, Y), problem.steps + 1, **options).seconds_per_iteration

    return timer


def deep_gp(problem: Problem, **options):
    return gd.build_deep_gp(problem.X, problem.Y, problem.layers, **paths(problem), **options)


def dspp_in_gpytorch_setup(problem: Problem):
    return gd.build_dspp(problem.X, problem.Y, problem.layers, beta=1.0, **GPYTORCH_SETUP)


def gpflux(seconds_per_step: str) -> Timer:
    """GPflux's DeepGP with our ``deep_gp``'s layers and initial values: ``seconds_per_keras_step``
    or ``seconds_per_loop_step`` of ``peers/gpflux_dgp.py``."""

    def timer(problem: Problem) -> float:
        from benchmarks.peers import gpflux_dgp

        dgp = gpflux_dgp.mirror(deep_gp(problem))
        return getattr(gpflux_dgp, seconds_per_step)(dgp, (problem.X, problem.Y), problem.steps, problem.batch_size)

    return timer


def gpytorch(problem: Problem) -> float:
    """GPyTorch's DSPP with the inducing inputs of ours, full batch, float64."""
    import torch

    from benchmarks.peers import gpytorch_dspp

    torch.set_default_dtype(torch.float64)
    peer = gpytorch_dspp.TwoLayerDSPP(dspp_in_gpytorch_setup(problem))
    return gpytorch_dspp.train(peer, problem.X, problem.Y, problem.steps + 1, 1.0)


def gpflux_predictions(model) -> Dict[str, Callable[[np.ndarray], object]]:
    """GPflux's S=100 predictive mixture on a copy of ``model``: 100 passes, and one batched pass."""
    from benchmarks.peers import gpflux_dgp

    dgp = gpflux_dgp.mirror(model)
    return dict(
        gpflux_loop=lambda X: gpflux_dgp.predict_mixture(dgp, X, 100),
        gpflux_batched=lambda X: gpflux_dgp.predict_batched(dgp, X, 100),
    )


@dataclass(frozen=True)
class Comparison:
    """A model of the package (``ours``) and what is timed beside it."""

    ours: Callable[[Problem], object]
    peers: Dict[str, Timer]
    samples: Optional[int] = None  # paths per step for both unless asked; None: the builders' own
    peer_predictions: Callable[[object], Dict[str, Callable[[np.ndarray], object]]] = field(default=lambda model: {})


COMPARISONS: Dict[str, Comparison] = {
    "deep_gp": Comparison(
        deep_gp,
        dict(gpflux_keras=gpflux("seconds_per_keras_step"), gpflux_loop=gpflux("seconds_per_loop_step")),
        peer_predictions=gpflux_predictions,
    ),
    "dspp": Comparison(dspp_in_gpytorch_setup, dict(gpytorch=gpytorch)),
    "aep_dgp": Comparison(
        lambda problem: gd.build_aep_dgp(problem.X, problem.Y, problem.layers),
        dict(
            moment_matching=fit_seconds(
                lambda problem: gd.build_aep_dgp(problem.X, problem.Y, problem.layers, propagation="moment_matching")
            ),
            deep_gp=fit_seconds(deep_gp),
        ),
    ),
    "sod_dgp": Comparison(
        lambda problem: gd.build_sod_dgp(problem.X, problem.Y, problem.layers, **paths(problem)),
        dict(
            deep_gp_same_m=fit_seconds(
                lambda problem: deep_gp(problem, num_inducing=default_subset_size(len(problem.X)))
            )
        ),
        samples=10,  # the paper's T, for both
    ),
    "random_feature_dgp": Comparison(
        lambda problem: gd.build_random_feature_dgp(problem.X, problem.Y, problem.layers, **paths(problem)),
        dict(deep_gp_width_3=fit_seconds(lambda problem: deep_gp(problem, hidden_width=3))),
    ),
}
"""Each model's comparison, by its name in :data:`gpflow_deep.registry.MODELS`."""


def contenders(model: str, float32: bool = False, xla: bool = False) -> Dict[str, Timer]:
    """The timers of ``model``'s comparison, ours first, with ours in float32 or under XLA if asked."""
    ours = COMPARISONS[model].ours
    timers = dict(ours=fit_seconds(ours))
    if float32:
        timers["ours_float32"] = fit_seconds(ours, float_type=np.float32)
    if xla:
        timers["ours_xla"] = fit_seconds(ours, jit_compile=True)
    return dict(timers, **COMPARISONS[model].peers)
