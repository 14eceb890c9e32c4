"""Where the time of a training step goes: TensorFlow's profiler, summed per op.

A bare compiled Adam step of a 2-layer ``build_deep_gp`` (or, with ``--model dspp``, the
``build_dspp`` of the GPyTorch comparison) on the first ``--batch`` training points of a bundled
data set; prints the step time and the most expensive ops. Example::

    python -m benchmarks profile_step --dataset boston --batch 256
    python -m benchmarks profile_step --model dspp --batch 455
"""

import argparse
import collections
import glob
import os
import tempfile
import time
from typing import List, Optional

import tensorflow as tf
from gpflow.keras import tf_keras
from tensorflow.tsl.profiler.protobuf import xplane_pb2

import gpflow_deep as gd
from benchmarks.peers import GPYTORCH_SETUP


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks profile_step",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--model", choices=["dgp", "dspp"], default="dgp")
    parser.add_argument("--dataset", default="boston")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args(argv)
    part = gd.datasets.uci_split(gd.datasets.load(args.dataset), 0)
    X, Y = tf.constant(part.X_train[: args.batch]), tf.constant(part.Y_train[: args.batch])
    if args.model == "dspp":
        model = gd.build_dspp(part.X_train, part.Y_train, beta=1.0, **GPYTORCH_SETUP)
    else:
        model = gd.build_deep_gp(part.X_train, part.Y_train, 2)
    variables, optimizer = model.trainable_variables, tf_keras.optimizers.Adam(0.01)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = model.training_loss((X, Y))
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    for _ in range(20):
        step()
    began = time.perf_counter()
    for _ in range(200):
        step()
    print(f"step: {(time.perf_counter() - began) / 200 * 1000:.2f} ms ({args.dataset}, batch {len(X)})")

    with tempfile.TemporaryDirectory() as log_dir:
        tf.profiler.experimental.start(log_dir)
        for _ in range(args.steps):
            step()
        tf.profiler.experimental.stop()
        space = xplane_pb2.XSpace()
        with open(glob.glob(os.path.join(log_dir, "plugins", "profile", "*", "*.xplane.pb"))[0], "rb") as handle:
            space.ParseFromString(handle.read())
    totals = collections.Counter()
    for plane in space.planes:
        names = {key: value.name for key, value in plane.event_metadata.items()}
        for line in plane.lines:
            for event in line.events:
                name = names.get(event.metadata_id, "?")
                if ":" in name:  # op events are "name:OpType"
                    totals[name] += event.duration_ps / 1e9 / args.steps
    print("ms per step  op")
    for name, milliseconds in totals.most_common(args.top):
        print(f"{milliseconds:11.3f}  {name[:100]}")
    return 0


if __name__ == "__main__":
    main()
