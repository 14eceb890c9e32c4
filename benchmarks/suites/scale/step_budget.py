"""The largest full-batch step of each model that fits in a memory budget, in float64 and float32.

For each model (2 layers, its builder's defaults) and float type, one fresh process per batch size
B builds the model on B synthetic rows of width 8 (``compute_bound.synthetic_data``; N = B, so
every call of the step is one full batch) and runs ``gd.fit`` for ``--steps`` steps after the
first (tracing) one. A point records the process's peak resident memory (its ``VmHWM``: the whole
process, TensorFlow and all, nothing subtracted) and its rows per second after the first step.
The batch grows through ``--batches`` until a step passes ``--budget-mb``; a summary record then
names the largest batch within the budget. Example::

    python -m benchmarks step_budget --budget-mb 2048 --steps 3 --cap aep_dgp=20000
"""

import argparse
import json
import os
import sys
import time
from typing import Dict, List, Optional

from benchmarks.common import RESULTS_DIR, ROOT, provenance, set_threads
from benchmarks.suites.scale.process_memory import run_measured
from gpflow_deep.registry import MODELS as REGISTERED_MODELS

MODELS = tuple(REGISTERED_MODELS)
FLOAT_TYPES = ("float64", "float32")
BATCHES = (1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000)
WIDTH = 8
LAYERS = 2


def peak_resident_mb() -> float:
    """This process's peak resident memory so far (``VmHWM``), in MB."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


def model_shape(model) -> dict:
    """What sets a step's memory: the paths each row takes and, per layer, its inducing points,
    features or subset, and its output width."""
    paths = getattr(model, "num_samples", None) or getattr(model, "num_sigma_points", None)
    layers = []
    for layer in model.layers:
        inducing = getattr(layer, "inducing_variable", None)
        layers.append(
            dict(
                kind=type(layer).__name__,
                inducing=None if inducing is None else int(inducing.num_inducing),
                features=getattr(layer, "num_features", None),
                subset=getattr(layer, "num_subset", None),
                output_width=getattr(layer, "num_latent_gps", None) or getattr(layer, "output_dim", None),
            )
        )
    return dict(model_class=type(model).__name__, paths_per_row=paths, layer_shapes=layers)


def one_point(model_name: str, float_name: str, batch: int, steps: int, threads: int) -> dict:
    """Build ``model_name`` on ``batch`` rows in ``float_name`` and time ``steps`` full-batch steps
    after the first; this process's peak memory at the end."""
    import gpflow
    import numpy as np

    import gpflow_deep as gd
    from benchmarks.suites.scale.compute_bound import synthetic_data
    from gpflow_deep.registry import MODEL_BUILDERS

    set_threads(threads)
    float_type = np.dtype(float_name).type
    X, Y = (array.astype(float_type) for array in synthetic_data(batch, WIDTH))
    with gpflow.config.as_context(gpflow.config.Config(float=float_type)):
        began = time.perf_counter()
        model = getattr(gd, MODEL_BUILDERS[model_name])(X, Y, LAYERS)
        build_seconds = time.perf_counter() - began
        fitted = gd.fit(model, (X, Y), steps + 1, seed=0, progress=False)
    return dict(
        build_seconds=build_seconds,
        first_step_seconds=fitted.first_step_seconds,
        seconds_per_step=fitted.seconds_per_iteration,
        rows_per_second=batch / fitted.seconds_per_iteration,
        final_objective=float(fitted.objectives[-1]),
        peak_mb=peak_resident_mb(),
        **model_shape(model),
    )


def measure(model_name: str, float_name: str, batch: int, steps: int, threads: int) -> dict:
    """:func:`one_point` in a fresh process; its figures, or its exit code and last output if it failed."""
    command = [sys.executable, "-m", __spec__.name, "--one", model_name, float_name, str(batch)]
    command += ["--steps", str(steps), "--threads", str(threads)]
    path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    finished = run_measured(command, env=dict(os.environ, PYTHONPATH=path))
    point = dict(process_seconds=finished.seconds, polled_tree_peak_mb=finished.peak_mb)
    if finished.returncode != 0:
        return dict(point, failed=finished.returncode, output_tail=finished.output[-2000:])
    return dict(point, **json.loads(finished.output.strip().splitlines()[-1]))


def largest_within(points: List[dict], budget_mb: float) -> Optional[dict]:
    """The point of the largest batch that finished within ``budget_mb``, or None."""
    fitting = [point for point in points if "failed" not in point and point["peak_mb"] <= budget_mb]
    return max(fitting, key=lambda point: point["batch"], default=None)


def parse_caps(caps: List[str]) -> Dict[str, int]:
    """``["aep_dgp=20000", ...]`` -> ``{"aep_dgp": 20000}``."""
    parsed = {}
    for cap in caps:
        name, _, rows = cap.partition("=")
        if name not in MODELS or not rows.isdigit():
            raise SystemExit(f"--cap takes MODEL=ROWS with MODEL one of {', '.join(MODELS)}, got {cap!r}")
        parsed[name] = int(rows)
    return parsed


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks step_budget",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--float-types", nargs="+", choices=FLOAT_TYPES, default=list(FLOAT_TYPES))
    parser.add_argument("--batches", type=int, nargs="+", default=list(BATCHES))
    parser.add_argument("--budget-mb", type=float, default=2048)
    parser.add_argument("--steps", type=int, default=3, help="timed steps after the first (tracing) one")
    parser.add_argument("--cap", nargs="*", default=[], metavar="MODEL=ROWS", help="a model's largest batch tried")
    parser.add_argument("--threads", type=int, default=1, help="TensorFlow's intra- and inter-op threads")
    parser.add_argument("--one", nargs=3, metavar=("MODEL", "FLOAT", "BATCH"), help="one point, in this process")
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "step_budget.jsonl"))
    args = parser.parse_args(argv)
    if args.one:
        model_name, float_name, batch = args.one
        print(json.dumps(one_point(model_name, float_name, int(batch), args.steps, args.threads)))
        return 0
    from gpflow_deep.app.benchmark import append_result

    caps = parse_caps(args.cap)
    settings = dict(width=WIDTH, layers=LAYERS, steps=args.steps, budget_mb=args.budget_mb, threads=args.threads)
    for model_name in args.models:
        batches = sorted(b for b in args.batches if b <= caps.get(model_name, max(args.batches)))
        for float_name in args.float_types:
            points, stopped_by = [], "end of the batch list"
            for batch in batches:
                point = dict(measure(model_name, float_name, batch, args.steps, args.threads), batch=batch)
                points.append(point)
                row = dict(kind="step_memory", model=model_name, float_type=float_name, **settings, **point)
                append_result(args.results, dict(row, **provenance()))
                shown = {k: v for k, v in row.items() if k not in ("layer_shapes", "output_tail")}
                print(json.dumps(shown), flush=True)
                if "failed" in point or point["peak_mb"] > args.budget_mb:
                    stopped_by = "failed" if "failed" in point else "over the budget"
                    break
            else:
                if model_name in caps:
                    stopped_by = f"cap of {caps[model_name]} rows"
            best = largest_within(points, args.budget_mb)
            summary = dict(
                kind="step_budget",
                model=model_name,
                float_type=float_name,
                **settings,
                batches_tried=[point["batch"] for point in points],
                stopped_by=stopped_by,
                largest_batch=best and best["batch"],
                peak_mb=best and best["peak_mb"],
                rows_per_second=best and best["rows_per_second"],
            )
            append_result(args.results, dict(summary, **provenance()))
            print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    main()
