"""Time per training step of our DeepGP in float32 and float64 beside GPflux's in float64, same run.

The issue's speed target: our float32 step at most 0.5× GPflux's float64 step, on boston and
concrete, full batch and batch 256. Every model is the 2-layer ``build_deep_gp`` default (GPflux's
a copy of ours, ``peers/gpflux_dgp.py``); Adam; the first (tracing) steps excluded. The
libraries alternate within each round and the median over ``--rounds`` is kept. Example::

    python benchmarks/speed_float32.py --datasets boston concrete --steps 200 --rounds 3
"""

import argparse
import json
import os
import statistics
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpflow  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import gpflow_deep as gd  # noqa: E402
from benchmarks.common import RESULTS_DIR, append_result, provenance  # noqa: E402
from benchmarks.peers import gpflux_dgp  # noqa: E402
from benchmarks.speed import time_gpflux_keras, time_gpflux_loop  # noqa: E402


def time_ours(data, num_layers: int, steps: int, batch_size, float_type, **build_options) -> float:
    """Seconds per step of ``fit`` on a fresh default DeepGP built and trained in ``float_type``."""
    X, Y = (array.astype(float_type) for array in data)
    with gpflow.config.as_context(gpflow.config.Config(float=float_type)):
        model = gd.build_deep_gp(X, Y, num_layers, **build_options)
        result = gd.fit(model, (X, Y), steps + 1, batch_size=batch_size, progress=False)
    return result.seconds_per_iteration


def time_gpflux(data, num_layers: int, steps: int, batch_size, **build_options) -> dict:
    """Seconds per step of GPflux (float64) through Keras ``fit`` and through a compiled elbo loop."""
    return dict(
        gpflux_keras=time_gpflux_keras(
            gpflux_dgp.mirror(gd.build_deep_gp(*data, num_layers, **build_options)), data, steps, batch_size
        ),
        gpflux_loop=time_gpflux_loop(
            gpflux_dgp.mirror(gd.build_deep_gp(*data, num_layers, **build_options)), data, steps, batch_size
        ),
    )


def compare(data, num_layers: int, steps: int, rounds: int, batch_size, **build_options) -> dict:
    """Median seconds per step of each contender and the ratios to GPflux's float64 step."""
    times = {"ours_float64": [], "ours_float32": [], "gpflux_keras": [], "gpflux_loop": []}
    for _ in range(rounds):
        for name, seconds in time_gpflux(data, num_layers, steps, batch_size, **build_options).items():
            times[name].append(seconds)
        for float_type in (np.float64, np.float32):
            seconds = time_ours(data, num_layers, steps, batch_size, float_type, **build_options)
            times[f"ours_{np.dtype(float_type).name}"].append(seconds)
    medians = {name: statistics.median(values) for name, values in times.items()}
    gpflux = min(medians["gpflux_keras"], medians["gpflux_loop"])
    return dict(
        seconds=medians,
        all_seconds=times,
        float32_vs_gpflux_float64=medians["ours_float32"] / gpflux,
        float64_vs_gpflux_float64=medians["ours_float64"] / gpflux,
        float32_vs_float64=medians["ours_float32"] / medians["ours_float64"],
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["boston", "concrete"])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-sizes", nargs="+", default=["full", "256"])
    parser.add_argument("--threads", type=int, default=0, help="threads per op (0: all cores)")
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "speed_float32.jsonl"))
    args = parser.parse_args()
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    origin = provenance()
    for dataset in args.datasets:
        part = gd.datasets.uci_split(gd.datasets.load(dataset), 0)
        for batch in args.batch_sizes:
            batch_size = None if batch == "full" else int(batch)
            row = dict(
                kind="train_step_float32",
                dataset=dataset,
                num_layers=args.layers,
                batch_size=batch_size or len(part.X_train),
                steps=args.steps,
                rounds=args.rounds,
                **compare((part.X_train, part.Y_train), args.layers, args.steps, args.rounds, batch_size),
            )
            row.update(origin)
            append_result(args.results, row)
            print(json.dumps({k: v for k, v in row.items() if k not in ("versions", "command", "all_seconds")}))


if __name__ == "__main__":
    main()
