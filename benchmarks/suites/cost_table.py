"""Issue 35's cost table in one run: each model's training step against what its paper promises.

Every row is a ratio of two seconds-per-step figures measured in this process, the two sides
interleaved round by round (their order alternating), each from a fresh model through ``gd.fit``
(its tracing step excluded); a row reports the median of the per-round ratios and their range.
GPflux (``peers/gpflux_dgp.py``) must be importable for the DeepGP rows, so run it in the venv that
has it; GPyTorch's DSPP runs in a process of its own (``speed --worker``) when torch and gpytorch
import, else that row gives our DSPP step alone. Boston is split 0 of the bundled data; batch
10,000 uses ``compute_bound``'s synthetic data (width 8). The machine's float64 and float32
matmul peaks (best 2,048² product) are measured too. Example::

    /tmp/benchvenv/bin/python -m benchmarks cost_table --steps 30 --rounds 5 --threads 1
    python -m benchmarks cost_table --only AEPDGP SoDDGP --rounds 7
    python -m benchmarks cost_table --only RandomFeatureDGP --rf-members 3
"""

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, replace
from typing import Callable, Dict, List, Optional

import numpy as np

import gpflow_deep as gd
from benchmarks.common import RESULTS_DIR, ROOT, provenance, set_threads
from benchmarks.suites.contenders import Problem, deep_gp, dspp_in_gpytorch_setup, fit_seconds, gpflux
from benchmarks.suites.scale.compute_bound import FLOAT_TYPES, matmul_peak, step_flops, synthetic_data, time_ours
from gpflow_deep import datasets
from gpflow_deep.app.benchmark import append_result

Seconds = Callable[[], float]


@dataclass(frozen=True)
class Row:
    """One line of the table: ``numerator / denominator`` seconds per step, and the goal."""

    figure: str
    setting: str
    goal: str
    numerator: Seconds
    denominator: Seconds


def boston(layers: int, steps: int, batch_size: Optional[int], samples: Optional[int] = None) -> Problem:
    part = datasets.uci_split(datasets.load("boston"), 0)
    return Problem(part.X_train, part.Y_train, layers, samples, steps, batch_size)


def synthetic(points: int, layers: int, steps: int) -> Problem:
    X, Y = synthetic_data(points, 8)
    return Problem(X, Y, layers, None, steps, None)


def timed(timer: Callable[[Problem], float], problem: Problem) -> Seconds:
    return lambda: timer(problem)


def gpytorch_seconds(steps: int, threads: int) -> Seconds:
    """GPyTorch's DSPP step (full batch boston, float64) in a process of its own."""
    command = [sys.executable, "-m", "benchmarks", "speed", "--worker", "dspp", "gpytorch", "--datasets", "boston"]
    command += ["--steps", str(steps), "--threads", str(threads)]
    return lambda: float(
        subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT).stdout.split()[-1]
    )


def have(*modules: str) -> bool:
    return all(importlib.util.find_spec(module) is not None for module in modules)


