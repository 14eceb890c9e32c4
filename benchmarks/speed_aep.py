"""Time per training step of a 2-layer AEPDGP, Monte Carlo (S=20) against moment matching, and
against DeepGP (DSVI, S=1): the slides' comparison (0.022 s against 0.29 s a step on Airline).

All three are built with their builders' defaults on split 0 of the dataset and trained in the
same process, one thread, round after round in turn (one compiled full-batch Adam step on
``training_loss``); each step's cost is the process CPU time over ``--steps`` traced steps, which
a machine shared with other jobs inflates less than wall time. The medians over rounds and their ratios are printed and
appended to ``benchmarks/results/speed.jsonl``::

    python benchmarks/speed_aep.py --dataset boston --steps 50 --rounds 3
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

BUILDERS = {
    "aep_monte_carlo": lambda data: gd.build_aep_dgp(*data, 2),
    "aep_moment_matching": lambda data: gd.build_aep_dgp(*data, 2, propagation="moment_matching"),
    "deep_gp": lambda data: gd.build_deep_gp(*data, 2),
}


def cpu_seconds_per_step(step, steps: int) -> float:
    """Process CPU seconds per step over ``steps`` steps (the step is traced beforehand)."""
    began = time.process_time()
    for _ in range(steps):
        step()
    return (time.process_time() - began) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="boston")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "speed.jsonl"))
    args = parser.parse_args()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    part = gd.datasets.uci_split(gd.datasets.load(args.dataset), 0)
    data = (part.X_train, part.Y_train)
    data = tuple(tf.constant(array) for array in data)
    steps = {name: compiled_adam_step(build((part.X_train, part.Y_train)), data) for name, build in BUILDERS.items()}
    for step in steps.values():
        step()
    times = {name: [] for name in steps}
    for _ in range(args.rounds):
        for name, step in steps.items():
            times[name].append(cpu_seconds_per_step(step, args.steps))
    seconds = {name: statistics.median(values) for name, values in times.items()}
    row = dict(
        kind="aep_train_step",
        dataset=args.dataset,
        steps=args.steps,
        rounds=args.rounds,
        cpu_seconds=seconds,
        all_cpu_seconds=times,
        ratio_monte_carlo_vs_moment_matching=seconds["aep_monte_carlo"] / seconds["aep_moment_matching"],
        ratio_monte_carlo_vs_deep_gp=seconds["aep_monte_carlo"] / seconds["deep_gp"],
        **provenance(),
    )
    append_result(args.results, row)
    print(json.dumps({key: row[key] for key in ("dataset", "cpu_seconds", "all_cpu_seconds")}, indent=1))
    print(f"Monte Carlo / moment matching: {row['ratio_monte_carlo_vs_moment_matching']:.3f}")
    print(f"Monte Carlo / DeepGP:          {row['ratio_monte_carlo_vs_deep_gp']:.3f}")


if __name__ == "__main__":
    main()
