"""Issue 35's time to the first step: what a user waits for before any training, on every run.

For each builder, in a fresh process of its own (``--worker NAME``): the seconds of ``import
gpflow_deep`` (lazy: it loads neither TensorFlow nor GPflow), of loading boston split 0, of the
first use of a builder (which loads TensorFlow, GPflow and the package), of building the model
(2 layers, the builder's defaults) and of ``gd.fit``'s first step (tracing and compilation)
against a later one (full batch). Then the command line, each a fresh process timed from outside:
``gpflow-deep --help`` (start-up alone), ``gpflow-deep fit`` of 1 iteration on the bundled boston
table (default settings: the likelihood's pilot fits included; and with ``--likelihood
gaussian``), and ``gpflow-deep predict`` of that table from the run. Example::

    python -m benchmarks first_step
    python -m benchmarks first_step --models deep_gp --skip-cli
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # not benchmarks.common's:
# importing that loads TensorFlow, which a worker must time itself
MODELS = ("deep_gp", "dspp", "random_feature_dgp", "aep_dgp", "sod_dgp")
LATER_STEPS = 5


def worker(name: str) -> dict:
    """Seconds of each stage up to a later step of model ``name``, in this (fresh) process."""
    stages = {}
    began = time.perf_counter()
    import gpflow_deep as gd

    stages["import_gpflow_deep"] = time.perf_counter() - began
    began = time.perf_counter()
    part = gd.datasets.uci_split(gd.datasets.load("boston"), 0)
    stages["load_boston"] = time.perf_counter() - began
    began = time.perf_counter()
    from gpflow_deep.registry import MODELS as REGISTRY
    from gpflow_deep.registry import builder_named

    build = builder_named(REGISTRY[name].builder)
    stages["first_use_loads_tensorflow"] = time.perf_counter() - began
    began = time.perf_counter()
    model = build(part.X_train, part.Y_train, 2)
    stages["build"] = time.perf_counter() - began
    result = gd.fit(model, (part.X_train, part.Y_train), 1 + LATER_STEPS, progress=False)
    stages["first_step"] = result.first_step_seconds
    stages["later_step"] = result.seconds_per_iteration
    return stages


def run_worker(name: str) -> dict:
    """``worker(name)`` in a fresh process, with that process's wall time from outside."""
    command = [sys.executable, "-m", "benchmarks", "first_step", "--worker", name]
    began = time.perf_counter()
    finished = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    return dict(json.loads(finished.stdout.strip().splitlines()[-1]), process_wall=time.perf_counter() - began)


def command_line_seconds(directory: str) -> dict:
    """Wall seconds of the command line's start-up, a 1-iteration fit and a predict, each a fresh process."""
    from gpflow_deep.datasets.uci import DATA_DIR

    executable = os.path.join(os.path.dirname(sys.executable), "gpflow-deep")
    data = os.path.join(DATA_DIR, "boston.csv")
    run = os.path.join(directory, "run")
    commands = {
        "gpflow-deep --help": [executable, "--help"],
        "gpflow-deep fit (1 iteration)": [
            executable,
            "fit",
            data,
            "--target",
            "medv",
            "--out",
            run,
            "--iterations",
            "1",
        ],
        "gpflow-deep fit (1 iteration, --likelihood gaussian)": [
            *(executable, "fit", data, "--target", "medv", "--out", run + "_gaussian"),
            *("--iterations", "1", "--likelihood", "gaussian"),
        ],
        "gpflow-deep predict": [executable, "predict", run, data, "--out", os.path.join(directory, "p.csv")],
    }
    seconds = {}
    for label, command in commands.items():
        began = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        seconds[label] = time.perf_counter() - began
    return seconds


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks first_step",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--skip-cli", action="store_true", help="leave out the command line's timings")
    parser.add_argument("--worker", choices=MODELS, help=argparse.SUPPRESS)
    parser.add_argument("--results", help="default: benchmarks/results/first_step.jsonl")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker)))
        return 0
    from benchmarks.common import RESULTS_DIR, provenance
    from gpflow_deep.app.benchmark import append_result

    results = args.results or os.path.join(RESULTS_DIR, "first_step.jsonl")
    origin = provenance()
    for name in args.models:
        stages = run_worker(name)
        print(f"{name:<20} " + ", ".join(f"{stage} {value:.2f} s" for stage, value in stages.items()), flush=True)
        append_result(results, dict(kind="first_step", model=name, seconds=stages, load=os.getloadavg()[0], **origin))
    if not args.skip_cli:
        with tempfile.TemporaryDirectory() as directory:
            seconds = command_line_seconds(directory)
        for label, value in seconds.items():
            print(f"{label:<55} {value:.2f} s", flush=True)
        append_result(results, dict(kind="first_step_cli", seconds=seconds, load=os.getloadavg()[0], **origin))
    return 0


if __name__ == "__main__":
    main()
