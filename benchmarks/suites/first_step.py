"""Issue 35's time to the first step: what a user waits for before any training, on every run.

For each builder, in a fresh process of its own (``--worker NAME``): the seconds of ``import
gpflow_deep`` (lazy: it loads neither TensorFlow nor GPflow), of loading boston split 0, of the
first use of a builder (which loads TensorFlow, GPflow and the package), of building the model
(2 layers, the builder's defaults), of ``gd.fit``'s first step (tracing and compilation)
against a later one (full batch), and of the first prediction of the test rows (``predict_y``:
tracing, then the paths) against a second. Then the command line, each a fresh process timed
from outside: ``gpflow-deep --help`` (start-up alone), ``gpflow-deep fit`` of 1 iteration on the
bundled boston table (default settings: the likelihood's pilot fits included; and with
``--likelihood gaussian``), and ``gpflow-deep predict`` of that table from the run. Each figure
is wall and CPU seconds (user and system): on a shared machine the CPU seconds are what the work
costs, the wall seconds what this run waited. Example::

    python -m benchmarks first_step
    python -m benchmarks first_step --models deep_gp --skip-cli
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # not benchmarks.common's:
# importing that loads TensorFlow, which a worker must time itself
MODELS = ("deep_gp", "dspp", "random_feature_dgp", "aep_dgp", "sod_dgp")  # registry.MODELS' names, spelled out:
# importing the registry imports gpflow_deep, whose import a worker times
LATER_STEPS = 5


class Stopwatch:
    """Wall and CPU seconds (this process's, all threads) of each stage, one after another."""

    def __init__(self):
        self.seconds = {}
        self.restart()

    def restart(self):
        self._wall, self._cpu = time.perf_counter(), time.process_time()

    def lap(self, stage: str) -> None:
        self.seconds[stage] = dict(wall=time.perf_counter() - self._wall, cpu=time.process_time() - self._cpu)
        self.restart()


def worker(name: str) -> dict:
    """Seconds of each stage up to a later step and a later prediction of model ``name``, in this
    (fresh) process: ``{stage: {"wall": s, "cpu": s}}``; ``gd.fit`` reports its first and later
    steps' wall time only, so ``fit`` gives the CPU of the whole call (its first step and
    LATER_STEPS more)."""
    watch = Stopwatch()
    import gpflow_deep as gd

    watch.lap("import_gpflow_deep")
    part = gd.datasets.uci_split(gd.datasets.load("boston"), 0)
    watch.lap("load_boston")
    from gpflow_deep.registry import MODELS as REGISTRY
    from gpflow_deep.registry import builder_named

    build = builder_named(REGISTRY[name].builder)
    watch.lap("first_use_loads_tensorflow")
    model = build(part.X_train, part.Y_train, 2)
    watch.lap("build")
    result = gd.fit(model, (part.X_train, part.Y_train), 1 + LATER_STEPS, progress=False)
    watch.lap("fit")
    watch.seconds["first_step"] = dict(wall=result.first_step_seconds)
    watch.seconds["later_step"] = dict(wall=result.seconds_per_iteration)
    watch.restart()
    model.predict_y(part.X_test)
    watch.lap("first_prediction")
    model.predict_y(part.X_test)
    watch.lap("later_prediction")
    return watch.seconds


def timed_process(command: List[str], **options) -> Tuple[dict, str]:
    """Run ``command``; its wall and CPU seconds (user and system, from the children's usage) and output."""
    before, began = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    finished = subprocess.run(command, capture_output=True, text=True, check=True, **options)
    wall, after = time.perf_counter() - began, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return dict(wall=wall, cpu=cpu), finished.stdout


def run_worker(name: str) -> dict:
    """``worker(name)`` in a fresh process, with that whole process's seconds from outside."""
    command = [sys.executable, "-m", "benchmarks", "first_step", "--worker", name]
    process, output = timed_process(command, cwd=ROOT)
    return dict(json.loads(output.strip().splitlines()[-1]), process=process)


def command_lines(directory: str) -> Dict[str, List[str]]:
    """The command line's start-up, a 1-iteration fit, a predict from it and a fit without the
    likelihood's pilots, in that order, writing into ``directory``."""
    from gpflow_deep.datasets.uci import DATA_DIR

    executable = os.path.join(os.path.dirname(sys.executable), "gpflow-deep")
    data = os.path.join(DATA_DIR, "boston.csv")
    run = os.path.join(directory, "run")
    fit = [executable, "fit", data, "--target", "medv", "--iterations", "1", "--out"]
    return {
        "gpflow-deep --help": [executable, "--help"],
        "gpflow-deep fit (1 iteration)": [*fit, run],
        "gpflow-deep predict": [executable, "predict", run, data, "--out", os.path.join(directory, "p.csv")],
        "gpflow-deep fit (1 iteration, --likelihood gaussian)": [*fit, run + "_gaussian", "--likelihood", "gaussian"],
    }


def show(seconds: dict) -> str:
    return " / ".join(f"{value:.2f} s {kind}" for kind, value in seconds.items())


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks first_step",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--models", nargs="*", default=list(MODELS), choices=MODELS, help="none: the CLI alone")
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
        print(f"{name:<20} " + ", ".join(f"{stage} {show(value)}" for stage, value in stages.items()), flush=True)
        append_result(results, dict(kind="first_step", model=name, seconds=stages, load=os.getloadavg()[0], **origin))
    if not args.skip_cli:
        with tempfile.TemporaryDirectory() as directory:
            for label, command in command_lines(directory).items():
                seconds = timed_process(command)[0]
                print(f"{label:<55} {show(seconds)}", flush=True)
                record = dict(kind="first_step_cli", command=label, seconds=seconds, load=os.getloadavg()[0])
                append_result(results, dict(record, **origin))
    return 0


if __name__ == "__main__":
    main()
