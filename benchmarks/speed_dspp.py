"""Time per training step of a 2-layer DSPP: gpflow_deep beside GPyTorch.

The GPyTorch comparison's setup (M=100, width 3, S=8, β=1, full batch, Adam, float64 in both),
the same inducing inputs. Each measurement runs in a process of its own, alternating the
libraries round by round (in one process, the thread pools of one library slow the other), and
the medians are kept. Example::

    python benchmarks/speed_dspp.py --steps 200 --rounds 5
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def measure(library: str, dataset: str, steps: int) -> float:
    """Seconds per step, the first (tracing) step excluded; runs in the calling process."""
    import torch

    import gpflow_deep as gd
    from benchmarks.peers import gpytorch_dspp
    from benchmarks.uci import GPYTORCH_SETUP

    torch.set_default_dtype(torch.float64)
    part = gd.datasets.uci_split(gd.datasets.load(dataset), 0)
    data = (part.X_train, part.Y_train)
    model = gd.build_dspp(*data, beta=1.0, **GPYTORCH_SETUP)
    if library == "gpytorch":
        return gpytorch_dspp.train(gpytorch_dspp.TwoLayerDSPP(model), *data, steps + 1, 1.0)
    return gd.fit(model, data, steps + 1, progress=False).seconds_per_iteration


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["boston", "concrete"])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--results", default=None)
    parser.add_argument("--label", default="cpu")
    parser.add_argument("--worker", choices=["ours", "gpytorch"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(measure(args.worker, args.datasets[0], args.steps))
        return

    from benchmarks.common import RESULTS_DIR, append_result, provenance

    results = args.results or os.path.join(RESULTS_DIR, "speed.jsonl")
    for dataset in args.datasets:
        times = {"ours": [], "gpytorch": []}
        for _ in range(args.rounds):
            for library in ("gpytorch", "ours"):
                worker = ["--worker", library, "--datasets", dataset, "--steps", str(args.steps)]
                command = [sys.executable, __file__, *worker]
                output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
                times[library].append(float(output.strip().splitlines()[-1]))
        medians = {key: statistics.median(values) for key, values in times.items()}
        row = dict(
            kind="dspp_train_step",
            dataset=dataset,
            steps=args.steps,
            rounds=args.rounds,
            seconds=medians,
            all_seconds=times,
            ratio_vs_gpytorch=medians["ours"] / medians["gpytorch"],
            label=args.label,
            **provenance(),
        )
        append_result(results, row)
        print(json.dumps({k: row[k] for k in ("dataset", "seconds", "all_seconds", "ratio_vs_gpytorch")}), flush=True)


if __name__ == "__main__":
    main()
