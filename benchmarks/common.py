"""Shared pieces of the benchmark scripts: result files, machine description, timing.

Result files and the machine description live in the package (:mod:`gpflow_deep.app.benchmark`),
which ``gpflow-deep benchmark`` uses too; they are re-exported here for the scripts.
"""

import os
import statistics
import sys
import time
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gpflow_deep.app.benchmark.machine import machine, versions  # noqa: E402,F401
from gpflow_deep.app.benchmark.results import append_result, first, matches, parse_splits, read_results  # noqa: E402,F401

RESULTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def provenance() -> dict:
    """What every benchmark record carries besides its figures: the machine, the library versions
    and the command line that produced it (``append_result`` adds the date)."""
    return dict(machine=machine(), versions=versions(), command=" ".join(sys.argv))


def median_seconds(function: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``function()`` over ``repeats`` calls, after one untimed (tracing) call."""
    function()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def compiled_adam_step(model, data) -> Callable[[], object]:
    """One full-batch Adam step (learning rate 0.01) on ``model.training_loss`` at ``data``, as one
    ``tf.function``: the plain GPflow training step, for timing any model."""
    import tensorflow as tf
    from gpflow.keras import tf_keras

    optimizer = tf_keras.optimizers.Adam(0.01)
    loss = model.training_loss_closure(data, compile=False)
    return tf.function(lambda: optimizer.minimize(loss, model.trainable_variables))
