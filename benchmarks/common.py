"""What the entries share: the results folder, a record's provenance, timing."""

import argparse
import os
import shlex
import statistics
import sys
import time
from typing import Callable

from gpflow_deep.app.benchmark.machine import machine, versions

RESULTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # where ``python -m benchmarks`` runs


def provenance() -> dict:
    """What every benchmark record carries besides its figures: the machine, the library versions
    and the command line that produced it (``append_result`` adds the date)."""
    return dict(machine=machine(), versions=versions(), command=command_line())


def command_line() -> str:
    """The running command, as it can be typed again from the repository's root."""
    module = os.path.splitext(os.path.relpath(os.path.abspath(sys.argv[0]), ROOT))[0].replace(os.sep, ".")
    return shlex.join(["python", "-m", module.removesuffix(".__main__"), *sys.argv[1:]])


def set_threads(threads: int) -> None:
    """TensorFlow's intra- and inter-op threads (0: TensorFlow's choice)."""
    import tensorflow as tf

    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)


def split_experiment_arguments(prog: str, description: str, argv=None, extra=()):
    """The parsed ``--dataset``, ``--splits``, ``--steps``, ``--threads`` and ``--results`` of an
    experiment that trains a model per split of the calibration suite, as the suite trains it (tuning
    seeds by default), with TensorFlow's threads set from them; ``extra``: more (flag, options) pairs."""
    parser = argparse.ArgumentParser(
        prog=prog, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", default="boston")
    parser.add_argument("--splits", default="2000-2009", help="split seeds (tuning seeds: 2000 onwards)")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results", default=None, help="a JSON-lines file to append each split's record to")
    for flag, options in extra:
        parser.add_argument(flag, **options)
    args = parser.parse_args(argv)
    set_threads(args.threads)
    return args


def median_seconds(function: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``function()`` over ``repeats`` calls, after one untimed (tracing) call."""
    function()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return statistics.median(times)
