"""Where the time of a training step goes: TensorFlow's profiler on ``gd.fit``'s compiled step.

Each ``--models`` entry is built with its builder's defaults (2 layers unless ``--layers``) on the
first ``--batch`` rows of a bundled data set, or, for a batch larger than the data set, on
synthetic data of that many rows (``compute_bound``'s, width 8). The step is the one ``gd.fit``
runs (:func:`gpflow_deep.training.step.training_step`, fused Adam, full batch of those rows).
Prints the step's wall time, then its op time summed two ways: per op type, and per the first
name scopes of the op (``--depth``), each in ms per step. ``--parts`` first times, for Monte Carlo
models, the gradient of the loss beside those of its parts (the regularisers, each layer's
marginals). Example::

    python -m benchmarks profile_step --models aep_dgp aep_dgp_mm --batch 256
    python -m benchmarks profile_step --models deep_gp random_feature_dgp --batch 10000 --layers 3
    python -m benchmarks profile_step --models aep_dgp --batch 455 --parts
"""

import argparse
import collections
import glob
import os
import tempfile
import time
from typing import Callable, Dict, List, Optional

import numpy as np
import tensorflow as tf
from tensorflow.tsl.profiler.protobuf import xplane_pb2

import gpflow_deep as gd
from benchmarks.common import set_threads
from benchmarks.peers import GPYTORCH_SETUP
from gpflow_deep.training.fused_adam import FusedAdam
from gpflow_deep.training.step import training_step

BUILDERS: Dict[str, Callable] = {
    "deep_gp": lambda X, Y, layers: gd.build_deep_gp(X, Y, layers),
    "dspp": lambda X, Y, layers: gd.build_dspp(X, Y, layers, beta=1.0, **GPYTORCH_SETUP),
    "aep_dgp": lambda X, Y, layers: gd.build_aep_dgp(X, Y, layers),
    "aep_dgp_mm": lambda X, Y, layers: gd.build_aep_dgp(X, Y, layers, propagation="moment_matching"),
    "sod_dgp": lambda X, Y, layers: gd.build_sod_dgp(X, Y, layers),
    "random_feature_dgp": lambda X, Y, layers: gd.build_random_feature_dgp(X, Y, layers),
}
"""Each profiled model from training data X ``[n, D]``, Y ``[n, 1]`` and its number of layers."""


def training_rows(dataset: str, batch: int):
    """X ``[batch, D]`` and Y ``[batch, 1]``: a bundled data set's first rows, or synthetic data."""
    part = gd.datasets.uci_split(gd.datasets.load(dataset), 0)
    if batch <= len(part.X_train):
        return part.X_train[:batch], part.Y_train[:batch]
    from benchmarks.suites.scale.compute_bound import synthetic_data

    return synthetic_data(batch, 8)


def compiled_step(model, X: np.ndarray, Y: np.ndarray) -> Callable[[], object]:
    """``gd.fit``'s step of ``model`` on the full batch (X, Y)."""
    optimizer = FusedAdam(0.01)
    step = training_step(
        model, (X, Y), batch_size=None, optimizer=optimizer, natgrad_gamma=None, seed=0, jit_compile=False
    )
    return step.step


def wall_ms(step: Callable[[], object], steps: int) -> float:
    """Median ms of ``steps`` steps, after 5 untimed ones."""
    for _ in range(5):
        step()
    times = []
    for _ in range(steps):
        began = time.perf_counter()
        step()[0].numpy()
        times.append(time.perf_counter() - began)
    return 1000 * float(np.median(times))


def op_events(step: Callable[[], object], steps: int) -> List[tuple]:
    """``(op name, op type, ms per step)`` of every op event the profiler records over ``steps``."""
    with tempfile.TemporaryDirectory() as log_dir:
        tf.profiler.experimental.start(log_dir)
        for _ in range(steps):
            step()
        tf.profiler.experimental.stop()
        space = xplane_pb2.XSpace()
        with open(glob.glob(os.path.join(log_dir, "plugins", "profile", "*", "*.xplane.pb"))[0], "rb") as handle:
            space.ParseFromString(handle.read())
    events = []
    for plane in space.planes:
        names = {key: value.name for key, value in plane.event_metadata.items()}
        for line in plane.lines:
            for event in line.events:
                name = names.get(event.metadata_id, "?")
                op, _, op_type = name.rpartition(":")
                if op and op_type.isidentifier() and not op.endswith(":"):  # "scope/.../name:OpType"
                    events.append((op, op_type, event.duration_ps / 1e9 / steps))
    return events


