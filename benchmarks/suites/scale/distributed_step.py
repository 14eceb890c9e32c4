"""A DeepGP training step under ``MirroredStrategy`` against the same step on one device.

The CPU is split into ``--replicas`` logical devices (before TensorFlow sets its devices up, so
this runs as its own process); each round times ``gd.fit`` on one device and under a
``MirroredStrategy`` over the logical devices, from a fresh model, on the same global batch
(synthetic data of the compute-bound benchmark: width 8, 3 layers, M = 100). The logical devices
share the same physical cores as the single device does, so the ratio measures what the
strategy's bookkeeping costs (the split of the batch, the all-reduce of the gradients), not a
speed-up: on several GPUs or hosts each replica would have its own. Example::

    python -m benchmarks distributed_step --batch 10000 --steps 10 --rounds 3
"""

import argparse
import json
import os
import statistics
from typing import List, Optional

import numpy as np
import tensorflow as tf


def split_the_cpu(replicas: int) -> list:
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * replicas)
    return [device.name for device in tf.config.list_logical_devices("CPU")]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks distributed_step",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--points", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=10_000, help="the global batch")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--results", default=None, help="default benchmarks/results/distributed_step.jsonl")
    args = parser.parse_args(argv)
    devices = split_the_cpu(args.replicas)  # before anything below creates a tensor

    from benchmarks.common import RESULTS_DIR, provenance
    from benchmarks.suites.scale.compute_bound import synthetic_data, time_ours
    from gpflow_deep.app.benchmark import append_result

    data = synthetic_data(args.points, 8)
    strategy = tf.distribute.MirroredStrategy(devices)
    times = {"one_device": [], "mirrored": []}
    for _ in range(args.rounds):
        for name, chosen in (("one_device", None), ("mirrored", strategy)):
            times[name].append(time_ours(data, np.float64, 3, 8, args.steps, args.batch, chosen, seed=0))
    seconds = {name: statistics.median(values) for name, values in times.items()}
    row = dict(
        kind="distributed_step",
        replicas=args.replicas,
        devices=devices,
        points=args.points,
        global_batch=args.batch,
        steps=args.steps,
        rounds=args.rounds,
        seconds=seconds,
        all_seconds=times,
        mirrored_vs_one_device=seconds["mirrored"] / seconds["one_device"],
        **provenance(),
    )
    append_result(args.results or os.path.join(RESULTS_DIR, "distributed_step.jsonl"), row)
    print(json.dumps({k: v for k, v in row.items() if k not in ("versions", "all_seconds")}, indent=1))
    return 0


if __name__ == "__main__":
    main()
