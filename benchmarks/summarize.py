"""Tables of mean (standard error) over splits from the JSON-lines results of the runners.

python benchmarks/summarize.py benchmarks/results/uci.jsonl
"""

import argparse
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.common import read_results  # noqa: E402

GROUP = ("dataset", "model", "implementation", "iterations", "batch_size", "beta")


def mean_and_error(values):
    values = np.asarray(values, dtype=float)
    error = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return f"{values.mean():.2f} ({error:.2f})"


def crps(records):
    values = [r.get("test_crps") for r in records]
    return mean_and_error(values) if all(v is not None for v in values) else "–"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+")
    args = parser.parse_args()
    groups = defaultdict(list)
    for path in args.results:
        for record in read_results(path):
            if "test_log_likelihood" not in record:
                continue  # not an accuracy record (speed runs share the folder)
            key = tuple(record.get(name) for name in GROUP)
            if record["model"] == "dspp2":  # β is chosen per split there, not a setting
                key = key[:-1] + (None,)
            groups[key].append(record)
    columns = (
        "dataset",
        "model",
        "implementation",
        "iterations",
        "β",
        "splits",
        "test log-lik",
        "test RMSE",
        "test CRPS",
    )
    print("| " + " | ".join(columns) + " | train s/split |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(groups, key=lambda k: tuple(str(v) for v in k)):
        records = sorted(groups[key], key=lambda r: r["split"])
        dataset, model, implementation, iterations, _, beta = key
        if model == "dspp2":
            beta = "chosen: " + ", ".join(str(r["beta"]) for r in records)
        print(
            f"| {dataset} | {model} | {implementation} | {iterations} | {beta if beta is not None else ''} | "
            f"{len(records)} ({records[0]['split']}–{records[-1]['split']}) | "
            f"{mean_and_error([r['test_log_likelihood'] for r in records])} | "
            f"{mean_and_error([r['test_rmse'] for r in records])} | "
            f"{crps(records)} | "
            f"{np.mean([r['train_seconds'] for r in records]):.0f} |"
        )


if __name__ == "__main__":
    main()
