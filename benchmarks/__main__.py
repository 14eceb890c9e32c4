"""``python -m benchmarks <entry> [options]``: one driver for every suite, tool and experiment.

``python -m benchmarks`` lists the entries; ``python -m benchmarks <entry> --help`` gives one's
options. Run it from the repository's root.
"""

import importlib
import sys
from typing import List, Optional

SUITES = {
    "accuracy": ("benchmarks.suites.accuracy", "the papers' UCI protocol, resumable, with the peers and the variants"),
    "speed": ("benchmarks.suites.speed", "time per training step of each model beside its peer"),
    "cost_table": ("benchmarks.suites.cost_table", "issue 35's table: each model's step against its paper's promise"),
    "cost_summary": ("benchmarks.suites.cost_summary", "issue 35's table over several cost_table runs, medians"),
    "compute_bound": ("benchmarks.suites.scale.compute_bound", "a compute-bound DeepGP step against the matmul peak"),
    "scaling": ("benchmarks.suites.scale.scaling", "one streamed epoch as N grows from 10^4 to 10^7"),
    "distributed_step": (
        "benchmarks.suites.scale.distributed_step",
        "a step under MirroredStrategy against one device",
    ),
    "step_budget": ("benchmarks.suites.scale.step_budget", "issue 33: each model's largest step within a memory cap"),
    "real_tables": ("benchmarks.suites.scale.real_tables", "the command line vs baselines on two large real tables"),
    "linear_baseline": ("benchmarks.suites.linear_baseline", "least squares on the protocol's splits (a check of it)"),
    "calibration": ("benchmarks.suites.calibration", "coverage, PIT, conformal intervals: defaults, fresh splits"),
    "calibration_summary": ("benchmarks.suites.calibration_summary", "the calibration runs' tables, issue 34's bars"),
    "calibration_bars": ("benchmarks.suites.calibration_bars", "issue 34's bars for the defaults, set of ten by set"),
    "predict_cost": ("benchmarks.suites.predict_cost", "issue 35: predict_y at S=100 and S=1 on many rows"),
    "first_step": ("benchmarks.suites.first_step", "issue 35: import, build, first (tracing) step, CLI start-up"),
    "summarize": ("benchmarks.summarize", "mean (standard error) tables from result files"),
}
EXPERIMENTS = {
    "dspp_default_search": ("benchmarks.experiments.dspp_default_search", "DSPP candidate defaults, held-out score"),
    "dspp_trajectory": (
        "benchmarks.experiments.dspp_trajectory",
        "where a DSPP collapses, or intervals narrow, on one Adam run",
    ),
    "dspp_small_data": ("benchmarks.experiments.dspp_small_data", "the DSPP small-data trap, and what prevents it"),
    "safe_defaults": ("benchmarks.experiments.safe_defaults", "every builder's defaults, a fixed number of steps"),
    "variance_gradient": ("benchmarks.experiments.variance_gradient", "the hand-written variance gradient vs autodiff"),
    "minibatch_read": ("benchmarks.experiments.minibatch_read", "an in-memory minibatch's read and checkpoint cost"),
    "last_layer_variance": ("benchmarks.experiments.last_layer_variance", "a diagonal layer's variance, two ways"),
    "mixed_precision": ("benchmarks.experiments.mixed_precision", "a float32/float64 mixed step, measured"),
    "profile_step": ("benchmarks.experiments.profile_step", "TensorFlow's profiler on one step, per op"),
    "random_feature_cost": ("benchmarks.experiments.random_feature_cost", "where a random-feature step's time goes"),
    "worst_points": ("benchmarks.experiments.worst_points", "the test rows that decide a split's log-likelihood"),
    "row_in_test": ("benchmarks.experiments.row_in_test", "one row's weight in the bars: the splits testing it"),
    "rf_exact_weights": (
        "benchmarks.experiments.rf_exact_weights",
        "a random-feature GP's mean-field q(W) beside W's exact posterior",
    ),
    "rf_full_covariance": (
        "benchmarks.experiments.rf_full_covariance",
        "a random-feature deep GP trained with a full-covariance last-layer q(W)",
    ),
    "rf_ensemble": (
        "benchmarks.experiments.rf_ensemble",
        "independently trained random-feature models pooled as an equal mixture",
    ),
    "conformal_band": (
        "benchmarks.experiments.conformal_band",
        "how often an exactly exchangeable conformal run averages within ±0.02",
    ),
    "noise_floor": ("benchmarks.experiments.noise_floor", "a likelihood noise floor's cost on a low-noise table"),
    "digits": ("benchmarks.experiments.digits", "multiclass digits: RandomFeatureDGP beside DeepGP"),
}
ENTRIES = {**SUITES, **EXPERIMENTS}


def usage() -> str:
    lines = ["usage: python -m benchmarks <entry> [options]   (<entry> --help for its options)"]
    for title, entries in (("suites and tools", SUITES), ("experiments", EXPERIMENTS)):
        lines.append(f"\n{title}:")
        lines.extend(f"  {name:<20} {what}" for name, (_, what) in entries.items())
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    if argv[0] not in ENTRIES:
        print(f"unknown entry {argv[0]!r}\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(ENTRIES[argv[0]][0])
    return module.main(argv[1:]) or 0


if __name__ == "__main__":
    sys.exit(main())