def rows(args) -> List[Row]:
    """The issue's table, in its order (rows whose peer is missing are left out or measured alone)."""
    table: List[Row] = []
    ours64, ours32 = fit_seconds(deep_gp), fit_seconds(deep_gp, float_type=np.float32)
    if have("gpflux"):
        flux = gpflux("seconds_per_loop_step")
        for batch in (None, 256):
            setting = f"boston, 2 layers, batch {batch or 'full'}"
            problem = boston(2, args.steps, batch)
            table.append(
                Row("DeepGP f64 / GPflux f64", setting, "<= 0.5", timed(ours64, problem), timed(flux, problem))
            )
            table.append(
                Row("DeepGP f32 / GPflux f64", setting, "<= 0.3", timed(ours32, problem), timed(flux, problem))
            )
    for batch in (256, None, 10_000):
        if batch == 10_000:
            problem, setting = synthetic(batch, 2, args.large_steps), "synthetic, 2 layers, batch 10,000"
        else:
            problem, setting = boston(2, args.steps, batch), f"boston, 2 layers, batch {batch or 'full'}"
        goal = "<= 0.25" if batch == 10_000 else "<= 0.5"
        for members in sorted({1, args.rf_members}):
            rf = fit_seconds(lambda p, k=members: gd.build_random_feature_dgp(p.X, p.Y, p.layers, num_members=k))
            figure = "RandomFeatureDGP / DeepGP" if members == 1 else f"RandomFeatureDGP, {members} members / DeepGP"
            table.append(Row(figure, setting, goal, timed(rf, problem), timed(ours64, problem)))
    dspp = timed(fit_seconds(dspp_in_gpytorch_setup), boston(2, args.steps, None))
    if have("torch", "gpytorch"):
        peer = gpytorch_seconds(args.steps, args.threads)
        table.append(Row("DSPP / GPyTorch DSPP", "boston, M=100, W=3, S=8, full batch", "<= 0.25", dspp, peer))
    else:
        table.append(Row("DSPP (GPyTorch not installed)", "boston, M=100, W=3, S=8, full batch", "<= 0.25", dspp, None))
    problem = boston(2, args.steps, None)
    aep_mc = fit_seconds(lambda p: gd.build_aep_dgp(p.X, p.Y, p.layers))
    aep_mm = fit_seconds(lambda p: gd.build_aep_dgp(p.X, p.Y, p.layers, propagation="moment_matching"))
    table.append(
        Row(
            "AEPDGP Monte Carlo / moment matching",
            "boston, 2 layers, full batch",
            "<= 0.1",
            timed(aep_mc, problem),
            timed(aep_mm, replace(problem, steps=max(3, args.steps // 3))),
        )
    )
    sod = fit_seconds(lambda p: gd.build_sod_dgp(p.X, p.Y, p.layers))
    table.append(
        Row("SoDDGP / DeepGP", "boston, 2 layers, full batch", "<= 1.0", timed(sod, problem), timed(ours64, problem))
    )
    return table


def measure(row: Row, rounds: int) -> dict:
    """Median and range of the per-round ratios, and the median seconds of each side."""
    sides: Dict[str, List[float]] = {"numerator": [], "denominator": []}
    for index in range(rounds):
        order = ("numerator", "denominator") if index % 2 == 0 else ("denominator", "numerator")
        for side in order:
            function = getattr(row, side)
            if function is not None:
                sides[side].append(function())
    result = dict(figure=row.figure, setting=row.setting, goal=row.goal, rounds=rounds, all_seconds=sides)
    result["ms"] = {side: 1000 * statistics.median(values) for side, values in sides.items() if values}
    if sides["denominator"]:
        ratios = [a / b for a, b in zip(sides["numerator"], sides["denominator"])]
        result.update(ratio=statistics.median(ratios), ratio_range=[min(ratios), max(ratios)])
    return result


def compute_bound_row(args) -> dict:
    """DeepGP at batch 10,000, 3 layers of width 8: the share of each precision's matmul peak, the
    step's operations counted dense (``share``, :func:`step_flops`) and with only the triangles of
    the q_sqrt that the step needs (``share_of_needed``)."""
    data = synthetic_data(10_000, 8)
    peaks = {np.dtype(t).name: matmul_peak(t) for t in FLOAT_TYPES}
    seconds = {np.dtype(t).name: [] for t in FLOAT_TYPES}
    for _ in range(args.rounds):
        for float_type in FLOAT_TYPES:
            seconds[np.dtype(float_type).name].append(time_ours(data, float_type, 3, 8, args.large_steps))
    flops = step_flops(10_000, 100, [8, 8, 8, 1])
    shares = {name: [flops / s / peaks[name] for s in values] for name, values in seconds.items()}
    needed = step_flops(10_000, 100, [8, 8, 8, 1], triangle=True)
    return dict(
        figure="DeepGP share of the matmul peak",
        setting="synthetic, 3 layers of width 8, M=100, batch 10,000",
        goal="float64 >= 0.9, float32 >= 0.6",
        matmul_peak_gflops={name: value / 1e9 for name, value in peaks.items()},
        ms={name: 1000 * statistics.median(values) for name, values in seconds.items()},
        share={name: statistics.median(values) for name, values in shares.items()},
        share_range={name: [min(values), max(values)] for name, values in shares.items()},
        share_of_needed={name: statistics.median(values) * needed / flops for name, values in shares.items()},
        all_seconds=seconds,
        rounds=args.rounds,
    )


def line(result: dict) -> str:
    if "share" in result:
        shares = ", ".join(
            f"{name} {result['share'][name]:.2f} ({low:.2f}-{high:.2f}) at {result['ms'][name]:.0f} ms"
            for name, (low, high) in result["share_range"].items()
        )
        peaks = ", ".join(f"{name} {value:.1f}" for name, value in result["matmul_peak_gflops"].items())
        needed = ", ".join(f"{name} {value:.2f}" for name, value in result.get("share_of_needed", {}).items())
        return (
            f"{result['figure']} [{result['setting']}]: {shares}; counting the triangles only: {needed}; "
            f"peaks GFLOP/s {peaks}; goal {result['goal']}"
        )
    ms = " against ".join(f"{value:.1f}" for value in result["ms"].values())
    if "ratio" not in result:
        return f"{result['figure']} [{result['setting']}]: {ms} ms (no peer to divide by)"
    low, high = result["ratio_range"]
    return (
        f"{result['figure']} [{result['setting']}]: {result['ratio']:.2f} ({low:.2f}-{high:.2f}), "
        f"{ms} ms; goal {result['goal']}"
    )


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks cost_table",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--steps", type=int, default=30, help="timed steps per measurement on boston")
    parser.add_argument("--large-steps", type=int, default=5, help="timed steps per measurement at batch 10,000")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="threads per op (0: TensorFlow's choice)")
    parser.add_argument("--skip-compute-bound", action="store_true", help="leave out the batch-10,000 peak row")
    parser.add_argument("--only", nargs="+", help="only the rows whose figure contains one of these words")
    parser.add_argument(
        "--rf-members", type=int, default=1, help="also time RandomFeatureDGP with this many num_members"
    )
    parser.add_argument("--label", default="cpu", help="a name for this run in the results file")
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "cost_table.jsonl"))
    args = parser.parse_args(argv)
    set_threads(args.threads)
    origin = provenance()
    chosen = [row for row in rows(args) if not args.only or any(word in row.figure for word in args.only)]
    measurements = [lambda row=row: measure(row, args.rounds) for row in chosen]
    if not args.skip_compute_bound and not args.only:
        measurements.insert(4 if have("gpflux") else 0, lambda: compute_bound_row(args))
    for measurement in measurements:
        result = measurement()
        print(line(result), flush=True)
        append_result(args.results, dict(result, kind="cost_table", label=args.label, steps=args.steps, **origin))
    print(json.dumps({"machine": origin["machine"]}))
    return 0


if __name__ == "__main__":
    main()
