"""Time per training step of a 2-layer DSPP: gpflow_deep beside GPyTorch, same run.

The GPyTorch comparison's setup (M=100, width 3, S=8, β=1, full batch, Adam, float64 in both),
the same inducing inputs, rounds alternating the libraries, medians kept. Example::

    python benchmarks/speed_dspp.py --steps 100 --rounds 3
"""

import argparse
import json
import os
import statistics
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

import gpflow_deep as gd  # noqa: E402
from benchmarks.common import RESULTS_DIR, append_result, machine, versions  # noqa: E402
from benchmarks.peers import gpytorch_dspp  # noqa: E402
from benchmarks.uci import GPYTORCH_SETUP  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["boston", "concrete"])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "speed.jsonl"))
    parser.add_argument("--label", default="cpu")
    args = parser.parse_args()
    torch.set_default_dtype(torch.float64)
    where, libraries = machine(), versions()
    for dataset in args.datasets:
        part = gd.datasets.uci_split(gd.datasets.load(dataset), 0)
        data = (part.X_train, part.Y_train)
        times = {"ours": [], "gpytorch": []}
        for _ in range(args.rounds):
            model = gd.build_dspp(*data, beta=1.0, **GPYTORCH_SETUP)
            times["gpytorch"].append(gpytorch_dspp.train(gpytorch_dspp.TwoLayerDSPP(model), *data, args.steps + 1, 1.0))
            times["ours"].append(gd.fit(model, data, args.steps + 1, progress=False).seconds_per_iteration)
        medians = {key: statistics.median(values) for key, values in times.items()}
        row = dict(
            kind="dspp_train_step",
            dataset=dataset,
            batch_size=len(part.X_train),
            steps=args.steps,
            rounds=args.rounds,
            seconds=medians,
            all_seconds=times,
            ratio_vs_gpytorch=medians["ours"] / medians["gpytorch"],
            label=args.label,
            machine=where,
            versions=libraries,
            command=" ".join(sys.argv),
        )
        append_result(args.results, row)
        print(json.dumps({k: row[k] for k in ("dataset", "seconds", "ratio_vs_gpytorch")}), flush=True)


if __name__ == "__main__":
    main()
