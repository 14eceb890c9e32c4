"""Time per training step and per prediction: gpflow_deep's DeepGP beside GPflux's, same run.

Both libraries get the identical model (architecture, inducing inputs, initial values: GPflux's
layers are copies of ours, see ``peers/gpflux_dgp.py``), the same data and batch, and Adam.

- ours: ``gpflow_deep.fit`` (what users call), time per iteration with the first (tracing) step
  excluded; also with ``jit_compile=True`` (XLA);
- GPflux, Keras: its documented path, ``as_training_model().fit`` on a repeated ``tf.data`` set;
- GPflux, elbo loop: a ``tf.function`` Adam step on ``DeepGP.elbo`` (GPflux without Keras).

Prediction: the predictive mixture over S=100 paths at the test points and at 10,000 points.
Ours: ``predict_mixture``; GPflux: the faster of 100 compiled ``predict_f`` passes and one pass
with ``num_samples=100`` set on its hidden layers.

Each measurement is repeated ``--rounds`` times, alternating the libraries, and the median
is kept. Example::

    python benchmarks/speed.py --datasets boston concrete --steps 300 --rounds 3
"""

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import gpflow_deep as gd  # noqa: E402
from benchmarks.common import RESULTS_DIR, append_result, provenance  # noqa: E402
from benchmarks.peers import gpflux_dgp  # noqa: E402


def time_ours(model, data, steps, batch_size, jit_compile=False):
    result = gd.fit(model, data, steps + 1, batch_size=batch_size, progress=False, jit_compile=jit_compile)
    return result.seconds_per_iteration


def time_gpflux_keras(dgp, data, steps, batch_size):
    training_model, dataset = gpflux_dgp.keras_training(dgp, *data, batch_size)
    training_model.fit(dataset, epochs=1, steps_per_epoch=5, verbose=0)  # trace
    began = time.perf_counter()
    training_model.fit(dataset, epochs=1, steps_per_epoch=steps, verbose=0)
    return (time.perf_counter() - began) / steps


def time_gpflux_loop(dgp, data, steps, batch_size):
    step = gpflux_dgp.elbo_step(dgp, *data, batch_size)
    step()
    began = time.perf_counter()
    for _ in range(steps):
        loss = step()
    float(loss)
    return (time.perf_counter() - began) / steps


def time_call(function, repeats=3):
    function()  # trace
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return min(times)


def gpflux_predict_batched(dgp, X, num_samples):
    """One GPflux pass with ``num_samples`` hidden samples (broadcast through later layers)."""
    hidden = dgp.f_layers[:-1]
    for layer in hidden:
        layer.num_samples = num_samples
    try:
        mean, var = tf.function(dgp.predict_f)(tf.constant(X))
        return mean.numpy(), var.numpy()
    finally:
        for layer in hidden:
            layer.num_samples = None


def measure(dataset: str, num_layers: int, steps: int, rounds: int, batch_sizes):
    part = gd.datasets.uci_split(gd.datasets.load(dataset), 0)
    data = (part.X_train, part.Y_train)
    rows = []
    for batch_size in batch_sizes:
        times = {"ours": [], "ours_xla": [], "gpflux_keras": [], "gpflux_loop": []}
        for _ in range(rounds):
            model = gd.build_deep_gp(*data, num_layers)
            times["gpflux_keras"].append(time_gpflux_keras(gpflux_dgp.mirror(model), data, steps, batch_size))
            times["ours"].append(time_ours(model, data, steps, batch_size))
            times["ours_xla"].append(
                time_ours(gd.build_deep_gp(*data, num_layers), data, steps, batch_size, jit_compile=True)
            )
            times["gpflux_loop"].append(
                time_gpflux_loop(gpflux_dgp.mirror(gd.build_deep_gp(*data, num_layers)), data, steps, batch_size)
            )
        medians = {key: statistics.median(values) for key, values in times.items()}
        rows.append(
            dict(
                kind="train_step",
                dataset=dataset,
                num_layers=num_layers,
                batch_size=batch_size or len(part.X_train),
                steps=steps,
                rounds=rounds,
                seconds=medians,
                all_seconds=times,
                ratio_vs_gpflux_keras=medians["ours"] / medians["gpflux_keras"],
                ratio_vs_gpflux_loop=medians["ours"] / medians["gpflux_loop"],
            )
        )
    model = gd.build_deep_gp(*data, num_layers)
    gd.fit(model, data, 50, progress=False)
    dgp = gpflux_dgp.mirror(model)
    big = np.tile(part.X_test, (int(np.ceil(10_000 / len(part.X_test))), 1))[:10_000]
    for name, X in (("test set", part.X_test), ("10,000 points", big)):
        ours = time_call(lambda: model.predict_mixture(X, num_samples=100).means.numpy())
        loop = time_call(lambda: gpflux_dgp.predict_mixture(dgp, X, 100))
        batched = time_call(lambda: gpflux_predict_batched(dgp, X, 100))
        rows.append(
            dict(
                kind="predict_mixture_S100",
                dataset=dataset,
                num_layers=num_layers,
                points=len(X),
                seconds=dict(ours=ours, gpflux_loop=loop, gpflux_batched=batched),
                ratio_vs_gpflux_best=ours / min(loop, batched),
            )
        )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["boston", "concrete"])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-sizes", nargs="+", default=["full", "256"])
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "speed.jsonl"))
    parser.add_argument("--label", default="cpu", help="a name for this run in the results file")
    args = parser.parse_args()
    batch_sizes = [None if b == "full" else int(b) for b in args.batch_sizes]
    origin = provenance()
    for dataset in args.datasets:
        for row in measure(dataset, args.layers, args.steps, args.rounds, batch_sizes):
            row.update(label=args.label, **origin)
            append_result(args.results, row)
            print(json.dumps({k: row[k] for k in row if k not in ("versions", "command", "all_seconds")}), flush=True)


if __name__ == "__main__":
    main()
