"""A DeepGP training step at a compute-bound size, against GPflux and this machine's matmul peak.

Synthetic data (N = batch = 10,000 points of width 8), 3 layers of width 8, M = 100 inducing
points, full q(U), one Monte Carlo sample, Adam: ours (``gd.fit``) and GPflux (a compiled elbo
loop on a copy of our model, ``peers/gpflux_dgp.py``), each in float64 and float32. The matrix
peak is the best of repeated 2,048² ``tf.linalg.matmul`` calls; the share of it a step reaches uses
:func:`step_flops`, an estimate of the step's floating-point operations. Example::

    python -m benchmarks compute_bound --steps 10 --rounds 3
"""

import argparse
import contextlib
import json
import os
import statistics
import time
from typing import List, Optional

import gpflow
import numpy as np
import tensorflow as tf

import gpflow_deep as gd
from benchmarks.common import RESULTS_DIR, provenance
from gpflow_deep.app.benchmark import append_result

FLOAT_TYPES = (np.float64, np.float32)


def synthetic_data(num_points: int, width: int, seed: int = 0):
    """X ``[N, width]`` uniform on [-2, 2], y a smooth function of two directions plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(num_points, width))
    Y = np.sin(X[:, :1] * X[:, 1:2]) + np.cos(X.sum(axis=1, keepdims=True)) + 0.1 * rng.standard_normal((num_points, 1))
    return X, Y


def matmul_peak(float_type, size: int = 2048, repeats: int = 10) -> float:
    """Floating-point operations per second of the best ``size``² matrix product."""
    a = tf.random.normal([size, size], dtype=float_type)
    product = tf.function(lambda x: tf.linalg.matmul(x, x))
    product(a).numpy()
    best = np.inf
    for _ in range(repeats):
        began = time.perf_counter()
        product(a).numpy()
        best = min(best, time.perf_counter() - began)
    return 2 * size**3 / best


def step_flops(batch: int, num_inducing: int, widths, triangle: bool = False) -> float:
    """Estimated operations of one step: per layer of input width D and output width L, the
    cross-covariance (3·B·M·D), A = L_uu⁻¹ K_uf (M²·B), the mean (2·M·B·L) and the marginal
    variances of a full q(U) (2·L·M²·B, or with ``triangle`` L·M·(M+1)·B, the products with only
    each q_sqrt's lower triangle, what the step needs), three times over for the forward and
    backward passes."""
    M = num_inducing
    forward = 0.0
    for D, L in zip(widths[:-1], widths[1:]):
        variances = L * M * (M + 1) * batch if triangle else 2 * L * M**2 * batch
        forward += 3 * batch * M * D + M**2 * batch + variances + 2 * M * batch * L
    return 3 * forward


def build(data, float_type, num_layers: int, width: int):
    X, Y = (array.astype(float_type) for array in data)
    return gd.build_deep_gp(X, Y, num_layers, hidden_width=width), (X, Y)


def time_ours(
    data, float_type, num_layers: int, width: int, steps: int, batch_size=None, strategy=None, seed=None
) -> float:
    """Seconds per step of ``gd.fit`` after its first (tracing) step, on a fresh model built in
    ``float_type`` (under ``strategy``'s scope when one is given)."""
    with gpflow.config.as_context(gpflow.config.Config(float=float_type)):
        with strategy.scope() if strategy else contextlib.nullcontext():
            model, cast = build(data, float_type, num_layers, width)
        fitted = gd.fit(model, cast, steps + 1, batch_size=batch_size, strategy=strategy, seed=seed, progress=False)
        return fitted.seconds_per_iteration


def time_gpflux(data, float_type, num_layers: int, width: int, steps: int) -> float:
    """Seconds per step of GPflux's compiled elbo loop on a copy of our model, in ``float_type``."""
    from benchmarks.peers import gpflux_dgp

    with gpflow.config.as_context(gpflow.config.Config(float=float_type)):
        model, cast = build(data, float_type, num_layers, width)
        return gpflux_dgp.seconds_per_loop_step(gpflux_dgp.mirror(model), cast, steps, None)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks compute_bound",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "compute_bound.jsonl"))
    args = parser.parse_args(argv)
    data = synthetic_data(args.points, args.width)
    times = {f"{who}_{np.dtype(t).name}": [] for who in ("ours", "gpflux") for t in FLOAT_TYPES}
    for _ in range(args.rounds):
        for float_type in FLOAT_TYPES:
            name = np.dtype(float_type).name
            times[f"gpflux_{name}"].append(time_gpflux(data, float_type, args.layers, args.width, args.steps))
            times[f"ours_{name}"].append(time_ours(data, float_type, args.layers, args.width, args.steps))
    seconds = {name: statistics.median(values) for name, values in times.items()}
    peak = {np.dtype(t).name: matmul_peak(t) for t in FLOAT_TYPES}
    flops = step_flops(args.points, 100, [args.width] * args.layers + [1])
    row = dict(
        kind="compute_bound_step",
        points=args.points,
        layers=args.layers,
        width=args.width,
        num_inducing=100,
        steps=args.steps,
        rounds=args.rounds,
        seconds=seconds,
        all_seconds=times,
        matmul_peak_gflops={name: value / 1e9 for name, value in peak.items()},
        estimated_step_gflop=flops / 1e9,
        share_of_peak={name: flops / seconds[name] / peak[name.split("_")[1]] for name in seconds},
        ours_float64_vs_gpflux_float64=seconds["ours_float64"] / seconds["gpflux_float64"],
        ours_float32_vs_gpflux_float64=seconds["ours_float32"] / seconds["gpflux_float64"],
        ours_float32_vs_gpflux_float32=seconds["ours_float32"] / seconds["gpflux_float32"],
        **provenance(),
    )
    append_result(args.results, row)
    print(json.dumps({k: v for k, v in row.items() if k not in ("versions", "command", "all_seconds")}, indent=1))
    return 0


if __name__ == "__main__":
    main()