def breakdown(events: List[tuple], depth: int) -> Dict[str, collections.Counter]:
    """ms per step summed per op type and per the first ``depth`` name scopes (gradients apart)."""
    by_type, by_scope = collections.Counter(), collections.Counter()
    for op, op_type, ms in events:
        by_type[op_type] += ms
        parts = [p for p in op.split("/") if p not in ("StatefulPartitionedCall", "PartitionedCall")]
        gradient = any(p.startswith("gradient") for p in parts)
        parts = [p for p in parts if not p.startswith("gradient")]
        by_scope[("∇ " if gradient else "") + "/".join(parts[:depth])] += ms
    return dict(op_type=by_type, scope=by_scope)


def part_gradients(model, X: np.ndarray, Y: np.ndarray) -> Dict[str, Callable[[], object]]:
    """Compiled gradients (all trainable variables) of the parts of a Monte Carlo model's loss:
    the whole loss, the layers' regularisers, and each layer's marginals at the inputs it receives
    on one draw of the training paths (fixed, so the layer is timed alone)."""
    from gpflow_deep.objectives.regularisers import layer_inputs, total_regulariser
    from gpflow_deep.propagation.outputs import layer_marginals

    X, Y = tf.constant(X), tf.constant(Y)
    mode, samples = model.training_mode, model.num_samples
    paths = model._paths(X, samples, model.new_seed(), mode=mode)
    inputs = layer_inputs(X, paths.outputs)
    variables = model.trainable_variables

    def gradient_of(loss: Callable[[], tf.Tensor]) -> Callable[[], object]:
        @tf.function
        def gradients():
            with tf.GradientTape() as tape:
                value = loss()
            return value, tape.gradient(value, variables, unconnected_gradients="zero")

        return gradients

    parts = {"loss": gradient_of(lambda: model.training_loss((X, Y)))}
    parts["regularisers"] = gradient_of(lambda: total_regulariser(model.layers, inputs))
    for index, (layer, received) in enumerate(zip(model.layers, inputs)):
        seed = tf.constant([0, index], tf.int64)

        def marginal_sum(layer=layer, received=received, seed=seed):
            mean, var = layer_marginals(layer, received, samples, seed=seed, mode=mode)
            return tf.reduce_sum(mean) + tf.reduce_sum(var)

        parts[f"layer {index} marginals at {list(received.shape)}"] = gradient_of(marginal_sum)
    return parts


def part_times(parts: Dict[str, Callable[[], object]], rounds: int) -> Dict[str, float]:
    """Median ms of each part, the parts interleaved over ``rounds`` after one untimed call each."""
    for function in parts.values():
        function()
    times = {name: [] for name in parts}
    for _ in range(rounds):
        for name, function in parts.items():
            began = time.perf_counter()
            function()[0].numpy()
            times[name].append(time.perf_counter() - began)
    return {name: 1000 * float(np.median(values)) for name, values in times.items()}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks profile_step",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--models", "--model", nargs="+", choices=list(BUILDERS), default=list(BUILDERS))
    parser.add_argument("--dataset", default="boston")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--depth", type=int, default=3, help="name scopes kept in the per-scope sums")
    parser.add_argument("--parts", action="store_true", help="also time the loss's parts (Monte Carlo models)")
    parser.add_argument("--threads", type=int, default=0, help="threads per op (0: TensorFlow's choice)")
    args = parser.parse_args(argv)
    set_threads(args.threads)
    X, Y = training_rows(args.dataset, args.batch)
    for name in args.models:
        model = BUILDERS[name](X, Y, args.layers)
        if args.parts and hasattr(model, "training_mode"):
            print(f"\n== {name}: ms of the gradient of each part (median of {args.steps}, interleaved)")
            for part, ms in part_times(part_gradients(model, X, Y), args.steps).items():
                print(f"  {ms:9.2f}  {part}")
        step = compiled_step(model, X, Y)
        print(
            f"\n== {name}: {wall_ms(step, args.steps):.2f} ms per step (median), batch {len(X)}, {args.layers} layers"
        )
        sums = breakdown(op_events(step, args.steps), args.depth)
        for title, counter in sums.items():
            print(f"  ms/step  by {title} (total {sum(counter.values()):.2f})")
            for key, ms in counter.most_common(args.top):
                print(f"  {ms:7.3f}  {key[:110]}")
    return 0


if __name__ == "__main__":
    main()
