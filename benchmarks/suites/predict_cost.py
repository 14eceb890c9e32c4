"""Issue 35's prediction cost: ``predict_y`` with S = 100 and S = 1 paths on many rows, each model.

Each model is built by its builder's defaults (2 layers) on boston split 0 (``cost_table.boston``),
untrained: the cost of a prediction does not depend on the fitted values. It then predicts ROWS
synthetic rows of boston's width (standard normal, as the standardised training inputs) through
``model.predict_y(X, num_samples=S)``, the public call, which evaluates the one compiled chunked
predictive on ``prediction_batch_size`` rows at a time. The first call (one chunk, S = 1) traces
and is timed apart; the timed calls come after it. DSPP's mixture is a fixed quadrature (its
builder's sigma points), so ``num_samples`` does not apply to it and it is timed once. GPflux's
DeepGP (a copy of our DeepGP, ``peers/gpflux_dgp.py``) is timed beside it: its compiled
``predict_f`` on all rows in one call, one sampled path through the hidden layer; run in the venv
that has GPflux for that column. Example::

    /tmp/benchvenv/bin/python -m benchmarks predict_cost --rows 100000
    python -m benchmarks predict_cost --models deep_gp sod_dgp --rows 10000
"""

import argparse
import os
import time
from typing import Callable, List, Optional

import numpy as np
import tensorflow as tf

from benchmarks.common import RESULTS_DIR, provenance, set_threads
from benchmarks.suites.cost_table import boston, have
from gpflow_deep.app.benchmark import append_result
from gpflow_deep.registry import MODELS, builder_named

PATHS = (100, 1)


def seconds(function: Callable[[], object]) -> float:
    """Wall time of one call of ``function``."""
    began = time.perf_counter()
    function()
    return time.perf_counter() - began


def predict_y(model, X: np.ndarray, num_samples: int) -> Callable[[], object]:
    """The user's call: mean and variance of y at X, as arrays."""
    return lambda: [moment.numpy() for moment in model.predict_y(X, num_samples=num_samples)]


def gpflux_predict_f(model, width: int) -> Callable[[np.ndarray], object]:
    """GPflux's compiled ``predict_f`` (one path) on a copy of our DeepGP ``model``."""
    from benchmarks.peers import gpflux_dgp

    dgp = gpflux_dgp.mirror(model)
    compiled = tf.function(dgp.predict_f, input_signature=[tf.TensorSpec([None, width], tf.float64)])
    return lambda X: [moment.numpy() for moment in compiled(tf.constant(X))]


def measure(name: str, X: np.ndarray) -> dict:
    """Trace and predict seconds of model ``name`` at the rows X, and GPflux's beside DeepGP."""
    problem = boston(2, 0, None)
    model = builder_named(MODELS[name].builder)(problem.X, problem.Y, problem.layers)
    chunk = X[: model.prediction_batch_size]
    record = dict(model=name, rows=len(X), chunk=model.prediction_batch_size, monte_carlo=model.monte_carlo)
    record["trace_seconds"] = seconds(predict_y(model, chunk, 1))
    if model.monte_carlo:
        record["seconds"] = {f"S={S}": seconds(predict_y(model, X, S)) for S in PATHS}
        record["ratio_S100_to_S1"] = record["seconds"]["S=100"] / record["seconds"]["S=1"]
    else:
        paths = int(model.predict_mixture(chunk[:1]).log_weights.shape[0])
        record["seconds"] = {f"fixed {paths} paths": seconds(predict_y(model, X, None))}
    record["rows_per_second"] = {key: len(X) / value for key, value in record["seconds"].items()}
    if name == "deep_gp" and have("gpflux"):
        predict = gpflux_predict_f(model, X.shape[1])
        record["gpflux_trace_seconds"] = seconds(lambda: predict(chunk))
        record["gpflux_seconds"] = seconds(lambda: predict(X))
        record["ratio_S100_to_gpflux"] = record["seconds"]["S=100"] / record["gpflux_seconds"]
    return record


def line(record: dict) -> str:
    timed = ", ".join(
        f"{key} {value:.2f} s ({record['rows_per_second'][key]:,.0f} rows/s)"
        for key, value in record["seconds"].items()
    )
    text = f"{record['model']:<20} trace {record['trace_seconds']:.2f} s; {timed}"
    if "ratio_S100_to_S1" in record:
        text += f"; S=100/S=1 {record['ratio_S100_to_S1']:.1f}"
    if "gpflux_seconds" in record:
        text += f"; GPflux predict_f {record['gpflux_seconds']:.2f} s"
        text += f", ours S=100/GPflux {record['ratio_S100_to_gpflux']:.1f}"
    return text


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks predict_cost",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--rows", type=int, default=100_000, help="rows predicted per call")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--threads", type=int, default=0, help="threads per op (0: TensorFlow's choice)")
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "predict_cost.jsonl"))
    args = parser.parse_args(argv)
    set_threads(args.threads)
    origin = provenance()
    X = np.random.default_rng(0).standard_normal((args.rows, boston(2, 0, None).X.shape[1]))
    if not have("gpflux"):
        print("GPflux is not importable here: its column is left out (run in /tmp/benchvenv for it)")
    for name in args.models:
        record = measure(name, X)
        print(line(record), flush=True)
        load = os.getloadavg()[0]  # the machine is shared: the 1-minute load when the model finished
        append_result(args.results, dict(record, kind="predict_cost", threads=args.threads, load=load, **origin))
    return 0


if __name__ == "__main__":
    main()
