"""Time per training step and trainable parameters of a SoDDGP (2 layers unless ``--num-layers``)
beside a DeepGP at the same M, depth, batch and paths per step, as ratios from one run.

Both models are built on split 0 of each dataset (SoD: k-means subset of M; DSVI: M k-means
inducing inputs per layer, ``build_deep_gp`` otherwise), full batch, S paths per step for both.
Each model gets one compiled Adam step on its own objective; rounds alternate the two models and
the medians are kept. Example::

    python benchmarks/speed_sod.py --steps 50 --rounds 3 --threads 1 [--num-layers 3]
"""

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import tensorflow as tf  # noqa: E402

import gpflow_deep as gd  # noqa: E402
from benchmarks.common import RESULTS_DIR, append_result, compiled_adam_step, provenance  # noqa: E402

SUBSET_SIZES = {"boston": 50, "concrete": 100}  # the paper's M (benchmarks/uci.py, sod2)


def seconds_per_step(step, steps: int) -> float:
    began = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - began) / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["boston", "concrete"])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--num-layers", type=int, default=2)
    parser.add_argument("--num-samples", type=int, default=10, help="paths per step for both (the SoD paper's 10)")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "speed.jsonl"))
    args = parser.parse_args()
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)

    for dataset in args.datasets:
        part = gd.datasets.uci_split(gd.datasets.load(dataset), 0)
        data = (tf.constant(part.X_train), tf.constant(part.Y_train))
        M = SUBSET_SIZES[dataset]
        X, Y, L, S = part.X_train, part.Y_train, args.num_layers, args.num_samples
        models = {
            "sod": gd.build_sod_dgp(X, Y, L, M, num_samples=S),
            "dsvi": gd.build_deep_gp(X, Y, L, num_inducing=M, num_samples=S),
        }
        steps = {name: compiled_adam_step(model, data) for name, model in models.items()}
        for step in steps.values():
            step()  # tracing
        times = {name: [] for name in models}
        for _ in range(args.rounds):
            for name, step in steps.items():
                times[name].append(seconds_per_step(step, args.steps))
        medians = {name: statistics.median(values) for name, values in times.items()}
        parameters = {name: gd.models.num_trainable_parameters(model) for name, model in models.items()}
        row = dict(
            kind="sod_train_step",
            dataset=dataset,
            num_layers=args.num_layers,
            num_subset=M,
            num_samples=args.num_samples,
            steps=args.steps,
            rounds=args.rounds,
            seconds=medians,
            all_seconds=times,
            time_ratio_sod_vs_dsvi=medians["sod"] / medians["dsvi"],
            trainable_parameters=parameters,
            parameter_ratio_sod_vs_dsvi=parameters["sod"] / parameters["dsvi"],
            **provenance(),
        )
        append_result(args.results, row)
        keys = (
            "dataset",
            "num_layers",
            "seconds",
            "time_ratio_sod_vs_dsvi",
            "trainable_parameters",
            "parameter_ratio_sod_vs_dsvi",
        )
        print(json.dumps({key: row[key] for key in keys}), flush=True)


if __name__ == "__main__":
    main()
