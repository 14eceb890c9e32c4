"""The mixed float32/float64 mode, measured before it is built into the layers (and not built).

Candidate: the model stays in float64 and the Cholesky of Kuu is taken in float64; the large
products of a step, the triangular solve A = Lu⁻¹ Kuf (M²·N) and the variances
diag(Aᵀ q_sqrt q_sqrtᵀ A) (L·M²·N), run in float32 and their results come back as float64. The
candidate is swapped into ``gpflow_deep.layers.gp.gp_layer`` for the duration of a measurement only.
On the compute-bound problem of ``suites/scale/compute_bound.py`` (N = batch, 3 layers of width 8, M = 100) and
at batch 256, each round times a step of ``gd.fit`` in float64, mixed and float32 from fresh models,
and reports the median seconds, the ratios and the relative error of the mixed objective against
the float64 one at the same parameters. Example::

    python -m benchmarks mixed_precision --batches 10000 256 --steps 10 --rounds 3
"""

import argparse
import contextlib
import json
import os
import statistics
from typing import List, Optional

import gpflow
import numpy as np
import tensorflow as tf

import gpflow_deep as gd
from benchmarks.common import RESULTS_DIR, provenance
from benchmarks.suites.scale.compute_bound import build, synthetic_data, time_ours
from gpflow_deep.app.benchmark import append_result
from gpflow_deep.layers.gp import gp_layer, sparse_marginals

MODES = ("float64", "mixed", "float32")


def mixed_projections(Kuu, Kuf, whiten):
    """``projections`` with the Cholesky in the model's float64 and the solve in float32."""
    Lu = tf.cast(tf.linalg.cholesky(Kuu), tf.float32)
    A = tf.linalg.triangular_solve(Lu, tf.cast(Kuf, tf.float32), lower=True)
    P = A if whiten else tf.linalg.triangular_solve(Lu, A, lower=True, adjoint=True)
    return tf.cast(A, Kuu.dtype), tf.cast(P, Kuu.dtype)


def mixed_marginals(A, P, Kff_diag, q_mu, q_sqrt, q_diag):
    """``marginals`` with its products in float32 and the results in the inputs' float64."""
    single = [tf.cast(t, tf.float32) for t in (A, P, Kff_diag, q_mu, tf.convert_to_tensor(q_sqrt))]
    mean, var = sparse_marginals.marginals(*single, q_diag)
    return tf.cast(mean, A.dtype), tf.cast(var, A.dtype)


@contextlib.contextmanager
def mode_context(mode: str):
    """float64 and float32 as they are; ``mixed``: float64 with the candidate swapped in."""
    float_type = np.float32 if mode == "float32" else np.float64
    originals = gp_layer.projections, gp_layer.marginals
    if mode == "mixed":
        gp_layer.projections, gp_layer.marginals = mixed_projections, mixed_marginals
    try:
        with gpflow.config.as_context(gpflow.config.Config(float=float_type)):
            yield float_type
    finally:
        gp_layer.projections, gp_layer.marginals = originals


def seconds_per_step(data, mode: str, batch: int, steps: int) -> float:
    with mode_context(mode) as float_type:
        return time_ours(data, float_type, 3, 8, steps, batch)


def objective_error(data, batch: int, steps: int = 50) -> float:
    """|mixed − float64| / |float64| of the objective at the same parameters and noise, after
    ``steps`` float64 steps (at the start q(u) is the prior and the marginals do not depend on A)."""
    X, Y = (array[:batch] for array in data)
    model, cast = build(data, np.float64, num_layers=3, width=8)
    gd.fit(model, cast, steps, batch_size=batch, progress=False)
    values = {}
    for mode in ("float64", "mixed"):
        with mode_context(mode):
            values[mode] = float(model.training_loss((X, Y)))  # the same noise on every call
    return abs(values["mixed"] - values["float64"]) / abs(values["float64"])


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks mixed_precision",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--batches", type=int, nargs="+", default=[10_000, 256])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "mixed_precision.jsonl"))
    args = parser.parse_args(argv)
    data = synthetic_data(args.points, 8)
    for batch in args.batches:
        times = {mode: [] for mode in MODES}
        for _ in range(args.rounds):
            for mode in MODES:
                times[mode].append(seconds_per_step(data, mode, batch, args.steps))
        seconds = {mode: statistics.median(values) for mode, values in times.items()}
        row = dict(
            kind="mixed_precision_step",
            points=args.points,
            batch=batch,
            layers=3,
            width=8,
            num_inducing=100,
            steps=args.steps,
            rounds=args.rounds,
            seconds=seconds,
            all_seconds=times,
            mixed_vs_float64=seconds["mixed"] / seconds["float64"],
            mixed_vs_float32=seconds["mixed"] / seconds["float32"],
            objective_relative_error=objective_error(data, batch),
            **provenance(),
        )
        append_result(args.results, row)
        print(json.dumps({k: v for k, v in row.items() if k not in ("versions", "all_seconds")}, indent=1), flush=True)
    return 0


if __name__ == "__main__":
    main()
