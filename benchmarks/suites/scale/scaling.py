"""Time per epoch and peak memory of streamed training as N grows from 10^4 to 10^7 points.

The data never exist as a whole: a ``tf.data`` pipeline makes batch i from a seed keyed by i
(X uniform on [-2, 2]^D, y a smooth function plus noise), and ``gd.fit`` streams it for one epoch
(N / batch steps) into a 2-layer DeepGP (M inducing points, built on the first batch, its
``num_data`` set to N). Each N runs in its own process, so that its peak resident memory
(``ru_maxrss``) is its own. Example::

    python -m benchmarks scaling --points 10000 100000 1000000 10000000
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from typing import List, Optional

from benchmarks.common import RESULTS_DIR, ROOT, provenance


def synthetic_batches(num_points: int, batch_size: int, width: int):
    """A dataset of ``num_points // batch_size`` batches (X ``[B, width]``, Y ``[B, 1]``), each made
    on the fly from its index."""
    import tensorflow as tf

    def batch(index):
        seed = tf.stack([index, tf.constant(7, tf.int64)])
        X = tf.random.stateless_uniform([batch_size, width], seed, -2.0, 2.0, dtype=tf.float64)
        noise = tf.random.stateless_normal([batch_size, 1], seed + 1, dtype=tf.float64)
        Y = tf.sin(X[:, :1] * X[:, 1:2]) + tf.cos(tf.reduce_sum(X, axis=1, keepdims=True)) + 0.1 * noise
        return X, Y

    return tf.data.Dataset.range(num_points // batch_size).map(batch)


def one_size(num_points: int, batch_size: int, width: int, num_inducing: int) -> dict:
    """Train one epoch on ``num_points`` streamed points; seconds and peak memory of this process."""
    import gpflow_deep as gd

    dataset = synthetic_batches(num_points, batch_size, width)
    X0, Y0 = (part.numpy() for part in next(iter(dataset)))
    model = gd.build_deep_gp(X0, Y0, 2, num_inducing=num_inducing, hidden_width=width)
    model.num_data = num_points
    steps = num_points // batch_size
    began = time.perf_counter()
    result = gd.fit(model, dataset, steps + 1, progress=False)  # one step more: the first traces
    seconds = time.perf_counter() - began
    return dict(
        points=num_points,
        steps=steps,
        epoch_seconds=result.seconds_per_iteration * steps,
        wall_seconds=seconds,
        seconds_per_step=result.seconds_per_iteration,
        peak_memory_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        final_objective=float(result.objectives[-1]),
    )


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks scaling", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--points", type=int, nargs="+", default=[10**4, 10**5, 10**6, 10**7])
    parser.add_argument("--batch-size", type=int, default=10_000)
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--num-inducing", type=int, default=100)
    parser.add_argument("--one", action="store_true", help="run the single size given, in this process")
    parser.add_argument("--results", default=None)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one_size(args.points[0], args.batch_size, args.width, args.num_inducing)))
        return 0
    from gpflow_deep.app.benchmark import append_result

    results = args.results or os.path.join(RESULTS_DIR, "scaling.jsonl")
    for points in args.points:
        command = [sys.executable, "-m", __spec__.name, "--one", "--points", str(points)]
        command += ["--batch-size", str(args.batch_size), "--width", str(args.width)]
        command += ["--num-inducing", str(args.num_inducing)]
        output = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT).stdout
        row = dict(json.loads(output.strip().splitlines()[-1]), kind="streamed_epoch", batch_size=args.batch_size)
        row.update(width=args.width, num_inducing=args.num_inducing, **provenance())
        append_result(results, row)
        print(json.dumps({k: v for k, v in row.items() if k not in ("versions", "command")}), flush=True)
    return 0


if __name__ == "__main__":
    main()
